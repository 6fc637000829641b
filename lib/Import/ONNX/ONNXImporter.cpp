//===- ONNXImporter.cpp - ONNX model -> dsmp dialect ------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The import of one model:
//   1. parse and validate the protobuf (opsets, tensors, external data);
//   2. sort every graph topologically;
//   3. check each node against its ONNX schema and run ONNX shape inference;
//   4. build one dsmp op per node, driven by the OnnxOpRegistry table (ONNX
//      attributes map 1:1 to op attributes by name), turning the attributes
//      that older opsets used for today's inputs into constant operands.
//
//===----------------------------------------------------------------------===//

#include "dsmp/Import/ONNXImporter.h"

#include "Col2Im.h"
#include "ContribOps.h"
#include "ImportUtils.h"
#include "IndexedForms.h"
#include "IntegerOps.h"
#include "Spectral.h"
#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/GraphBuilder.h"
#include "dialects/Dsmp/IR/MainGraph.h"
#include "dialects/Dsmp/IR/OnnxOpRegistry.h"
#include "dialects/Dsmp/IR/ShapeInference.h"
#include "dsmp/Support/WeightFile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"

#include <google/protobuf/arena.h>
#include <google/protobuf/io/coded_stream.h>
#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <atomic>
#include <limits>
#include <system_error>
#include <thread>

using namespace mlir;
using namespace mlir::dsmp;
using namespace mlir::dsmp::onnx_import;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace {

bool isDefaultDomain(StringRef domain) {
  return domain.empty() || domain == "ai.onnx";
}

Where whereOf(const onnx::NodeProto &node) {
  return {node.name().empty() && node.output_size() ? node.output(0)
                                                    : node.name(),
          node.op_type()};
}

/// Collects the message of the first error diagnostic while alive.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext &ctx)
      : handler(&ctx, [this](Diagnostic &diag) {
          if (diag.getSeverity() == DiagnosticSeverity::Error &&
              message.empty())
            message = diag.str();
          return success();
        }) {}
  std::string take() { return std::exchange(message, {}); }

private:
  std::string message;
  ScopedDiagnosticHandler handler;
};

/// The type two values of one element type share: `a`'s, with the dims that
/// differ dynamic; unranked where the ranks differ (ONNX lets an If's
/// branches, and a Loop's iterations, differ in rank); null where the
/// element types differ.
Type joinTypes(Type aType, Type bType) {
  if (getElementTypeOrSelf(aType) != getElementTypeOrSelf(bType))
    return {};
  auto a = dyn_cast<RankedTensorType>(aType);
  auto b = dyn_cast<RankedTensorType>(bType);
  if (!a || !b || a.getRank() != b.getRank())
    return UnrankedTensorType::get(getElementTypeOrSelf(aType));
  SmallVector<int64_t> dims;
  for (auto [x, y] : llvm::zip(a.getShape(), b.getShape()))
    dims.push_back(x == y ? x : ShapedType::kDynamic);
  return RankedTensorType::get(dims, a.getElementType());
}

/// The type of result `index` of an If from what its branches yield: the
/// then-branch type, with dims that differ between branches made dynamic.
Type joinBranchTypes(Region &thenRegion, Region &elseRegion, unsigned index) {
  Operation *thenYield = thenRegion.front().getTerminator();
  Operation *elseYield = elseRegion.front().getTerminator();
  if (index >= thenYield->getNumOperands() ||
      index >= elseYield->getNumOperands())
    return {};
  return joinTypes(thenYield->getOperand(index).getType(),
                   elseYield->getOperand(index).getType());
}

/// The type of result `index` of a Loop from its body, for where ONNX's
/// inference leaves it without a rank (tf2onnx's Keras GRU/LSTM loops carry
/// a state whose initial value is [?, ?] and whose body yields [?, 32]):
/// a loop-carried value joins its initial type with the body's (dims that
/// differ become dynamic); a scan output is the body's per-iteration type
/// behind a dynamic iteration dim.
Type loopResultType(Region &body, ValueRange operands, unsigned index) {
  if (body.empty() || operands.size() < 2)
    return {};
  Operation *yield = body.front().getTerminator();
  unsigned carried = operands.size() - 2;
  // The body yields cond, then the carried values, then the scan outputs.
  if (!yield || index + 1 >= yield->getNumOperands())
    return {};
  Type yielded = yield->getOperand(index + 1).getType();
  auto each = dyn_cast<RankedTensorType>(yielded);
  if (index >= carried) {
    if (!each)
      return {};
    SmallVector<int64_t> dims{ShapedType::kDynamic};
    llvm::append_range(dims, each.getShape());
    return RankedTensorType::get(dims, each.getElementType());
  }
  return joinTypes(operands[2 + index].getType(), yielded);
}

/// The importer of one model. Scopes mirror ONNX graph nesting: If and Loop
/// bodies see the values of every enclosing graph.
class ModelImporter {
public:
  ModelImporter(MLIRContext &ctx, StringRef file, StringRef modelDir,
                const ::mlir::dsmp::ONNXImportOptions &options, int64_t opset,
                llvm::StringSet<> unconfirmedOutputShapes)
      : ctx(ctx), b(&ctx), file(file), modelDir(modelDir), options(options),
        opset(opset),
        unconfirmedOutputShapes(std::move(unconfirmedOutputShapes)) {}

  Expected<OwningOpRef<ModuleOp>> importModel(const onnx::ModelProto &model);
  /// The weight-file bytes collected during import.
  StringRef getWeightBytes() { return weightStream.str(); }
  bool hasExternalWeights() const { return weights.bytesWritten() > 0; }

private:
  struct Scope {
    llvm::StringMap<Value> values;
    llvm::StringMap<const onnx::TypeProto *> types;
  };

  Error fail(const onnx::NodeProto &node, const llvm::Twine &message) {
    return makeError(file, whereOf(node), opset, message);
  }
  Error fail(const llvm::Twine &message) {
    return makeError(file, {}, opset, message);
  }

  Location locOf(const onnx::NodeProto &node) {
    Where where = whereOf(node);
    return NameLoc::get(StringAttr::get(
        &ctx, where.nodeName.empty() ? node.op_type() : where.nodeName));
  }

  void pushScope(const onnx::GraphProto &graph) {
    scopes.emplace_back();
    for (const auto &info : graph.value_info())
      scopes.back().types[info.name()] = &info.type();
    for (const auto &info : graph.output())
      scopes.back().types[info.name()] = &info.type();
    for (const auto &info : graph.input())
      scopes.back().types[info.name()] = &info.type();
  }

  Value lookup(StringRef name) {
    for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
      auto found = it->values.find(name);
      if (found != it->values.end())
        return found->second;
    }
    return {};
  }

  const onnx::TypeProto *lookupType(StringRef name) {
    for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
      auto found = it->types.find(name);
      if (found != it->types.end())
        return found->second;
    }
    return nullptr;
  }

  /// A ranked tensor type from an ONNX type, or null when the elem type or
  /// the rank is unknown. Unknown elem types are reported via `unsupported`.
  RankedTensorType convertType(const onnx::TypeProto &type,
                               int32_t *unsupported);
  Expected<Type> resultType(const onnx::NodeProto &node, int index,
                            ArrayRef<Value> operands, const OnnxOpInfo &info,
                            DictionaryAttr attrs, Type elementOverride);

  Value getNone() {
    if (!none) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(entryBlock);
      none = NoneOp::create(b, b.getUnknownLoc());
    }
    return none;
  }

  Value constI64(ArrayRef<int64_t> values, Location loc, bool scalar = false) {
    auto type = RankedTensorType::get(
        scalar ? ArrayRef<int64_t>{}
               : ArrayRef<int64_t>{(int64_t)values.size()},
        b.getI64Type());
    return ConstantOp::create(b, loc, type,
                              DenseElementsAttr::get(type, values));
  }

  Value constF32(ArrayRef<float> values, Location loc) {
    auto type = RankedTensorType::get({(int64_t)values.size()}, b.getF32Type());
    return ConstantOp::create(b, loc, type,
                              DenseElementsAttr::get(type, values));
  }

  Value constFloatScalar(double value, Type elementType, Location loc) {
    auto type = RankedTensorType::get({}, elementType);
    Attribute attr;
    if (auto floatType = dyn_cast<FloatType>(elementType)) {
      llvm::APFloat v(value);
      bool lost;
      v.convert(floatType.getFloatSemantics(),
                llvm::APFloat::rmNearestTiesToEven, &lost);
      attr = DenseElementsAttr::get(type, v);
    } else {
      attr = DenseElementsAttr::get(
          type, APInt(elementType.getIntOrFloatBitWidth(),
                      static_cast<int64_t>(value), /*isSigned=*/true));
    }
    return ConstantOp::create(b, loc, type, cast<ElementsAttr>(attr));
  }

  Expected<Value> importTensor(const onnx::TensorProto &tensor, Location loc);
  Expected<Attribute> convertAttribute(const onnx::AttributeProto &attr,
                                       const onnx::NodeProto &node);
  Error importGraphBody(const onnx::GraphProto &graph);
  Error importNode(const onnx::NodeProto &node);
  void foldConstantShapeMath(Operation *op, SmallVectorImpl<Value> &results);
  Error importConstantNode(const onnx::NodeProto &node);
  Error importEyeLike(const onnx::NodeProto &node);
  Error importImageScaler(const onnx::NodeProto &node);
  Error importAttention(const onnx::NodeProto &node);
  Error importRMSNormalization(const onnx::NodeProto &node);
  Error importContribNode(const onnx::NodeProto &node);
  Error importTrainingBatchNorm(const onnx::NodeProto &node);
  Error importAffineGrid(const onnx::NodeProto &node);
  Error importFlatteningSoftmax(const onnx::NodeProto &node, Value input,
                                int64_t axis);
  Error importSubgraph(const onnx::GraphProto &graph, Region &region,
                       ArrayRef<Value> loopOperands,
                       const onnx::NodeProto &node);
  Error normalizeOldForm(const onnx::NodeProto &node, std::string &opType,
                         SmallVectorImpl<Value> &operands,
                         llvm::StringMap<Attribute> &attrs, Location loc);

  MLIRContext &ctx;
  OpBuilder b;
  StringRef file;
  StringRef modelDir;
  const ::mlir::dsmp::ONNXImportOptions &options;
  int64_t opset;
  /// Graph outputs typed only by their declaration (ONNX's inference found
  /// nothing): where dsmp's rules compute another shape, they win.
  llvm::StringSet<> unconfirmedOutputShapes;
  std::vector<Scope> scopes;
  Block *entryBlock = nullptr;
  Value none;
  std::string weightBytes;
  llvm::raw_string_ostream weightStream{weightBytes};
  ::mlir::dsmp::WeightFileWriter weights{weightStream};
};

RankedTensorType ModelImporter::convertType(const onnx::TypeProto &type,
                                            int32_t *unsupported) {
  if (!type.has_tensor_type())
    return {};
  const auto &tensor = type.tensor_type();
  Type elementType = getElementTypeOfOnnx(ctx, tensor.elem_type());
  if (!elementType) {
    if (unsupported)
      *unsupported = tensor.elem_type();
    return {};
  }
  if (!tensor.has_shape())
    return {};
  SmallVector<int64_t> dims;
  for (const auto &dim : tensor.shape().dim())
    dims.push_back(dim.has_dim_value() && dim.dim_value() >= 0
                       ? dim.dim_value()
                       : ShapedType::kDynamic);
  return RankedTensorType::get(dims, elementType);
}

