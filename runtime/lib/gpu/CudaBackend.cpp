//===- CudaBackend.cpp - Device artifacts on NVIDIA GPUs --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// CUDA's driver API, opened with dlopen("libcuda.so.1"): the declarations
// below are the few this backend calls (their ABI is stable since CUDA 4).
// Device memory is cuMemAlloc (never managed memory); a fatbin loads with
// cuModuleLoadData, which picks the SASS for the chip or compiles the PTX
// for a newer one.
//
//===----------------------------------------------------------------------===//

#include "DeviceBackend.h"

#include <cstdint>
#include <cstdlib>
#include <dlfcn.h>

namespace dsmprt {

namespace {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUstream = void *;

constexpr CUresult kSuccess = 0;
constexpr CUresult kNoDevice = 100;
constexpr CUresult kStubLibrary = 34;
constexpr int kComputeCapabilityMajor = 75;
constexpr int kComputeCapabilityMinor = 76;

struct DriverApi {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuStreamCreate)(CUstream *, unsigned);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CUstream, void **,
                             void **);
  CUresult (*cuMemAlloc_v2)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree_v2)(CUdeviceptr);
  CUresult (*cuMemcpyHtoDAsync_v2)(CUdeviceptr, const void *, size_t, CUstream);
  CUresult (*cuMemcpyDtoHAsync_v2)(void *, CUdeviceptr, size_t, CUstream);
  CUresult (*cuMemcpyAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*cuMemsetD32Async)(CUdeviceptr, unsigned, size_t, CUstream);
  CUresult (*cuMemsetD16Async)(CUdeviceptr, unsigned short, size_t, CUstream);
  CUresult (*cuGetErrorString)(CUresult, const char **);
};

/// Resolves every entry point, or names the first one missing.
bool resolve(void *library, DriverApi &api, std::string &missing) {
#define DSMP_RESOLVE(name)                                                     \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(library, #name));      \
  if (!api.name) {                                                             \
    missing = #name;                                                           \
    return false;                                                              \
  }
  DSMP_RESOLVE(cuInit)
  DSMP_RESOLVE(cuDeviceGetCount)
  DSMP_RESOLVE(cuDeviceGet)
  DSMP_RESOLVE(cuDeviceGetAttribute)
  DSMP_RESOLVE(cuDeviceGetName)
  DSMP_RESOLVE(cuDevicePrimaryCtxRetain)
  DSMP_RESOLVE(cuCtxSetCurrent)
  DSMP_RESOLVE(cuStreamCreate)
  DSMP_RESOLVE(cuStreamSynchronize)
  DSMP_RESOLVE(cuModuleLoadData)
  DSMP_RESOLVE(cuModuleGetFunction)
  DSMP_RESOLVE(cuLaunchKernel)
  DSMP_RESOLVE(cuMemAlloc_v2)
  DSMP_RESOLVE(cuMemFree_v2)
  DSMP_RESOLVE(cuMemcpyHtoDAsync_v2)
  DSMP_RESOLVE(cuMemcpyDtoHAsync_v2)
  DSMP_RESOLVE(cuMemcpyAsync)
  DSMP_RESOLVE(cuMemsetD32Async)
  DSMP_RESOLVE(cuMemsetD16Async)
  DSMP_RESOLVE(cuGetErrorString)
#undef DSMP_RESOLVE
  return true;
}

/// cuBLASLt, opened on the first GEMM (libcublasLt.so.13, .12 or .so).
struct BlasLtApi {
  int (*cublasLtCreate)(void **);
  int (*cublasLtMatmulDescCreate)(void **, int, int);
  int (*cublasLtMatmulDescDestroy)(void *);
  int (*cublasLtMatmulDescSetAttribute)(void *, int, const void *, size_t);
  int (*cublasLtMatrixLayoutCreate)(void **, int, uint64_t, uint64_t, int64_t);
  int (*cublasLtMatrixLayoutDestroy)(void *);
  int (*cublasLtMatrixLayoutSetAttribute)(void *, int, const void *, size_t);
  int (*cublasLtMatmul)(void *, void *, const void *, const void *, void *,
                        const void *, void *, const void *, const void *,
                        void *, void *, void *, const void *, void *, size_t,
                        CUstream);
};

