//===- HipBackend.cpp - Device artifacts on AMD GPUs ------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// HIP's module API, opened with dlopen (libamdhip64.so, .so.6 or .so.5): a
// HSACO code object loads with hipModuleLoadData, which refuses one built
// for another gfx architecture. The declarations below are the few this
// backend calls; HIP's enums are plain ints at this ABI.
//
//===----------------------------------------------------------------------===//

#include "DeviceBackend.h"

#include <dlfcn.h>

namespace dsmprt {

namespace {

using hipError_t = int;
using hipModule_t = void *;
using hipFunction_t = void *;
using hipStream_t = void *;

constexpr hipError_t kSuccess = 0;
constexpr hipError_t kNoDevice = 100;
constexpr hipError_t kNoBinaryForGpu = 209;
constexpr int kMemcpyDefault = 4; // hipMemcpyDefault: direction from pointers

struct HipApi {
  hipError_t (*hipInit)(unsigned);
  hipError_t (*hipGetDeviceCount)(int *);
  hipError_t (*hipSetDevice)(int);
  hipError_t (*hipDeviceGetName)(char *, int, int);
  hipError_t (*hipStreamCreate)(hipStream_t *);
  hipError_t (*hipStreamSynchronize)(hipStream_t);
  hipError_t (*hipModuleLoadData)(hipModule_t *, const void *);
  hipError_t (*hipModuleGetFunction)(hipFunction_t *, hipModule_t,
                                     const char *);
  hipError_t (*hipModuleLaunchKernel)(hipFunction_t, unsigned, unsigned,
                                      unsigned, unsigned, unsigned, unsigned,
                                      unsigned, hipStream_t, void **, void **);
  hipError_t (*hipMalloc)(void **, size_t);
  hipError_t (*hipFree)(void *);
  hipError_t (*hipMemcpyHtoDAsync)(void *, void *, size_t, hipStream_t);
  hipError_t (*hipMemcpyDtoHAsync)(void *, void *, size_t, hipStream_t);
  hipError_t (*hipMemcpyAsync)(void *, const void *, size_t, int, hipStream_t);
  hipError_t (*hipMemsetD32Async)(void *, int, size_t, hipStream_t);
  hipError_t (*hipMemsetD16Async)(void *, unsigned short, size_t, hipStream_t);
  const char *(*hipGetErrorString)(hipError_t);
};

bool resolve(void *library, HipApi &api, std::string &missing) {
#define DSMP_RESOLVE(name)                                                     \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(library, #name));      \
  if (!api.name) {                                                             \
    missing = #name;                                                           \
    return false;                                                              \
  }
  DSMP_RESOLVE(hipInit)
  DSMP_RESOLVE(hipGetDeviceCount)
  DSMP_RESOLVE(hipSetDevice)
  DSMP_RESOLVE(hipDeviceGetName)
  DSMP_RESOLVE(hipStreamCreate)
  DSMP_RESOLVE(hipStreamSynchronize)
  DSMP_RESOLVE(hipModuleLoadData)
  DSMP_RESOLVE(hipModuleGetFunction)
  DSMP_RESOLVE(hipModuleLaunchKernel)
  DSMP_RESOLVE(hipMalloc)
  DSMP_RESOLVE(hipFree)
  DSMP_RESOLVE(hipMemcpyHtoDAsync)
  DSMP_RESOLVE(hipMemcpyDtoHAsync)
  DSMP_RESOLVE(hipMemcpyAsync)
  DSMP_RESOLVE(hipMemsetD32Async)
  DSMP_RESOLVE(hipMemsetD16Async)
  DSMP_RESOLVE(hipGetErrorString)
#undef DSMP_RESOLVE
  return true;
}

class HipBackend final : public DeviceBackend {
public:
  HipBackend(const HipApi &api, hipStream_t stream, std::string device,
             std::string described)
      : api(api), stream(stream), device(std::move(device)) {
    this->described = std::move(described);
  }

private:
  bool check(hipError_t result, const char *what, std::string &error) const {
    if (result == kSuccess)
      return true;
    const char *text = api.hipGetErrorString(result);
    error = std::string(what) + ": " + (text ? text : "error") + " (" +
            std::to_string(result) + ")";
    return false;
  }
  static void *mutable_(const void *pointer) {
    return const_cast<void *>(pointer);
  }