Expected<Type> ModelImporter::resultType(const onnx::NodeProto &node, int index,
                                         ArrayRef<Value> operands,
                                         const OnnxOpInfo &info,
                                         DictionaryAttr attrs,
                                         Type elementOverride) {
  StringRef opNameRef = info.opName;
  StringRef name = node.output(index);
  int32_t unsupported = 0;
  RankedTensorType type;
  Type elementType = elementOverride;
  // A shape-preserving op on an unranked tensor stays unranked, whatever
  // type a subgraph declared for its output.
  auto opName = RegisteredOperationName::lookup(opNameRef, &ctx);
  if (opName && !operands.empty() &&
      isa<UnrankedTensorType>(operands[0].getType()) &&
      (opName->hasTrait<::mlir::OpTrait::SameOperandsAndResultShape>() ||
       opName->hasTrait<::mlir::OpTrait::SameOperandsAndResultType>()))
    return UnrankedTensorType::get(
        elementType ? elementType
                    : getElementTypeOrSelf(operands[0].getType()));
  if (const onnx::TypeProto *proto = lookupType(name)) {
    type = convertType(*proto, &unsupported);
    if (!elementType && proto->has_tensor_type())
      elementType = getElementTypeOfOnnx(ctx, proto->tensor_type().elem_type());
  }
  if (unsupported)
    return fail(node, "output '" + name + "' has unsupported dtype " +
                          getOnnxTypeName(unsupported));
  // ONNX's inference loses dims after data-dependent shapes; dsmp's rules
  // often recover them from constant shape arithmetic, so take the more
  // static of the two where both know the rank.
  RankedTensorType inferred =
      inferResultType(ctx, opNameRef, info.onnxType, index, operands, attrs,
                      static_cast<unsigned>(node.output_size()));
  auto conflicts = [](RankedTensorType a, RankedTensorType b) {
    if (a.getRank() != b.getRank())
      return true;
    for (auto [x, y] : llvm::zip(a.getShape(), b.getShape()))
      if (!ShapedType::isDynamic(x) && !ShapedType::isDynamic(y) && x != y)
        return true;
    return false;
  };
  // dsmp's rules guess where an operand they need is not constant (equal
  // Split parts, Squeeze of every unit dim); they are certain of the type
  // of an op whose result has its operand's shape, and of a Reshape's rank.
  auto certain = [&]() {
    if (opName &&
        (opName->hasTrait<::mlir::OpTrait::SameOperandsAndResultShape>() ||
         opName->hasTrait<::mlir::OpTrait::SameOperandsAndResultType>()))
      return true;
    auto shape = opNameRef == "dsmp.reshape" && operands.size() == 2
                     ? dyn_cast<RankedTensorType>(operands[1].getType())
                     : RankedTensorType();
    return shape && shape.getRank() == 1 && !shape.isDynamicDim(0) &&
           inferred.getRank() != type.getRank();
  };
  if (type && inferred && scopes.size() == 1 &&
      unconfirmedOutputShapes.contains(name) && conflicts(type, inferred) &&
      certain()) {
    if (options.warnings) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << "graph output '" << name << "' is declared " << type
         << " but node '" << whereOf(node).nodeName << "' computes " << inferred
         << "; the declared shape is ignored";
      options.warnings->push_back(text);
    }
    type = inferred;
  }
  if (!type) {
    type = inferred;
  } else if (inferred && inferred.getRank() == type.getRank()) {
    SmallVector<int64_t> dims(type.getShape());
    for (auto [i, d] : llvm::enumerate(inferred.getShape()))
      if (ShapedType::isDynamic(dims[i]))
        dims[i] = d;
    type = RankedTensorType::get(dims, type.getElementType());
  }
  // A Squeeze of every unit dim whose input has a dynamic dim: the rank
  // depends on the shape it runs at (a batch of 1 squeezes to a scalar,
  // PLCMOS's score). Unranked here; specialization to the shapes of the
  // data gives it its rank.
  auto squeezesDynamicDims = [&] {
    auto input = operands.empty()
                     ? RankedTensorType()
                     : dyn_cast<RankedTensorType>(operands[0].getType());
    return opNameRef == "dsmp.squeeze" && input && !input.hasStaticShape() &&
           (operands.size() < 2 || isa<NoneType>(operands[1].getType()));
  };
  if (!type && elementType &&
      (squeezesDynamicDims() || llvm::any_of(operands, [](Value v) {
         return isa<UnrankedTensorType>(v.getType());
       })))
    // Rank-polymorphic input (from an If whose branches differ in rank).
    return UnrankedTensorType::get(elementType);
  if (!type) {
    std::string operandTypes;
    llvm::raw_string_ostream os(operandTypes);
    llvm::interleaveComma(operands, os, [&](Value v) { os << v.getType(); });
    return fail(node, "cannot infer the rank of output '" + name +
                          "' from the input types (" + operandTypes + ")");
  }
  if (elementType)
    type = RankedTensorType::get(type.getShape(), elementType);
  return Type(type);
}

Expected<Value> ModelImporter::importTensor(const onnx::TensorProto &tensor,
                                            Location loc) {
  Type elementType = getElementTypeOfOnnx(ctx, tensor.data_type());
  if (!elementType)
    return fail("tensor '" + tensor.name() + "' has unsupported dtype " +
                getOnnxTypeName(tensor.data_type()));
  SmallVector<int64_t> dims(tensor.dims().begin(), tensor.dims().end());
  auto type = RankedTensorType::get(dims, elementType);
  bool inline_ = options.weightsPath.empty() ||
                 type.getNumElements() <= options.inlineElementLimit;
  if (inline_ && !elementType.isInteger(1)) {
    // Inline raw_data (most weights): the attribute copies it once.
    auto view = viewRawTensorBytes(tensor, modelDir, options.maxTensorBytes);
    if (!view)
      return fail(llvm::toString(view.takeError()));
    if (*view)
      return ConstantOp::create(b, loc, type, makeDenseAttr(type, **view))
          .getResult();
  }
  auto bytes = readTensorBytes(tensor, modelDir, options.maxTensorBytes);
  if (!bytes)
    return fail(llvm::toString(bytes.takeError()));
  TypedAttr value;
  if (!options.weightsPath.empty() &&
      type.getNumElements() > options.inlineElementLimit &&
      !elementType.isInteger(1)) {
    uint64_t offset = weights.append(*bytes);
    value = ExternalAttr::get(&ctx, offset, bytes->size(), type);
  } else {
    value = makeDenseAttr(type, *bytes);
  }
  return ConstantOp::create(b, loc, type, value).getResult();
}

Expected<Attribute>
ModelImporter::convertAttribute(const onnx::AttributeProto &attr,
                                const onnx::NodeProto &node) {
  switch (attr.type()) {
  case onnx::AttributeProto::INT:
    return b.getI64IntegerAttr(attr.i());
  case onnx::AttributeProto::FLOAT:
    return b.getF32FloatAttr(attr.f());
  case onnx::AttributeProto::STRING:
    return b.getStringAttr(attr.s());
  case onnx::AttributeProto::INTS:
    return b.getDenseI64ArrayAttr(
        SmallVector<int64_t>(attr.ints().begin(), attr.ints().end()));
  case onnx::AttributeProto::FLOATS:
    return b.getDenseF32ArrayAttr(
        SmallVector<float>(attr.floats().begin(), attr.floats().end()));
  case onnx::AttributeProto::STRINGS: {
    SmallVector<Attribute> strings;
    for (const auto &s : attr.strings())
      strings.push_back(b.getStringAttr(s));
    return b.getArrayAttr(strings);
  }
  case onnx::AttributeProto::TENSOR: {
    Type elementType = getElementTypeOfOnnx(ctx, attr.t().data_type());
    if (!elementType)
      return fail(node, "attribute '" + attr.name() +
                            "' has unsupported dtype " +
                            getOnnxTypeName(attr.t().data_type()));
    auto bytes = readTensorBytes(attr.t(), modelDir, options.maxTensorBytes);
    if (!bytes)
      return fail(node, llvm::toString(bytes.takeError()));
    SmallVector<int64_t> dims(attr.t().dims().begin(), attr.t().dims().end());
    return makeDenseAttr(RankedTensorType::get(dims, elementType), *bytes);
  }
  default:
    return fail(node,
                "attribute '" + attr.name() + "' has unsupported type " +
                    onnx::AttributeProto::AttributeType_Name(attr.type()));
  }
}

Error ModelImporter::normalizeOldForm(const onnx::NodeProto &node,
                                      std::string &opType,
                                      SmallVectorImpl<Value> &operands,
                                      llvm::StringMap<Attribute> &attrs,
                                      Location loc) {
  auto takeInts = [&](StringRef name) -> std::optional<SmallVector<int64_t>> {
    auto it = attrs.find(name);
    if (it == attrs.end())
      return std::nullopt;
    auto array = dyn_cast<DenseI64ArrayAttr>(it->second);
    attrs.erase(it);
    if (!array)
      return std::nullopt;
    return SmallVector<int64_t>(array.asArrayRef());
  };
  auto intsOperand = [&](StringRef name) -> Value {
    auto values = takeInts(name);
    return values ? constI64(*values, loc) : getNone();
  };
  auto takeFloat = [&](StringRef name) -> std::optional<double> {
    auto it = attrs.find(name);
    if (it == attrs.end())
      return std::nullopt;
    auto value = dyn_cast<FloatAttr>(it->second);
    attrs.erase(it);
    if (!value)
      return std::nullopt;
    return value.getValueAsDouble();
  };
  Type dataElement =
      operands.empty() ? Type() : getElementTypeOrSelf(operands[0].getType());
  auto resize = [&](size_t n) {
    while (operands.size() < n)
      operands.push_back(getNone());
  };

  StringRef type = opType;
  if (type == "Clip" && opset < 11) {
    resize(1);
    auto lo = takeFloat("min"), hi = takeFloat("max");
    operands.push_back(lo ? constFloatScalar(*lo, dataElement, loc)
                          : getNone());
    operands.push_back(hi ? constFloatScalar(*hi, dataElement, loc)
                          : getNone());
  } else if (type == "Slice" && opset < 10) {
    Value starts = intsOperand("starts"), ends = intsOperand("ends");
    Value axes = intsOperand("axes");
    operands.append({starts, ends, axes, getNone()});
  } else if ((type == "Squeeze" || type == "Unsqueeze") && opset < 13) {
    operands.push_back(intsOperand("axes"));
  } else if (type.starts_with("Reduce") &&
             (opset < 13 || (type != "ReduceSum" && opset < 18))) {
    operands.push_back(intsOperand("axes"));
  } else if (type == "Split" && opset < 13) {
    operands.push_back(intsOperand("split"));
  } else if (type == "Pad" && opset < 11) {
    Value pads = intsOperand("pads");
    auto value = takeFloat("value");
    operands.push_back(pads);
    operands.push_back(constFloatScalar(value.value_or(0.0), dataElement, loc));
  } else if (type == "RoiAlign" && opset < 16) {
    // RoiAlign-10 computes what 16 names output_half_pixel.
    if (!attrs.count("coordinate_transformation_mode"))
      attrs["coordinate_transformation_mode"] =
          b.getStringAttr("output_half_pixel");
  } else if (type == "GridSample" && opset >= 20) {
    // GridSample-20 names the 2-D modes linear and cubic.
    if (auto mode = dyn_cast_if_present<StringAttr>(attrs.lookup("mode")))
      attrs["mode"] =
          b.getStringAttr(mode.getValue() == "linear"  ? "bilinear"
                          : mode.getValue() == "cubic" ? "bicubic"
                                                       : mode.getValue());
  } else if (type == "TopK" && opset < 10) {
    auto it = attrs.find("k");
    int64_t k = it != attrs.end() ? cast<IntegerAttr>(it->second).getInt() : 1;
    attrs.erase("k");
    operands.push_back(constI64({k}, loc));
  } else if (type == "Dropout" && opset < 12) {
    auto ratio = takeFloat("ratio");
    operands.push_back(ratio ? constFloatScalar(*ratio, b.getF32Type(), loc)
                             : getNone());
  } else if ((type == "Resize" && opset < 11) || type == "Upsample") {
    // Resize-10 and Upsample take (X, scales) and sample asymmetrically;
    // Upsample-7 has its scales as an attribute.
    Value scales = operands.size() > 1 ? operands[1] : getNone();
    if (type == "Upsample" && opset < 9) {
      auto it = attrs.find("scales");
      auto values =
          it == attrs.end() ? nullptr : dyn_cast<DenseF32ArrayAttr>(it->second);
      if (!values)
        return fail(node, "Upsample before opset 9 needs its 'scales' "
                          "attribute (floats)");
      scales = constF32(values.asArrayRef(), loc);
      attrs.erase(it);
    }
    operands.resize(1);
    operands.append({getNone(), scales, getNone()});
    attrs.try_emplace("coordinate_transformation_mode",
                      b.getStringAttr("asymmetric"));
    attrs.try_emplace("nearest_mode", b.getStringAttr("floor"));
    opType = "Resize";
  } else if (type == "Resize") {
    // Resize-11/12 exporters pass an empty tensor for the roi and for
    // whichever of scales and sizes they do not use; an empty operand is
    // an absent one.
    for (size_t i = 1; i < operands.size(); ++i)
      if (auto t = dyn_cast<RankedTensorType>(operands[i].getType()))
        if (t.hasStaticShape() && t.getNumElements() == 0)
          operands[i] = getNone();
  }
  if (type == "Split" &&
      (operands.size() < 2 || isa<NoneType>(operands[1].getType())) &&
      !attrs.count("num_outputs")) {
    // Without `split`, Split cuts equal parts, one per output; opset 18
    // made that count the `num_outputs` attribute, so record it.
    attrs["num_outputs"] = b.getI64IntegerAttr(node.output_size());
    return Error::success();
  }
  if ((type == "Softmax" || type == "LogSoftmax" || type == "Hardmax") &&
      opset < 13) {
    // Before opset 13 these flattened the input to 2-D at `axis` (default
    // 1); that equals the per-axis form only when axis is the last dim
    // (importNode takes the other cases to importFlatteningSoftmax).
    auto ranked = operands.empty()
                      ? RankedTensorType()
                      : dyn_cast<RankedTensorType>(operands[0].getType());
    if (!ranked)
      return fail(node, "expects one input of known rank");
    int64_t rank = ranked.getRank();
    auto it = attrs.find("axis");
    int64_t axis =
        it != attrs.end() ? cast<IntegerAttr>(it->second).getInt() : 1;
    if (axis < 0)
      axis += rank;
    if (axis != rank - 1)
      return fail(node, "the opset < 13 form over axis " +
                            std::to_string(axis) + " of a rank-" +
                            std::to_string(rank) + " input is not supported");
    attrs["axis"] = b.getI64IntegerAttr(-1);
  }
  return Error::success();
}