// cuBLAS's enums (cublasLt.h, cublas_api.h, library_types.h).
constexpr int kComputeF32 = 68, kComputeF32FastTF32 = 77;
constexpr int kDataF32 = 0, kDataF16 = 2, kDataBF16 = 14;
// cudaDataType's CUDA_R_8F_E4M3 and CUDA_R_8F_E5M2.
constexpr int kDataF8E4M3 = 28, kDataF8E5M2 = 29;
constexpr int kDescTransA = 3, kDescTransB = 4;
constexpr int kLayoutBatchCount = 5, kLayoutBatchStride = 6;
constexpr int kOpN = 0, kOpT = 1;
constexpr size_t kWorkspaceBytes = 32u << 20;

bool resolveBlasLt(void *library, BlasLtApi &api) {
#define DSMP_RESOLVE(name)                                                     \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(library, #name));      \
  if (!api.name)                                                               \
    return false;
  DSMP_RESOLVE(cublasLtCreate)
  DSMP_RESOLVE(cublasLtMatmulDescCreate)
  DSMP_RESOLVE(cublasLtMatmulDescDestroy)
  DSMP_RESOLVE(cublasLtMatmulDescSetAttribute)
  DSMP_RESOLVE(cublasLtMatrixLayoutCreate)
  DSMP_RESOLVE(cublasLtMatrixLayoutDestroy)
  DSMP_RESOLVE(cublasLtMatrixLayoutSetAttribute)
  DSMP_RESOLVE(cublasLtMatmul)
#undef DSMP_RESOLVE
  return true;
}

class CudaBackend final : public DeviceBackend {
public:
  CudaBackend(const DriverApi &api, CUcontext context, CUstream stream,
              std::string described)
      : api(api), context(context), stream(stream) {
    this->described = std::move(described);
  }

private:
  bool check(CUresult result, const char *what, std::string &error) const {
    if (result == kSuccess)
      return true;
    const char *text = nullptr;
    api.cuGetErrorString(result, &text);
    error = std::string(what) + ": " + (text ? text : "error") + " (" +
            std::to_string(result) + ")";
    return false;
  }
  static CUdeviceptr address(const void *pointer) {
    return reinterpret_cast<CUdeviceptr>(pointer);
  }

  bool enter(std::string &error) override {
    return check(api.cuCtxSetCurrent(context), "cuCtxSetCurrent", error);
  }
  bool rawAllocate(size_t bytes, void **out, std::string &error) override {
    CUdeviceptr pointer = 0;
    if (!check(api.cuMemAlloc_v2(&pointer, bytes), "cuMemAlloc", error))
      return false;
    *out = reinterpret_cast<void *>(pointer);
    return true;
  }
  void rawFree(void *pointer) override {
    // Pending work may still read it.
    api.cuStreamSynchronize(stream);
    api.cuMemFree_v2(address(pointer));
  }
  bool copyToDevice(void *dst, const void *src, size_t bytes,
                    std::string &error) override {
    return check(api.cuMemcpyHtoDAsync_v2(address(dst), src, bytes, stream),
                 "cuMemcpyHtoD", error);
  }
  bool copyToHost(void *dst, const void *src, size_t bytes,
                  std::string &error) override {
    return check(api.cuMemcpyDtoHAsync_v2(dst, address(src), bytes, stream),
                 "cuMemcpyDtoH", error);
  }
  bool copyOnDevice(void *dst, const void *src, size_t bytes,
                    std::string &error) override {
    return check(api.cuMemcpyAsync(address(dst), address(src), bytes, stream),
                 "cuMemcpy", error);
  }
  bool fill(void *dst, unsigned value, unsigned width, size_t count,
            std::string &error) override {
    return width == 32
               ? check(api.cuMemsetD32Async(address(dst), value, count, stream),
                       "cuMemsetD32", error)
               : check(api.cuMemsetD16Async(address(dst),
                                            static_cast<unsigned short>(value),
                                            count, stream),
                       "cuMemsetD16", error);
  }
  bool loadModule(const void *image, size_t, void **module,
                  std::string &error) override {
    return check(api.cuModuleLoadData(module, image), "cuModuleLoadData",
                 error);
  }
  bool getFunction(void *module, const char *name, void **function,
                   std::string &error) override {
    return check(api.cuModuleGetFunction(function, module, name),
                 "cuModuleGetFunction", error);
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
    return check(api.cuLaunchKernel(function, unsigned(grid[0]),
                                    unsigned(grid[1]), unsigned(grid[2]),
                                    unsigned(block[0]), unsigned(block[1]),
                                    unsigned(block[2]), unsigned(sharedBytes),
                                    stream, params, nullptr),
                 "cuLaunchKernel", error);
  }
  bool synchronize(std::string &error) override {
    return check(api.cuStreamSynchronize(stream), "cuStreamSynchronize", error);
  }

