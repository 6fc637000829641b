//===- Passes.td - dsmp conversion passes -------------------*- tablegen -*-===//
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
    activations with ONNX broadcasting, comparisons, Where, Clip, Cast,
    Gemm, MatMul, grouped N-d Conv, MaxPool, AveragePool,
    GlobalAveragePool, Softmax, ReduceSum/Mean/Max over constant axes,
    BatchNormalization, LayerNormalization, Concat, Slice (constant bounds,
    positive steps), Gather, Expand, ConstantOfShape, Transpose, the static
    reshapes, Identity, constants) are linalg.generic / linalg.transpose /
    tensor.pad / tensor.insert_slice / tensor.extract_slice /
    tensor.reshape / arith.constant on the same tensor types, computing in
    the tensors' element type. An op it cannot lower yet fails the pass with
    an error naming it. Not lowered yet: Pad, Resize, ConvTranspose, RNNs,
    control flow, the other reductions, SAME auto_pad, ceil_mode, and
    dynamic shapes.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::linalg::LinalgDialect",
    "mlir::math::MathDialect", "mlir::tensor::TensorDialect"
  ];
  let statistics = [
    Statistic<"numLowered", "num-lowered", "dsmp ops lowered">
  ];
}

#endif // DSMP_CONVERSION_PASSES_TD
