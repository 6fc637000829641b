//===- EvaluatorConstantCacheTest.cpp - decoded constants shared ---------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// While an EvaluatorConstantCache lives for a context, evaluators created
// on it decode each constant once and compute what an uncached evaluator
// computes; a second cache on the same context is inert, and none is active
// once the first is gone.
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/IR/DsmpDialect.h"
#include "dsmp/Execution/Evaluator.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <cstring>
#include <gtest/gtest.h>

using namespace mlir;
using mlir::dsmp::EvaluatorConstantCache;
using mlir::dsmp::GraphEvaluator;

namespace {
// y = x * w + b with an f32 weight and an f16 bias (decoded to f32).
const char *kGraph = R"mlir(
func.func @main_graph(%x: tensor<4xf32> {dsmp.name = "x"}) -> tensor<4xf32> {
  %w = dsmp.constant dense<[1.5, -2.0, 0.25, 3.0]> : tensor<4xf32>
  %b = dsmp.constant dense<[0.5, 1.0, -1.0, 2.0]> : tensor<4xf16>
  %b32 = dsmp.cast %b : (tensor<4xf16>) -> tensor<4xf32>
  %m = dsmp.mul %x, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %y = dsmp.add %m, %b32 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
)mlir";

std::vector<float> evaluate(ModuleOp module) {
  auto evaluator =
      GraphEvaluator::create(module.lookupSymbol<func::FuncOp>("main_graph"));
  EXPECT_TRUE(static_cast<bool>(evaluator));
  if (!evaluator) {
    llvm::consumeError(evaluator.takeError());
    return {};
  }
  ::dsmp::runtime::HostTensor x;
  x.name = "x";
  x.dtype = 1; // FLOAT
  x.dims = {4};
  float values[] = {2.0f, 1.0f, 4.0f, -1.0f};
  x.data.resize(sizeof(values));
  std::memcpy(x.data.data(), values, sizeof(values));
  auto outputs = (*evaluator)->run({x});
  EXPECT_TRUE(static_cast<bool>(outputs));
  if (!outputs) {
    llvm::consumeError(outputs.takeError());
    return {};
  }
  std::vector<float> y(4);
  EXPECT_EQ(outputs->front().data.size(), sizeof(float) * 4);
  std::memcpy(y.data(), outputs->front().data.data(), sizeof(float) * 4);
  return y;
}

TEST(EvaluatorConstantCache, SharesDecodedConstantsAndComputesTheSame) {
  MLIRContext context;
  context.loadDialect<mlir::dsmp::DsmpDialect, func::FuncDialect>();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kGraph, &context);
  ASSERT_TRUE(module);
  const std::vector<float> expected = {3.5f, -1.0f, 0.0f, -1.0f};

  EXPECT_EQ(EvaluatorConstantCache::active(&context), nullptr);
  EXPECT_EQ(evaluate(*module), expected);
  {
    EvaluatorConstantCache cache(&context);
    EXPECT_EQ(EvaluatorConstantCache::active(&context), &cache);
    EvaluatorConstantCache inert(&context); // one per context
    EXPECT_EQ(EvaluatorConstantCache::active(&context), &cache);

    EXPECT_EQ(evaluate(*module), expected);
    EXPECT_EQ(cache.size(), 2u);                  // w and b, decoded once each
    OwningOpRef<ModuleOp> copy = module->clone(); // the same attributes
    EXPECT_EQ(evaluate(*copy), expected);
    EXPECT_EQ(cache.size(), 2u);
    EXPECT_EQ(inert.size(), 0u);
  }
  EXPECT_EQ(EvaluatorConstantCache::active(&context), nullptr);
  EXPECT_EQ(evaluate(*module), expected);
}
} // namespace
