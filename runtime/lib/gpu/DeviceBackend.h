//===- DeviceBackend.h - libdsmprt's GPU backends ---------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A device artifact (manifest `device` line) runs through the backend of its
// GPU's vendor: CUDA's driver API (libcuda.so.1) or HIP (libamdhip64.so),
// each opened with dlopen on first use, so libdsmprt has no link-time
// dependency on either. One backend per vendor per process: the device's
// primary context and one stream, shared by every model on it (runs are
// serialized by `runLock`). The backend serves the generated code's mgpu*
// calls through the dsmp_gpu_api table (GpuLaunchApi.h): kernels are
// looked up by name in their code object, loaded on first use; buffers come
// from a cache of device allocations, reused in stream order.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_RUNTIME_GPU_DEVICEBACKEND_H
#define DSMP_RUNTIME_GPU_DEVICEBACKEND_H

#include "dsmp/runtime/GpuLaunchApi.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace dsmprt {

class DeviceBackend {
public:
  virtual ~DeviceBackend() = default;

  /// The process's backend for an artifact compiled for `device` (sm_80,
  /// gfx90a, ...), checked against the GPU it finds; null with the reason
  /// in `error` ("no CUDA driver ...", "no CUDA device", "compiled for
  /// sm_90; device 0 is sm_80 ...").
  static DeviceBackend *forDevice(const std::string &device,
                                  std::string &error);

  /// The GPU, as messages name it: "sm_90 (NVIDIA H200)".
  const std::string &description() const { return described; }

  /// The table model.so's launch shim forwards to.
  const dsmp_gpu_api *api() const { return &table; }

  /// Makes the device current on the calling thread; before any other call
  /// from a thread (a CUDA context is per thread).
  virtual bool enter(std::string &error) = 0;

  /// Device memory outside the buffer cache (weights, inputs, outputs);
  /// null with the reason in `error` when exhausted.
  void *allocate(size_t bytes, std::string &error);
  void release(void *pointer);
  bool upload(void *device, const void *host, size_t bytes, std::string &error);
  bool download(void *host, const void *device, size_t bytes,
                std::string &error);
  /// Waits for the queued work and returns the run's first error (a launch
  /// that failed names its kernel), then clears it.
  bool finish(std::string &error);
  /// Frees the cached buffers (after a run that failed for memory).
  void trimCache();

  /// Held for the whole of a run: one stream serves every model.
  std::mutex runLock;

protected:
  DeviceBackend();
  std::string described;

  // What each vendor provides. Errors are the API's text.
  virtual bool rawAllocate(size_t bytes, void **out, std::string &error) = 0;
  virtual void rawFree(void *pointer) = 0;
  virtual bool copyToDevice(void *dst, const void *src, size_t bytes,
                            std::string &error) = 0;
  virtual bool copyToHost(void *dst, const void *src, size_t bytes,
                          std::string &error) = 0;
  /// Any direction (unified addressing).
  virtual bool copyOnDevice(void *dst, const void *src, size_t bytes,
                            std::string &error) = 0;
  virtual bool fill(void *dst, unsigned value, unsigned width, size_t count,
                    std::string &error) = 0;
  virtual bool loadModule(const void *image, size_t size, void **module,
                          std::string &error) = 0;
  virtual bool getFunction(void *module, const char *name, void **function,
                           std::string &error) = 0;
  virtual bool launchKernel(void *function, const int64_t grid[3],
                            const int64_t block[3], int sharedBytes,
                            void **params, std::string &error) = 0;
  virtual bool synchronize(std::string &error) = 0;
  /// Queues C += A B through the vendor's GEMM library; false (with the
  /// reason) where there is none or it cannot take these arguments, and
  /// the generated kernel runs instead.
  virtual bool libraryGemm(const dsmp_gpu_gemm_args &args, std::string &error) {
    error = "no GEMM library";
    return false;
  }

  /// Keeps the first error of a run.
  void record(const std::string &message);

private:
  static void *apiGetFunction(void *self, const void *image,
                              unsigned long long size, const char *name);
  static void apiLaunch(void *self, void *function, long long gx, long long gy,
                        long long gz, long long bx, long long by, long long bz,
                        int shared, void **params);
  static void *apiAlloc(void *self, unsigned long long bytes);
  static void apiFree(void *self, void *pointer);
  static void apiCopy(void *self, void *dst, const void *src,
                      unsigned long long bytes);
  static void apiFill32(void *self, void *dst, unsigned value,
                        unsigned long long count);
  static void apiFill16(void *self, void *dst, unsigned short value,
                        unsigned long long count);
  static void apiSynchronize(void *self);
  static int apiGemm(void *self, const dsmp_gpu_gemm_args *args);

  dsmp_gpu_api table;
  std::string firstError;
  // Loaded code objects by image address, kernels by (image, name), and
  // their names by handle (for launch errors).
  std::map<const void *, void *> modules;
  std::map<std::pair<const void *, std::string>, void *> functions;
  std::map<void *, std::string> functionNames;
  // The buffer cache: freed buffers by size, and every buffer's size.
  std::multimap<size_t, void *> freeBuffers;
  std::map<void *, size_t> bufferSizes;
};

/// The vendors' backends (CudaBackend.cpp, HipBackend.cpp): null with the
/// reason when the library, a device or the right device is missing.
DeviceBackend *openCudaBackend(const std::string &device, std::string &error);
DeviceBackend *openHipBackend(const std::string &device, std::string &error);

} // namespace dsmprt

#endif // DSMP_RUNTIME_GPU_DEVICEBACKEND_H