Error ModelImporter::importConstantNode(const onnx::NodeProto &node) {
  Location loc = locOf(node);
  if (node.attribute_size() != 1)
    return fail(node, "expects exactly one value attribute");
  const auto &attr = node.attribute(0);
  Value value;
  StringRef name = attr.name();
  if (name == "value") {
    auto result = importTensor(attr.t(), loc);
    if (!result)
      return result.takeError();
    value = *result;
  } else if (name == "value_float" || name == "value_floats") {
    SmallVector<float> values(attr.floats().begin(), attr.floats().end());
    if (name == "value_float")
      values = {attr.f()};
    SmallVector<int64_t> dims;
    if (name == "value_floats")
      dims.push_back(values.size());
    auto type = RankedTensorType::get(dims, b.getF32Type());
    value = ConstantOp::create(
        b, loc, type, DenseElementsAttr::get(type, ArrayRef<float>(values)));
  } else if (name == "value_int" || name == "value_ints") {
    SmallVector<int64_t> values(attr.ints().begin(), attr.ints().end());
    if (name == "value_int")
      values = {attr.i()};
    value = constI64(values, loc, name == "value_int");
  } else {
    return fail(node, "unsupported Constant attribute '" + name + "'");
  }
  if (node.output_size() != 1)
    return fail(node, "expects one output");
  scopes.back().values[node.output(0)] = value;
  return Error::success();
}

Error ModelImporter::importSubgraph(const onnx::GraphProto &graph,
                                    Region &region,
                                    ArrayRef<Value> loopOperands,
                                    const onnx::NodeProto &node) {
  Block *block = new Block();
  region.push_back(block);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(block);
  pushScope(graph);
  for (int i = 0; i < graph.input_size(); ++i) {
    const auto &input = graph.input(i);
    RankedTensorType type = convertType(input.type(), nullptr);
    // Loop bodies may leave input types out: take them from the operands
    // (iteration number i64, condition i1, then the carried values).
    if (!type) {
      Type fallback;
      if (i == 0)
        fallback = RankedTensorType::get({}, b.getI64Type());
      else if (i == 1)
        fallback = RankedTensorType::get({}, b.getI1Type());
      else if (static_cast<size_t>(i) < loopOperands.size())
        fallback = loopOperands[i].getType();
      type = dyn_cast_if_present<RankedTensorType>(fallback);
    }
    if (!type)
      return fail(node, "subgraph input '" + input.name() + "' has no type");
    scopes.back().values[input.name()] =
        block->addArgument(type, NameLoc::get(b.getStringAttr(input.name())));
  }
  if (Error err = importGraphBody(graph))
    return err;
  SmallVector<Value> results;
  for (const auto &output : graph.output()) {
    Value value = lookup(output.name());
    if (!value)
      return fail(node, "subgraph output '" + output.name() + "' is undefined");
    results.push_back(value);
  }
  auto yield = YieldOp::create(b, locOf(node), results);
  // ONNX has no way to say "unknown rank" in a graph output, so keep the
  // type the subgraph declared for outputs that are unranked here; the
  // exporter writes it back.
  SmallVector<Attribute> declared;
  bool anyUnranked = false;
  for (auto [value, output] : llvm::zip(results, graph.output())) {
    anyUnranked |= isa<UnrankedTensorType>(value.getType());
    RankedTensorType type = convertType(output.type(), nullptr);
    declared.push_back(TypeAttr::get(type ? Type(type) : value.getType()));
  }
  if (anyUnranked)
    yield->setAttr("dsmp.declared_types", b.getArrayAttr(declared));
  scopes.pop_back();
  return Error::success();
}

Error ModelImporter::importGraphBody(const onnx::GraphProto &graph) {
  for (const auto &init : graph.initializer()) {
    auto value = importTensor(init, onnxInitializerLoc(&ctx, init.name()));
    if (!value)
      return value.takeError();
    scopes.back().values[init.name()] = *value;
  }
  for (const auto &node : graph.node())
    if (Error err = importNode(node))
      return err;
  return Error::success();
}

Error ModelImporter::importNode(const onnx::NodeProto &node) {
  if (isSpelledContribOp(node) || isSpelledIntegerOp(node) ||
      isSpectralOp(node) || isIndexedFormOp(node) ||
      (node.op_type() == "Col2Im" && isDefaultDomain(node.domain())))
    return importContribNode(node);
  if (!isDefaultDomain(node.domain()))
    return fail(node, "op domain '" + node.domain() + "' is not supported");
  if (node.op_type() == "Constant")
    return importConstantNode(node);
  if (node.op_type() == "EyeLike")
    return importEyeLike(node);
  if (node.op_type() == "ImageScaler")
    return importImageScaler(node);
  if (node.op_type() == "Attention")
    return importAttention(node);
  if (node.op_type() == "RMSNormalization")
    return importRMSNormalization(node);
  if (node.op_type() == "BatchNormalization" && opset >= 14 &&
      llvm::any_of(node.attribute(), [](const onnx::AttributeProto &attr) {
        return attr.name() == "training_mode" && attr.i() != 0;
      }))
    return importTrainingBatchNorm(node);
  if (node.op_type() == "AffineGrid")
    return importAffineGrid(node);
  if ((node.op_type() == "Softmax" || node.op_type() == "LogSoftmax" ||
       node.op_type() == "Hardmax") &&
      opset < 13 && node.input_size() == 1 && node.output_size() == 1) {
    // The older form flattens at `axis`; it is the per-axis form only when
    // `axis` is the last dim of a ranked input (normalizeOldForm).
    int64_t axis = 1;
    for (const auto &attr : node.attribute())
      if (attr.name() == "axis" && attr.type() == onnx::AttributeProto::INT)
        axis = attr.i();
    Value input = lookup(node.input(0));
    auto ranked = input ? dyn_cast<RankedTensorType>(input.getType()) : nullptr;
    if (input && (!ranked || (axis < 0 ? axis + ranked.getRank() : axis) !=
                                 ranked.getRank() - 1))
      return importFlatteningSoftmax(node, input, axis);
  }

  std::string opType = node.op_type();
  // Upsample is Resize's old form, Scatter (opsets 9 and 10)
  // ScatterElements' old name; CastLike casts to its second input's type.
  StringRef canonicalType = opType == "Upsample"   ? "Resize"
                            : opType == "Scatter"  ? "ScatterElements"
                            : opType == "CastLike" ? "Cast"
                                                   : StringRef(opType);
  const OnnxOpInfo *info = lookupOnnxType(canonicalType);
  if (!info)
    return fail(node, unsupportedOpMessage(node.op_type(), opset));

  Location loc = locOf(node);
  SmallVector<Value> operands;
  for (const auto &input : node.input()) {
    if (input.empty()) {
      operands.push_back(getNone());
      continue;
    }
    Value value = lookup(input);
    if (!value)
      return fail(node, "input '" + input + "' is undefined");
    operands.push_back(value);
  }

  // Attributes: ONNX names map to op attributes; graphs become regions.
  llvm::StringMap<Attribute> attrs;
  SmallVector<const onnx::AttributeProto *> graphs;
  for (const auto &attr : node.attribute()) {
    if (attr.type() == onnx::AttributeProto::GRAPH) {
      graphs.push_back(&attr);
      continue;
    }
    auto converted = convertAttribute(attr, node);
    if (!converted)
      return converted.takeError();
    attrs[attr.name()] = *converted;
  }
  if (Error err = normalizeOldForm(node, opType, operands, attrs, loc))
    return err;

  // Cast takes its element type from `to` (or the second input of
  // CastLike); `to` itself is not kept, the result type carries it.
  Type castElement;
  if (opType == "Cast") {
    auto it = attrs.find("to");
    if (it == attrs.end())
      return fail(node, "missing attribute 'to'");
    auto toAttr = dyn_cast<IntegerAttr>(it->second);
    if (!toAttr)
      return fail(node, "attribute 'to' must be INT (an ONNX dtype)");
    int32_t to = static_cast<int32_t>(toAttr.getInt());
    castElement = getElementTypeOfOnnx(ctx, to);
    if (!castElement)
      return fail(node, "cast to unsupported dtype " + getOnnxTypeName(to));
    attrs.erase(it);
  } else if (opType == "CastLike") {
    castElement = getElementTypeOrSelf(operands[1].getType());
    operands.resize(1);
  }

  // Pad absent trailing optional inputs with `none`.
  if (!info->variadicOperands) {
    if (operands.size() > info->numOperands)
      return fail(
          node, "has " + std::to_string(operands.size()) + " inputs, at most " +
                    std::to_string(info->numOperands) + " are supported");
    while (operands.size() < info->numOperands)
      operands.push_back(getNone());
  }

  // Subgraphs first: an If's result types may only be known from its
  // branches. If has then_branch then else_branch; Loop has body.
  SmallVector<std::unique_ptr<Region>> regions;
  for (const onnx::AttributeProto *graph : graphs) {
    unsigned index = graph->name() == "else_branch" ? 1 : 0;
    if (!llvm::is_contained({"then_branch", "else_branch", "body"},
                            graph->name()))
      return fail(node, "unexpected graph attribute '" + graph->name() + "'");
    regions.resize(std::max<size_t>(regions.size(), index + 1));
    regions[index] = std::make_unique<Region>();
    if (Error err = importSubgraph(graph->g(), *regions[index], operands, node))
      return err;
  }

  // Results: typed from shape inference, `none` for absent optional ones.
  SmallVector<NamedAttribute> named;
  for (auto &entry : attrs)
    named.emplace_back(b.getStringAttr(entry.getKey()), entry.getValue());
  DictionaryAttr attrDict = b.getDictionaryAttr(named);
  SmallVector<Type> resultTypes;
  int numOutputs = node.output_size();
  while (numOutputs > 0 && node.output(numOutputs - 1).empty())
    --numOutputs;
  unsigned numResults = info->variadicResults ? numOutputs : info->numResults;
  if (static_cast<unsigned>(numOutputs) > numResults)
    return fail(node, "has " + std::to_string(numOutputs) +
                          " outputs, at most " + std::to_string(numResults) +
                          " are supported (training-mode outputs are not)");
  for (unsigned i = 0; i < numResults; ++i) {
    if (static_cast<int>(i) >= numOutputs || node.output(i).empty()) {
      resultTypes.push_back(b.getNoneType());
      continue;
    }
    Type fromBranches;
    if (opType == "If" && regions.size() == 2 && regions[0] && regions[1])
      fromBranches = joinBranchTypes(*regions[0], *regions[1], i);
    if (opType == "If" && !fromBranches)
      return fail(node, "the branches yield different element types for "
                        "output " +
                            std::to_string(i));
    if (fromBranches) {
      resultTypes.push_back(fromBranches);
      continue;
    }
    if (opType == "Loop" && !regions.empty() && regions[0]) {
      // ONNX's inference types a Loop's results, when it can, from the
      // body and the initial values together; where it left the rank out,
      // the body says it.
      const onnx::TypeProto *proto = lookupType(node.output(i));
      bool ranked =
          proto && proto->has_tensor_type() && proto->tensor_type().has_shape();
      Type fromBody =
          ranked ? Type() : loopResultType(*regions[0], operands, i);
      if (fromBody) {
        resultTypes.push_back(fromBody);
        continue;
      }
    }
    auto type = resultType(node, i, operands, *info, attrDict, castElement);
    if (!type)
      return type.takeError();
    resultTypes.push_back(*type);
  }

  OperationState state(loc, info->opName);
  state.addOperands(operands);
  state.addTypes(resultTypes);
  auto registered = state.name.getRegisteredInfo();
  llvm::StringSet<> known;
  for (StringAttr name : registered->getAttributeNames())
    known.insert(name.getValue());
  for (auto &entry : attrs)
    if (isDsmpOnlyAttribute(entry.getKey()))
      return fail(node, "attribute '" + entry.getKey() +
                            "' is not an ONNX attribute of " + opType);
  for (auto &entry : attrs)
    // Attributes that only older opsets had (spatial, is_test, ...) have no
    // meaning in the newest form the dsmp op models.
    if (known.contains(entry.getKey()))
      state.addAttribute(entry.getKey(), entry.getValue());
  for (auto &region : regions)
    state.addRegion(region ? std::move(region) : std::make_unique<Region>());

  DiagnosticCollector diagnostics(ctx);
  Operation *op = b.create(state);
  // An attribute of another kind than the op declares (an ONNX INTS where
  // the op takes one INT) does not become a property: read each one back.
  for (auto &entry : attrs) {
    if (!known.contains(entry.getKey()))
      continue;
    std::optional<Attribute> stored = op->getInherentAttr(entry.getKey());
    if (!stored || *stored != entry.getValue())
      return fail(node, "attribute '" + entry.getKey() + "' has a type that " +
                            info->opName +
                            " does not take (see its ONNX schema)");
  }
  // Op-local checks only: the op may sit in a subgraph region that is not
  // attached yet, and dominance is checked once the module is complete.
  if (failed(op->getName().verifyInvariants(op)) ||
      failed(op->getName().verifyRegionInvariants(op)))
    return fail(node, diagnostics.take());
  SmallVector<Value> results(op->getResults());
  foldConstantShapeMath(op, results);
  for (int i = 0; i < numOutputs; ++i)
    if (!node.output(i).empty())
      scopes.back().values[node.output(i)] = results[i];
  return Error::success();
}

