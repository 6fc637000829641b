//===- Passes.td - dsmp conversion passes ------------------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_CONVERSION_PASSES_TD
#define DSMP_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertDsmpToLinalgPass
    : Pass<"dsmp-convert-to-linalg", "mlir::func::FuncOp"> {
  let summary = "Lower dsmp ops to linalg, tensor, arith and math";
  let description = [{
    Pre-condition: dsmp ops on ranked tensors with static shapes; constants
    hold their values (run `dsmp-load-weights` first for `#dsmp.external`
    weights).

    Post-condition: the supported ops (elementwise arithmetic and
    activations with ONNX broadcasting: the trigonometric, inverse and
    hyperbolic functions, Celu, Elu, Selu, Gelu, Mish, Softplus, Softsign,
    HardSwish, Shrink, ThresholdedRelu, PRelu, Round, Sign, IsNaN, IsInf,
    Mod, Mean; comparisons, And/Or/Xor/Not, Where, Clip, Cast, Dropout at
    inference, Gemm, MatMul, Einsum (any equation: one generic over its
    labels), grouped N-d Conv, MaxPool, AveragePool (also
    SAME auto_pad and ceil_mode), ConvTranspose (one group; pads, output_shape
    or SAME auto_pad), Resize (nearest with constant scales/sizes; linear
    and cubic with any scales, the four usual coordinate transforms), Pad (constant/edge/reflect/wrap with
    constant pads), If with static result shapes (scf.if),
    GlobalAveragePool, GlobalMaxPool, Softmax, LogSoftmax, Hardmax, every
    Reduce over constant (or no) axes, ArgMax/ArgMin, CumSum (constant
    axis), BatchNormalization, LayerNormalization, InstanceNormalization,
    GroupNormalization (scale per group or per channel),
    MeanVarianceNormalization, integer and f8 QuantizeLinear/DequantizeLinear,
    Concat, Slice (constant
    bounds, any step), Split (any opset form), Trilu (constant k), OneHot, Tile,
    DepthToSpace, SpaceToDepth, Gather, GatherElements, GatherND, TopK (ranks
    by n^2 compares, then the element of each rank), LRN, ScatterND and
    ScatterElements (an scf.for over the updates), Range (static length),
    Expand, ConstantOfShape, Transpose, GridSample (bilinear and nearest, every
    padding mode), RoiAlign (avg and max, an scf.for over each bin's
    samples), MaxPool with its Indices, the
    static reshapes, Identity, constants) are linalg.generic /
    linalg.transpose / tensor.pad / tensor.insert_slice /
    tensor.extract_slice / tensor.reshape / arith.constant on the same
    tensor types. Unsigned integer tensors compute with unsigned division,
    min/max, compares and conversions (viewed as signless of the same
    width). Formats:
    f16/bf16 elementwise ops compute in f32 and round each op's result once
    to the format; MatMul, Gemm and Conv convert their operands to the
    op's `acc` format and accumulate in it (f32 by default; tf32 and f8
    accumulate in f32), rounding once to the result type; a cast to tf32
    rounds to a 10-bit mantissa (ties away from zero) and tf32 tensors are
    stored as f32. An op it cannot lower yet fails the pass with
    an error naming it. f32 MatMul, Gemm and batch-1 one-group Conv become
    `linalg.matmul` (Conv through an im2col generic) when they accumulate
    in f32, except f32 convolutions with few products per output: grouped
    ones with <= 32 (depthwise) and stride-1 ungrouped ones with <= 24 (a
    1x1 over a few channels) become one all-parallel generic with the
    window unrolled into four partial sums (`math.fma`) and the bias added.
    LSTM/GRU/RNN arrive unrolled (dsmp-decompose-recurrent, run at
    specialization). A Concat of more than 16 static inputs (an unrolled
    recurrence's output) becomes Concats of at most 16 joined by another:
    one-shot bufferization's conflict analysis walks an insert_slice chain
    back to its start for each use in it, cubic in the chain's length (77 s
    for PLCMOS' 189-frame GRUs, 10 s after). ONNX's integer and QLinear
    products arrive as f32 MatMul/Conv of centred integers (the importer
    spells them so). Not lowered yet: Loop (dsmp-unroll-loops unrolls those
    whose trip count folds), If with branches of different shapes, MaxPool
    indices, and dynamic shapes.
  }];
  let options = [
    Option<"convAsGemm", "conv-as-gemm", "bool", /*default=*/"false",
           "Lower every one-group convolution as im2col GEMMs, and every "
           "[batch..., M, K] x [K, N] MatMul as one 2-D GEMM, whatever the "
           "format (the GPU path: f16, bf16 and tf32 GEMMs run on tensor "
           "cores), and a Gemm whose A and B dequantize f8 codes (one "
           "constant scale each) as an f8 GEMM on the codes, the scales "
           "folded into alpha; otherwise only f32 ones that accumulate in "
           "f32">,
    Option<"widen16BitGemm", "widen-16-bit-gemm", "bool", /*default=*/"false",
           "Lower f16 and bf16 matmuls, Gemms and one-group convolutions "
           "that accumulate in f32 as f32 GEMMs on their operands widened "
           "to f32, rounded once to the result (a CPU with a GEMM library: "
           "each product of two 16-bit values is exact in f32, so only the "
           "order of the additions changes)">,
    Option<"interleavedScans", "interleaved-scans", "bool",
           /*default=*/"false",
           "Lay dsmp.scan_gradients out for a GPU: up to 16384 lanes "
           "(threads) per gradient, lane p reading elements p, p + L, ... so "
           "that neighbouring threads read neighbouring addresses; "
           "otherwise up to 16 lanes (a CPU's threads), each reading one "
           "contiguous chunk">,
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::bufferization::BufferizationDialect",
    "mlir::linalg::LinalgDialect", "mlir::math::MathDialect",
    "mlir::memref::MemRefDialect", "mlir::scf::SCFDialect",
    "mlir::tensor::TensorDialect"
  ];
  let statistics = [
    Statistic<"numLowered", "num-lowered", "dsmp ops lowered">
  ];
}

