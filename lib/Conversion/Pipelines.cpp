//===- Pipelines.cpp - dsmp lowering pipelines ------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/Pipelines.h"

#include "lib/Conversion/Passes.h"

#include "dialects/Dsmp/Transforms/Passes.h"

#include "mlir/InitAllPasses.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include <mutex>

namespace mlir::dsmp {

namespace {

/// Registers the passes that the steps below name as mlir-opt names them,
/// in any program that builds these pipelines.
void registerNamedPasses() {
  static std::once_flag registered;
  std::call_once(registered, [] {
    mlir::registerAllPasses();
    registerDsmpConversionPasses();
  });
}

/// dsmp ops to linalg on tensors, elementwise chains fused; `hostLoops`
/// adds the loop orders that suit a CPU's caches and vectorizer.
LogicalResult addTensorSteps(OpPassManager &pm, bool generalize, bool hostLoops,
                             bool convAsGemm = false,
                             bool widen16BitGemm = false,
                             bool interleavedScans = false) {
  // dsmp ops become linalg/tensor/arith/math on the same tensors.
  // Adjoint graphs' MaxPool gradients as ops the lowering has.
  pm.addNestedPass<func::FuncOp>(createExpandMaxPoolGradPass());
  ConvertDsmpToLinalgPassOptions toLinalg;
  toLinalg.convAsGemm = convAsGemm;
  toLinalg.widen16BitGemm = widen16BitGemm;
  toLinalg.interleavedScans = interleavedScans;
  pm.addNestedPass<func::FuncOp>(createConvertDsmpToLinalgPass(toLinalg));
  if (generalize &&
      failed(parsePassPipeline("func.func(linalg-generalize-named-ops)", pm)))
    return failure();
  // Chains of elementwise ops (bias, activation, casts) become one loop
  // nest: no intermediate buffers. Each op's rounding stays in the body.
  pm.addNestedPass<func::FuncOp>(createFuseElementwisePass());
  // erf as arithmetic LLVM vectorizes, not a libm call per element.
  pm.addNestedPass<func::FuncOp>(createApproximateErfPass());
  if (hostLoops) {
    // Contiguous innermost loops, which LLVM vectorizes.
    pm.addNestedPass<func::FuncOp>(createOrderLoopsForLocalityPass());
    // Elementwise loops over contiguous dims as one long loop.
    pm.addNestedPass<func::FuncOp>(createCollapseContiguousLoopsPass());
  }
  // Padding: border fills only, the producer writing the interior.
  pm.addNestedPass<func::FuncOp>(createWriteIntoPaddingPass());
  return success();
}

/// Tensors to buffers, each intermediate buffer freed.
LogicalResult addBufferization(OpPassManager &pm, bool resultsToOutParams,
                               bool simplifyDeallocations) {
  // Upstream from here; by name, so the steps read like mlir-opt's.
  std::string outParams =
      resultsToOutParams
          ? "buffer-results-to-out-params{modify-public-functions},"
          : "";
  return parsePassPipeline(
      // Tensors become buffers, across function boundaries too, with
      // plain row-major layouts at the boundary.
      // A result inserted into a bigger tensor (a convolution's
      // output boxes, concatenation) is computed in place there.
      "eliminate-empty-tensors,"
      "one-shot-bufferize{bufferize-function-boundaries "
      "function-boundary-type-conversion=identity-layout-map}," +
          outParams +
          // Free every intermediate buffer (ownership-based): the steps
          // of upstream's buffer-deallocation-pipeline.
          "expand-realloc{emit-deallocs=false},canonicalize,"
          "ownership-based-buffer-deallocation,canonicalize," +
          (simplifyDeallocations
               ? std::string("buffer-deallocation-simplification,")
               : std::string()) +
          "bufferization-lower-deallocations," +
          // Returned buffers the function does not own are cloned (a
          // dynamic variant returns its outputs): clones to alloc + copy.
          (resultsToOutParams
               ? std::string()
               : std::string("convert-bufferization-to-memref,")) +
          "cse,canonicalize",
      pm);
}

} // namespace

LogicalResult
buildLowerToLLVMPipeline(OpPassManager &pm,
                         const LowerToLLVMPipelineOptions &options) {
  registerNamedPasses();
  // With a GEMM library, 16-bit contractions widen to its f32 GEMM.
  if (failed(addTensorSteps(pm, /*generalize=*/!options.useBlas,
                            /*hostLoops=*/true, /*convAsGemm=*/false,
                            /*widen16BitGemm=*/options.useBlas)))
    return failure();
  if (failed(addBufferization(pm, options.resultsToOutParams,
                              options.simplifyDeallocations)))
    return failure();
  // Each buffer freed after its last use: the next one of its size reuses
  // it while it is in cache.
  pm.addNestedPass<func::FuncOp>(createFreeBuffersAfterLastUsePass());
  if (options.useBlas)
    pm.addPass(
        createLinalgToBlasPass(LinalgToBlasPassOptions{options.blasApi}));
  // Strided copies as loops: no call into MLIR's runner library.
  pm.addNestedPass<func::FuncOp>(createExpandStridedCopiesPass());
  pm.addNestedPass<func::FuncOp>(createContiguousExpandShapesPass());
  // Plain loops (scf.parallel for the parallel dims when threads run
  // them); LLVM vectorizes the innermost.
  if (failed(parsePassPipeline(
          options.parallelLoops ? "func.func(convert-linalg-to-parallel-loops)"
                                : "func.func(convert-linalg-to-loops)",
          pm)))
    return failure();
  // One function per loop nest keeps LLVM's analyses linear.
  OutlineLoopNestsPassOptions outline;
  outline.splitParallel = options.parallelLoops;
  pm.addPass(createOutlineLoopNestsPass(outline));
  // The profiler's clock reads around each call (dsmp-compile --profile).
  if (!options.profileCounters.empty())
    pm.addPass(
        createTimeCallsPass(TimeCallsPassOptions{options.profileCounters}));
  // Buffers through the artifact's cache, or malloc/free.
  std::string finalizeMemRef =
      options.genericAllocation
          ? "finalize-memref-to-llvm{use-generic-functions},"
          : "finalize-memref-to-llvm,";
  // Outlined nests marked dsmp.fork run on libgomp's threads.
  std::string fork = options.parallelLoops ? ",dsmp-fork-loop-nests" : "";
  return parsePassPipeline(
      "convert-scf-to-cf,"
      // Memref metadata and affine maps that bufferization leaves.
      "expand-strided-metadata,lower-affine," +
          // Everything to the LLVM dialect.
          finalizeMemRef +
          // Math ops without an LLVM intrinsic (erf, ...) call libm.
          "convert-math-to-llvm,convert-math-to-libm,"
          // bf16: any arithmetic left computes in f32, and every conversion
          // is integer code (round to nearest even), not LLVM's
          // target-dependent bf16 lowering (round toward zero on AArch64
          // without +bf16).
          "arith-emulate-unsupported-floats{source-types=bf16 target-type=f32},"
          "arith-expand{include-bf16},"
          "convert-arith-to-llvm,"
          "convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts,"
          // Outlined loop nests whose buffers cannot overlap say so to LLVM.
          "dsmp-mark-noalias-pointers" +
          fork,
      pm);
}

bool isNvidiaChip(StringRef chip) { return chip.starts_with("sm_"); }
bool isAmdChip(StringRef chip) { return chip.starts_with("gfx"); }

LogicalResult
buildLowerToGPUPipeline(OpPassManager &pm,
                        const LowerToGPUPipelineOptions &options) {
  registerNamedPasses();
  bool nvidia = isNvidiaChip(options.chip), amd = isAmdChip(options.chip);
  if (!nvidia && !amd)
    return failure();
  // The tensor steps as on a CPU, but without the CPU's loop orders: each
  // kernel orders its threads itself. Convolutions are im2col GEMMs in
  // every format (the tensor cores' shape); matmuls are generics.
  if (failed(addTensorSteps(pm, /*generalize=*/true, /*hostLoops=*/false,
                            /*convAsGemm=*/true, /*widen16BitGemm=*/false,
                            /*interleavedScans=*/true)))
    return failure();
  // Matmuls on the matrix units: NVIDIA's tensor cores (f16, bf16, tf32;
  // f32 through cuBLASLt), AMD's MFMA (f16, bf16).
  SelectMMAMatmulsPassOptions select;
  select.amd = amd;
  pm.addNestedPass<func::FuncOp>(createSelectMMAMatmulsPass(select));
  // A result computed straight into its caller's buffer: no copy kernel.
  std::string outParams =
      options.resultsToOutParams
          ? "buffer-results-to-out-params{modify-public-functions "
            "hoist-static-allocs},"
          : "";
  // Bufferization as on a CPU, but the loops go to the device before the
  // deallocation is lowered: its ownership bookkeeping stays host code.
  if (failed(parsePassPipeline(
          "eliminate-empty-tensors,"
          "one-shot-bufferize{bufferize-function-boundaries "
          "function-boundary-type-conversion=identity-layout-map}," +
              outParams +
              "expand-realloc{emit-deallocs=false},canonicalize,"
              "ownership-based-buffer-deallocation,canonicalize,"
              "buffer-deallocation-simplification," +
              // The marked matmuls: library calls and matrix-unit kernels.
              std::string(nvidia ? "dsmp-matmul-to-mma,"
                                 : "dsmp-matmul-to-mma{amd},") +
              // Every copy as a loop: no host memcpy can reach device
              // buffers.
              "func.func(dsmp-expand-strided-copies{every-copy},"
              "convert-linalg-to-parallel-loops)",
          pm)))
    return failure();
  MapLoopsToGPUPassOptions map;
  map.threadsPerBlock = options.threadsPerBlock;
  pm.addNestedPass<func::FuncOp>(createMapLoopsToGPUPass(map));
  if (failed(parsePassPipeline("bufferization-lower-deallocations,cse,"
                               "canonicalize,"
                               "func.func(dsmp-free-device-buffers)",
                               pm)))
    return failure();
  std::string attach =
      nvidia ? "nvvm-attach-target{chip=" + options.chip.getValue() +
                   " features=+ptx80 O=3}"
             : "rocdl-attach-target{chip=" + options.chip.getValue() + " O=3}";
  // Device code: bf16 arithmetic computes in f32 and rounds once per op,
  // as on the host. AMD: math ops as LLVM intrinsics the backend expands,
  // so no ROCm device library is linked.
  std::string device =
      nvidia ? "dsmp-round-tf32-on-device,dsmp-expand-f8-extensions,"
               "arith-emulate-unsupported-floats{source-types=bf16 "
               "target-type=f32},"
               "convert-gpu-to-nvvm,"
             : "dsmp-expand-f8-extensions,"
               "arith-emulate-unsupported-floats{source-types=bf16 "
               "target-type=f32},arith-expand{include-bf16},"
               "math-expand-ops,convert-math-to-llvm,convert-gpu-to-rocdl,";
  std::string binary =
      "gpu-module-to-binary{format=" + options.binaryFormat.getValue() +
      (options.toolkit.empty() ? std::string()
                               : " toolkit=" + options.toolkit.getValue()) +
      "}";
  return parsePassPipeline(
      // One gpu.module per function (dsmp-map-loops-to-gpu named it).
      // Constants and index math the kernels use are computed in them.
      "gpu-launch-sink-index-computations,gpu-kernel-outlining," + attach +
          ","
          // Loops inside kernels as plain control flow.
          "scf-parallel-for-to-nested-fors,convert-scf-to-cf,"
          "expand-strided-metadata,lower-affine,"
          "gpu.module(" +
          device +
          "convert-index-to-llvm,convert-arith-to-llvm,"
          "canonicalize,cse,reconcile-unrealized-casts),"
          // The host: allocation, copies and launches through the mgpu*
          // entry points (libdsmprt's GPU backends serve them).
          "finalize-memref-to-llvm,convert-math-to-llvm,"
          "convert-arith-to-llvm,convert-index-to-llvm,convert-cf-to-llvm,"
          "convert-func-to-llvm,gpu-to-llvm,reconcile-unrealized-casts," +
          binary,
      pm);
}

void registerDsmpConversionPipelines() {
  PassPipelineRegistration<LowerToLLVMPipelineOptions>(
      "dsmp-lower-to-llvm",
      "Lower dsmp (static shapes) through linalg and bufferization to the "
      "LLVM dialect",
      [](OpPassManager &pm, const LowerToLLVMPipelineOptions &options) {
        (void)buildLowerToLLVMPipeline(pm, options);
      });
  PassPipelineRegistration<LowerToGPUPipelineOptions>(
      "dsmp-lower-to-gpu",
      "Lower dsmp (static shapes) through linalg and bufferization to GPU "
      "kernels (NVVM or ROCDL, serialized) and host code that launches them",
      [](OpPassManager &pm, const LowerToGPUPipelineOptions &options) {
        (void)buildLowerToGPUPipeline(pm, options);
      });
}

} // namespace mlir::dsmp