/// EyeLike(x) has x's 2-D shape, ones on the k-th diagonal (k > 0 above
/// the main one) and zeros elsewhere. It imports as the ops that spell it,
/// which every later layer already runs and differentiates:
/// Trilu(Trilu(ConstantOfShape(Shape(x), 1), k, upper), k, lower).
Error ModelImporter::importEyeLike(const onnx::NodeProto &node) {
  if (node.input_size() != 1 || node.input(0).empty() ||
      node.output_size() != 1)
    return fail(node, "EyeLike takes one input and gives one output");
  Value input = lookup(node.input(0));
  if (!input)
    return fail(node, "input '" + node.input(0) + "' is undefined");
  auto inputType = dyn_cast<RankedTensorType>(input.getType());
  if (!inputType || inputType.getRank() != 2)
    return fail(node, "EyeLike's input must be a 2-D tensor");
  int64_t k = 0;
  Type element = inputType.getElementType();
  for (const auto &attr : node.attribute()) {
    if (attr.name() == "k" && attr.type() == onnx::AttributeProto::INT) {
      k = attr.i();
    } else if (attr.name() == "dtype" &&
               attr.type() == onnx::AttributeProto::INT) {
      element = getElementTypeOfOnnx(ctx, static_cast<int32_t>(attr.i()));
      if (!element)
        return fail(node, "EyeLike to unsupported dtype " +
                              getOnnxTypeName(static_cast<int32_t>(attr.i())));
    } else {
      return fail(node, "attribute '" + attr.name() +
                            "' is not an ONNX attribute of EyeLike (k and "
                            "dtype are, both INT)");
    }
  }
  Location loc = locOf(node);
  auto one = RankedTensorType::get({1}, element);
  Attribute value;
  if (auto floatType = dyn_cast<FloatType>(element))
    value = DenseElementsAttr::get(
        one, llvm::APFloat::getOne(floatType.getFloatSemantics()));
  else if (element.isIntOrIndex())
    value = DenseElementsAttr::get(
        one, APInt(element.getIntOrFloatBitWidth(), 1, /*isSigned=*/false));
  else
    return fail(node, "EyeLike to a non-numeric dtype");
  auto type = RankedTensorType::get(inputType.getShape(), element);
  Value shape = ShapeOp::create(
      b, loc, RankedTensorType::get({2}, b.getI64Type()), input);
  Value ones =
      ConstantOfShapeOp::create(b, loc, type, shape, cast<ElementsAttr>(value));
  Value diagonal = constI64({k}, loc, /*scalar=*/true);
  Value upper = TriluOp::create(b, loc, type, ones, diagonal, 1);
  Value eye = TriluOp::create(b, loc, type, upper, diagonal, 0);
  scopes.back().values[node.output(0)] = eye;
  return Error::success();
}

/// ImageScaler, an experimental op that opset 10 removed (the classic
/// model zoo's tiny-YOLOv2 at opset 8 starts with one): scale * x plus a
/// bias per channel, as a Mul and an Add.
Error ModelImporter::importImageScaler(const onnx::NodeProto &node) {
  if (node.input_size() != 1 || node.output_size() != 1)
    return fail(node, "ImageScaler takes one input and gives one output");
  double scale = 1.0;
  SmallVector<double> bias;
  for (const auto &attr : node.attribute()) {
    if (attr.name() == "scale" && attr.type() == onnx::AttributeProto::FLOAT)
      scale = attr.f();
    else if (attr.name() == "bias" &&
             attr.type() == onnx::AttributeProto::FLOATS)
      bias.assign(attr.floats().begin(), attr.floats().end());
    else
      return fail(node, "attribute '" + attr.name() +
                            "' is not an ONNX attribute of ImageScaler (scale "
                            "is, FLOAT, and bias, FLOATS)");
  }
  Value input = lookup(node.input(0));
  if (!input)
    return fail(node, "input '" + node.input(0) + "' is undefined");
  auto type = dyn_cast<RankedTensorType>(input.getType());
  if (!type || type.getRank() != 4 || !isa<FloatType>(type.getElementType()))
    return fail(node, "ImageScaler's input must be a float [N, C, H, W] "
                      "tensor");
  int64_t channels = type.getDimSize(1);
  if (!bias.empty() && !type.isDynamicDim(1) &&
      static_cast<int64_t>(bias.size()) != channels)
    return fail(node, "ImageScaler has " + std::to_string(bias.size()) +
                          " biases for " + std::to_string(channels) +
                          " channels");
  auto element = cast<FloatType>(type.getElementType());
  Location loc = locOf(node);
  GraphBuilder g(b, loc);
  Value y = g.typed("dsmp.mul", {input, g.scalar(scale, element)}, type);
  if (!bias.empty()) {
    auto biasType = RankedTensorType::get(
        {1, static_cast<int64_t>(bias.size()), 1, 1}, element);
    SmallVector<llvm::APFloat> values;
    for (double v : bias) {
      llvm::APFloat value(v);
      bool lost;
      value.convert(element.getFloatSemantics(),
                    llvm::APFloat::rmNearestTiesToEven, &lost);
      values.push_back(value);
    }
    Value biasValue = ConstantOp::create(
        b, loc, biasType,
        cast<ElementsAttr>(DenseElementsAttr::get(biasType, values)));
    y = g.typed("dsmp.add", {y, biasValue}, type);
  }
  scopes.back().values[node.output(0)] = y;
  return Error::success();
}

/// Attention (opset 23; torch's dynamo exporter writes one per
/// scaled_dot_product_attention at opset 23): softmax(scale Q K^T + mask) V,
/// spelled with MatMul, Transpose, Softmax and Where/Add so that the
/// precision passes see (and round) each part as in any exported
/// attention. Q, K, V are [B, H, S, D], or [B, S, H * D] with q_num_heads
/// and kv_num_heads; fewer K/V heads than Q heads (grouped-query attention)
/// are repeated; the mask is a bool (false: masked) or float bias;
/// is_causal keeps the lower triangle (upper-left aligned); softcap caps
/// the scores with tanh. A KV cache (past_key, past_value and the present
/// outputs) and the QK output are not supported yet.
Error ModelImporter::importAttention(const onnx::NodeProto &node) {
  int64_t causal = 0, qHeads = 0, kvHeads = 0, qkMode = 0;
  std::optional<double> scaleAttr;
  double softcap = 0;
  for (const auto &attr : node.attribute()) {
    StringRef name = attr.name();
    bool isInt = attr.type() == onnx::AttributeProto::INT;
    bool isFloat = attr.type() == onnx::AttributeProto::FLOAT;
    if (name == "is_causal" && isInt)
      causal = attr.i();
    else if (name == "q_num_heads" && isInt)
      qHeads = attr.i();
    else if (name == "kv_num_heads" && isInt)
      kvHeads = attr.i();
    else if (name == "qk_matmul_output_mode" && isInt)
      qkMode = attr.i();
    else if (name == "softmax_precision" && isInt)
      continue; // dsmp's precision passes choose the softmax's format
    else if (name == "scale" && isFloat)
      scaleAttr = attr.f();
    else if (name == "softcap" && isFloat)
      softcap = attr.f();
    else
      return fail(node, "attribute '" + attr.name() +
                            "' is not an ONNX attribute of Attention of that "
                            "type");
  }
  auto given = [&](int i) {
    return i < node.input_size() && !node.input(i).empty();
  };
  if (!given(0) || !given(1) || !given(2))
    return fail(node, "Attention needs Q, K and V");
  if (given(4) || given(5) || given(6))
    return fail(node, "Attention with a KV cache (past_key, past_value) or "
                      "nonpad_kv_seqlen is not supported yet");
  for (int i = 1; i < node.output_size(); ++i)
    if (!node.output(i).empty())
      return fail(node, "Attention's present_key, present_value and "
                        "qk_matmul_output outputs are not supported yet");
  (void)qkMode;
  Value q = lookup(node.input(0)), k = lookup(node.input(1)),
        v = lookup(node.input(2));
  Value mask = given(3) ? lookup(node.input(3)) : Value();
  if (!q || !k || !v || (given(3) && !mask))
    return fail(node, "an input of Attention is undefined");
  auto qType = dyn_cast<RankedTensorType>(q.getType());
  auto kType = dyn_cast<RankedTensorType>(k.getType());
  auto vType = dyn_cast<RankedTensorType>(v.getType());
  if (!qType || !kType || !vType || qType.getRank() != kType.getRank() ||
      qType.getRank() != vType.getRank() ||
      !llvm::is_contained({3, 4}, qType.getRank()) ||
      !isa<FloatType>(qType.getElementType()))
    return fail(node, "Attention's Q, K and V must be float tensors of rank "
                      "3 or 4 alike");
  Location loc = locOf(node);
  GraphBuilder g(b, loc);
  Type f = qType.getElementType();
  bool packed = qType.getRank() == 3;
  // [B, S, H * D] -> [B, H, S, D].
  auto split = [&](Value x, int64_t heads) -> Value {
    Value r = g.value("dsmp.reshape", {x, g.i64s({0, 0, heads, -1})});
    return r ? g.transpose(r, {0, 2, 1, 3}) : Value();
  };
  if (packed) {
    if (qHeads <= 0 || kvHeads <= 0)
      return fail(node, "Attention on [B, S, H * D] inputs needs q_num_heads "
                        "and kv_num_heads");
    q = split(q, qHeads);
    k = split(k, kvHeads);
    v = split(v, kvHeads);
    if (!q || !k || !v)
      return fail(node, "Attention's Q, K or V does not split into heads");
  }
  auto dim = [](Value x, int64_t d) {
    return cast<RankedTensorType>(x.getType()).getDimSize(d);
  };
  int64_t hq = dim(q, 1), hkv = dim(k, 1), headSize = dim(q, 3);
  if (hq != hkv) {
    if (ShapedType::isDynamic(hq) || ShapedType::isDynamic(hkv) || hkv <= 0 ||
        hq % hkv != 0)
      return fail(node, "Attention's Q heads must be a known multiple of its "
                        "K/V heads");
    // Grouped-query attention: each K/V head serves hq / hkv Q heads.
    auto repeat = [&](Value x) -> Value {
      Value wide = g.value("dsmp.unsqueeze", {x, g.i64s({2})});
      Value copies =
          wide ? g.value("dsmp.expand", {wide, g.i64s({1, 1, hq / hkv, 1, 1})})
               : Value();
      return copies ? g.value("dsmp.reshape",
                              {copies, g.i64s({0, hq, -1, dim(x, 3)})})
                    : Value();
    };
    k = repeat(k);
    v = repeat(v);
    if (!k || !v)
      return fail(node, "Attention's K/V heads do not repeat to Q's");
  }
  if (ShapedType::isDynamic(headSize) && !scaleAttr)
    return fail(node, "Attention without a scale needs a known head size");
  double scale = scaleAttr ? *scaleAttr : 1.0 / std::sqrt(double(headSize));
  Value scores = g.value("dsmp.matmul", {q, g.transpose(k, {0, 1, 3, 2})});
  if (!scores)
    return fail(node, "Attention's Q and K do not multiply");
  scores = g.mul(scores, g.scalar(scale, f));
  if (softcap > 0)
    scores = g.mul(g.value("dsmp.tanh", {g.div(scores, g.scalar(softcap, f))}),
                   g.scalar(softcap, f));
  auto scoresType = cast<RankedTensorType>(scores.getType());
  Value minusInf = g.scalar(-std::numeric_limits<double>::infinity(), f);
  auto keep = [&](Value allowed) {
    return g.typed("dsmp.where", {allowed, scores, minusInf}, scoresType);
  };
  if (mask) {
    auto maskType = dyn_cast<RankedTensorType>(mask.getType());
    if (!maskType)
      return fail(node, "Attention's mask must be a ranked tensor");
    if (maskType.getElementType().isInteger(1))
      scores = keep(mask);
    else if (isa<FloatType>(maskType.getElementType()))
      scores = g.typed("dsmp.add", {scores, g.convert(mask, f)}, scoresType);
    else
      return fail(node, "Attention's mask must be bool or float");
  }
  if (causal) {
    // Ones of the last two dims (Sq, Skv), lower triangle kept.
    Value shape = g.typed("dsmp.shape", {scores},
                          RankedTensorType::get({4}, b.getI64Type()));
    Value last2 = g.typed(
        "dsmp.slice", {shape, g.i64s({2}), g.i64s({4}), g.i64s({0}), g.none()},
        RankedTensorType::get({2}, b.getI64Type()));
    auto planeType = RankedTensorType::get(
        {scoresType.getDimSize(2), scoresType.getDimSize(3)}, b.getI1Type());
    auto trueAttr =
        DenseElementsAttr::get(RankedTensorType::get({1}, b.getI1Type()), true);
    Value ones = ConstantOfShapeOp::create(b, loc, planeType, last2,
                                           cast<ElementsAttr>(trueAttr));
    Value lower = TriluOp::create(b, loc, planeType, ones,
                                  constI64({0}, loc, /*scalar=*/true), 0);
    scores = keep(lower);
  }
  Value probs = g.value("dsmp.softmax", {scores}, {g.i64("axis", -1)});
  Value y = probs ? g.value("dsmp.matmul", {probs, v}) : Value();
  if (!y)
    return fail(node, "Attention's probabilities and V do not multiply");
  if (packed) {
    y = g.value("dsmp.reshape",
                {g.transpose(y, {0, 2, 1, 3}), g.i64s({0, 0, -1})});
    if (!y)
      return fail(node, "Attention's output does not merge its heads");
  }
  scopes.back().values[node.output(0)] = y;
  return Error::success();
}

