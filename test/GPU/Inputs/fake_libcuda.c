/* A stand-in for libcuda.so.1 on machines without an NVIDIA GPU: enough
 * of the driver API for libdsmprt's CUDA backend to reach each of its
 * errors. FAKE_CUDA says what this "driver" does:
 *   nodevice  cuInit reports CUDA_ERROR_NO_DEVICE
 *   sm80      one sm_80 device ("Fake A100"); memory is host memory
 *   oom       as sm80, but every allocation fails (out of memory)
 *   badlaunch as sm80, but every kernel launch fails (launch failed)
 * Kernels never run: the code objects are not looked at. */
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
enum { OK = 0, OUT_OF_MEMORY = 2, NO_DEVICE = 100, LAUNCH_FAILED = 719 };

static const char *mode(void) {
  const char *m = getenv("FAKE_CUDA");
  return m ? m : "sm80";
}

CUresult cuInit(unsigned flags) {
  (void)flags;
  return strcmp(mode(), "nodevice") == 0 ? NO_DEVICE : OK;
}
CUresult cuDeviceGetCount(int *count) {
  *count = 1;
  return OK;
}
CUresult cuDeviceGet(int *device, int ordinal) {
  *device = ordinal;
  return OK;
}
CUresult cuDeviceGetAttribute(int *value, int attribute, int device) {
  (void)device;
  *value = attribute == 75 ? 8 : 0; /* compute capability 8.0 */
  return OK;
}
CUresult cuDeviceGetName(char *name, int length, int device) {
  (void)device;
  strncpy(name, "Fake A100", length);
  return OK;
}
CUresult cuDevicePrimaryCtxRetain(void **context, int device) {
  (void)device;
  *context = (void *)1;
  return OK;
}
CUresult cuCtxSetCurrent(void *context) {
  (void)context;
  return OK;
}
CUresult cuStreamCreate(void **stream, unsigned flags) {
  (void)flags;
  *stream = (void *)1;
  return OK;
}
CUresult cuStreamSynchronize(void *stream) {
  (void)stream;
  return OK;
}
CUresult cuModuleLoadData(void **module, const void *image) {
  (void)image;
  *module = (void *)1;
  return OK;
}
CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  (void)module;
  *function = (void *)strdup(name);
  return OK;
}
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned smem,
                        void *stream, void **params, void **extra) {
  (void)f;
  (void)gx;
  (void)gy;
  (void)gz;
  (void)bx;
  (void)by;
  (void)bz;
  (void)smem;
  (void)stream;
  (void)params;
  (void)extra;
  return strcmp(mode(), "badlaunch") == 0 ? LAUNCH_FAILED : OK;
}
CUresult cuMemAlloc_v2(unsigned long long *pointer, size_t bytes) {
  if (strcmp(mode(), "oom") == 0)
    return OUT_OF_MEMORY;
  /* Zeroed: the kernels that would fill buffers never run here. */
  *pointer = (unsigned long long)calloc(1, bytes ? bytes : 1);
  return OK;
}
CUresult cuMemFree_v2(unsigned long long pointer) {
  free((void *)pointer);
  return OK;
}
CUresult cuMemcpyHtoDAsync_v2(unsigned long long dst, const void *src,
                              size_t bytes, void *stream) {
  (void)stream;
  memcpy((void *)dst, src, bytes);
  return OK;
}
CUresult cuMemcpyDtoHAsync_v2(void *dst, unsigned long long src, size_t bytes,
                              void *stream) {
  (void)stream;
  memcpy(dst, (void *)src, bytes);
  return OK;
}
CUresult cuMemcpyAsync(unsigned long long dst, unsigned long long src,
                       size_t bytes, void *stream) {
  (void)stream;
  memcpy((void *)dst, (void *)src, bytes);
  return OK;
}
CUresult cuMemsetD32Async(unsigned long long dst, unsigned value, size_t n,
                          void *stream) {
  (void)stream;
  for (size_t i = 0; i < n; ++i)
    ((unsigned *)dst)[i] = value;
  return OK;
}
CUresult cuMemsetD16Async(unsigned long long dst, unsigned short value,
                          size_t n, void *stream) {
  (void)stream;
  for (size_t i = 0; i < n; ++i)
    ((unsigned short *)dst)[i] = value;
  return OK;
}
CUresult cuGetErrorString(CUresult error, const char **text) {
  *text = error == OUT_OF_MEMORY   ? "out of memory"
          : error == LAUNCH_FAILED ? "unspecified launch failure"
          : error == NO_DEVICE     ? "no CUDA-capable device is detected"
                                   : "unknown error";
  return OK;
}
