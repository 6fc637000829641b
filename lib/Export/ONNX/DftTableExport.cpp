//===- DftTableExport.cpp - dsmp.dft_table as ONNX nodes ------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "DftTableExport.h"

#include "dialects/Dsmp/IR/OnnxTypes.h"

#include "mlir/IR/BuiltinTypes.h"

#include <vector>

using namespace mlir;

llvm::Error mlir::dsmp::exportDftTable(
    DftTableOp op, onnx::GraphProto &graph, int64_t opset,
    llvm::StringRef length, llvm::StringRef result,
    llvm::function_ref<std::string(llvm::StringRef)> unique) {
  if (opset < 17)
    return llvm::createStringError(
        "dsmp.dft_table exports as ONNX DFT, which needs opset 17 or later "
        "(the export's is " +
        std::to_string(opset) + ")");
  std::string base = unique("dft_table");
  auto node = [&](StringRef type, std::vector<std::string> inputs,
                  StringRef output = {}) {
    auto *n = graph.add_node();
    n->set_op_type(type.str());
    n->set_name(unique(base + "/" + type.str()));
    for (const std::string &input : inputs)
      n->add_input(input);
    std::string name =
        output.empty() ? unique(base + "/" + type.str()) : output.str();
    n->add_output(name);
    return std::make_pair(n, name);
  };
  auto ints = [&](std::vector<int64_t> values) {
    auto *tensor = graph.add_initializer();
    tensor->set_name(unique(base + "/ints"));
    tensor->set_data_type(onnx::TensorProto::INT64);
    tensor->add_dims(static_cast<int64_t>(values.size()));
    for (int64_t v : values)
      tensor->add_int64_data(v);
    return tensor->name();
  };
  auto intAttr = [](onnx::NodeProto *n, const char *name, int64_t v) {
    auto *attr = n->add_attribute();
    attr->set_name(name);
    attr->set_type(onnx::AttributeProto::INT);
    attr->set_i(v);
  };
  int64_t parts = static_cast<int64_t>(op.getParts());
  // N as [1], then R = N * parts, the identity [R, R].
  std::string n = node("Reshape", {length.str(), ints({1})}).second;
  std::string rows = node("Mul", {n, ints({parts})}).second;
  std::string square = node("Concat", {rows, rows}).second;
  intAttr(graph.mutable_node(graph.node_size() - 1), "axis", 0);
  auto [zeros, zerosName] = node("ConstantOfShape", {square});
  auto *value = zeros->add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  value->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  value->mutable_t()->add_dims(1);
  value->mutable_t()->add_float_data(0.0f);
  std::string eye = node("EyeLike", {zerosName}).second;
  // Each row a signal [N, parts]; its DFT is that row of the table.
  std::string signalShape =
      node("Concat", {ints({-1}), n, ints({parts})}).second;
  intAttr(graph.mutable_node(graph.node_size() - 1), "axis", 0);
  std::string signals = node("Reshape", {eye, signalShape}).second;
  // The axis: an attribute up to opset 19, a scalar input from 20.
  std::vector<std::string> dftInputs{signals};
  if (opset >= 20) {
    auto *axis = graph.add_initializer();
    axis->set_name(unique(base + "/axis"));
    axis->set_data_type(onnx::TensorProto::INT64);
    axis->add_int64_data(1);
    dftInputs.insert(dftInputs.end(), {"", axis->name()});
  }
  auto [dft, spectra] = node("DFT", dftInputs);
  if (opset < 20)
    intAttr(dft, "axis", 1);
  intAttr(dft, "inverse", op.getInverse() ? 1 : 0);
  intAttr(dft, "onesided", op.getOnesided() ? 1 : 0);
  Type element =
      cast<RankedTensorType>(op.getTable().getType()).getElementType();
  bool cast = !element.isF32();
  std::string tableShape = node("Concat", {rows, ints({-1})}).second;
  intAttr(graph.mutable_node(graph.node_size() - 1), "axis", 0);
  std::string table =
      node("Reshape", {spectra, tableShape}, cast ? StringRef() : result)
          .second;
  if (cast) {
    auto [castNode, castName] = node("Cast", {table}, result);
    intAttr(castNode, "to", getOnnxDataType(element));
  }
  return llvm::Error::success();
}