/// One of onnxruntime's fused contrib ops, as the ops it fuses
/// (ContribOps.cpp), a quantized integer op (IntegerOps.cpp), Col2Im as
/// a ConvTranspose (Col2Im.cpp), a signal op as a product by a table
/// (Spectral.cpp), or MaxUnpool/ReverseSequence as a scatter/gather
/// (IndexedForms.cpp).
Error ModelImporter::importContribNode(const onnx::NodeProto &node) {
  SmallVector<Value> inputs;
  for (const auto &name : node.input()) {
    Value value = name.empty() ? Value() : lookup(name);
    if (!name.empty() && !value)
      return fail(node, "input '" + name + "' is undefined");
    inputs.push_back(value);
  }
  GraphBuilder g(b, locOf(node));
  // The float op an integer product becomes: `node` itself (its name and
  // attributes) retyped, on operands bound to names of its own.
  auto floatOp = [&](StringRef opType, ValueRange operands) -> Expected<Value> {
    onnx::NodeProto inner = node;
    inner.set_op_type(opType.str());
    inner.clear_input();
    inner.clear_output();
    for (auto [i, operand] : llvm::enumerate(operands)) {
      std::string name = node.output(0) + "/dsmp.operand" + std::to_string(i);
      scopes.back().values[name] = operand;
      inner.add_input(name);
    }
    inner.add_output(node.output(0) + "/dsmp." + opType.str());
    if (Error err = importNode(inner))
      return std::move(err);
    return lookup(inner.output(0));
  };
  if (node.op_type() == "Col2Im" || isSpectralOp(node) ||
      isIndexedFormOp(node)) {
    auto output = node.op_type() == "Col2Im" ? importCol2Im(node, inputs, g)
                  : isIndexedFormOp(node)
                      ? importIndexedForm(node, inputs, g)
                      : importSpectralOp(node, inputs, opset, g);
    if (!output)
      return fail(node, llvm::toString(output.takeError()));
    scopes.back().values[node.output(0)] = *output;
    return Error::success();
  }
  auto outputs = isSpelledIntegerOp(node)
                     ? importIntegerOp(node, inputs, g, floatOp)
                     : importContribOp(node, inputs, g);
  if (!outputs)
    return fail(node, llvm::toString(outputs.takeError()));
  for (int i = 0; i < node.output_size(); ++i)
    if (!node.output(i).empty())
      scopes.back().values[node.output(i)] = (*outputs)[i];
  return Error::success();
}

/// RMSNormalization (opset 23; torch's nn.RMSNorm at opset 23): x /
/// sqrt(mean(x^2 over the dims from `axis` on) + epsilon) * scale, spelled
/// with Mul, ReduceMean, Add, Sqrt and Div as opset 18 exports it; with
/// stash_type 1 (the default) a 16-bit x is computed in f32.
Error ModelImporter::importRMSNormalization(const onnx::NodeProto &node) {
  if (node.input_size() != 2 || node.output_size() != 1)
    return fail(node, "RMSNormalization takes X and scale and gives one "
                      "output");
  int64_t axis = -1, stash = 1;
  double epsilon = 1e-5;
  for (const auto &attr : node.attribute()) {
    if (attr.name() == "axis" && attr.type() == onnx::AttributeProto::INT)
      axis = attr.i();
    else if (attr.name() == "stash_type" &&
             attr.type() == onnx::AttributeProto::INT)
      stash = attr.i();
    else if (attr.name() == "epsilon" &&
             attr.type() == onnx::AttributeProto::FLOAT)
      epsilon = attr.f();
    else
      return fail(node, "attribute '" + attr.name() +
                            "' is not an ONNX attribute of RMSNormalization "
                            "of that type");
  }
  Value x = lookup(node.input(0)), scale = lookup(node.input(1));
  if (!x || !scale)
    return fail(node, "an input of RMSNormalization is undefined");
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || !isa<FloatType>(type.getElementType()))
    return fail(node, "RMSNormalization's X must be a ranked float tensor");
  int64_t rank = type.getRank();
  if (axis < -rank || axis >= rank)
    return fail(node, "RMSNormalization's axis " + std::to_string(axis) +
                          " is out of range for rank " + std::to_string(rank));
  if (axis < 0)
    axis += rank;
  GraphBuilder g(b, locOf(node));
  Type element = type.getElementType();
  Type compute = stash == 1 ? Type(b.getF32Type()) : element;
  Value wide = g.convert(x, compute);
  SmallVector<int64_t> axes;
  for (int64_t d = axis; d < rank; ++d)
    axes.push_back(d);
  Value meanSquare =
      g.value("dsmp.reduce_mean", {g.mul(wide, wide), g.i64s(axes)},
              {g.i64("keepdims", 1)});
  if (!meanSquare)
    return fail(node, "RMSNormalization's mean does not reduce");
  Value rms =
      g.value("dsmp.sqrt", {g.add(meanSquare, g.scalar(epsilon, compute))});
  Value normalized = g.convert(g.div(wide, rms), element);
  Value y = g.value("dsmp.mul", {normalized, scale});
  if (!y)
    return fail(node, "RMSNormalization's scale does not broadcast to X");
  scopes.back().values[node.output(0)] = y;
  return Error::success();
}

/// BatchNormalization with training_mode = 1 (opset 14+): normalized by
/// the statistics of the batch itself, over every dim but the channel
/// (dim 1), the variance the population one; the running statistics
/// outputs, where asked for, are input * momentum + batch * (1 - momentum).
/// BiT's weight-standardised convolutions export their standardisation so
/// (F.batch_norm on the weights with training=True).
Error ModelImporter::importTrainingBatchNorm(const onnx::NodeProto &node) {
  if (node.input_size() != 5 || node.output_size() < 1 ||
      node.output_size() > 3)
    return fail(node, "BatchNormalization in training mode takes X, scale, "
                      "B, input_mean and input_var and gives Y, running_mean "
                      "and running_var");
  double epsilon = 1e-5, momentum = 0.9;
  for (const auto &attr : node.attribute()) {
    if (attr.name() == "epsilon" && attr.type() == onnx::AttributeProto::FLOAT)
      epsilon = attr.f();
    else if (attr.name() == "momentum" &&
             attr.type() == onnx::AttributeProto::FLOAT)
      momentum = attr.f();
    else if (attr.name() != "training_mode" ||
             attr.type() != onnx::AttributeProto::INT)
      return fail(node, "attribute '" + attr.name() +
                            "' is not an ONNX attribute of BatchNormalization "
                            "of that type");
  }
  SmallVector<Value, 5> in;
  for (const std::string &name : node.input()) {
    in.push_back(lookup(name));
    if (!in.back())
      return fail(node, "input '" + name +
                            "' of BatchNormalization is "
                            "undefined");
  }
  auto type = dyn_cast<RankedTensorType>(in[0].getType());
  if (!type || type.getRank() < 2 || !isa<FloatType>(type.getElementType()))
    return fail(node, "BatchNormalization's X must be a ranked float tensor "
                      "of rank 2 or more");
  GraphBuilder g(b, locOf(node));
  Type element = type.getElementType();
  SmallVector<int64_t> axes = {0}, spread = {0};
  for (int64_t d = 2; d < type.getRank(); ++d) {
    axes.push_back(d);
    spread.push_back(d);
  }
  // Per-channel [C] operands spread to [1, C, 1, ...].
  auto perChannel = [&](Value v) {
    return g.value("dsmp.unsqueeze", {v, g.i64s(spread)});
  };
  auto flat = [&](Value v) {
    return g.value("dsmp.squeeze", {v, g.i64s(axes)});
  };
  Value mean = g.value("dsmp.reduce_mean", {in[0], g.i64s(axes)},
                       {g.i64("keepdims", 1)});
  Value centered = mean ? g.sub(in[0], mean) : Value();
  Value var = centered ? g.value("dsmp.reduce_mean",
                                 {g.mul(centered, centered), g.i64s(axes)},
                                 {g.i64("keepdims", 1)})
                       : Value();
  Value scale = perChannel(in[1]), bias = perChannel(in[2]);
  if (!var || !scale || !bias)
    return fail(node, "BatchNormalization's scale and B must be per channel "
                      "of X");
  Value y = g.add(
      g.mul(g.div(centered, g.value("dsmp.sqrt",
                                    {g.add(var, g.scalar(epsilon, element))})),
            scale),
      bias);
  if (!y)
    return fail(node, "BatchNormalization's scale and B do not broadcast to X");
  scopes.back().values[node.output(0)] = y;
  // Running statistics, where an output asks for them.
  Value batch[2] = {mean, var};
  for (int i = 1; i < node.output_size(); ++i) {
    if (node.output(i).empty())
      continue;
    Type stat = getElementTypeOrSelf(in[2 + i].getType());
    Value running = g.add(g.mul(in[2 + i], g.scalar(momentum, stat)),
                          g.mul(g.convert(flat(batch[i - 1]), stat),
                                g.scalar(1.0 - momentum, stat)));
    if (!running)
      return fail(node, "BatchNormalization's input_mean and input_var must "
                        "be per channel of X");
    scopes.back().values[node.output(i)] = running;
  }
  return Error::success();
}