  bool enter(std::string &error) override {
    return check(api.hipSetDevice(0), "hipSetDevice", error);
  }
  bool rawAllocate(size_t bytes, void **out, std::string &error) override {
    return check(api.hipMalloc(out, bytes), "hipMalloc", error);
  }
  void rawFree(void *pointer) override {
    api.hipStreamSynchronize(stream);
    api.hipFree(pointer);
  }
  bool copyToDevice(void *dst, const void *src, size_t bytes,
                    std::string &error) override {
    return check(api.hipMemcpyHtoDAsync(dst, mutable_(src), bytes, stream),
                 "hipMemcpyHtoD", error);
  }
  bool copyToHost(void *dst, const void *src, size_t bytes,
                  std::string &error) override {
    return check(api.hipMemcpyDtoHAsync(dst, mutable_(src), bytes, stream),
                 "hipMemcpyDtoH", error);
  }
  bool copyOnDevice(void *dst, const void *src, size_t bytes,
                    std::string &error) override {
    return check(api.hipMemcpyAsync(dst, src, bytes, kMemcpyDefault, stream),
                 "hipMemcpy", error);
  }
  bool fill(void *dst, unsigned value, unsigned width, size_t count,
            std::string &error) override {
    return width == 32
               ? check(api.hipMemsetD32Async(dst, static_cast<int>(value),
                                             count, stream),
                       "hipMemsetD32", error)
               : check(api.hipMemsetD16Async(dst,
                                             static_cast<unsigned short>(value),
                                             count, stream),
                       "hipMemsetD16", error);
  }
  bool loadModule(const void *image, size_t, void **module,
                  std::string &error) override {
    hipError_t result = api.hipModuleLoadData(module, image);
    if (result == kNoBinaryForGpu) {
      error = "the code object is for " + device + ", not this GPU";
      return false;
    }
    return check(result, "hipModuleLoadData", error);
  }
  bool getFunction(void *module, const char *name, void **function,
                   std::string &error) override {
    return check(api.hipModuleGetFunction(function, module, name),
                 "hipModuleGetFunction", error);
  }
  bool launchKernel(void *function, const int64_t grid[3],
                    const int64_t block[3], int sharedBytes, void **params,
                    std::string &error) override {
    for (int i = 0; i < 3; ++i)
      if (grid[i] < 1 || grid[i] > 0x7fffffff || block[i] < 1 ||
          block[i] > 1024) {
        error = "launch dimensions out of range";
        return false;
      }
    return check(api.hipModuleLaunchKernel(
                     function, unsigned(grid[0]), unsigned(grid[1]),
                     unsigned(grid[2]), unsigned(block[0]), unsigned(block[1]),
                     unsigned(block[2]), unsigned(sharedBytes), stream, params,
                     nullptr),
                 "hipModuleLaunchKernel", error);
  }
  bool synchronize(std::string &error) override {
    return check(api.hipStreamSynchronize(stream), "hipStreamSynchronize",
                 error);
  }

  HipApi api;
  hipStream_t stream;
  std::string device;
};

} // namespace

DeviceBackend *openHipBackend(const std::string &device, std::string &error) {
  void *library = nullptr;
  for (const char *name :
       {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"})
    if ((library = dlopen(name, RTLD_NOW | RTLD_LOCAL)))
      break;
  if (!library) {
    error = "no HIP runtime: cannot load libamdhip64.so (ROCm's HIP runtime "
            "and an AMD GPU driver are needed)";
    return nullptr;
  }
  HipApi api{};
  std::string missing;
  if (!resolve(library, api, missing)) {
    error = "no HIP runtime: libamdhip64.so has no " + missing;
    return nullptr;
  }
  hipError_t init = api.hipInit(0);
  int count = 0;
  if (init == kNoDevice ||
      (init == kSuccess &&
       (api.hipGetDeviceCount(&count) != kSuccess || count == 0))) {
    error = "no HIP device";
    return nullptr;
  }
  if (init != kSuccess) {
    const char *text = api.hipGetErrorString(init);
    error = std::string("no HIP runtime: hipInit failed: ") +
            (text ? text : "error");
    return nullptr;
  }
  char name[256] = {};
  api.hipDeviceGetName(name, sizeof name - 1, 0);
  hipStream_t stream = nullptr;
  if (api.hipSetDevice(0) != kSuccess ||
      api.hipStreamCreate(&stream) != kSuccess) {
    error = std::string("cannot set up HIP device 0 (") + name + ")";
    return nullptr;
  }
  // The architecture is checked when the code object loads
  // (hipErrorNoBinaryForGpu names it).
  return new HipBackend(api, stream, device, std::string(name));
}

} // namespace dsmprt
