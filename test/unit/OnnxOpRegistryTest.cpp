//===- OnnxOpRegistryTest.cpp - ONNX <-> dsmp op table ----------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/IR/OnnxOpRegistry.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace mlir::dsmp;

namespace {

TEST(OnnxOpRegistry, CoversEveryOpOfTheSharedModels) {
  const char *floor[] = {"Add",
                         "Sub",
                         "Mul",
                         "Div",
                         "Pow",
                         "Sqrt",
                         "Erf",
                         "Tanh",
                         "Sigmoid",
                         "HardSigmoid",
                         "Relu",
                         "LeakyRelu",
                         "Clip",
                         "Max",
                         "Log",
                         "Not",
                         "Equal",
                         "GreaterOrEqual",
                         "Where",
                         "Conv",
                         "ConvTranspose",
                         "Gemm",
                         "MatMul",
                         "BatchNormalization",
                         "LayerNormalization",
                         "Softmax",
                         "ReduceMean",
                         "ReduceMax",
                         "MaxPool",
                         "AveragePool",
                         "GlobalAveragePool",
                         "Reshape",
                         "Flatten",
                         "Transpose",
                         "Concat",
                         "Slice",
                         "Squeeze",
                         "Unsqueeze",
                         "Gather",
                         "Expand",
                         "Pad",
                         "Resize",
                         "Shape",
                         "Size",
                         "ConstantOfShape",
                         "Range",
                         "Cast",
                         "Identity",
                         "LSTM",
                         "If"};
  for (const char *type : floor)
    EXPECT_NE(lookupOnnxType(type), nullptr) << type;
}

TEST(OnnxOpRegistry, CoversTheWiderOpFamilies) {
  const char *more[] = {"Neg",
                        "Abs",
                        "Exp",
                        "Reciprocal",
                        "Min",
                        "Mean",
                        "Sum",
                        "ReduceSum",
                        "ReduceProd",
                        "ReduceL1",
                        "ReduceL2",
                        "ReduceLogSumExp",
                        "ArgMax",
                        "ArgMin",
                        "TopK",
                        "RNN",
                        "GRU",
                        "Loop",
                        "Split",
                        "Tile",
                        "Einsum",
                        "InstanceNormalization",
                        "GroupNormalization",
                        "QuantizeLinear",
                        "DequantizeLinear"};
  for (const char *type : more)
    EXPECT_NE(lookupOnnxType(type), nullptr) << type;
}

TEST(OnnxOpRegistry, NamesFollowOnnxSpelling) {
  EXPECT_EQ(lookupOnnxType("MatMul")->opName, "dsmp.matmul");
  EXPECT_EQ(lookupOnnxType("BatchNormalization")->opName,
            "dsmp.batch_normalization");
  EXPECT_EQ(lookupOnnxType("GatherND")->opName, "dsmp.gather_nd");
  EXPECT_EQ(lookupOnnxType("IsNaN")->opName, "dsmp.is_nan");
  EXPECT_EQ(lookupDsmpOp("dsmp.lstm")->onnxType, "LSTM");
  EXPECT_EQ(lookupOnnxType("Constant"), nullptr)
      << "Constant becomes dsmp.constant, not a generic op";
  EXPECT_EQ(lookupOnnxType("NotAnOp"), nullptr);
}

TEST(OnnxOpRegistry, AritiesComeFromTheOpDefinitions) {
  const OnnxOpInfo *conv = lookupOnnxType("Conv");
  EXPECT_EQ(conv->numOperands, 3u);
  EXPECT_FALSE(conv->variadicOperands);
  EXPECT_EQ(conv->numResults, 1u);

  const OnnxOpInfo *lstm = lookupOnnxType("LSTM");
  EXPECT_EQ(lstm->numOperands, 8u);
  EXPECT_EQ(lstm->numResults, 3u);

  const OnnxOpInfo *resize = lookupOnnxType("Resize");
  EXPECT_EQ(resize->numOperands, 4u);

  EXPECT_TRUE(lookupOnnxType("Concat")->variadicOperands);
  EXPECT_TRUE(lookupOnnxType("If")->variadicResults);
  EXPECT_TRUE(lookupOnnxType("Split")->variadicResults);
  const OnnxOpInfo *loop = lookupOnnxType("Loop");
  EXPECT_TRUE(loop->variadicOperands);
  EXPECT_EQ(loop->numOperands, 2u) << "M and cond precede the carried values";
}

TEST(OnnxOpRegistry, TableIsSortedAndUnique) {
  std::set<std::string> seen;
  std::string previous;
  for (const OnnxOpInfo &info : getOnnxOps()) {
    EXPECT_LT(previous, info.onnxType);
    EXPECT_TRUE(seen.insert(info.opName).second) << info.opName;
    EXPECT_EQ(lookupDsmpOp(info.opName), &info);
    previous = info.onnxType;
  }
  EXPECT_GE(getOnnxOps().size(), 100u);
}

} // namespace