/// AffineGrid(theta [N, k, k+1], size [N, C, (D,) H, W]), k = 2 or 3: the
/// grid [N, (D,) H, W, k] of theta times each output position's normalized
/// coordinates (x along W, y along H, z along D, then 1), as GridSample
/// reads them. Spelled with Range, Expand, Concat and a MatMul, so that a
/// size read from Shape (a spatial transformer's x.size()) stays symbolic
/// until specialization.
Error ModelImporter::importAffineGrid(const onnx::NodeProto &node) {
  if (node.input_size() != 2 || node.output_size() != 1)
    return fail(node, "AffineGrid takes theta and size and gives one output");
  bool alignCorners = false;
  for (const auto &attr : node.attribute()) {
    if (attr.name() != "align_corners" ||
        attr.type() != onnx::AttributeProto::INT)
      return fail(node, "attribute '" + attr.name() +
                            "' is not an ONNX attribute of AffineGrid "
                            "(align_corners is, INT)");
    alignCorners = attr.i() != 0;
  }
  Value theta = lookup(node.input(0)), size = lookup(node.input(1));
  if (!theta || !size)
    return fail(node, "an input of AffineGrid is undefined");
  auto thetaType = dyn_cast<RankedTensorType>(theta.getType());
  auto sizeType = dyn_cast<RankedTensorType>(size.getType());
  if (!thetaType || thetaType.getRank() != 3 ||
      !isa<FloatType>(thetaType.getElementType()) ||
      !llvm::is_contained({2, 3}, thetaType.getDimSize(1)) ||
      (!thetaType.isDynamicDim(2) &&
       thetaType.getDimSize(2) != thetaType.getDimSize(1) + 1))
    return fail(node, "AffineGrid's theta must be a float [N, 2, 3] or "
                      "[N, 3, 4] tensor");
  int64_t k = thetaType.getDimSize(1);
  if (!sizeType || sizeType.getRank() != 1 ||
      !sizeType.getElementType().isInteger(64) ||
      (!sizeType.isDynamicDim(0) && sizeType.getDimSize(0) != k + 2))
    return fail(node, "AffineGrid's size must be an int64 tensor of " +
                          std::to_string(k + 2) + " values");
  GraphBuilder g(b, locOf(node));
  Type f = thetaType.getElementType();
  int64_t dyn = ShapedType::kDynamic;
  auto tensorOf = [&](ArrayRef<int64_t> dims, Type element) {
    return RankedTensorType::get(dims, element);
  };
  Type i64 = b.getI64Type();
  auto slice = [&](int64_t lo, int64_t hi) {
    return g.typed("dsmp.slice",
                   {size, g.i64s({lo}), g.i64s({hi}), g.i64s({0}), g.none()},
                   tensorOf({hi - lo}, i64));
  };
  Value one = g.scalar(1.0, f), two = g.scalar(2.0, f);
  auto line = tensorOf({dyn}, f);
  // Per spatial dim, outermost (D or H) first: its size and coordinates.
  SmallVector<Value> sizes, coords;
  for (int64_t i = 0; i < k; ++i) {
    Value n = slice(2 + i, 3 + i);
    sizes.push_back(n);
    // Range in int64, whose bounds fold in specialization; then float.
    Value length = g.typed("dsmp.squeeze", {n, g.i64s({0})}, tensorOf({}, i64));
    Value count = g.typed("dsmp.cast", {length}, tensorOf({}, f));
    auto scalarI64 = [&](int64_t v) {
      auto type = tensorOf({}, i64);
      return ConstantOp::create(b, locOf(node), type,
                                DenseElementsAttr::get(type, v));
    };
    Value index =
        g.typed("dsmp.cast",
                {g.typed("dsmp.range", {scalarI64(0), length, scalarI64(1)},
                         tensorOf({dyn}, i64))},
                line);
    Value c;
    // With align_corners, a dim of size 1 gives -1, as ONNX's reference
    // (onnxruntime gives 1, torch 0).
    if (alignCorners) { // -1 + 2 i / max(n - 1, 1)
      Value step = g.typed(
          "dsmp.div",
          {two, g.typed("dsmp.max", {g.sub(count, one), one}, count.getType())},
          count.getType());
      c = g.typed("dsmp.sub", {g.typed("dsmp.mul", {index, step}, line), one},
                  line);
    } else { // (2 i + 1) / n - 1
      Value twice = g.typed("dsmp.mul", {index, two}, line);
      c = g.typed(
          "dsmp.sub",
          {g.typed("dsmp.div", {g.typed("dsmp.add", {twice, one}, line), count},
                   line),
           one},
          line);
    }
    coords.push_back(c);
  }
  SmallVector<int64_t> spatialDims(k, dyn);
  Value spatial =
      g.typed("dsmp.concat", sizes, tensorOf({k}, i64), {g.i64("axis", 0)});
  auto plane = tensorOf(spatialDims, f);
  SmallVector<int64_t> column(spatialDims);
  column.push_back(1);
  auto columnType = tensorOf(column, f);
  // x (along the innermost dim), y, z, then ones; each [(D,) H, W, 1].
  SmallVector<Value> parts;
  for (int64_t i = k - 1; i >= 0; --i) {
    SmallVector<int64_t> shape(k, 1);
    shape[i] = -1;
    SmallVector<int64_t> reshapedDims(k, 1);
    reshapedDims[i] = dyn;
    Value along = g.typed("dsmp.reshape", {coords[i], g.i64s(shape)},
                          tensorOf(reshapedDims, f));
    Value full = g.typed("dsmp.expand", {along, spatial}, plane);
    parts.push_back(g.typed("dsmp.unsqueeze", {full, g.i64s({k})}, columnType));
  }
  auto oneAttr = DenseElementsAttr::get(
      tensorOf({1}, f),
      llvm::APFloat::getOne(cast<FloatType>(f).getFloatSemantics()));
  Value ones = ConstantOfShapeOp::create(b, locOf(node), plane, spatial,
                                         cast<ElementsAttr>(oneAttr));
  parts.push_back(g.typed("dsmp.unsqueeze", {ones, g.i64s({k})}, columnType));
  SmallVector<int64_t> baseDims(spatialDims);
  baseDims.push_back(k + 1);
  Value base =
      g.typed("dsmp.concat", parts, tensorOf(baseDims, f), {g.i64("axis", k)});
  Value rows = g.typed("dsmp.reshape", {base, g.i64s({1, -1, k + 1})},
                       tensorOf({1, dyn, k + 1}, f));
  int64_t batch = thetaType.getDimSize(0);
  Value thetaT =
      g.typed("dsmp.transpose", {theta}, tensorOf({batch, k + 1, k}, f),
              {g.array("perm", {0, 2, 1})});
  Value grid =
      g.typed("dsmp.matmul", {rows, thetaT}, tensorOf({batch, dyn, k}, f));
  SmallVector<Value> outShape{slice(0, 1)};
  llvm::append_range(outShape, sizes);
  outShape.push_back(g.i64s({k}));
  SmallVector<int64_t> outDims{batch};
  outDims.append(k, dyn);
  outDims.push_back(k);
  scopes.back().values[node.output(0)] =
      g.typed("dsmp.reshape",
              {grid, g.typed("dsmp.concat", outShape, tensorOf({k + 2}, i64),
                             {g.i64("axis", 0)})},
              tensorOf(outDims, f));
  return Error::success();
}

/// Softmax, LogSoftmax and Hardmax before opset 13 normalize the rows of
/// the input flattened to 2-D at `axis`: Flatten, the op over axis 1, and a
/// Reshape back to the input's shape. Taken where that is not the per-axis
/// form: `axis` is not the last dim, or the rank is unknown at import (an
/// old model's attention scores after shape arithmetic).
Error ModelImporter::importFlatteningSoftmax(const onnx::NodeProto &node,
                                             Value input, int64_t axis) {
  for (const auto &attr : node.attribute())
    if (attr.name() != "axis" || attr.type() != onnx::AttributeProto::INT)
      return fail(node, "attribute '" + attr.name() +
                            "' is not an ONNX "
                            "attribute of " +
                            node.op_type() + " (axis is, INT)");
  auto tensor = dyn_cast<TensorType>(input.getType());
  if (!tensor || !isa<FloatType>(tensor.getElementType()))
    return fail(node, node.op_type() + " takes a float tensor");
  int64_t outer = ShapedType::kDynamic, inner = ShapedType::kDynamic;
  Type shapeType =
      RankedTensorType::get({ShapedType::kDynamic}, b.getI64Type());
  if (auto ranked = dyn_cast<RankedTensorType>(tensor)) {
    int64_t rank = ranked.getRank();
    if (axis < -rank || axis > rank)
      return fail(node, "axis " + std::to_string(axis) +
                            " is out of range for a rank-" +
                            std::to_string(rank) + " input");
    int64_t at = axis < 0 ? axis + rank : axis;
    auto product = [&](ArrayRef<int64_t> dims) {
      int64_t n = 1;
      for (int64_t d : dims)
        if (ShapedType::isDynamic(d))
          return ShapedType::kDynamic;
        else
          n *= d;
      return n;
    };
    outer = product(ranked.getShape().take_front(at));
    inner = product(ranked.getShape().drop_front(at));
    shapeType = RankedTensorType::get({rank}, b.getI64Type());
  }
  GraphBuilder g(b, locOf(node));
  auto flatType =
      RankedTensorType::get({outer, inner}, tensor.getElementType());
  const std::string &name = lookupOnnxType(node.op_type())->opName;
  Value flat =
      g.typed("dsmp.flatten", {input}, flatType, {g.i64("axis", axis)});
  Value rows = g.typed(name, {flat}, flatType, {g.i64("axis", 1)});
  Value shape = g.typed("dsmp.shape", {input}, shapeType);
  scopes.back().values[node.output(0)] =
      g.typed("dsmp.reshape", {rows, shape}, input.getType());
  return Error::success();
}

/// An op whose fold gives constants (the integer shape arithmetic the
/// dialect folds on constant operands, or a Shape of dims the types know;
/// float math never folds) becomes them right away, so that the rules
/// typing the nodes after it see constants: ViT's attention slices
/// Shape(x) up to Reshape(Mod(c1, c2)), and only a folded end gives that
/// Slice, and the Reshape it shapes, a rank; DeBERTa expands to
/// ConstantOfShape(Shape(c)), which has a length only once Shape folds. An
/// Identity of a constant becomes the constant, so that what reads it sees
/// a weight (YOLOS interpolates an Identity of its position embeddings).
void ModelImporter::foldConstantShapeMath(Operation *op,
                                          SmallVectorImpl<Value> &results) {
  if (op->getNumRegions() || op->getNumResults() == 0 ||
      op->getNumOperands() == 0 ||
      op->hasTrait<::mlir::OpTrait::ConstantLike>())
    return;
  // Non-constant operands fold as null, as the canonicalizer passes them.
  SmallVector<Attribute> operandValues;
  for (Value v : op->getOperands()) {
    Operation *def = v.getDefiningOp();
    SmallVector<OpFoldResult, 1> folded;
    if (!def || !def->hasTrait<::mlir::OpTrait::ConstantLike>() ||
        failed(def->fold(folded)) || folded.size() != 1) {
      operandValues.push_back({});
      continue;
    }
    operandValues.push_back(dyn_cast<Attribute>(folded.front()));
  }
  SmallVector<OpFoldResult> folded;
  if (failed(op->fold(operandValues, folded)) ||
      folded.size() != op->getNumResults())
    return;
  // Each result folds to a constant's value, or to a constant itself (an
  // exporter's Identity of an initializer), else nothing is replaced.
  for (auto [result, value] : llvm::zip(op->getResults(), folded)) {
    if (auto same = dyn_cast<Value>(value)) {
      Operation *def = same.getDefiningOp();
      if (same.getType() != result.getType() || !def ||
          !def->hasTrait<::mlir::OpTrait::ConstantLike>())
        return;
      continue;
    }
    auto elements =
        dyn_cast_if_present<DenseElementsAttr>(dyn_cast<Attribute>(value));
    if (!elements || elements.getType() != result.getType())
      return;
  }
  SmallVector<Value> replaced;
  for (OpFoldResult value : folded) {
    if (auto same = dyn_cast<Value>(value)) {
      replaced.push_back(same);
      continue;
    }
    auto elements = cast<DenseElementsAttr>(cast<Attribute>(value));
    replaced.push_back(
        ConstantOp::create(b, op->getLoc(), elements.getType(), elements));
  }
  op->erase();
  results.assign(replaced.begin(), replaced.end());
}

