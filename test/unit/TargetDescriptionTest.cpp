//===- TargetDescriptionTest.cpp - The target table -------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dsmp/Target/TargetDescription.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/APFloat.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::dsmp;

namespace {
TargetDescription get(llvm::StringRef name,
                      std::vector<std::string> features = {}) {
  auto t = getTargetDescription(name, features);
  EXPECT_TRUE(static_cast<bool>(t)) << llvm::toString(t.takeError());
  return *t;
}

TEST(TargetDescription, A100UsesTF32ForF32MatmulsAndKeepsReductionsWide) {
  TargetDescription t = get("sm_80");
  EXPECT_TRUE(t.allows(OpClass::matmul, Format::tf32));
  EXPECT_TRUE(t.allows(OpClass::conv, Format::bf16));
  EXPECT_FALSE(t.allows(OpClass::reduction, Format::f16));
  EXPECT_FALSE(t.allows(OpClass::normalization, Format::bf16));
  EXPECT_TRUE(t.allows(OpClass::reduction, Format::f32));
  EXPECT_FALSE(t.allows(OpClass::matmul, Format::f8E4M3FN));
  EXPECT_EQ(t.f32MatmulFormat, Format::tf32);
  EXPECT_GT(t.throughputOf(Format::f16), t.throughputOf(Format::tf32));
}

TEST(TargetDescription, MI250XHasNoTF32) {
  TargetDescription t = get("gfx90a");
  for (OpClass cls : {OpClass::matmul, OpClass::conv, OpClass::elementwise})
    EXPECT_FALSE(t.allows(cls, Format::tf32));
  EXPECT_TRUE(t.allows(OpClass::matmul, Format::bf16));
  EXPECT_EQ(t.f32MatmulFormat, Format::f32);
  EXPECT_EQ(t.throughputOf(Format::tf32), 0.0);
}

TEST(TargetDescription, FP8VariantsComeFromTheTable) {
  // H100: OCP E4M3FN (max 448); MI300: AMD's fnuz E4M3 (max 240).
  TargetDescription hopper = get("sm_90"), mi300 = get("gfx942");
  EXPECT_TRUE(hopper.allows(OpClass::matmul, Format::f8E4M3FN));
  EXPECT_FALSE(hopper.allows(OpClass::matmul, Format::f8E4M3FNUZ));
  EXPECT_TRUE(mi300.allows(OpClass::matmul, Format::f8E4M3FNUZ));
  EXPECT_FALSE(mi300.allows(OpClass::matmul, Format::f8E4M3FN));
  EXPECT_TRUE(hopper.perTensorFP8Scale);
  MLIRContext context;
  auto largest = [&](Format f) {
    auto type = cast<FloatType>(getStorageType(&context, f));
    return llvm::APFloat::getLargest(type.getFloatSemantics())
        .convertToDouble();
  };
  EXPECT_EQ(largest(Format::f8E4M3FN), 448.0);
  EXPECT_EQ(largest(Format::f8E4M3FNUZ), 240.0);
}

TEST(TargetDescription, FeaturesAddFormats) {
  EXPECT_FALSE(get("aarch64").allows(OpClass::matmul, Format::bf16));
  EXPECT_TRUE(get("aarch64").allows(OpClass::elementwise, Format::f16));
  TargetDescription withBF16 = get("aarch64", {"+bf16"});
  EXPECT_TRUE(withBF16.allows(OpClass::matmul, Format::bf16));
  EXPECT_FALSE(withBF16.allows(OpClass::elementwise, Format::bf16));
  EXPECT_GT(withBF16.throughputOf(Format::bf16), 0.0);
  EXPECT_FALSE(get("x86_64").allows(OpClass::matmul, Format::bf16));
  EXPECT_TRUE(
      get("x86_64", {"+avx512bf16"}).allows(OpClass::matmul, Format::bf16));
}

TEST(TargetDescription, UnknownTargetsAndFeaturesAreNamed) {
  auto unknown = getTargetDescription("sm_70");
  ASSERT_FALSE(static_cast<bool>(unknown));
  EXPECT_EQ(llvm::toString(unknown.takeError()),
            "unknown target 'sm_70' (known: sm_80, sm_90, gfx90a, gfx942, "
            "aarch64, x86_64)");
  auto feature = getTargetDescription("sm_80", {"+fp8"});
  ASSERT_FALSE(static_cast<bool>(feature));
  EXPECT_EQ(llvm::toString(feature.takeError()),
            "target 'sm_80' has no feature '+fp8' (features: none)");
}

TEST(TargetDescription, TableErrorsNameTheTargetAndField) {
  auto error = [](llvm::StringRef json) {
    auto parsed = parseTargetTable(json);
    EXPECT_FALSE(static_cast<bool>(parsed)) << json.str();
    return parsed ? std::string() : llvm::toString(parsed.takeError());
  };
  EXPECT_EQ(error(R"({"targets": [{"name": "t", "formats": {"matmul": ["f12"]},
                 "throughput": {"f32": 1}}]})"),
            "target table: 't': unknown format 'f12' for 'matmul'");
  EXPECT_EQ(error(R"({"targets": [{"name": "t", "formats": {"matmul": ["f16"]},
                 "throughput": {"f32": 1}}]})"),
            "target table: 't': format 'f16' is allowed but has no throughput");
  EXPECT_EQ(error(R"({"targets": [{"name": "t", "formats": {},
                 "throughput": {"f32": -1}}]})"),
            "target table: 't': throughput of 'f32' must be a positive number");
  EXPECT_EQ(error(R"({"targets": [{"name": "t", "formats": {"loss": []},
                 "throughput": {"f32": 1}}]})"),
            "target table: 't': unknown op class 'loss'");
  EXPECT_NE(error("{"), "");
}
} // namespace