def ApproximateErfPass : Pass<"dsmp-approximate-erf", "mlir::func::FuncOp"> {
  let summary = "Replace math.erf on f32 with MLIR's polynomial approximation";
  let description = [{
    Post-condition: every f32 `math.erf` is upstream's polynomial
    approximation (`populatePolynomialApproximateErfPattern`): plain
    arithmetic that LLVM vectorizes, instead of one libm `erff` call per
    element (GELU in transformers; 12 % of tiny_bert's time). Its error
    stays within the execution tests' tolerance (checked against
    math.erf in float64).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::math::MathDialect"];
}

def FuseElementwisePass : Pass<"dsmp-fuse-elementwise", "mlir::func::FuncOp"> {
  let summary = "Fuse elementwise linalg.generic chains without recomputation";
  let description = [{
    Pre-condition: linalg on tensors as dsmp-convert-to-linalg makes it.

    Post-condition: an elementwise generic whose only use is an
    all-parallel generic that reads it through a permutation map (each
    element once) is fused into that consumer (upstream
    `populateElementwiseOpsFusionPatterns` with that control): bias, BN,
    activation and cast chains become one loop nest with no intermediate
    buffer. Producers read through broadcasting or windowed maps (im2col,
    pooling) and reductions are left alone, so nothing is computed twice.
    Bodies keep each op's conversions, so f16/bf16 rounding is unchanged.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def OrderLoopsForLocalityPass
    : Pass<"dsmp-order-loops-for-locality", "mlir::func::FuncOp"> {
  let summary = "Interchange linalg.generic loops so the innermost loop is contiguous";
  let description = [{
    Pre-condition: `linalg.generic` ops (as dsmp-convert-to-linalg makes
    them), typically with reduction loops innermost (MatMul: m, n, k; Conv:
    n, f, oh, ow, c, kh, kw).

    Post-condition: where the first output's innermost dimension is a
    parallel loop, each generic iterates its other parallel loops, then its
    reduction loops, then that dimension innermost (MatMul: m, k, n; Conv:
    n, f, oh, c, kh, kw, ow). The innermost loop then walks the output and
    usually the inputs with unit stride, which LLVM vectorizes. Same
    results up to the order of f32 summation, which stays sequential over
    each reduction. (Keeping short reductions innermost instead measured
    slower: attention's 32-long dot products ran scalar. Depthwise f32
    convolutions do not come here: they unroll their window in an
    all-parallel generic.)

    An all-parallel generic over [n, c, rows.., cols] with an identity
    output map whose body reads another tensor of the same rank
    (`tensor.extract`) at indices that do not depend on c, at least twice
    (an unrolled 1x1 convolution over a few channels: every output channel
    reads the same input rows), iterates (n, rows.., c, cols): one output
    row's input rows then stay in L1 while every channel reads them.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def WriteIntoPaddingPass
    : Pass<"dsmp-write-into-padding", "mlir::func::FuncOp"> {
  let summary = "Pad tensors by computing the source straight into the padded buffer";
  let description = [{
    Pre-condition: `tensor.pad` ops with static sizes and a constant value
    (the padding of convolutions and pools).

    Post-condition: each is a `linalg.fill` of an empty padded tensor and
    the source inserted into the interior. Where the source is an
    all-parallel `linalg.generic` into a `tensor.empty` used only by the
    pad (a bias and activation), that generic now writes into the interior
    slice, which one-shot bufferization keeps in place: no copy of the
    source (6 % of mobilenet_v2's run time). Filling only the border strips
    measured slower than one fill: a column strip touches a cache line per
    row.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def CollapseContiguousLoopsPass
    : Pass<"dsmp-collapse-contiguous-loops", "mlir::func::FuncOp"> {
  let summary = "Merge consecutive loops of elementwise generics that every operand walks contiguously";
  let description = [{
    Pre-condition: `linalg.generic` ops on tensors with static shapes.

    Post-condition: in each generic whose loops are all parallel, every run
    of two or more consecutive loops that each operand indexes as one
    contiguous block (or not at all, like a bias broadcast along the
    others) is one loop, the operands reshaped to match. A bias and clip
    over [1, 576, 14, 14] then runs 576 loops of 196 elements instead of
    576 * 14 loops of 14, which is what lets LLVM vectorize it fully. Same
    results, element for element.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def LinalgToBlasPass : Pass<"dsmp-linalg-to-blas", "mlir::ModuleOp"> {
  let summary = "Replace f32 linalg.matmul on buffers with cblas_sgemm or dnnl_sgemm calls";
  let description = [{
    Pre-condition: bufferized code; `linalg.matmul` ops on row-major f32
    memrefs with identity layouts (as dsmp-convert-to-linalg makes them for
    MatMul, Gemm and batch-1 Conv).

    Post-condition: each such op (operands plain or read transposed through
    its indexing maps) is a call to `api`'s single-precision GEMM: CBLAS
    `cblas_sgemm` (row-major, transposes as enum flags) or oneDNN's
    `dnnl_sgemm` (row-major, transposes as 'N'/'T'), C = op(A) op(B) +
    beta C on the buffers' aligned pointers, declared in the module; a zero
    `linalg.fill` of C right before it is dropped for beta = 0, else
    beta = 1. Sizes the buffers have only at run time (a dynamic variant)
    are read from them. A `linalg.batch_matmul` on row-major f32 buffers (a
    dynamic variant's batched products) becomes a loop of such calls, one
    per batch element; an operand whose batch is 1 at run time is read by
    every element. The artifact links that library (on x86-64: oneDNN from
    Debian where installed, which measures 1.1-1.7x faster on one thread
    and scales to two where OpenBLAS does not; else OpenBLAS). Other
    matmuls stay and lower to loops.
  }];
  let options = [
    Option<"api", "api", "std::string", /*default=*/"\"cblas\"",
           "The GEMM to call: cblas (cblas_sgemm) or dnnl (dnnl_sgemm)">,
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::func::FuncDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect"];
}

def WeightsToArgumentsPass
    : Pass<"dsmp-weights-to-arguments", "mlir::func::FuncOp"> {
  let summary = "Turn #dsmp.external weights into read-only function arguments";
  let description = [{
    Pre-condition: constants hold `#dsmp.external<offset, size>` references
    into the module's weight file (as the importer writes them).

    Post-condition: each distinct weight range is a new trailing argument of
    the function, read by every constant that named it; the argument carries
    `dsmp.weight_offset` (its byte offset in the weight file) and
    `bufferization.writable = false`, so the lowered code reads the weights
    in place from a mapped file instead of embedding them. Every other
    argument is marked read-only too: the caller's input buffers are never
    written.
  }];
  let statistics = [
    Statistic<"numWeights", "num-weights", "Weights turned into arguments">
  ];
}

def FreeBuffersAfterLastUsePass
    : Pass<"dsmp-free-buffers-after-last-use", "mlir::func::FuncOp"> {
  let summary = "Move each buffer's dealloc up to just after its last use";
  let description = [{
    Pre-condition: bufferized code with plain `memref.dealloc` ops (after
    `bufferization-lower-deallocations`). Ownership-based deallocation puts
    them at the end of the block, so every intermediate buffer of a graph
    lives until the graph returns.

    Post-condition: a `memref.dealloc %a` in the same block as `%a`'s
    `memref.alloc` sits right after the last op of that block that uses `%a`
    or a view of it (subview, reshape, cast: anything implementing
    `ViewLikeOpInterface`, transitively). The next allocation of the same
    size can then take the buffer while it is still in cache, and peak
    memory falls to the live set. A buffer some op uses in a way the pass
    cannot follow (an op returning another memref from it, a use in
    another block) keeps its dealloc where it was.
  }];
}

def ExpandStridedCopiesPass
    : Pass<"dsmp-expand-strided-copies", "mlir::func::FuncOp"> {
  let summary = "Turn memref.copy between strided buffers into linalg.copy";
  let description = [{
    Pre-condition: bufferized code; `memref.copy` ops, some of them between
    subviews with non-identity layouts (padding, slices, concatenation).

    Post-condition: every `memref.copy` whose source or target layout is not
    the identity is a `linalg.copy`, which lowers to plain loops. The
    MemRef-to-LLVM lowering would otherwise call `memrefCopy` from MLIR's C
    runner utilities, a library that a deployed artifact does not have.
    Copies between identity layouts stay (they become a memcpy), unless
    `every-copy` is set (device code, where a host memcpy cannot reach the
    buffers).
  }];
  let options = [
    Option<"everyCopy", "every-copy", "bool", /*default=*/"false",
           "Turn every memref.copy into linalg.copy, contiguous ones too">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def ContiguousExpandShapesPass
    : Pass<"dsmp-contiguous-expand-shapes", "mlir::func::FuncOp"> {
  let summary = "Turn expand_shapes into several dynamic dims into reinterpret_casts";
  let description = [{
    Pre-condition: bufferized code.

    Post-condition: each `memref.expand_shape` of an identity-layout buffer
    that splits one dim into two or more dynamic dims (a dynamic variant's
    `[b*s, N]` matmul product viewed as `[b, s, N]`) is a
    `memref.reinterpret_cast` to the output sizes with row-major strides:
    expand-strided-metadata in LLVM 22 crashes on the former. Other
    expand_shapes stay.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
}

def MapLoopsToGPUPass : Pass<"dsmp-map-loops-to-gpu", "mlir::func::FuncOp"> {
  let summary = "Run each loop nest of a bufferized function as a gpu.launch";
  let description = [{
    Pre-condition: bufferized code whose loop nests are `scf.parallel` /
    `scf.for` (convert-linalg-to-parallel-loops); every `memref.copy` is a
    loop (dsmp-expand-strided-copies{every-copy}); deallocation is still
    `bufferization.dealloc` (before bufferization-lower-deallocations,
    whose bookkeeping stays on the host).

    Post-condition:
    - each top-level `scf.parallel` without reductions is a `gpu.launch` of
      blocks of `threads-per-block` threads along x. Its dims are
      linearized with the innermost fastest, so consecutive threads touch
      consecutive elements (coalesced), and each thread runs one iteration
      (the body's inner loops, reductions included, run in that thread);
    - an `scf.for` or `scf.if` around loop nests stays on the host, its
      nests launched inside it;
    - any other op that touches memory is a one-thread launch; one whose
      result the host would use is an error;
    - every kernel is named `kN_NODE` after the ONNX node it came from and
      goes into the gpu.module `FUNC_kernels` (gpu-kernel-outlining then
      builds one module, one binary);
    - buffers are `gpu.alloc`/`gpu.dealloc` (device memory), and a
      `memref.get_global` that a kernel reads is fetched inside the kernel
      (outlining copies the global into the gpu.module);
    - a value the host needs from a device buffer (a branch condition) is
      copied back by a one-thread kernel and a `gpu.memcpy` that the host
      waits for.
  }];
  let options = [
    Option<"threadsPerBlock", "threads-per-block", "int64_t",
           /*default=*/"256", "Threads per block of a parallel loop nest">,
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::arith::ArithDialect",
                           "mlir::scf::SCFDialect"];
}

def FreeDeviceBuffersPass
    : Pass<"dsmp-free-device-buffers", "mlir::func::FuncOp"> {
  let summary = "Free device buffers with gpu.dealloc";
  let description = [{
    Pre-condition: dsmp-map-loops-to-gpu made every data buffer a
    `gpu.alloc`; bufferization-lower-deallocations then freed buffers with
    `memref.dealloc` (of the buffer, a view of it, or the base buffer of its
    metadata), and made host buffers of its own (`memref.alloc`) for its
    ownership bookkeeping.

    Post-condition: every `memref.dealloc` of a buffer that does not come
    from a `memref.alloc` or `memref.alloca` is an async `gpu.dealloc` (on
    the runtime's stream); the bookkeeping's stay host frees.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

def SelectMMAMatmulsPass
    : Pass<"dsmp-select-mma-matmuls", "mlir::func::FuncOp"> {
  let summary = "Mark the matmuls that NVIDIA tensor cores compute";
  let description = [{
    Pre-condition: linalg on tensors (dsmp-convert-to-linalg,
    linalg-generalize-named-ops).

    Post-condition: each contraction with one m, n and k dim (and at most
    one batch dim) of static size, an f32 result, and operands that are
    both f16, both bf16, or both f32 rounded to tf32 (their producers end
    in the `dsmp.tf32_rounding` bitcast), or both f32, or both f8 (E4M3FN,
    E5M2), carries `dsmp.mma = "f16" | "bf16" | "tf32" | "f32" | "e4m3" |
    "e5m2"` unless it is smaller than one 16x8 output tile or one k step of
    the instruction (16; 8 for tf32 and f32). Bufferization keeps the
    attribute. With `amd`, only f16 and bf16 (gfx90a's matrix cores).
  }];
  let options = [
    Option<"amd", "amd", "bool", /*default=*/"false",
           "For AMD's matrix cores (f16 and bf16) instead of NVIDIA's">,
  ];
}

def MatmulToMMAPass : Pass<"dsmp-matmul-to-mma", "mlir::ModuleOp"> {
  let summary = "Compute marked matmuls through the runtime's GEMM library or with nvvm.mma.sync";
  let description = [{
    Pre-condition: bufferized code; contractions marked by
    dsmp-select-mma-matmuls.

    Post-condition: where the operands' layouts suit a GEMM library (static
    strides, rows contiguous), each first calls `dsmp_gpu_gemm` (declared
    here; the launch shim forwards it to the runtime, whose CUDA backend
    runs cuBLASLt with the compute type of the format) and runs its own
    code only when that returns 0. That own code is, for f32 and f8, the
    contraction's loops (f8 operands widened by dsmp-expand-f8-extensions);
    for the others a `gpu.launch` of blocks of four
    warps; each warp
    computes one 16x8 tile of the output (over the batch too) with
    `nvvm.mma.sync` and f32 accumulators, starting from the output buffer's
    values: m16n8k16 with f16 or bf16 operands (`mma.sync.aligned.m16n8k16.
    row.col.f32.f16.f16.f32`, `...bf16.bf16...`), m16n8k8 with tf32
    (`...m16n8k8.row.col.f32.tf32.tf32.f32`). Every lane loads its fragment
    elements from global memory (no shared memory yet). Where m, n or k do
    not tile, the edge tiles read zeros past the end (a clamped load and a
    select) and store only inside. With `amd` there is no library call and
    each wavefront of 64 computes a 32x32 tile with
    `rocdl.mfma.f32.32x32x8f16` or `...32x32x8bf16.1k` (gfx90a).
  }];
  let options = [
    Option<"amd", "amd", "bool", /*default=*/"false",
           "AMD's MFMA kernels (no GEMM library) instead of NVIDIA's">,
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::NVVM::NVVMDialect",
                           "mlir::LLVM::LLVMDialect",
                           "mlir::affine::AffineDialect",
                           "mlir::func::FuncDialect",
                           "mlir::ROCDL::ROCDLDialect",
                           "mlir::scf::SCFDialect"];
}

def ExpandF8ExtensionsPass : Pass<"dsmp-expand-f8-extensions"> {
  let summary = "Widen f8 values to f32 with integer code (LLVM has no f8)";
  let description = [{
    Pre-condition: `arith.extf` ops from f8 types (f8E4M3FN, f8E5M2 and
    their fnuz forms): an f8 GEMM's generated loops read their operands
    through them.

    Post-condition: each is integer code on the value's bits (an
    `arith.bitcast` to i8): normal values' f32 bits assembled from exponent
    and mantissa, subnormals as mantissa x 2^(1 - bias - m), the format's
    NaN (E4M3FN: only S.1111.111; fnuz: 0x80), infs (E5M2) and sign; the
    same values as ml_dtypes for every code (test/GPU/fp8-gemm.test).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def RoundTF32OnDevicePass
    : Pass<"dsmp-round-tf32-on-device", "mlir::gpu::GPUModuleOp"> {
  let summary = "Round to tf32 with cvt.rna.tf32.f32 in NVIDIA kernels";
  let description = [{
    Pre-condition: a gpu.module for an NVIDIA target whose kernels round f32
    to tf32 with the integer code the dsmp-to-linalg lowering emits (its
    last `arith.bitcast` carries `dsmp.tf32_rounding`).

    Post-condition: each such rounding is one `nvvm.convert.float.to.tf32`
    with round-to-nearest ties away (`cvt.rna.tf32.f32`): the same values as
    the host's integer code, inf and NaN included, in one instruction.
  }];
  let dependentDialects = ["mlir::NVVM::NVVMDialect"];
}

def OutlineLoopNestsPass
    : Pass<"dsmp-outline-loop-nests", "mlir::ModuleOp"> {
  let summary = "Move each top-level loop nest of @main_graph into its own function";
  let description = [{
    Pre-condition: bufferized code in which each lowered op is a top-level
    `scf.for` / `scf.parallel` nest of `@main_graph`.

    Post-condition: each such nest is a private `func.func` (named
    `main_graph_loopN`, internal, with LLVM's `noinline`) that takes the memrefs and
    values it uses from outside as arguments (constants are cloned into it),
    and `@main_graph` calls them in order. LLVM's loop passes then see many
    small functions: on one function with thousands of loops their
    dominator-based analyses grow quadratically (minutes for ppocr_rec).
    Where no buffer that a nest writes is reachable through another of its
    arguments (distinct allocations, followed through views), the function
    carries `dsmp.noalias_pointers`: the positions its memrefs' aligned
    pointers will have in the LLVM dialect (see
    `dsmp-mark-noalias-pointers`).

    Nests that compute the same thing share one function: an argument that
    is a view with a static offset, and that the nest only loads and stores
    through, takes a dynamic offset (the call casts it), and a nest whose
    function prints the same as an earlier one (but for its name) calls
    that one. The steps of an unrolled recurrence differ only in where
    their views start: PLCMOS' two bidirectional GRUs of 189 frames
    outline into 61 functions instead of thousands.
  }];
  let options = [
    Option<"splitParallel", "split-parallel", "bool", /*default=*/"false",
           "Give nests whose outer scf.parallel has enough work a [lo, hi) "
           "range of one dim as two leading index arguments and mark them "
           "dsmp.fork (see dsmp-fork-loop-nests)">,
    Option<"minParallelWork", "min-parallel-work", "int64_t",
           /*default=*/"16384",
           "Iterations (all loops of the nest) below which a nest stays on "
           "the calling thread">,
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::func::FuncDialect"];
}

def ForkLoopNestsPass : Pass<"dsmp-fork-loop-nests", "mlir::ModuleOp"> {
  let summary = "Run outlined loop nests marked dsmp.fork on libgomp's threads";
  let description = [{
    Pre-condition: the LLVM dialect; functions marked `dsmp.fork` (by
    `dsmp-outline-loop-nests{split-parallel}`) take the range [lo, hi) of a
    parallel loop as their first two arguments, and are called with the
    whole range.

    Post-condition: each such call stores its arguments in a stack struct
    and calls libgomp's `GOMP_parallel(F_fork, &args, 0, 0)` (the GNU
    OpenMP entry point that oneDNN's threads already use, so one thread
    pool serves both; OMP_NUM_THREADS sets its size). `F_fork` loads the
    arguments, takes its thread's contiguous share of [lo, hi)
    (`omp_get_thread_num`, `omp_get_num_threads`) and calls F on it. With one
    thread GOMP_parallel calls F_fork on the caller's thread. The artifact
    links libgomp.
  }];
}

def MarkNoAliasPointersPass
    : Pass<"dsmp-mark-noalias-pointers", "mlir::ModuleOp"> {
  let summary = "Mark the pointer arguments that dsmp.noalias_pointers lists as llvm.noalias";
  let description = [{
    Pre-condition: functions in the LLVM dialect; some carry
    `dsmp.noalias_pointers` (set by `dsmp-outline-loop-nests`), the
    positions of pointer arguments that no other argument aliases.

    Post-condition: those arguments have `llvm.noalias` and the attribute is
    gone. The memref descriptor lowering drops `llvm.noalias` from memref
    arguments, so without this LLVM vectorizes loop nests only behind
    runtime overlap checks, or not at all (a convolution whose window loops
    are unrolled stores its sum after every step).
  }];
}

def RecordEntryLayoutPass
    : Pass<"dsmp-record-entry-layout", "mlir::ModuleOp"> {
  let summary = "Record how the artifact's C entry point passes each argument";
  let description = [{
    Pre-condition: `@main_graph` has static tensor arguments and results,
    its weights moved to arguments by `dsmp-weights-to-arguments` (they
    carry `dsmp.weight_offset`).

    Post-condition: the module's `dsmp.entry_layout` lists, in the order the
    lowered function will take them (arguments, then the results as out
    parameters), `{kind, slot, type, name}`: kind `input`/`output` with the
    slot in the io array (inputs first, then outputs) and the ONNX name, or
    `weight` with the byte offset in the weight file.
    `dsmp-emit-entry-point` builds the C entry point from it, and the
    artifact's manifest is written from it. With `dynamic`, inputs and
    outputs may have dynamic dims and the outputs are listed without being
    arguments: the lowered function returns them (dynamic variants,
    docs/dynamic-shapes.md).
  }];
  let options = [
    Option<"dynamic", "dynamic", "bool", /*default=*/"false",
           "Allow dynamic dims; outputs are results, not out parameters">
  ];
}

def TagProfileOpsPass : Pass<"dsmp-tag-profile-ops", "mlir::ModuleOp"> {
  let summary = "Number @main_graph's ops for the profiler and record each one's node, type, format and FLOPs";
  let description = [{
    Pre-condition: `@main_graph` in the dsmp dialect at static shapes (after
    `dsmp-specialize-shapes`), its formats chosen.

    Post-condition: the module's `dsmp.profile_ops` lists, for each dsmp op
    that computes something (operands and results, no regions), `{name,
    type, format, flops}`: the ONNX node name, the ONNX op type, the format
    it computes in (`dsmp.assigned`, else its result's element type) and its
    FLOPs at these shapes (PrecisionOpInterface, 0 where it has none). Each
    such op's location is wrapped in a `FusedLoc` whose metadata is
    `{dsmp.profile_op = INDEX}`: lowering keeps locations, so
    `dsmp-time-calls` finds which ops each outlined loop nest or library
    call computes.
  }];
}

def TimeCallsPass : Pass<"dsmp-time-calls", "mlir::ModuleOp"> {
  let summary = "Time each call and copy of @main_graph into a counters array the runtime reads";
  let description = [{
    Pre-condition: `dsmp-outline-loop-nests` has run (each lowered op is a
    call of an outlined nest or of a GEMM library), and
    `dsmp-tag-profile-ops` tagged the ops' locations.

    Post-condition: every `func.call` and `memref.copy` of `@main_graph`
    (in `scf.if` branches too) sits between two reads of the monotonic clock
    (`clock_gettime` through a private `dsmp_profile_clock`), and adds its
    nanoseconds and one call to row K of the public global `counters`
    (`memref<Rx2xi64>`, atomically: several models of one artifact may run
    at once). The module's `dsmp.profile_regions` lists, per row, `{kind,
    callee, ops}`: `loop`, `gemm`, `copy` or `call`, the callee, and the
    indices into `dsmp.profile_ops` that its location names. The artifact
    writes both into profile.txt; libdsmprt reads the array by name.
  }];
  let options = [
    Option<"counters", "counters", "std::string", /*default=*/"\"dsmp_profile\"",
           "The counters array's symbol (model.so exports it)">,
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect", "mlir::func::FuncDialect"];
}

def EmitEntryPointPass : Pass<"dsmp-emit-entry-point", "mlir::ModuleOp"> {
  let summary = "Add the artifact's C entry point to a lowered module";
  let description = [{
    Pre-condition: the module is in the LLVM dialect and its attribute
    `dsmp.entry_layout` (from `dsmp-record-entry-layout`) lists, in the
    order of `@main_graph`'s memref arguments, each argument as
    `{kind = "input"|"output"|"weight", slot = N, type = tensor<...>}`
    (static shapes; `slot` is the index in the io array or the byte offset
    in the weight file).

    Post-condition: `void ENTRY(void *const *io, const void *weights)`
    (`entry-name`, default `dsmp_model_run`) exists with external linkage; it builds each memref
    descriptor (identity layout) from `io[slot]` or `weights + slot` and
    calls `@main_graph`; every other defined function becomes internal (so
    the objects of several variants link together). The layout attribute
    stays: the artifact's manifest is written from it.

    With `dynamic` (the layout of `dsmp-record-entry-layout{dynamic}`):
    `int32_t ENTRY(void *const *io, const void *weights, const int64_t
    *dims, void *(*output)(void *context, int64_t index, const int64_t
    *dims), void *context)`. Each input's sizes are read from `dims` (every
    input's dims in order); `@main_graph` returns its outputs, and for each
    the entry point asks `output` for a buffer of the computed dims and
    copies the output there; then it frees the model's buffers (each once).
    It returns 0, or 1 when `output` returned NULL (every buffer freed).
  }];
  let options = [
    Option<"entryName", "entry-name", "std::string",
           /*default=*/"\"dsmp_model_run\"", "Name of the C entry point">,
    Option<"dynamic", "dynamic", "bool", /*default=*/"false",
           "The dynamic variant's entry point (sizes at run time)">
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

#endif // DSMP_CONVERSION_PASSES_TD
