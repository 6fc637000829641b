/*===- GpuLaunchApi.h - How a device artifact reaches its GPU -----*- C -*-===*\
|*                                                                            *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
|*===----------------------------------------------------------------------===*|
|*                                                                            *|
|* A device artifact's model.so launches its kernels through the mgpu* entry *|
|* points that MLIR's gpu-to-llvm lowering calls. The shim linked into it    *|
|* (lib/Target/CPU/gpu_launch_shim.c) forwards them to this table, which     *|
|* libdsmprt's GPU backend fills and hands over through dsmp_gpu_bind before *|
|* any entry point runs. model.so thus has no undefined symbol and no link-  *|
|* time dependency on a GPU library or on libdsmprt.                         *|
|*                                                                            *|
|* Plain C, no headers: the build compiles the shim for every CPU target.    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef DSMP_RUNTIME_GPULAUNCHAPI_H
#define DSMP_RUNTIME_GPULAUNCHAPI_H

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever the table changes; dsmp_gpu_bind refuses another. */
#define DSMP_GPU_API_VERSION 2u

/* The symbol model.so exports: int dsmp_gpu_bind(const dsmp_gpu_api *);
 * returns 0, or -1 for a table of another version. */
#define DSMP_GPU_BIND_SYMBOL "dsmp_gpu_bind"

/* The GEMM entry point the generated host code calls (the shim defines it):
 *   int dsmp_gpu_gemm(int format, i64 a, i64 b, i64 c, i64 m, i64 n, i64 k,
 *                     i64 lda, i64 ldb, i64 ldc, i64 batch, i64 stride_a,
 *                     i64 stride_b, i64 stride_c, int trans_a, int trans_b)
 * C[m, n] += op(A)[m, k] op(B)[k, n] per batch, row-major; addresses in
 * bytes, leading dims and strides in elements; returns 1 when a GEMM library
 * ran it, 0 when the caller must run its own kernel. */
#define DSMP_GPU_GEMM_SYMBOL "dsmp_gpu_gemm"
/* A and B in f32 (f32 arithmetic), f32 rounded to tf32 (tensor cores),
 * f16, bf16, or f8 (OCP E4M3 / E5M2 codes, sm_89 and up; their scales are
 * applied by the caller); C is f32 and accumulates in f32 in every format. */
#define DSMP_GPU_GEMM_F32 0
#define DSMP_GPU_GEMM_TF32 1
#define DSMP_GPU_GEMM_F16 2
#define DSMP_GPU_GEMM_BF16 3
#define DSMP_GPU_GEMM_F8E4M3 4
#define DSMP_GPU_GEMM_F8E5M2 5

typedef struct dsmp_gpu_gemm_args {
  int format;
  const void *a, *b;
  void *c;
  long long m, n, k, lda, ldb, ldc, batch, stride_a, stride_b, stride_c;
  int trans_a, trans_b;
} dsmp_gpu_gemm_args;

typedef struct dsmp_gpu_api {
  unsigned version; /* DSMP_GPU_API_VERSION */
  void *backend;    /* passed back as the first argument of each call */
  /* The kernel `name` of the code object `image` (`size` bytes), loaded on
   * first use; NULL when it cannot be (the backend records why). */
  void *(*get_function)(void *backend, const void *image,
                        unsigned long long size, const char *name);
  /* Queues one launch on the backend's stream; a failure is recorded and
   * reported when the run ends. */
  void (*launch)(void *backend, void *function, long long grid_x,
                 long long grid_y, long long grid_z, long long block_x,
                 long long block_y, long long block_z, int shared_bytes,
                 void **params);
  /* Device memory, stream-ordered (a freed buffer is reused by later work
   * on the same stream); NULL when exhausted (recorded). */
  void *(*alloc)(void *backend, unsigned long long bytes);
  void (*free)(void *backend, void *pointer);
  /* A copy between any two buffers (device or host; unified addressing)
   * and fills, on the stream. */
  void (*copy)(void *backend, void *dst, const void *src,
               unsigned long long bytes);
  void (*fill32)(void *backend, void *dst, unsigned value,
                 unsigned long long count);
  void (*fill16)(void *backend, void *dst, unsigned short value,
                 unsigned long long count);
  /* Waits for the stream: the host is about to read what it copied. */
  void (*synchronize)(void *backend);
  /* Queues C += A B through a GEMM library on the stream; 0 when there is
   * none (or DSMP_GPU_GEMM=generated asks for the generated kernels). */
  int (*gemm)(void *backend, const dsmp_gpu_gemm_args *args);
} dsmp_gpu_api;

#ifdef __cplusplus
}
#endif

#endif /* DSMP_RUNTIME_GPULAUNCHAPI_H */
