/*===- gpu_launch_shim.c - mgpu* entry points of a device artifact -------===*\
|*                                                                            *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
|*===----------------------------------------------------------------------===*|
|*                                                                            *|
|* The host code of a device artifact (gpu-to-llvm's lowering) loads its     *|
|* kernels' code object from a constructor and calls mgpuModuleGetFunction,  *|
|* mgpuLaunchKernel, mgpuMemAlloc, ... (the names of MLIR's CUDA and ROCm     *|
|* runtime wrappers, which Debian does not ship). These definitions forward  *|
|* them to the table libdsmprt binds (GpuLaunchApi.h): the constructor runs  *|
|* at dlopen, before the runtime has bound anything, so a module "load" only *|
|* records where the image is; the backend loads it on first use.           *|
|* Streams are the backend's one stream: the runtime synchronizes after the  *|
|* entry point returns, and the code where it reads a value back.            *|
|*                                                                            *|
|* The build compiles it to LLVM IR once per CPU target; device artifacts    *|
|* link it (linkSharedLibrary in CPUTarget.cpp).                            *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "dsmp/runtime/GpuLaunchApi.h"

typedef __SIZE_TYPE__ size_t;
typedef __INTPTR_TYPE__ intptr_t;
typedef unsigned long long u64;
extern void *malloc(size_t);
extern void free(void *);

#define HIDDEN __attribute__((visibility("hidden")))
#define EXPORTED __attribute__((visibility("default")))

static const dsmp_gpu_api *api;

EXPORTED int dsmp_gpu_bind(const dsmp_gpu_api *table) {
  if (!table || table->version != DSMP_GPU_API_VERSION)
    return -1;
  api = table;
  return 0;
}

struct image {
  const void *data;
  u64 size;
};

HIDDEN void *mgpuModuleLoad(const void *data, size_t size) {
  struct image *image = (struct image *)malloc(sizeof *image);
  if (image) {
    image->data = data;
    image->size = size;
  }
  return image;
}

/* The backend keeps the loaded module until the model is freed. */
HIDDEN void mgpuModuleUnload(void *image) { free(image); }

HIDDEN void *mgpuModuleGetFunction(void *module, const char *name) {
  const struct image *image = (const struct image *)module;
  if (!api || !image)
    return 0;
  return api->get_function(api->backend, image->data, image->size, name);
}

HIDDEN void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                             intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                             intptr_t blockZ, int smem, void *stream,
                             void **params, void **extra, size_t count) {
  (void)stream;
  (void)extra;
  (void)count;
  if (api)
    api->launch(api->backend, function, gridX, gridY, gridZ, blockX, blockY,
                blockZ, smem, params);
}

HIDDEN void *mgpuStreamCreate(void) { return 0; }
HIDDEN void mgpuStreamDestroy(void *stream) { (void)stream; }
/* The host waits only where it reads back a value it needs (a branch on a
 * computed condition); allocation and launches are stream-ordered. */
HIDDEN void mgpuStreamSynchronize(void *stream) {
  (void)stream;
  if (api)
    api->synchronize(api->backend);
}
HIDDEN void mgpuSetDefaultDevice(int device) { (void)device; }

HIDDEN void *mgpuMemAlloc(u64 bytes, void *stream, _Bool hostShared) {
  (void)stream;
  (void)hostShared; /* never asked for: buffers are device memory */
  return api ? api->alloc(api->backend, bytes) : 0;
}

HIDDEN void mgpuMemFree(void *pointer, void *stream) {
  (void)stream;
  if (api)
    api->free(api->backend, pointer);
}

HIDDEN void mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream) {
  (void)stream;
  if (api)
    api->copy(api->backend, dst, src, bytes);
}

HIDDEN void mgpuMemset32(void *dst, unsigned value, size_t count,
                         void *stream) {
  (void)stream;
  if (api)
    api->fill32(api->backend, dst, value, count);
}

HIDDEN int dsmp_gpu_gemm(int format, long long a, long long b, long long c,
                         long long m, long long n, long long k, long long lda,
                         long long ldb, long long ldc, long long batch,
                         long long strideA, long long strideB,
                         long long strideC, int transA, int transB) {
  if (!api)
    return 0;
  dsmp_gpu_gemm_args args = {format,
                             (const void *)(intptr_t)a,
                             (const void *)(intptr_t)b,
                             (void *)(intptr_t)c,
                             m,
                             n,
                             k,
                             lda,
                             ldb,
                             ldc,
                             batch,
                             strideA,
                             strideB,
                             strideC,
                             transA,
                             transB};
  return api->gemm(api->backend, &args);
}

HIDDEN void mgpuMemset16(void *dst, unsigned short value, size_t count,
                         void *stream) {
  (void)stream;
  if (api)
    api->fill16(api->backend, dst, value, count);
}
