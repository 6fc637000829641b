//===- Passes.td - dsmp passes ------------------------------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_PASSES_TD
#define DSMP_PASSES_TD

include "mlir/Pass/PassBase.td"

def LoadWeightsPass : Pass<"dsmp-load-weights", "mlir::ModuleOp"> {
  let summary = "Replace #dsmp.external weight references with in-memory blobs";
  let description = [{
    Pre-condition: the module's `dsmp.weights` attribute names a weight file
    (relative to `weights-dir`) and every `dsmp.constant` with a
    `#dsmp.external` value refers to a range inside it.

    Post-condition: those constants hold `dense_resource` blobs with the
    file's bytes, so passes that need weight values (folding, precision
    analysis, lowering) can read them; the `dsmp.weights` attribute is
    removed. Fails, naming the constant, when the file is missing or a range
    lies outside it.
  }];
  let options = [
    Option<"weightsDir", "weights-dir", "std::string", /*default=*/"\".\"",
           "Folder the module's weight file is relative to">
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

def TestPrecisionInterfacePass
    : Pass<"dsmp-test-precision-interface", "mlir::func::FuncOp"> {
  let summary = "Test only: report PrecisionOpInterface facts as remarks";
  let description = [{
    Emits one remark per op that implements PrecisionOpInterface with its
    class, FLOP count, accumulation format and allowed formats, so lit tests
    can check the interface with -verify-diagnostics. Changes nothing.
  }];
}

#endif // DSMP_PASSES_TD
