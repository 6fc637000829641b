//===- PrecisionInterfaceTest.cpp - FLOPs, classes and formats --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/IR/DsmpDialect.h"
#include "dialects/Dsmp/IR/DsmpOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::dsmp;

namespace {

class PrecisionInterfaceTest : public ::testing::Test {
protected:
  PrecisionInterfaceTest() {
    context.loadDialect<DsmpDialect, func::FuncDialect>();
  }

  /// Parses `body` into a function and returns its first op of type OpTy.
  template <typename OpTy> OpTy parseOp(StringRef source) {
    module = parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module);
    OpTy found;
    module->walk([&](OpTy op) {
      if (!found)
        found = op;
    });
    return found;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(PrecisionInterfaceTest, ConvFlopsCountMultiplyAdds) {
  auto conv = parseOp<ConvOp>(R"mlir(
    func.func @f(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
      %n = dsmp.none
      %y = dsmp.conv %x, %w, %n {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x8x8xf32>
      return %y : tensor<1x4x8x8xf32>
    })mlir");
  ASSERT_TRUE(conv);
  auto precision = cast<PrecisionOpInterface>(conv.getOperation());
  EXPECT_EQ(precision.getOpClass(), OpClass::conv);
  // 2 * (1*4*8*8 outputs) * (3 channels * 3*3 kernel).
  EXPECT_EQ(precision.getFlopCount(), 2 * 256 * 27);
  EXPECT_EQ(precision.getAccumulationFormat(), Format::f32);
  auto formats = precision.getAllowedFormats();
  EXPECT_TRUE(llvm::is_contained(formats, Format::tf32));
  EXPECT_TRUE(llvm::is_contained(formats, Format::f8E4M3FN));
}

TEST_F(PrecisionInterfaceTest, DynamicShapesHaveNoFlopCount) {
  auto matmul = parseOp<MatMulOp>(R"mlir(
    func.func @f(%a: tensor<?x8xf32>, %b: tensor<8x4xf32>) -> tensor<?x4xf32> {
      %y = dsmp.matmul %a, %b : (tensor<?x8xf32>, tensor<8x4xf32>) -> tensor<?x4xf32>
      return %y : tensor<?x4xf32>
    })mlir");
  ASSERT_TRUE(matmul);
  EXPECT_EQ(cast<PrecisionOpInterface>(matmul.getOperation()).getFlopCount(),
            std::nullopt);
}

TEST_F(PrecisionInterfaceTest, AccumulationFormatIsTheAccAttribute) {
  auto softmax = parseOp<SoftmaxOp>(R"mlir(
    func.func @f(%x: tensor<2x8xf16>) -> tensor<2x8xf16> {
      %y = dsmp.softmax %x {acc = #dsmp.format<bf16>} : (tensor<2x8xf16>) -> tensor<2x8xf16>
      return %y : tensor<2x8xf16>
    })mlir");
  ASSERT_TRUE(softmax);
  auto precision = cast<PrecisionOpInterface>(softmax.getOperation());
  EXPECT_EQ(precision.getOpClass(), OpClass::normalization);
  EXPECT_EQ(precision.getAccumulationFormat(), Format::bf16);
  auto formats = precision.getAllowedFormats();
  EXPECT_FALSE(llvm::is_contained(formats, Format::tf32))
      << "tf32 only applies to matmul and conv inputs";
}

TEST_F(PrecisionInterfaceTest, IntegerOpsComputeInNoFloatFormat) {
  auto add = parseOp<AddOp>(R"mlir(
    func.func @f(%a: tensor<4xi64>, %b: tensor<4xi64>) -> tensor<4xi64> {
      %y = dsmp.add %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
      return %y : tensor<4xi64>
    })mlir");
  ASSERT_TRUE(add);
  EXPECT_TRUE(cast<PrecisionOpInterface>(add.getOperation())
                  .getAllowedFormats()
                  .empty());
}

TEST(Formats, StorageTypesRoundTrip) {
  MLIRContext context;
  for (Format format :
       {Format::f32, Format::tf32, Format::f16, Format::bf16, Format::f8E4M3FN,
        Format::f8E5M2, Format::f8E4M3FNUZ, Format::f8E5M2FNUZ})
    EXPECT_EQ(getFormatOf(getStorageType(&context, format)), format)
        << stringifyFormat(format).str();
}

} // namespace
