//===- Passes.td - dsmp precision passes -------------------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The passes that choose number formats: measure (ranges, sensitivities),
// decide (assignment under an error budget), materialize (casts) and tidy
// (cast minimisation). Each annotates ops with dsmp.* attributes that the
// next reads, so the pipeline can be replayed pass by pass with dsmp-opt.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_PASSES_PRECISION_PASSES_TD
#define DSMP_PASSES_PRECISION_PASSES_TD

include "mlir/Pass/PassBase.td"

def LiftSixteenBitPass : Pass<"dsmp-lift-16-bit", "mlir::ModuleOp"> {
  let summary = "Analyse a model that computes in f16/bf16 as its f32 lift";
  let description = [{
    Pre-condition: @main_graph in the dsmp dialect; constants inline (run
    dsmp-load-weights first when they are #dsmp.external).

    Post-condition: when some op of the model computes a 16-bit float
    value (onnxconverter-common's convert_float_to_float16, a .half()
    export), every 16-bit float value is f32: constants are converted
    exactly, casts between f32 values are gone, the graph's 16-bit inputs
    are cast up on entry and its 16-bit outputs cast back down before the
    return, so the interface is unchanged. The precision passes then
    measure and choose every op's format as for an FP32 model. A model
    whose compute is f32 (16-bit weights read through casts) is left as it
    is.
  }];
  let dependentDialects = ["mlir::func::FuncDialect"];
  let statistics = [
    Statistic<"numLifted", "num-lifted", "Graphs lifted to f32">
  ];
}

def FoldConstantMathPass : Pass<"dsmp-fold-constant-math", "mlir::ModuleOp"> {
  let summary = "Compute float math that reads only constants, once, into constants";
  let description = [{
    Pre-condition: @main_graph in the dsmp dialect; constants inline (run
    dsmp-load-weights first when they are #dsmp.external).

    Post-condition: an f32 value that pure ops compute from constants alone,
    with some float math on the way (weight standardisation, weight norm,
    a mask multiplied into a kernel), and that an op outside that math
    reads, is a constant: the reference evaluator computed it in f32, as
    onnxruntime's constant folding does. The precision passes then see a
    plain weight, stored once in the format its reader takes, not an f32
    original beside a 16-bit copy. A value larger than the constants it
    reads (a causal mask made from a few integers) stays computed; so does
    math the evaluator has no kernel for. Integer shape arithmetic is the
    canonicalizer's.
  }];
  let dependentDialects = ["mlir::func::FuncDialect"];
  let statistics = [
    Statistic<"numFolded", "num-folded", "Values computed into constants">
  ];
}

def AnalyzeRangesPass : Pass<"dsmp-analyze-ranges", "mlir::ModuleOp"> {
  let summary = "Value ranges of every float tensor: static bounds and calibrated statistics";
  let description = [{
    Pre-condition: @main_graph in the dsmp dialect; constants inline (run
    dsmp-load-weights first when they are #dsmp.external).

    Post-condition: every op with a float tensor result carries
    `dsmp.range`, a dictionary with
    - `static_lo`/`static_hi` where the op bounds its result whatever the
      input (sigmoid, tanh, softmax, relu, clip, ...);
    - with `calibration=DIR`: `min`, `max`, `amax` and `count` over the
      calibration inputs (DIR's input_*.pb, or those of each
      test_data_set_* in it), `hist` (counts of |x| by binary exponent,
      2^-30 and below in the first bin, 2^17 and above in the last, zeros
      apart in `zeros`), and `overflow`/`underflow`: the formats whose
      largest finite value the data exceeds, or below whose smallest normal
      value more than 1 % of the nonzero values fall.
    The calibration run evaluates the graph op by op (GraphEvaluator,
    include/dsmp/Execution/Evaluator.h), or compiles it for the host
    (libdsmprt) when an op has no evaluator kernel; `engine` forces one.
    Inputs that do not fit, or a model that does not run, fail the pass
    with the reason.
  }];
  let options = [
    Option<"calibration", "calibration", "std::string", /*default=*/"\"\"",
           "Folder of calibration inputs (empty: static bounds only)">,
    Option<"engine", "engine", "std::string", /*default=*/"\"auto\"",
           "How calibration runs the graph: auto (evaluate, else compile), "
           "evaluate, compile">
  ];
}

def AnalyzeSensitivityPass
    : Pass<"dsmp-analyze-sensitivity", "mlir::ModuleOp"> {
  let summary = "Per-op first-order sensitivity of the outputs to rounding (ADAPT)";
  let description = [{
    Pre-condition: as dsmp-analyze-ranges; `calibration` is required.

    One forward and one reverse-mode pass over the FP32 graph, built
    together and run once per calibration input set (evaluated or compiled
    as in dsmp-analyze-ranges, see `engine`): the adjoint is built
    from VJPOpInterface (dialects/Dsmp/IR/DsmpVJP.cpp), seeded at each
    output y with r / |y|, r a fixed random +-1 vector, so gradients are
    relative to the output's size (`metric` = rel-l2; |y| is at least
    `error-floor` * sqrt(n), ErrorFloor.h, so an output that is near zero
    counts in absolute terms), or with r alone
    (max-abs: the energies then measure the absolute L2 error, which bounds
    every element's error). For each op result x with gradient g:
    `adapt` = sum |g * x| (ADAPT's first-order bound: times the unit
    roundoff u of a format it bounds the output change) and `energy` =
    sum (g * x)^2 (times u^2 / (8 ln 2), the variance of a relative
    rounding error over mantissas spread logarithmically, it estimates the
    variance that rounding x adds to the relative output error, the r
    making it unbiased). For
    matmul/conv, `operand_energy` is the same for the activation input as
    this op sees it, and with constant weights W, `weight_energy` =
    sum (dW * W)^2 (weightGradient, Adjoint.h). Means over the calibration
    sets and seed vectors.

    Under max-abs a second backward pass per seed vector starts from r on
    each output's peaks only (|y| >= 0.1 max |y|, K elements in all; the
    rest zero): where the error gathers there (a saturated softmax's
    winners), the largest element is a larger part of the L2 error than n
    independent errors give. Each energy is then the larger of its own and
    its peaks' (`peak_energy` for the result term) times
    (f(K) / f(n))^2, f(m) = sqrt(2 ln(2m) / m), the factor
    dsmp-assign-precision applies (maxAbsPerL2, RoundingCost.h).

    Ops inside If branches are measured on a copy with each If flattened
    into both branches and a Where (flattenBranches, Calibration.h). A
    float comparison that decides an If's condition is seeded too, with
    r / |a - b| at each compared operand: its error counts relative to its
    distance from the threshold, since rounding upstream can flip the branch
    though no gradient shows it.

    The module gets `dsmp.error_metric` = {metric, output_elements (at the
    calibration shapes), under max-abs peak_elements, seed_vectors (the
    backward passes run) and exact_seeds (they are a Hadamard matrix's rows,
    exact for any error; else random signs, an estimate)} for
    dsmp-assign-precision and the flow (which re-analyzes with more seed
    vectors where the first round measures over 4x the prediction).

    Post-condition: ops with a float result carry `dsmp.sensitivity`
    (dictionary of those numbers); ops the gradient cannot reach (an op
    without a VJP model stands between them and the outputs) carry none
    and `dsmp.no_adjoint` names the op that stopped it, as it says so for
    ops of a branch that no calibration set takes.

    With `record-ranges`, the pass also records what dsmp-analyze-ranges
    would (`dsmp.range`, `dsmp.flops`, the inputs' ranges) from the forward
    half of its own run: the same values, one calibration run instead of
    two. The dsmp-auto-mixed-precision pipeline runs it so.
  }];
  let options = [
    Option<"calibration", "calibration", "std::string", /*default=*/"\"\"",
           "Folder of calibration inputs">,
    Option<"engine", "engine", "std::string", /*default=*/"\"auto\"",
           "How calibration runs the graph: auto (evaluate, else compile), "
           "evaluate, compile">,
    Option<"seeds", "seeds", "unsigned", /*default=*/"1",
           "Random vectors r the adjoint is seeded with (one backward pass "
           "each); the energies are their mean, whose variance falls as "
           "1/seeds">,
    Option<"metric", "metric", "std::string", /*default=*/"\"rel-l2\"",
           "Output error the energies measure: rel-l2 (seeds r / |y|) or "
           "max-abs (seeds r: the absolute L2 error, a bound on each "
           "element's)">,
    Option<"errorFloor", "error-floor", "double", /*default=*/"0",
           "rel-l2's absolute floor: seeds r / max(|y|, floor sqrt(n)); "
           "0: each output's default (ErrorFloor.h) from its largest "
           "magnitude in each calibration set">,
    Option<"recordRanges", "record-ranges", "bool", /*default=*/"false",
           "Also record dsmp-analyze-ranges' attributes from this run's "
           "forward values">,
    Option<"exactValues", "exact-values", "bool", /*default=*/"true",
           "Leave out of the energies the values every 16-bit format holds "
           "exactly (CoherentRounding.h); off where f8 may be assigned, "
           "whose per-tensor scale makes them round">
  ];
}

def AssignPrecisionPass : Pass<"dsmp-assign-precision", "mlir::ModuleOp"> {
  let summary = "Choose each op's format under an output error budget";
  let description = [{
    Pre-condition: ops carry dsmp.range and dsmp.sensitivity (else they are
    treated as unknown and stay f32).

    Chooses, per compute op, the format that the target description allows
    for its class (lib/Target/Description/targets.json), maximising the
    throughput-weighted FLOPs moved off f32 subject to a predicted output
    error <= `margin` * `tolerance` (in the metric dsmp-analyze-sensitivity
    measured: relative L2, or absolute L2 for a max-abs budget) and no
    overflow in the calibrated ranges. Under max-abs (`dsmp.error_metric`)
    the predicted largest element error is |e| sqrt(2 ln(2n) / n) for the
    predicted absolute L2 error |e| over n output elements. The prediction counts each rounded value once, u^2 / (8 ln 2) * its
    energy (RoundingCost.h): a 16-bit op's result unless the op returns an
    input's value (Relu, Max, ...), a value cast to a narrower format for
    its readers, a contraction's constant weights. Ops are taken greedily by
    added error per benefit, their neighbours' costs updated. Policy,
    in order: the op types in `deny-ops` (default: exp, log, pow, softmax,
    reductions, sqrt, reciprocal; `allow-ops` removes some) stay f32;
    node names matching `sensitive-layers` (a regex) stay f32; a format
    whose range the data exceeds is skipped; data movement follows its
    input. Matmuls and convs that stay f32 use the target's f32 matmul
    format (tf32 on sm_80) when the budget allows. On targets with f8
    (sm_90: E4M3FN/E5M2, gfx942: the fnuz variants) a matmul or conv may
    read both operands in f8 with one scale per tensor (F8Scaling.h): only
    when each operand is a constant or has a calibrated range, and at most
    1 % of its nonzero values would fall below the scaled format's normals;
    its operands' roundings cost the f8 unit roundoff (2^-4 for E4M3).
    Accumulation is f32.

    Post-condition: compute ops carry `dsmp.assigned` (a #dsmp.format),
    `dsmp.reason` (policy, sensitive_layer, overflow, underflow,
    sensitivity, budget_fallback (a cheaper format than its best fitted
    the budget), target, discrete_use (every use ends in a cast to integers,
    a comparison or an arg-max: rounding could flip it, and no gradient
    measures it), no_sensitivity, budget or data_movement) and
    `dsmp.error_share`; the
    module carries `dsmp.precision` (target, tolerance, predicted error).
    Nothing is cast yet. Ops listed in `keep-f32-ops` (and any carrying
    `dsmp.keep_f32`) stay f32 with reason `validation`; ops in `no-f8-ops`
    (or carrying `dsmp.no_f8`) get no f8 format; ops in `carrier-ops` stay
    f32 with reason `bisection`: the precision flow's
    validation rounds say so through these options, so that the printed
    pipeline reproduces its final round.

    With `policy-only` there is no budget and no sensitivity is needed:
    every op the policy above lets through takes `default-format` (16 bits
    first; a matmul or conv that may not takes tf32 where the target has
    it; `default-format=tf32`: tf32 contractions only), reason
    `policy_only`, as PyTorch's autocast decides. The training step (passes/Training) uses it
    for its forward and backward ops; its loss, gradient sums and optimizer
    ops carry `dsmp.training_f32` and stay f32 (reason `training`); the
    FP32 variants of a training step's layers carry `dsmp.fallback_f32`
    (reason `fallback`).
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"sm_80\"",
           "Target description name (sm_80, sm_90, gfx90a, aarch64, ...)">,
    ListOption<"features", "features", "std::string",
               "Target features that add formats (+bf16 on aarch64, "
               "+avx512bf16 on x86_64)">,
    Option<"tolerance", "tolerance", "double", /*default=*/"1e-2",
           "Budget on each output's error (relative L2, or max-abs where the "
           "sensitivities were measured for it)">,
    Option<"margin", "margin", "double", /*default=*/"0.5",
           "Fraction of the budget the prediction may use (above 1 when "
           "validation showed the prediction to be pessimistic)">,
    Option<"defaultFormat", "default-format", "std::string",
           /*default=*/"\"auto\"",
           "Preferred 16-bit format: auto (f16 unless overflow), f16, bf16; "
           "tf32: only matmuls and convs, on tf32">,
    ListOption<"denyOps", "deny-ops", "std::string",
               "Extra op types (ONNX names) that stay f32">,
    ListOption<"allowOps", "allow-ops", "std::string",
               "Op types removed from the default deny list">,
    Option<"sensitiveLayers", "sensitive-layers", "std::string",
           /*default=*/"\"\"", "Regex of node names that stay f32">,
    ListOption<"keepF32Ops", "keep-f32-ops", "int64_t",
               "Ops kept in f32 (their index in the graph's op order, the "
               "report's `index`): the ones validation rounds raised">,
    ListOption<"noF8Ops", "no-f8-ops", "int64_t",
               "Ops not given an f8 format (graph op indices): the ones "
               "validation rounds stepped back to 16 bits">,
    Option<"policyOnly", "policy-only", "bool", /*default=*/"false",
           "No budget: every op the policy lets compute in 16 bits (or "
           "tf32) takes its best format, as autocast does; sensitivities "
           "are not needed (the training step's forward and backward)">,
    ListOption<"carrierOps", "carrier-ops", "int64_t",
               "Ops kept in f32 with reason `bisection` (graph op indices): "
               "the ones a bisection found carrying an error the prediction "
               "missed">
  ];
}

def InsertCastsPass : Pass<"dsmp-insert-casts", "mlir::func::FuncOp"> {
  let summary = "Materialize assigned formats as element types and casts";
  let description = [{
    Pre-condition: ops carry `dsmp.assigned`.

    Post-condition: an op assigned f16/bf16 computes on tensors of that
    element type: each float operand is cast to it, its float results have
    it, and a cast back to f32 feeds its other users; its `acc` is f32.
    An op assigned tf32 (matmul/conv) reads its float operands through
    casts to tf32 and keeps f32 results. An op assigned an f8 format reads
    its two operands through quantize_linear -> dequantize_linear pairs with
    a per-tensor f32 scale (amax / the format's largest value; amax from a
    constant's data or the producer's dsmp.range) and a zero f8 zero point,
    and keeps f32 results. The graph's inputs and outputs
    keep their types. Round trips this leaves are dsmp-minimize-casts'
    job.
  }];
}

def MinimizeCastsPass : Pass<"dsmp-minimize-casts", "mlir::func::FuncOp"> {
  let summary = "Remove redundant casts, share them, fold them into weights";
  let description = [{
    Post-condition, to a fixpoint:
    - a widening cast followed by the narrowing cast back is the original
      value (f16 -> f32 -> f16 is exact), and any two back-to-back casts
      whose middle type is wider than the first are one cast;
    - casts of constants are folded (weights stored in the low format), and
      so are per-tensor f8 quantizations of constants (f8 weights, 1 byte
      each);
    - a widening cast through a data-movement op (reshape, transpose,
      flatten, squeeze, unsqueeze, identity) is sunk below it, so the data
      moves in the narrow type and the next cast can cancel;
    - widening casts to f32 that are the only uses of an f16 or bf16
      MatMul's or Gemm's product are folded into it: it stores its f32
      sum (plus Gemm's bias) unrounded, and no 16-bit copy is kept beside
      the f32 one;
    - identical casts of one value are one cast shared by its users.
  }];
  let statistics = [
    Statistic<"numRemoved", "num-removed", "Casts removed">,
    Statistic<"numFolded", "num-folded", "Casts folded into constants">
  ];
}

#endif // DSMP_PASSES_PRECISION_PASSES_TD
