//===- Passes.td - dsmp passes -----------------------------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_DIALECTS_DSMP_TRANSFORMS_PASSES_TD
#define DSMP_DIALECTS_DSMP_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def LoadWeightsPass : Pass<"dsmp-load-weights", "mlir::ModuleOp"> {
  let summary = "Replace #dsmp.external weight references with in-memory blobs";
  let description = [{
    Pre-condition: the module's `dsmp.weights` attribute names a weight file
    (relative to `weights-dir`, by default beside the IR file the module's
    location names, as dsmp-translate writes it) and every `dsmp.constant` with a
    `#dsmp.external` value refers to a range inside it.

    Post-condition: those constants hold `dense_resource` blobs with the
    file's bytes, so passes that need weight values (folding, precision
    analysis, lowering) can read them; the `dsmp.weights` attribute is
    removed. Fails, naming the constant, when the file is missing or a range
    lies outside it.
  }];
  let options = [
    Option<"weightsDir", "weights-dir", "std::string", /*default=*/"\"\"",
           "Folder the module's weight file is relative to (default: the "
           "folder of the file the module was parsed from, else the "
           "current one)">
  ];
  let statistics = [
    Statistic<"numLoaded", "num-loaded", "Weights loaded from the file">
  ];
}

def RefineShapesPass : Pass<"dsmp-refine-shapes", "mlir::func::FuncOp"> {
  let summary = "Make dynamic dims static where the operands determine them";
  let description = [{
    Pre-condition: dsmp ops whose result types may hold dynamic dims (`?`),
    typically after canonicalization folded shape arithmetic into constants
    or after the inputs were given static shapes.

    Post-condition: in program order, each ONNX-mapped op's result dims that
    the operand types, constant operands and attributes determine (the same
    rules the importer uses, `dialects/Dsmp/IR/ShapeInference.cpp`) are
    static; known dims never change, and the function's result types follow
    its returned values. Ops inside If/Loop bodies are refined too.
  }];
  let statistics = [
    Statistic<"numRefined", "num-refined", "Results given more static dims">
  ];
}