Expected<OwningOpRef<ModuleOp>>
ModelImporter::importModel(const onnx::ModelProto &model) {
  const onnx::GraphProto &graph = model.graph();
  OwningOpRef<ModuleOp> module = ModuleOp::create(b.getUnknownLoc());
  module->getOperation()->setAttr("dsmp.opset", b.getI64IntegerAttr(opset));
  b.setInsertionPointToEnd(module->getBody());

  pushScope(graph);
  llvm::StringSet<> initializers;
  for (const auto &init : graph.initializer())
    initializers.insert(init.name());

  // Graph inputs that are not initializers become the function arguments.
  SmallVector<Type> argTypes;
  SmallVector<const onnx::ValueInfoProto *> args;
  for (const auto &input : graph.input()) {
    if (initializers.contains(input.name()))
      continue;
    int32_t unsupported = 0;
    RankedTensorType type = convertType(input.type(), &unsupported);
    if (unsupported)
      return fail("graph input '" + input.name() + "' has unsupported dtype " +
                  getOnnxTypeName(unsupported));
    if (!type)
      return fail("graph input '" + input.name() +
                  "' has no tensor type with a known rank");
    argTypes.push_back(type);
    args.push_back(&input);
  }
  SmallVector<Type> resultTypes;
  for (const auto &output : graph.output()) {
    int32_t unsupported = 0;
    RankedTensorType type = convertType(output.type(), &unsupported);
    resultTypes.push_back(type ? Type(type) : Type());
  }

  auto func = func::FuncOp::create(b, b.getUnknownLoc(), "main_graph",
                                   b.getFunctionType(argTypes, {}));
  entryBlock = func.addEntryBlock();
  for (auto [i, input] : llvm::enumerate(args)) {
    func.setArgAttr(i, "dsmp.name", b.getStringAttr(input->name()));
    // The names of symbolic dims ("batch", "seq"): inputs that share one
    // have the same size (the runtime checks it for a dynamic variant).
    SmallVector<Attribute> params;
    bool named = false;
    for (const auto &dim : input->type().tensor_type().shape().dim()) {
      std::string param = dim.has_dim_value() ? "" : dim.dim_param();
      named |= !param.empty();
      params.push_back(b.getStringAttr(param));
    }
    if (named)
      func.setArgAttr(i, kDimParamsAttr, b.getArrayAttr(params));
    scopes.back().values[input->name()] = entryBlock->getArgument(i);
  }
  b.setInsertionPointToEnd(entryBlock);
  if (Error err = importGraphBody(graph))
    return std::move(err);

  SmallVector<Value> results;
  for (auto [i, output] : llvm::enumerate(graph.output())) {
    Value value = lookup(output.name());
    if (!value)
      return fail("graph output '" + output.name() + "' is undefined");
    results.push_back(value);
  }
  func::ReturnOp::create(b, b.getUnknownLoc(), results);
  func.setFunctionType(
      b.getFunctionType(argTypes, ValueRange(results).getTypes()));
  for (auto [i, output] : llvm::enumerate(graph.output())) {
    func.setResultAttr(i, "dsmp.name", b.getStringAttr(output.name()));
    // As for subgraphs: keep the declared type of an unranked output, which
    // the main graph of an ONNX model must state.
    if (isa<UnrankedTensorType>(results[i].getType()))
      if (RankedTensorType declared = convertType(output.type(), nullptr))
        func.setResultAttr(i, "dsmp.declared_type", TypeAttr::get(declared));
  }

  DiagnosticCollector diagnostics(ctx);
  if (failed(mlir::verify(*module)))
    return fail("the imported IR does not verify: " + diagnostics.take());
  return std::move(module);
}

/// Checks every node (recursing into subgraphs) before anything else reads
/// the graph: the domain, that dsmp knows the op, and, for opsets that ONNX
/// 1.12 knows (<= 17), the node against its schema (attribute types, input
/// and output counts). ONNX's shape inference is not safe on nodes that fail
/// these checks.
/// Declared ranks of the graph's inputs, initializers and value_info
/// (added to those of the enclosing graphs).
void collectRanks(const onnx::GraphProto &graph,
                  llvm::StringMap<int64_t> &ranks) {
  auto typed = [&](const onnx::ValueInfoProto &v) {
    if (v.type().has_tensor_type() && v.type().tensor_type().has_shape())
      ranks[v.name()] = v.type().tensor_type().shape().dim_size();
  };
  for (const auto &v : graph.input())
    typed(v);
  for (const auto &v : graph.value_info())
    typed(v);
  for (const auto &t : graph.initializer())
    ranks[t.name()] = t.dims_size();
}

/// Conv and pool nodes whose declared ranks disagree with each other or
/// with their window attributes. ONNX 1.12's own shape inference reads out
/// of bounds on those (found by the fuzzer), so they are rejected first.
Error checkWindowRanks(const onnx::GraphProto &graph, StringRef path,
                       int64_t opset, llvm::StringMap<int64_t> ranks) {
  collectRanks(graph, ranks);
  static const llvm::StringSet<> windowed = {
      "Conv",        "ConvTranspose", "ConvInteger", "MaxPool",
      "AveragePool", "LpPool",        "QLinearConv", "MaxUnpool"};
  for (const auto &node : graph.node()) {
    for (const auto &attr : node.attribute()) {
      if (attr.has_g())
        if (Error err = checkWindowRanks(attr.g(), path, opset, ranks))
          return err;
      for (const auto &g : attr.graphs())
        if (Error err = checkWindowRanks(g, path, opset, ranks))
          return err;
    }
    if (!windowed.contains(node.op_type()) || node.input_size() == 0)
      continue;
    auto rankOf = [&](int i) -> int64_t {
      if (i >= node.input_size())
        return -1;
      auto it = ranks.find(node.input(i));
      return it == ranks.end() ? -1 : it->second;
    };
    int64_t rank = rankOf(0);
    if (rank < 0)
      continue;
    Where where = whereOf(node);
    if (rank < 3)
      return makeError(path, where, opset,
                       "input '" + node.input(0) + "' has rank " +
                           std::to_string(rank) +
                           "; it needs [N, C, spatial...] (rank 3 or more)");
    StringRef type = node.op_type();
    if (type.starts_with("Conv") || type == "QLinearConv") {
      int64_t w = rankOf(type == "QLinearConv" ? 3 : 1);
      if (w >= 0 && w != rank)
        return makeError(path, where, opset,
                         "the weight has rank " + std::to_string(w) +
                             ", the input rank " + std::to_string(rank));
    }
    int64_t spatial = rank - 2;
    for (const auto &attr : node.attribute()) {
      StringRef name = attr.name();
      int64_t want = name == "pads" ? 2 * spatial
                     : (name == "kernel_shape" || name == "strides" ||
                        name == "dilations" || name == "output_padding")
                         ? spatial
                         : -1;
      if (want >= 0 && attr.ints_size() != want)
        return makeError(path, where, opset,
                         "attribute '" + name.str() + "' has " +
                             std::to_string(attr.ints_size()) +
                             " values; the input's " + std::to_string(spatial) +
                             " spatial dims need " + std::to_string(want));
    }
  }
  return Error::success();
}

/// Whether `node`, in the form its op has had since `since` (before opset
/// 9), computes what the op's opset-9 form computes on the same inputs, so
/// it imports as that form. Opset 9 (and 8, for MaxPool and the variadic
/// ops) only added types, an optional output or broadcasting these forms
/// lacked; BatchNormalization dropped `spatial`, whose default it kept;
/// Upsample moved its scales from an attribute to an input (normalizeOldForm
/// moves them back). The classic model zoo's opset-7 and -8 CNNs are these.
bool olderFormMeansOpset9(const onnx::NodeProto &node, int since) {
  static const llvm::StringMap<int> sameSince = {
      {"Flatten", 1},  {"MatMul", 1},
      {"Constant", 1}, {"MaxPool", 1},
      {"Gemm", 6},     {"PRelu", 6},
      {"Cast", 6},     {"Less", 7},
      {"Greater", 7},  {"Sum", 6},
      {"Max", 6},      {"Min", 6},
      {"Mean", 6},     {"Dropout", 6},
      {"Upsample", 7}, {"BatchNormalization", 6}};
  auto it = sameSince.find(node.op_type());
  if (it == sameSince.end() || since < it->second)
    return false;
  for (const auto &attr : node.attribute()) {
    // Per-activation statistics (spatial = 0) have no opset-9 form.
    if (node.op_type() == "BatchNormalization" && attr.name() == "spatial" &&
        attr.i() != 1)
      return false;
    // A training-mode Dropout-6 drops at random.
    if (node.op_type() == "Dropout" && attr.name() == "is_test" &&
        attr.i() != 1)
      return false;
  }
  return true;
}

Error checkNodes(const onnx::GraphProto &graph, StringRef path, int64_t opset) {
  for (const auto &node : graph.node()) {
    Where where = whereOf(node);
    // onnxruntime's fused ops, spelled with standard ones: ONNX has no
    // schema for them, importContribOp checks them.
    if (isSpelledContribOp(node)) {
      if (Error err = checkNodeAttributes(node, path, where, opset))
        return err;
      continue;
    }
    if (node.domain() == "com.microsoft")
      return makeError(path, where, opset,
                       unsupportedContribOpMessage(node.op_type()));
    if (!isDefaultDomain(node.domain()))
      return makeError(path, where, opset,
                       "op domain '" + node.domain() + "' is not supported");
    StringRef type = node.op_type();
    // Taken as another op's form (Upsample, Scatter, CastLike) or spelled with
    // other ops (Constant, EyeLike, AffineGrid, Attention,
    // RMSNormalization, Col2Im, the signal ops, MaxUnpool, ReverseSequence,
    // ImageScaler before opset 10): no dialect op of their own.
    bool imageScaler = type == "ImageScaler" && opset < 10;
    if (!llvm::is_contained({"Constant", "Upsample", "Scatter", "CastLike",
                             "EyeLike", "AffineGrid", "Attention",
                             "RMSNormalization", "DynamicQuantizeLinear",
                             "MatMulInteger", "ConvInteger", "QLinearMatMul",
                             "QLinearConv", "Col2Im"},
                            type) &&
        !isSpectralOp(node) && !isIndexedFormOp(node) && !imageScaler &&
        !lookupOnnxType(type))
      return makeError(path, where, opset,
                       unsupportedOpMessage(node.op_type(), opset));
    // ONNX dropped ImageScaler's schema with the op; importImageScaler
    // checks its attributes.
    if (imageScaler)
      continue;
    if (Error err = checkNodeAttributes(node, path, where, opset))
      return err;
    // onnxruntime registers LayerNormalization (opset 17's form) for older
    // opsets too, and its transformer optimizer writes it there.
    bool olderLayerNorm = type == "LayerNormalization" && opset < 17;
    if (opset <= 17 && !olderLayerNorm) {
      const onnx::OpSchema *schema =
          onnx::OpSchemaRegistry::Schema(node.op_type(), opset, node.domain());
      if (!schema)
        return makeError(path, where, opset,
                         "op type does not exist at this opset");
      // Models below opset 9 import when each op is still in the form it
      // has at opset 9 (node tests are written at the op's own version),
      // or in an older form that means the same (olderFormMeansOpset9).
      if (opset < kMinOpset) {
        const onnx::OpSchema *at9 = onnx::OpSchemaRegistry::Schema(
            node.op_type(), kMinOpset, node.domain());
        if (!at9 || (at9->since_version() != schema->since_version() &&
                     !olderFormMeansOpset9(node, schema->since_version())))
          return makeError(
              path, where, opset,
              "this op changed after opset " + std::to_string(opset) +
                  "; dsmp supports opsets " + std::to_string(kMinOpset) +
                  " to " + std::to_string(kMaxOpset));
      }
      try {
        schema->Verify(node);
      } catch (const std::exception &e) {
        return makeError(path, where, opset, e.what());
      }
    }
    for (const auto &attr : node.attribute()) {
      if (attr.has_g())
        if (Error err = checkNodes(attr.g(), path, opset))
          return err;
      for (const auto &g : attr.graphs())
        if (Error err = checkNodes(g, path, opset))
          return err;
    }
  }
  return Error::success();
}