  /// Opens cuBLASLt and its workspace once; false when it is missing.
  bool openBlasLt(std::string &error) {
    if (blasTried)
      return blasHandle != nullptr;
    blasTried = true;
    void *library = nullptr;
    for (const char *name :
         {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"})
      if ((library = dlopen(name, RTLD_NOW | RTLD_LOCAL)))
        break;
    if (!library || !resolveBlasLt(library, blas) ||
        blas.cublasLtCreate(&blasHandle) != 0) {
      blasHandle = nullptr;
      error = "no cuBLASLt";
      return false;
    }
    if (!rawAllocate(kWorkspaceBytes, &workspace, error)) {
      blasHandle = nullptr;
      return false;
    }
    return true;
  }

  // Row-major C[m, n] += op(A)[m, k] op(B)[k, n] is, in cuBLAS's column
  // order, C^T += op(B)^T op(A)^T: B's memory is the first operand.
  bool libraryGemm(const dsmp_gpu_gemm_args &g, std::string &error) override {
    bool f8 =
        g.format == DSMP_GPU_GEMM_F8E4M3 || g.format == DSMP_GPU_GEMM_F8E5M2;
    // cuBLASLt's FP8 GEMMs take only the "TN" form (its first operand
    // transposed: a row-major B stored [n, k], as a Linear layer's weight),
    // k and the leading dims in multiples of 16, and not E5M2 x E5M2;
    // anything else runs the generated loops.
    if (f8 && (!g.trans_b || g.trans_a || g.k % 16 || g.lda % 16 ||
               g.ldb % 16 || g.format == DSMP_GPU_GEMM_F8E5M2)) {
      error = "cuBLASLt's FP8 GEMMs need B transposed, k and the leading "
              "dims in multiples of 16 and E4M3 operands";
      return false;
    }
    if (!openBlasLt(error))
      return false;
    int data = g.format == DSMP_GPU_GEMM_F16      ? kDataF16
               : g.format == DSMP_GPU_GEMM_BF16   ? kDataBF16
               : g.format == DSMP_GPU_GEMM_F8E4M3 ? kDataF8E4M3
               : g.format == DSMP_GPU_GEMM_F8E5M2 ? kDataF8E5M2
                                                  : kDataF32;
    int compute =
        g.format == DSMP_GPU_GEMM_TF32 ? kComputeF32FastTF32 : kComputeF32;
    void *desc = nullptr, *first = nullptr, *second = nullptr,
         *result = nullptr;
    int opFirst = g.trans_b ? kOpT : kOpN, opSecond = g.trans_a ? kOpT : kOpN;
    auto layout = [&](void **out, int type, long long rows, long long cols,
                      long long ld, long long stride) {
      if (blas.cublasLtMatrixLayoutCreate(out, type, rows, cols, ld) != 0)
        return false;
      if (g.batch <= 1)
        return true;
      int32_t count = static_cast<int32_t>(g.batch);
      int64_t offset = stride;
      return blas.cublasLtMatrixLayoutSetAttribute(*out, kLayoutBatchCount,
                                                   &count, sizeof count) == 0 &&
             blas.cublasLtMatrixLayoutSetAttribute(*out, kLayoutBatchStride,
                                                   &offset, sizeof offset) == 0;
    };
    bool ok = blas.cublasLtMatmulDescCreate(&desc, compute, kDataF32) == 0 &&
              blas.cublasLtMatmulDescSetAttribute(desc, kDescTransA, &opFirst,
                                                  sizeof opFirst) == 0 &&
              blas.cublasLtMatmulDescSetAttribute(desc, kDescTransB, &opSecond,
                                                  sizeof opSecond) == 0 &&
              layout(&first, data, g.trans_b ? g.k : g.n, g.trans_b ? g.n : g.k,
                     g.ldb, g.stride_b) &&
              layout(&second, data, g.trans_a ? g.m : g.k,
                     g.trans_a ? g.k : g.m, g.lda, g.stride_a) &&
              layout(&result, kDataF32, g.n, g.m, g.ldc, g.stride_c);
    const float one = 1.0f;
    // No algorithm given: cuBLASLt's heuristic picks one.
    ok = ok &&
         blas.cublasLtMatmul(blasHandle, desc, &one, g.b, first, g.a, second,
                             &one, g.c, result, g.c, result, nullptr, workspace,
                             kWorkspaceBytes, stream) == 0;
    for (void *l : {first, second, result})
      if (l)
        blas.cublasLtMatrixLayoutDestroy(l);
    if (desc)
      blas.cublasLtMatmulDescDestroy(desc);
    if (!ok)
      error = "cuBLASLt refused this GEMM";
    return ok;
  }

  DriverApi api;
  BlasLtApi blas{};
  bool blasTried = false;
  void *blasHandle = nullptr;
  void *workspace = nullptr;
  CUcontext context;
  CUstream stream;
};

} // namespace

DeviceBackend *openCudaBackend(const std::string &device, std::string &error) {
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    error = std::string("no CUDA driver: cannot load libcuda.so.1 (") +
            (why ? why : "not found") + ")";
    return nullptr;
  }
  DriverApi api{};
  std::string missing;
  if (!resolve(library, api, missing)) {
    error = "no CUDA driver: libcuda.so.1 has no " + missing;
    return nullptr;
  }
  CUresult init = api.cuInit(0);
  if (init == kStubLibrary) {
    error = "no CUDA driver: libcuda.so.1 is the CUDA toolkit's stub, not a "
            "driver";
    return nullptr;
  }
  int count = 0;
  if (init == kNoDevice ||
      (init == kSuccess &&
       (api.cuDeviceGetCount(&count) != kSuccess || count == 0))) {
    error = "no CUDA device";
    return nullptr;
  }
  if (init != kSuccess) {
    const char *text = nullptr;
    api.cuGetErrorString(init, &text);
    error = std::string("no CUDA driver: cuInit failed: ") +
            (text ? text : "error") + " (" + std::to_string(init) + ")";
    return nullptr;
  }
  // Device 0 (CUDA_VISIBLE_DEVICES picks which one that is).
  CUdevice handle = 0;
  int major = 0, minor = 0;
  char name[256] = {};
  api.cuDeviceGet(&handle, 0);
  api.cuDeviceGetAttribute(&major, kComputeCapabilityMajor, handle);
  api.cuDeviceGetAttribute(&minor, kComputeCapabilityMinor, handle);
  api.cuDeviceGetName(name, sizeof name - 1, handle);
  std::string chip = "sm_" + std::to_string(major * 10 + minor);
  std::string described = chip + " (" + name + ")";
  // SASS for the artifact's chip, PTX the driver compiles for any newer.
  int wanted = std::atoi(device.c_str() + 3);
  if (major * 10 + minor < wanted) {
    error = "compiled for " + device + "; CUDA device 0 is " + described +
            ", which cannot run it (recompile with --target=" + chip + ")";
    return nullptr;
  }
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  if (api.cuDevicePrimaryCtxRetain(&context, handle) != kSuccess ||
      api.cuCtxSetCurrent(context) != kSuccess ||
      api.cuStreamCreate(&stream, 0) != kSuccess) {
    error = "cannot set up CUDA device 0 (" + described + ")";
    return nullptr;
  }
  return new CudaBackend(api, context, stream, described);
}

} // namespace dsmprt