def DecomposeRecurrentPass
    : Pass<"dsmp-decompose-recurrent", "mlir::func::FuncOp"> {
  let summary = "Unroll LSTM, GRU and RNN with static shapes into per-step dsmp ops";
  let description = [{
    Pre-condition: `dsmp.lstm`, `dsmp.gru` and `dsmp.rnn` ops whose operands
    have static shapes (after specialization), the default activations
    (LSTM Sigmoid/Tanh/Tanh, GRU Sigmoid/Tanh, RNN Tanh), no `clip`, no
    `sequence_lens` and, for LSTM, `input_forget` = 0; others are left alone.

    Post-condition: each is its ONNX equations, unrolled over the sequence:
    one MatMul of all inputs with W, then per step and direction a MatMul
    with R, the biases, the peepholes (LSTM), the gates and the state update
    (GRU's reset gate before or after the product, `linear_before_reset`),
    with Y, Y_h (and Y_c) assembled by Concat. Everything
    downstream (lowering, the evaluator, the precision analyses' adjoint)
    then sees only ops it knows; each gate can get its own format.
  }];
  let statistics = [
    Statistic<"numDecomposed", "num-decomposed", "LSTMs unrolled">
  ];
}

def UnrollLoopsPass : Pass<"dsmp-unroll-loops", "mlir::func::FuncOp"> {
  let summary = "Unroll ONNX Loops whose trip count and condition fold";
  let description = [{
    Pre-condition: `dsmp.loop` ops whose M and cond operands are constants
    (or none), typically after specialization.

    Post-condition: each Loop whose body yields a condition that folds to a
    constant in every iteration, and that ends within `max-iterations`
    iterations and `max-cloned-ops` copied ops, is its body cloned once per
    iteration into the enclosing block (the iteration number a constant),
    its scan outputs a Concat of the per-iteration values stacked on a new
    leading dim. Other Loops are left as they are. tf2onnx exports Keras
    GRU and SimpleRNN layers as such Loops.

    ```mlir
    // dsmp-opt --dsmp-unroll-loops
    %r:2 = dsmp.loop %three, %true, %h : ... { ^bb0(%i, %c, %h): ... }
    // becomes three copies of the body and a dsmp.concat of the scans.
    ```
  }];
  let options = [
    Option<"maxIterations", "max-iterations", "int64_t", /*default=*/"4096",
           "Loops that run more iterations stay Loops">,
    Option<"maxClonedOps", "max-cloned-ops", "int64_t", /*default=*/"200000",
           "Loops whose unrolled body would have more ops stay Loops">
  ];
  let statistics = [
    Statistic<"numUnrolled", "num-unrolled", "Loops unrolled">
  ];
}

def ExpandMaxPoolGradPass
    : Pass<"dsmp-expand-max-pool-grad", "mlir::func::FuncOp"> {
  let summary = "Expand dsmp.max_pool_grad into ops the host lowering knows";
  let description = [{
    Pre-condition: `dsmp.max_pool_grad` ops (MaxPool's VJP in an adjoint
    graph) with static shapes.

    Post-condition: each is, per window offset, a strided `dsmp.slice` of X
    (padded with the lowest float), a `dsmp.equal` with Y and a one-hot
    depthwise `dsmp.conv_transpose` of dY / ties placing the matches, summed
    over the offsets: the same gradient, from ops the lowering has. The
    reference evaluator runs `dsmp.max_pool_grad` directly; the lowering
    pipeline runs this pass first. An op that cannot be expanded is an
    error.
  }];
  let statistics = [
    Statistic<"numExpanded", "num-expanded", "max_pool_grad ops expanded">
  ];
}

def SpecializeShapesPass : Pass<"dsmp-specialize-shapes", "mlir::ModuleOp"> {
  let summary = "Give @main_graph static input shapes and refine them through the graph";
  let description = [{
    Pre-condition: the module has `@main_graph`; its inputs may have dynamic
    dims.

    Post-condition: each input named in `shapes` has that shape (a static
    dim of the model must agree), every other dynamic input dim is
    `default-dim` (or, with `require-all-inputs`, a missing input is an
    error); each integer input in `fix-inputs` reads as a constant of those
    values (the argument stays, so the entry point keeps its inputs). Then a
    few rounds of dsmp-refine-shapes and canonicalization make the shapes
    static through the graph, recurrences unroll (dsmp-decompose-recurrent, dsmp-unroll-loops)
    and CSE runs. Fails, naming the input or output, where a given shape does
    not fit or an output is not static afterwards; the failure also names
    the inputs an If branches on. With `keep-dynamic`, the dynamic input dims
    that `shapes` does not give stay dynamic (as do the dims that follow
    from them, outputs included): the dynamic variant of an artifact
    (docs/dynamic-shapes.md).

    ```
    dsmp-specialize-shapes{shapes=image=1x1x8x8 fix-inputs=sr=16000}
    ```
  }];
  let options = [
    ListOption<"shapes", "shapes", "std::string",
               "Input shapes, NAME=D0xD1x... each">,
    Option<"defaultDim", "default-dim", "int64_t", /*default=*/"1",
           "Value of the dynamic input dims that `shapes` does not give">,
    Option<"requireAllInputs", "require-all-inputs", "bool",
           /*default=*/"false", "Every input must have a shape in `shapes`">,
    ListOption<"fixInputs", "fix-inputs", "std::string",
               "Integer inputs compiled for one value, NAME=V[:V...] each">,
    Option<"keepDynamic", "keep-dynamic", "bool", /*default=*/"false",
           "Dynamic input dims not in `shapes` stay dynamic (instead of "
           "`default-dim`)">
  ];
  let dependentDialects = ["mlir::dsmp::DsmpDialect"];
}

def ExternalizeConstantsPass
    : Pass<"dsmp-externalize-constants", "mlir::ModuleOp"> {
  let summary = "Move large float constants to the artifact's weight file";
  let description = [{
    Pre-condition: constants inline (dense or dense_resource) or
    `#dsmp.external` ranges of the file the module's `dsmp.weights` names.

    Post-condition: every non-splat float constant of at least `min-bytes`
    is a `#dsmp.external` range of `weights-file` (64-byte aligned), and
    `dsmp.weights` names that file. When the module already names a weight
    file it must be `weights-file` (same file name), which then grows; else
    `weights-file` is written anew, so the same module always gives the same
    offsets. Integer constants stay inline: shape folding reads them.
  }];
  let options = [
    Option<"weightsFile", "weights-file", "std::string", /*default=*/"",
           "The weight file to write">,
    Option<"minBytes", "min-bytes", "int64_t", /*default=*/"1024",
           "Constants of at least this many bytes move to the file">
  ];
  let statistics = [
    Statistic<"numExternalized", "num-externalized",
              "Constants moved to the weight file">
  ];
}

#endif // DSMP_DIALECTS_DSMP_TRANSFORMS_PASSES_TD