/// ONNX builds its schema registry (every op of every opset, ~10 ms) on
/// first use. The first import starts that on a thread of its own, so that
/// it overlaps with parsing the protobuf; wait() (or the destructor) joins
/// it before the schemas are read. Later imports find it built.
class SchemaRegistryWarmUp {
public:
  SchemaRegistryWarmUp() {
    static std::atomic<bool> started{false};
    if (started.exchange(true))
      return;
    try {
      thread =
          std::thread([] { (void)onnx::OpSchemaRegistry::Schema("Relu", ""); });
    } catch (const std::system_error &) {
      // No thread: the registry is built on first use, as without this.
    }
  }
  ~SchemaRegistryWarmUp() { wait(); }
  SchemaRegistryWarmUp(const SchemaRegistryWarmUp &) = delete;
  SchemaRegistryWarmUp &operator=(const SchemaRegistryWarmUp &) = delete;
  void wait() {
    if (thread.joinable())
      thread.join();
  }

private:
  std::thread thread;
};

/// The graph outputs' declared shapes, taken off the graph so that ONNX's
/// inference types each output from the node that computes it. Exporters
/// leave these stale (ddddocr's CRNN declares [1, seqlen] for a [T, 1, C]
/// result; onnxruntime runs it with a warning), and dsmp types a node's
/// results from them.
std::vector<std::optional<onnx::TensorShapeProto>>
takeDeclaredOutputShapes(onnx::GraphProto &graph) {
  std::vector<std::optional<onnx::TensorShapeProto>> declared;
  for (auto &output : *graph.mutable_output()) {
    onnx::TypeProto_Tensor *tensor =
        output.mutable_type()->has_tensor_type()
            ? output.mutable_type()->mutable_tensor_type()
            : nullptr;
    if (!tensor || !tensor->has_shape()) {
      declared.emplace_back();
      continue;
    }
    declared.emplace_back(tensor->shape());
    tensor->clear_shape();
  }
  return declared;
}

/// Takes off the types ONNX's inference gave the values a signal op
/// (Spectral.cpp) computes and everything computed from them: Debian's ONNX
/// 1.12 types a onesided STFT with frame_length bins, not frame_length / 2
/// + 1, and the ops after it inherit that. dsmp types them from its own
/// spelling instead. `graph` is sorted.
void dropTypesAfterSignalOps(onnx::GraphProto &graph) {
  llvm::StringSet<> after;
  for (const auto &node : graph.node())
    if (isSpectralOp(node) ||
        llvm::any_of(node.input(), [&](const std::string &name) {
          return after.contains(name);
        }))
      for (const auto &output : node.output())
        after.insert(output);
  if (after.empty())
    return;
  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> kept;
  for (auto &info : *graph.mutable_value_info())
    if (!after.contains(info.name()))
      *kept.Add() = std::move(info);
  graph.mutable_value_info()->Swap(&kept);
  for (auto &output : *graph.mutable_output())
    if (after.contains(output.name()) && output.type().has_tensor_type())
      output.mutable_type()->mutable_tensor_type()->clear_shape();
}

std::string dimsText(const onnx::TensorShapeProto &shape) {
  std::string text = "[";
  for (int i = 0; i < shape.dim_size(); ++i) {
    const auto &dim = shape.dim(i);
    text +=
        (i ? ", " : "") + (dim.has_dim_value() ? std::to_string(dim.dim_value())
                           : dim.has_dim_param() ? dim.dim_param()
                                                 : std::string("?"));
  }
  return text + "]";
}

/// Puts the declared shapes back where inference agrees with them (each
/// dim: the inferred value, else the declared one) or found nothing; where
/// the node computes another rank or another fixed dim, keeps what it
/// computes and says so in `warnings`. Returns the outputs whose declared
/// shape inference did not confirm (dsmp's own rules check those).
llvm::StringSet<> restoreDeclaredOutputShapes(
    onnx::GraphProto &graph,
    const std::vector<std::optional<onnx::TensorShapeProto>> &declared,
    std::vector<std::string> *warnings) {
  llvm::StringSet<> unconfirmed;
  for (auto [output, shape] : llvm::zip(*graph.mutable_output(), declared)) {
    if (!shape)
      continue;
    onnx::TypeProto_Tensor *tensor =
        output.mutable_type()->mutable_tensor_type();
    if (!tensor->has_shape()) {
      *tensor->mutable_shape() = *shape;
      unconfirmed.insert(output.name());
      continue;
    }
    onnx::TensorShapeProto &inferred = *tensor->mutable_shape();
    bool conflict = inferred.dim_size() != shape->dim_size();
    for (int i = 0; !conflict && i < inferred.dim_size(); ++i) {
      const auto &want = shape->dim(i);
      auto &got = *inferred.mutable_dim(i);
      if (got.has_dim_value() && want.has_dim_value())
        conflict = got.dim_value() != want.dim_value();
      else if (!got.has_dim_value())
        got = want;
    }
    if (!conflict || !warnings)
      continue;
    std::string producer;
    for (const auto &node : graph.node())
      if (llvm::is_contained(node.output(), output.name()))
        producer = node.name().empty() ? node.op_type() : node.name();
    warnings->push_back("graph output '" + output.name() + "' is declared " +
                        dimsText(*shape) + " but node '" + producer +
                        "' computes " + dimsText(inferred) +
                        "; the declared shape is ignored");
  }
  return unconfirmed;
}

/// Parses the protobuf with a size limit that allows models up to 2 GiB.
Error parseModel(StringRef bytes, StringRef path, onnx::ModelProto &model) {
  if (bytes.size() >= static_cast<size_t>(std::numeric_limits<int>::max()))
    return makeError(path, {}, 0,
                     "file is larger than the 2 GiB protobuf limit");
  google::protobuf::io::CodedInputStream stream(
      reinterpret_cast<const uint8_t *>(bytes.data()),
      static_cast<int>(bytes.size()));
  stream.SetTotalBytesLimit(std::numeric_limits<int>::max());
  stream.SetRecursionLimit(64);
  if (!model.ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage())
    return makeError(path, {}, 0,
                     "not a valid ONNX model (the protobuf is truncated or "
                     "corrupt)");
  if (!model.has_graph())
    return makeError(path, {}, 0, "not a valid ONNX model (no graph)");
  if (model.ir_version() < 3)
    return makeError(path, {}, 0,
                     "not a valid ONNX model (ir_version " +
                         std::to_string(model.ir_version()) + ")");
  return Error::success();
}

/// Checks every initializer and Constant tensor, recursing into subgraphs.
Error checkGraphTensors(const onnx::GraphProto &graph, StringRef path,
                        StringRef modelDir, int64_t opset, uint64_t maxBytes) {
  for (const auto &init : graph.initializer())
    if (auto count = checkTensor(init, modelDir, maxBytes); !count)
      return makeError(path, {}, opset, llvm::toString(count.takeError()));
  for (const auto &node : graph.node())
    for (const auto &attr : node.attribute()) {
      if (attr.has_t())
        if (auto count = checkTensor(attr.t(), modelDir, maxBytes); !count)
          return makeError(path, whereOf(node), opset,
                           llvm::toString(count.takeError()));
      if (attr.has_g())
        if (Error err =
                checkGraphTensors(attr.g(), path, modelDir, opset, maxBytes))
          return err;
    }
  return Error::success();
}

} // namespace

Expected<OwningOpRef<ModuleOp>>
mlir::dsmp::importONNXModelFromBuffer(StringRef bytes, StringRef path,
                                      MLIRContext &context,
                                      const ONNXImportOptions &options) {
  SchemaRegistryWarmUp schemas;
  context.loadDialect<DsmpDialect, func::FuncDialect>();
  // The parsed model lives in an arena: its ~10 small allocations per node
  // come from a few large blocks, freed at once (no per-message frees, and
  // no heap riddled with holes for the IR built next).
  google::protobuf::ArenaOptions arenaOptions;
  arenaOptions.start_block_size = 1 << 16;
  arenaOptions.max_block_size = 1 << 24;
  google::protobuf::Arena arena(arenaOptions);
  onnx::ModelProto &model =
      *google::protobuf::Arena::CreateMessage<onnx::ModelProto>(&arena);
  if (Error err = parseModel(bytes, path, model))
    return std::move(err);

  int64_t opset = -1;
  for (const auto &import : model.opset_import())
    if (isDefaultDomain(import.domain()))
      opset = import.version();
  if (opset < 0)
    return makeError(path, {}, 0, "the model imports no default-domain opset");
  if (opset < 1 || opset > kMaxOpset)
    return makeError(path, {}, opset,
                     "opset " + std::to_string(opset) +
                         " of the default domain is not supported (dsmp "
                         "supports " +
                         std::to_string(kMinOpset) + " to " +
                         std::to_string(kMaxOpset) +
                         ", and older models whose ops kept their opset-" +
                         std::to_string(kMinOpset) + " form)");

  llvm::SmallString<256> modelDir(llvm::sys::path::parent_path(path));
  if (modelDir.empty())
    modelDir = ".";
  if (Error err = checkGraphTensors(model.graph(), path, modelDir, opset,
                                    options.maxTensorBytes))
    return std::move(err);
  if (Error err = sortGraph(*model.mutable_graph(), {}, path, opset))
    return std::move(err);
  schemas.wait();
  if (Error err = checkNodes(model.graph(), path, opset))
    return std::move(err);
  if (Error err = checkWindowRanks(model.graph(), path, opset, {}))
    return std::move(err);

  // ONNX's shape inference gives the intermediate types (best effort: nodes
  // it cannot infer keep no type and fall back to dsmp's rank inference).
  // The graph's value_info is a hint some converters leave stale (an
  // opset-7 downgrade typing a Reshape's int64 shape as float): where it
  // contradicts what inference derives, inference runs again without it,
  // as onnxruntime loads such models.
  auto inferShapes = [&]() -> std::optional<std::string> {
    try {
      onnx::ShapeInferenceOptions inference(/*check_type=*/false,
                                            /*error_mode=*/0,
                                            /*enable_data_propagation=*/false);
      onnx::shape_inference::InferShapes(
          model, onnx::OpSchemaRegistry::Instance(), inference);
      return std::nullopt;
    } catch (const std::exception &e) {
      return std::string(e.what());
    }
  };
  auto declaredOutputShapes = takeDeclaredOutputShapes(*model.mutable_graph());
  if (std::optional<std::string> failure = inferShapes()) {
    model.mutable_graph()->clear_value_info();
    if (inferShapes())
      return makeError(path, {}, opset, "shape inference failed: " + *failure);
  }
  dropTypesAfterSignalOps(*model.mutable_graph());
  llvm::StringSet<> unconfirmedOutputShapes = restoreDeclaredOutputShapes(
      *model.mutable_graph(), declaredOutputShapes, options.warnings);

  ModelImporter importer(context, path, modelDir, options, opset,
                         std::move(unconfirmedOutputShapes));
  auto module = importer.importModel(model);
  if (!module)
    return module.takeError();

  if (importer.hasExternalWeights()) {
    std::string name =
        options.weightsName.empty()
            ? llvm::sys::path::filename(options.weightsPath).str()
            : options.weightsName;
    (*module)->getOperation()->setAttr("dsmp.weights",
                                       StringAttr::get(&context, name));
    std::error_code ec;
    llvm::ToolOutputFile out(options.weightsPath, ec, llvm::sys::fs::OF_None);
    if (ec)
      return makeError(path, {}, opset,
                       "cannot write weight file '" + options.weightsPath +
                           "': " + ec.message());
    out.os() << importer.getWeightBytes();
    out.os().flush();
    if (out.os().has_error())
      return makeError(path, {}, opset,
                       "cannot write weight file '" + options.weightsPath +
                           "'");
    out.keep();
  }
  return module;
}

Expected<OwningOpRef<ModuleOp>>
mlir::dsmp::importONNXModel(StringRef path, MLIRContext &context,
                            const ONNXImportOptions &options) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return makeError(path, {}, 0,
                     "cannot read the file: " + buffer.getError().message());
  return importONNXModelFromBuffer((*buffer)->getBuffer(), path, context,
                                   options);
}
