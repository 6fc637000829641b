//===- DeviceBackend.cpp - What every GPU backend shares --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "DeviceBackend.h"

#include <cstdlib>

namespace dsmprt {

namespace {
/// Buffers are rounded up to this, so that a cached one fits many sizes.
constexpr size_t kGranule = 512;
} // namespace

DeviceBackend *DeviceBackend::forDevice(const std::string &device,
                                        std::string &error) {
  // One per vendor, for the life of the process (the driver's contexts are
  // process-wide anyway); opened under a lock by the first model.
  static std::mutex openLock;
  static std::map<std::string, DeviceBackend *> opened;
  std::lock_guard<std::mutex> lock(openLock);
  bool nvidia = device.rfind("sm_", 0) == 0;
  bool amd = device.rfind("gfx", 0) == 0;
  if (!nvidia && !amd) {
    error = "unknown device '" + device + "'";
    return nullptr;
  }
  // The vendor's backend is opened once; each artifact's device is checked
  // against the GPU it found.
  std::string vendor = nvidia ? "cuda" : "hip";
  auto it = opened.find(vendor + ":" + device);
  if (it != opened.end())
    return it->second;
  DeviceBackend *backend =
      nvidia ? openCudaBackend(device, error) : openHipBackend(device, error);
  if (backend)
    opened[vendor + ":" + device] = backend;
  return backend;
}

DeviceBackend::DeviceBackend() {
  table.version = DSMP_GPU_API_VERSION;
  table.backend = this;
  table.get_function = apiGetFunction;
  table.launch = apiLaunch;
  table.alloc = apiAlloc;
  table.free = apiFree;
  table.copy = apiCopy;
  table.fill32 = apiFill32;
  table.fill16 = apiFill16;
  table.synchronize = apiSynchronize;
  table.gemm = apiGemm;
}

void DeviceBackend::record(const std::string &message) {
  if (firstError.empty())
    firstError = message;
}

void *DeviceBackend::allocate(size_t bytes, std::string &error) {
  void *pointer = nullptr;
  if (rawAllocate(std::max<size_t>(bytes, 1), &pointer, error))
    return pointer;
  // Cached buffers may be what is missing.
  trimCache();
  error.clear();
  if (rawAllocate(std::max<size_t>(bytes, 1), &pointer, error))
    return pointer;
  error = "cannot allocate " + std::to_string(bytes) + " bytes on " +
          described + ": " + error;
  return nullptr;
}

void DeviceBackend::release(void *pointer) {
  if (pointer)
    rawFree(pointer);
}

bool DeviceBackend::upload(void *device, const void *host, size_t bytes,
                           std::string &error) {
  return bytes == 0 || copyToDevice(device, host, bytes, error);
}

bool DeviceBackend::download(void *host, const void *device, size_t bytes,
                             std::string &error) {
  return bytes == 0 || copyToHost(host, device, bytes, error);
}

bool DeviceBackend::finish(std::string &error) {
  std::string syncError;
  if (!synchronize(syncError))
    record("the device failed while running: " + syncError);
  error = firstError;
  firstError.clear();
  return error.empty();
}

void DeviceBackend::trimCache() {
  for (auto &[size, pointer] : freeBuffers) {
    bufferSizes.erase(pointer);
    rawFree(pointer);
  }
  freeBuffers.clear();
}

void *DeviceBackend::apiGetFunction(void *self, const void *image,
                                    unsigned long long size, const char *name) {
  auto *b = static_cast<DeviceBackend *>(self);
  auto key = std::make_pair(image, std::string(name ? name : ""));
  auto found = b->functions.find(key);
  if (found != b->functions.end())
    return found->second;
  std::string error;
  void *&module = b->modules[image];
  if (!module && !b->loadModule(image, size, &module, error)) {
    module = nullptr;
    b->record("cannot load the kernels' code object on " + b->described + ": " +
              error);
    return nullptr;
  }
  void *function = nullptr;
  if (!b->getFunction(module, key.second.c_str(), &function, error)) {
    b->record("no kernel '" + key.second + "' in the code object: " + error);
    return nullptr;
  }
  b->functions[key] = function;
  b->functionNames[function] = key.second;
  return function;
}

void DeviceBackend::apiLaunch(void *self, void *function, long long gx,
                              long long gy, long long gz, long long bx,
                              long long by, long long bz, int shared,
                              void **params) {
  auto *b = static_cast<DeviceBackend *>(self);
  // After a failure the run's results are lost anyway: queue nothing more.
  if (!b->firstError.empty() || !function)
    return;
  const int64_t grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
  std::string error;
  if (!b->launchKernel(function, grid, block, shared, params, error)) {
    const std::string &name = b->functionNames[function];
    // Kernels are named kN_NODE after the ONNX node they compute.
    b->record("kernel '" + name + "' failed to launch (grid " +
              std::to_string(gx) + "x" + std::to_string(gy) + "x" +
              std::to_string(gz) + ", block " + std::to_string(bx) + "x" +
              std::to_string(by) + "x" + std::to_string(bz) + "): " + error);
  }
}

void *DeviceBackend::apiAlloc(void *self, unsigned long long bytes) {
  auto *b = static_cast<DeviceBackend *>(self);
  size_t size =
      (std::max<size_t>(bytes, 1) + kGranule - 1) / kGranule * kGranule;
  // Stream order makes a freed buffer safe to hand out again: every use
  // of it was queued before the work of its next owner.
  auto cached = b->freeBuffers.lower_bound(size);
  if (cached != b->freeBuffers.end() && cached->first <= size * 2) {
    void *pointer = cached->second;
    b->freeBuffers.erase(cached);
    return pointer;
  }
  void *pointer = nullptr;
  std::string error;
  if (!b->rawAllocate(size, &pointer, error)) {
    b->trimCache();
    error.clear();
    if (!b->rawAllocate(size, &pointer, error)) {
      b->record("cannot allocate " + std::to_string(bytes) +
                " bytes of device memory on " + b->described + ": " + error);
      return nullptr;
    }
  }
  b->bufferSizes[pointer] = size;
  return pointer;
}

void DeviceBackend::apiFree(void *self, void *pointer) {
  auto *b = static_cast<DeviceBackend *>(self);
  auto it = b->bufferSizes.find(pointer);
  if (it != b->bufferSizes.end())
    b->freeBuffers.emplace(it->second, pointer);
}

void DeviceBackend::apiCopy(void *self, void *dst, const void *src,
                            unsigned long long bytes) {
  auto *b = static_cast<DeviceBackend *>(self);
  std::string error;
  if (b->firstError.empty() && bytes &&
      !b->copyOnDevice(dst, src, bytes, error))
    b->record("a device copy failed: " + error);
}

void DeviceBackend::apiFill32(void *self, void *dst, unsigned value,
                              unsigned long long count) {
  auto *b = static_cast<DeviceBackend *>(self);
  std::string error;
  if (b->firstError.empty() && count && !b->fill(dst, value, 32, count, error))
    b->record("a device fill failed: " + error);
}

void DeviceBackend::apiFill16(void *self, void *dst, unsigned short value,
                              unsigned long long count) {
  auto *b = static_cast<DeviceBackend *>(self);
  std::string error;
  if (b->firstError.empty() && count && !b->fill(dst, value, 16, count, error))
    b->record("a device fill failed: " + error);
}

void DeviceBackend::apiSynchronize(void *self) {
  auto *b = static_cast<DeviceBackend *>(self);
  std::string error;
  if (!b->synchronize(error))
    b->record("the device failed while running: " + error);
}

int DeviceBackend::apiGemm(void *self, const dsmp_gpu_gemm_args *args) {
  auto *b = static_cast<DeviceBackend *>(self);
  // DSMP_GPU_GEMM=generated: the kernels dsmp generated, for comparison.
  static const bool generatedOnly = [] {
    const char *route = std::getenv("DSMP_GPU_GEMM");
    return route && std::string(route) == "generated";
  }();
  if (generatedOnly || !b->firstError.empty() || !args)
    return 0;
  std::string error;
  return b->libraryGemm(*args, error) ? 1 : 0;
}

} // namespace dsmprt
