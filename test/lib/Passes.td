//===- Passes.td - Test-only dsmp passes -------------------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Passes that print an analysis or expose an internal result so that lit
// can check it. They are linked into dsmp-opt only, never into the
// product libraries.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_TEST_LIB_PASSES_TD
#define DSMP_TEST_LIB_PASSES_TD

include "mlir/Pass/PassBase.td"

def TestAdjointPass : Pass<"dsmp-test-adjoint", "mlir::ModuleOp"> {
  let summary = "Test only: make @main_graph return its input gradients";
  let description = [{
    Adds one argument `seed_<i>` per f32 result of @main_graph and makes the
    function return, after its own results, the gradient of
    sum_i <seed_i, result_i> with respect to each f32 argument (zeros where
    none flows), built through VJPOpInterface exactly as
    dsmp-analyze-sensitivity builds it, then `wgrad_<k>`, the gradient with
    respect to the constant weights of the k-th MatMul, Gemm or Conv that
    has them (weightGradient, what the weight_energy sensitivity is built
    on). A test compares these with finite differences of the forward graph.
  }];
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

#endif // DSMP_TEST_LIB_PASSES_TD
