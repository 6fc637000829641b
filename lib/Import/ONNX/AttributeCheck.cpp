//===- AttributeCheck.cpp - ONNX attributes against their types -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// An ONNX attribute says its type and carries its value in that type's
// field. A file can say one thing and carry another (`type: STRING` with
// `i: 1`), or give an attribute a type its op does not take. Both are
// refused here, before ONNX's shape inference or dsmp's ops read a value
// from a field that is not there.
//
//===----------------------------------------------------------------------===//

#include "ImportUtils.h"

#include "dialects/Dsmp/IR/OnnxOpRegistry.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"

#include <onnx/defs/schema.h>

#include <algorithm>

using llvm::Error;
using llvm::StringRef;

namespace mlir::dsmp::onnx_import {

namespace {

using AttrProto = onnx::AttributeProto;

/// The newest opset whose schemas ONNX 1.12 has; later models are checked
/// against the newest schema of their op up to it.
constexpr int64_t kNewestSchemaOpset = 17;

/// The value fields `attr` fills, as the attribute types they belong to.
llvm::SmallVector<AttrProto::AttributeType>
filledFields(const AttrProto &attr) {
  llvm::SmallVector<AttrProto::AttributeType> fields;
  auto add = [&](bool filled, AttrProto::AttributeType type) {
    if (filled)
      fields.push_back(type);
  };
  add(attr.has_f(), AttrProto::FLOAT);
  add(attr.has_i(), AttrProto::INT);
  add(attr.has_s(), AttrProto::STRING);
  add(attr.has_t(), AttrProto::TENSOR);
  add(attr.has_g(), AttrProto::GRAPH);
  add(attr.has_sparse_tensor(), AttrProto::SPARSE_TENSOR);
  add(attr.has_tp(), AttrProto::TYPE_PROTO);
  add(attr.floats_size() > 0, AttrProto::FLOATS);
  add(attr.ints_size() > 0, AttrProto::INTS);
  add(attr.strings_size() > 0, AttrProto::STRINGS);
  add(attr.tensors_size() > 0, AttrProto::TENSORS);
  add(attr.graphs_size() > 0, AttrProto::GRAPHS);
  add(attr.sparse_tensors_size() > 0, AttrProto::SPARSE_TENSORS);
  add(attr.type_protos_size() > 0, AttrProto::TYPE_PROTOS);
  return fields;
}

bool isListType(AttrProto::AttributeType type) {
  switch (type) {
  case AttrProto::FLOATS:
  case AttrProto::INTS:
  case AttrProto::STRINGS:
  case AttrProto::TENSORS:
  case AttrProto::GRAPHS:
  case AttrProto::SPARSE_TENSORS:
  case AttrProto::TYPE_PROTOS:
    return true;
  default:
    return false;
  }
}

std::string typeName(AttrProto::AttributeType type) {
  if (!AttrProto::AttributeType_IsValid(type))
    return "an unknown type (" + std::to_string(static_cast<int>(type)) + ")";
  return AttrProto::AttributeType_Name(type);
}

} // namespace

const onnx::OpSchema *schemaForAttributes(StringRef opType, int64_t opset) {
  return onnx::OpSchemaRegistry::Schema(
      opType.str(), static_cast<int>(std::min(opset, kNewestSchemaOpset)), "");
}

Error checkNodeAttributes(const onnx::NodeProto &node, StringRef file,
                          const Where &where, int64_t opset) {
  const onnx::OpSchema *schema = schemaForAttributes(node.op_type(), opset);
  llvm::StringSet<> seen;
  for (const AttrProto &attr : node.attribute()) {
    std::string name = "attribute '" + attr.name() + "'";
    auto error = [&](const llvm::Twine &message) {
      return makeError(file, where, opset, name + " " + message);
    };
    if (attr.name().empty())
      return makeError(file, where, opset, "an attribute has no name");
    if (!seen.insert(attr.name()).second)
      return error("is given twice");
    if (!attr.ref_attr_name().empty())
      return error("refers to '" + attr.ref_attr_name() +
                   "' (ref_attr_name), which only function bodies may");
    if (attr.type() == AttrProto::UNDEFINED)
      return error("declares no type");
    if (!AttrProto::AttributeType_IsValid(attr.type()))
      return error("declares " + typeName(attr.type()));
    for (AttrProto::AttributeType field : filledFields(attr))
      if (field != attr.type())
        return error("declares type " + typeName(attr.type()) +
                     " but holds a value of type " + typeName(field));
    if (!isListType(attr.type()) && filledFields(attr).empty())
      return error("declares type " + typeName(attr.type()) +
                   " but holds no value");
    if (isDsmpOnlyAttribute(attr.name()))
      return error("is not an ONNX attribute of " + node.op_type());
    if (!schema)
      continue;
    auto expected = schema->attributes().find(attr.name());
    // Up to opset 17 the schema is the node's own; later ones may add
    // attributes it does not list.
    if (expected == schema->attributes().end() && opset <= kNewestSchemaOpset)
      return error("is not an attribute of " + node.op_type() +
                   " (ONNX schema, opset " +
                   std::to_string(schema->since_version()) + ")");
    if (expected != schema->attributes().end() &&
        expected->second.type != attr.type())
      return error("must be " + typeName(expected->second.type) + " for " +
                   node.op_type() + " (ONNX schema, opset " +
                   std::to_string(schema->since_version()) + "); it is " +
                   typeName(attr.type()));
  }
  // ONNX's own check does this up to opset 17; later models are held to
  // the newest schema as well.
  if (schema)
    for (const auto &[name, attr] : schema->attributes())
      if (attr.required && !seen.contains(name))
        return makeError(file, where, opset,
                         "missing required attribute '" + name + "'");
  return Error::success();
}

std::string unsupportedOpMessage(StringRef opType, int64_t opset) {
  // ONNX ops that dsmp takes in another form, and what to export instead.
  static const std::pair<const char *, const char *> kForms[] = {
      {"Crop", "Slice"},
      {"ImageScaler", "Mul and Add"},
      {"Affine", "Mul and Add"},
      {"ScaledTanh", "Tanh and Mul"},
      {"ParametricSoftplus", "Softplus and Mul"},
      {"DynamicSlice", "Slice"},
      {"GivenTensorFill", "Constant"},
      {"SoftmaxCrossEntropyLoss", "LogSoftmax and a Gather-based loss"},
      {"NegativeLogLikelihoodLoss", "GatherElements and a reduction"},
  };
  // Ops whose output shape depends on the values: dsmp compiles static
  // shapes, so the model is cut before them and they run after.
  static const char *const kDataShaped[] = {"NonZero", "NonMaxSuppression",
                                            "Unique", "Compress"};
  std::string message = "op type " + opType.str() + " (opset " +
                        std::to_string(opset) + ") is not supported";
  for (const auto &[from, to] : kForms)
    if (opType == from)
      return message + "; export it as " + to;
  if (llvm::is_contained(kDataShaped, opType))
    return message + "; its output's shape depends on the data and dsmp " +
           "compiles static shapes: cut the model before it " +
           "(onnx.utils.extract_model) and run it after";
  // Else the supported op type whose name is closest, where one is close
  // (fewer edits than half its length: Relux -> Relu, not Det -> Div).
  StringRef best;
  unsigned bestDistance =
      std::min<unsigned>(4, static_cast<unsigned>(opType.size()) / 2 + 1);
  for (const OnnxOpInfo &info : getOnnxOps()) {
    unsigned d = opType.edit_distance(info.onnxType, /*AllowReplacements=*/true,
                                      bestDistance);
    if (d < bestDistance) {
      bestDistance = d;
      best = info.onnxType;
    }
  }
  if (!best.empty())
    return message + "; the nearest supported op type is " + best.str();
  return message + " (docs/conformance.md lists the supported op types)";
}

} // namespace mlir::dsmp::onnx_import
