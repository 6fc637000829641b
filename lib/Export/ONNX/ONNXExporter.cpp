//===- ONNXExporter.cpp - dsmp dialect -> ONNX model ------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Writes @main_graph as an ONNX graph at the opset whose operator forms the
// dsmp ops follow. Every op with the OnnxOp trait maps to the node of the
// same type, its inherent attributes (but `acc`) to ONNX attributes of the
// same name; `none` operands and results become empty names. A node whose
// 16-bit types ONNX's schema at the export opset does not accept (libonnx's
// OpSchemaRegistry) is computed in f32 between Casts (WidenedNode).
//
//===----------------------------------------------------------------------===//

#include "dsmp/Export/ONNXExporter.h"

#include "DftTableExport.h"

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/OnnxOpRegistry.h"
#include "dialects/Dsmp/IR/OnnxTypes.h"
#include "dsmp/Support/WeightFile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include <cstring>

using namespace mlir;
using namespace mlir::dsmp;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace {

Error exportError(Operation *op, const llvm::Twine &message) {
  std::string where;
  if (op) {
    llvm::raw_string_ostream os(where);
    os << op->getName() << " at " << op->getLoc() << ": ";
  }
  return llvm::createStringError(
      std::make_error_code(std::errc::invalid_argument), where + message.str());
}

class Exporter {
public:
  Exporter(ModuleOp module, const ::mlir::dsmp::ONNXExportOptions &options)
      : module(module), options(options) {}

  Expected<std::string> run();

private:
  std::string unique(StringRef base) {
    std::string name = base.empty() ? "t" : base.str();
    if (used.insert(name).second)
      return name;
    for (unsigned i = 1;; ++i) {
      std::string candidate = name + "_" + std::to_string(i);
      if (used.insert(candidate).second)
        return candidate;
    }
  }
  std::string nameOf(Value value) {
    if (isa<NoneType>(value.getType()))
      return "";
    auto it = names.find(value);
    if (it != names.end())
      return it->second;
    std::string base;
    if (Operation *op = value.getDefiningOp()) {
      base = ::mlir::dsmp::onnxNodeName(op->getLoc());
      if (op->getNumResults() > 1)
        base += ":" + std::to_string(cast<OpResult>(value).getResultNumber());
    }
    return names[value] = unique(base);
  }

  void setType(onnx::TypeProto &proto, Type type) {
    auto *tensor = proto.mutable_tensor_type();
    tensor->set_elem_type(getOnnxDataType(getElementTypeOrSelf(type)));
    auto shaped = dyn_cast<RankedTensorType>(type);
    if (!shaped)
      return; // Unranked: ONNX leaves the shape out.
    auto *shape = tensor->mutable_shape();
    for (int64_t dim : shaped.getShape()) {
      auto *d = shape->add_dim();
      if (!ShapedType::isDynamic(dim))
        d->set_dim_value(dim);
    }
  }

  Error fillTensor(ConstantOp op, onnx::TensorProto &tensor);
  Error exportBlock(Block &block, onnx::GraphProto &graph, bool topLevel,
                    ArrayRef<std::string> outputNames);
  Error exportOp(Operation *op, onnx::GraphProto &graph, bool topLevel);
  void widenUnsupported(Operation *op, onnx::GraphProto &graph);
  Error convertAttribute(Operation *op, NamedAttribute attr,
                         onnx::AttributeProto &out);

  ModuleOp module;
  const ::mlir::dsmp::ONNXExportOptions &options;
  llvm::DenseMap<Value, std::string> names;
  /// The f32 copy of a 16-bit value that a widened node reads, per graph
  /// (a Cast inside an If branch is not visible outside it).
  llvm::DenseMap<std::pair<Value, const onnx::GraphProto *>, std::string>
      widenedNames;
  llvm::StringSet<> used;
  std::optional<::mlir::dsmp::WeightFileReader> weights;
};

Error Exporter::fillTensor(ConstantOp op, onnx::TensorProto &tensor) {
  auto type = cast<RankedTensorType>(op.getType());
  Type element = type.getElementType();
  int32_t dataType = getOnnxDataType(element);
  if (dataType == kOnnxUndefined)
    return exportError(op, "element type has no ONNX equivalent");
  tensor.set_data_type(dataType);
  for (int64_t dim : type.getShape())
    tensor.add_dims(dim);
  std::string *raw = tensor.mutable_raw_data();
  Attribute value = op.getValue();
  if (auto external = dyn_cast<ExternalAttr>(value)) {
    if (!weights) {
      auto name = module->getAttrOfType<StringAttr>("dsmp.weights");
      if (!name)
        return exportError(op, "refers to a weight file but the module has "
                               "no dsmp.weights attribute");
      llvm::SmallString<256> path(options.weightsDir);
      llvm::sys::path::append(path, name.getValue());
      auto reader = ::mlir::dsmp::WeightFileReader::open(path);
      if (!reader)
        return exportError(op, llvm::toString(reader.takeError()));
      weights.emplace(std::move(*reader));
    }
    auto bytes = weights->read(external.getOffset(), external.getSize());
    if (!bytes)
      return exportError(op, llvm::toString(bytes.takeError()));
    raw->assign(bytes->data(), bytes->size());
    return Error::success();
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return exportError(op, "dense_resource blob has no data");
    ArrayRef<char> data = blob->getData();
    raw->assign(data.data(), data.size());
    return Error::success();
  }
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense)
    return exportError(op, "unsupported constant value");
  if (element.isInteger(1)) {
    for (bool v : dense.getValues<bool>())
      raw->push_back(v ? 1 : 0);
    return Error::success();
  }
  ArrayRef<char> data = dense.getRawData();
  if (dense.isSplat()) {
    int64_t n = type.getNumElements();
    raw->reserve(data.size() * n);
    for (int64_t i = 0; i < n; ++i)
      raw->append(data.data(), data.size());
  } else {
    raw->assign(data.data(), data.size());
  }
  return Error::success();
}

Error Exporter::convertAttribute(Operation *op, NamedAttribute attr,
                                 onnx::AttributeProto &out) {
  out.set_name(attr.getName().str());
  Attribute value = attr.getValue();
  if (auto integer = dyn_cast<IntegerAttr>(value)) {
    out.set_type(onnx::AttributeProto::INT);
    out.set_i(integer.getValue().getSExtValue());
  } else if (auto real = dyn_cast<FloatAttr>(value)) {
    out.set_type(onnx::AttributeProto::FLOAT);
    out.set_f(static_cast<float>(real.getValueAsDouble()));
  } else if (auto str = dyn_cast<StringAttr>(value)) {
    out.set_type(onnx::AttributeProto::STRING);
    out.set_s(str.str());
  } else if (auto ints = dyn_cast<DenseI64ArrayAttr>(value)) {
    out.set_type(onnx::AttributeProto::INTS);
    for (int64_t v : ints.asArrayRef())
      out.add_ints(v);
  } else if (auto floats = dyn_cast<DenseF32ArrayAttr>(value)) {
    out.set_type(onnx::AttributeProto::FLOATS);
    for (float v : floats.asArrayRef())
      out.add_floats(v);
  } else if (auto array = dyn_cast<ArrayAttr>(value)) {
    out.set_type(onnx::AttributeProto::STRINGS);
    for (Attribute element : array) {
      auto s = dyn_cast<StringAttr>(element);
      if (!s)
        return exportError(op, "attribute '" + attr.getName().str() +
                                   "' is not a list of strings");
      out.add_strings(s.str());
    }
  } else if (auto elements = dyn_cast<DenseElementsAttr>(value)) {
    out.set_type(onnx::AttributeProto::TENSOR);
    auto *tensor = out.mutable_t();
    tensor->set_data_type(getOnnxDataType(elements.getElementType()));
    for (int64_t dim : elements.getType().getShape())
      tensor->add_dims(dim);
    if (elements.getElementType().isInteger(1)) {
      for (bool v : elements.getValues<bool>())
        tensor->mutable_raw_data()->push_back(v ? 1 : 0);
    } else {
      ArrayRef<char> data = elements.getRawData();
      int64_t copies = elements.isSplat() ? elements.getNumElements() : 1;
      for (int64_t i = 0; i < copies; ++i)
        tensor->mutable_raw_data()->append(data.data(), data.size());
    }
  } else {
    return exportError(op, "attribute '" + attr.getName().str() +
                               "' has no ONNX equivalent");
  }
  return Error::success();
}

Error Exporter::exportOp(Operation *op, onnx::GraphProto &graph,
                         bool topLevel) {
  if (isa<NoneOp>(op))
    return Error::success();
  if (auto constant = dyn_cast<ConstantOp>(op)) {
    std::string name = nameOf(constant.getResult());
    if (topLevel) {
      auto *tensor = graph.add_initializer();
      tensor->set_name(name);
      return fillTensor(constant, *tensor);
    }
    auto *node = graph.add_node();
    node->set_op_type("Constant");
    node->set_name(unique(name + "_const"));
    node->add_output(name);
    auto *attr = node->add_attribute();
    attr->set_name("value");
    attr->set_type(onnx::AttributeProto::TENSOR);
    return fillTensor(constant, *attr->mutable_t());
  }
  if (auto table = dyn_cast<DftTableOp>(op)) {
    std::string length = nameOf(table.getLength());
    if (Error err = exportDftTable(
            table, graph, options.opset, length, nameOf(table.getTable()),
            [&](StringRef base) { return unique(base); }))
      return exportError(op, llvm::toString(std::move(err)));
    return Error::success();
  }
  const OnnxOpInfo *info = lookupDsmpOp(op->getName().getStringRef());
  if (!info)
    return exportError(op, "op has no ONNX equivalent");

  auto *node = graph.add_node();
  node->set_op_type(info->onnxType);
  node->set_name(unique(::mlir::dsmp::onnxNodeName(op->getLoc()).empty()
                            ? info->onnxType
                            : ::mlir::dsmp::onnxNodeName(op->getLoc())));
  for (Value operand : op->getOperands())
    node->add_input(nameOf(operand));
  while (node->input_size() && node->input(node->input_size() - 1).empty())
    node->mutable_input()->RemoveLast();
  for (Value result : op->getResults())
    node->add_output(nameOf(result));
  while (node->output_size() && node->output(node->output_size() - 1).empty())
    node->mutable_output()->RemoveLast();

  if (auto castOp = dyn_cast<CastOp>(op)) {
    auto *to = node->add_attribute();
    to->set_name("to");
    to->set_type(onnx::AttributeProto::INT);
    to->set_i(getOnnxDataType(getElementTypeOrSelf(castOp.getType())));
    // `saturate` only exists for casts to the f8 types.
    if (castOp.getSaturateAttr() &&
        getElementTypeOrSelf(castOp.getType()).getIntOrFloatBitWidth() == 8 &&
        isa<FloatType>(getElementTypeOrSelf(castOp.getType()))) {
      auto *saturate = node->add_attribute();
      saturate->set_name("saturate");
      saturate->set_type(onnx::AttributeProto::INT);
      saturate->set_i(castOp.getSaturate());
    }
  } else if (auto props = dyn_cast_if_present<DictionaryAttr>(
                 op->getPropertiesAsAttribute())) {
    for (NamedAttribute attr : props) {
      // The accumulation format is dsmp's, not ONNX's.
      if (attr.getName() == "acc")
        continue;
      if (Error err = convertAttribute(op, attr, *node->add_attribute()))
        return err;
    }
  }
  // GridSample-20 names its 2-D modes linear and cubic.
  if (isa<GridSampleOp>(op) && options.opset >= 20)
    for (onnx::AttributeProto &attr : *node->mutable_attribute())
      if (attr.name() == "mode")
        attr.set_s(attr.s() == "bilinear"  ? "linear"
                   : attr.s() == "bicubic" ? "cubic"
                                           : attr.s());

  widenUnsupported(op, graph);

  // Subgraphs: If's then/else branches and Loop's body.
  static const char *const ifNames[] = {"then_branch", "else_branch"};
  for (auto [index, region] : llvm::enumerate(op->getRegions())) {
    auto *attr = node->add_attribute();
    attr->set_name(isa<IfOp>(op) ? ifNames[index] : "body");
    attr->set_type(onnx::AttributeProto::GRAPH);
    onnx::GraphProto *body = attr->mutable_g();
    body->set_name(node->name() + "_" + attr->name());
    Block &block = region.front();
    for (BlockArgument arg : block.getArguments()) {
      std::string name =
          unique(node->name() + "_in" + std::to_string(arg.getArgNumber()));
      names[arg] = name;
      auto *input = body->add_input();
      input->set_name(name);
      setType(*input->mutable_type(), arg.getType());
    }
    SmallVector<std::string> outputNames;
    for (unsigned i = 0; i < block.getTerminator()->getNumOperands(); ++i)
      outputNames.push_back(unique(body->name() + "_out" + std::to_string(i)));
    if (Error err = exportBlock(block, *body, /*topLevel=*/false, outputNames))
      return err;
  }
  return Error::success();
}

namespace {
/// "tensor(bfloat16)" for a 16-bit float tensor type, "" otherwise: the
/// types a schema check is about (libonnx 1.12 predates the f8 types, and
/// every float op takes f32).
std::string narrowTypeString(Type type) {
  Type element = getElementTypeOrSelf(type);
  if (element.isF16())
    return "tensor(float16)";
  if (element.isBF16())
    return "tensor(bfloat16)";
  return "";
}

/// Whether formal parameter `index` of `formals` (the last one repeats when
/// variadic) accepts `typeString`; true where the node's form is not the
/// schema's (an older schema than the export's opset knows).
bool accepts(const std::vector<onnx::OpSchema::FormalParameter> &formals,
             size_t index, const std::string &typeString) {
  if (formals.empty())
    return true;
  if (index >= formals.size()) {
    if (formals.back().GetOption() != onnx::OpSchema::Variadic)
      return true;
    index = formals.size() - 1;
  }
  for (const std::string *allowed : formals[index].GetTypes())
    if (*allowed == typeString)
      return true;
  return false;
}
} // namespace

void Exporter::widenUnsupported(Operation *op, onnx::GraphProto &graph) {
  if (op->getNumRegions() || isa<CastOp>(op))
    return;
  onnx::NodeProto &node = graph.mutable_node()->at(graph.node_size() - 1);
  const onnx::OpSchema *schema =
      onnx::OpSchemaRegistry::Schema(node.op_type(), options.opset, "");
  if (!schema)
    return;
  std::string missing;
  for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
    std::string t = narrowTypeString(operand.getType());
    if (!t.empty() && !accepts(schema->inputs(), i, t))
      missing = t;
  }
  for (auto [i, result] : llvm::enumerate(op->getResults())) {
    std::string t = narrowTypeString(result.getType());
    if (!t.empty() && !accepts(schema->outputs(), i, t))
      missing = t;
  }
  // A MatMul or Gemm that stores its 16-bit product in f32 has no ONNX
  // node: it reads f32 copies of its operands, which gives the same values.
  bool storesWide = missing.empty() && isa<MatMulOp, GemmOp>(op) &&
                    getElementTypeOrSelf(op->getResult(0).getType()).isF32() &&
                    isa<Float16Type, BFloat16Type>(
                        getElementTypeOrSelf(op->getOperand(0).getType()));
  if (storesWide)
    missing = narrowTypeString(op->getOperand(0).getType());
  if (missing.empty() || !accepts(schema->inputs(), 0, "tensor(float)"))
    return;
  if (options.widened && !storesWide)
    options.widened->push_back({node.name(), node.op_type(), missing});
  // Operands of the missing type go through one shared Cast to f32 each,
  // placed before the node; results come back through a Cast after it.
  int nodeIndex = graph.node_size() - 1;
  for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
    if (narrowTypeString(operand.getType()) != missing ||
        static_cast<int>(i) >= node.input_size())
      continue;
    std::string &wide = widenedNames[{operand, &graph}];
    if (wide.empty()) {
      wide = unique(node.input(i) + "_f32");
      auto *cast = graph.add_node();
      cast->set_op_type("Cast");
      cast->set_name(unique(wide + "_cast"));
      cast->add_input(node.input(i));
      cast->add_output(wide);
      auto *to = cast->add_attribute();
      to->set_name("to");
      to->set_type(onnx::AttributeProto::INT);
      to->set_i(onnx::TensorProto::FLOAT);
    }
    graph.mutable_node(nodeIndex)->set_input(i, wide);
  }
  // The node after its input Casts (the one just before it moves up).
  graph.mutable_node()->SwapElements(nodeIndex, graph.node_size() - 1);
  onnx::NodeProto &moved = *graph.mutable_node(graph.node_size() - 1);
  for (auto [i, result] : llvm::enumerate(op->getResults())) {
    if (narrowTypeString(result.getType()) != missing ||
        static_cast<int>(i) >= moved.output_size() || moved.output(i).empty())
      continue;
    std::string narrow = moved.output(i);
    std::string wide = unique(narrow + "_f32");
    moved.set_output(i, wide);
    auto *cast = graph.add_node();
    cast->set_op_type("Cast");
    cast->set_name(unique(narrow + "_cast"));
    cast->add_input(wide);
    cast->add_output(narrow);
    auto *to = cast->add_attribute();
    to->set_name("to");
    to->set_type(onnx::AttributeProto::INT);
    to->set_i(getOnnxDataType(getElementTypeOrSelf(result.getType())));
  }
}

/// The type the ONNX graph declared for output `index` where the IR only
/// knows an unranked tensor (kept by the importer), or null.
static Type declaredType(Operation *terminator, unsigned index) {
  if (auto func = dyn_cast<func::FuncOp>(terminator->getParentOp())) {
    auto attr = func.getResultAttrOfType<TypeAttr>(index, "dsmp.declared_type");
    return attr ? attr.getValue() : Type();
  }
  auto declared = terminator->getAttrOfType<ArrayAttr>("dsmp.declared_types");
  if (!declared || index >= declared.size())
    return {};
  auto attr = dyn_cast<TypeAttr>(declared[index]);
  return attr ? attr.getValue() : Type();
}

Error Exporter::exportBlock(Block &block, onnx::GraphProto &graph,
                            bool topLevel, ArrayRef<std::string> outputNames) {
  Operation *terminator = block.getTerminator();
  for (const std::string &name : outputNames)
    used.insert(name);
  // Name each returned value after its graph output where it is produced
  // by a node of this block; everything else goes through an Identity.
  llvm::DenseSet<Value> renamed;
  SmallVector<bool> needsIdentity;
  for (auto [value, name] : llvm::zip(terminator->getOperands(), outputNames)) {
    Operation *def = value.getDefiningOp();
    bool direct = def && def->getBlock() == &block &&
                  !isa<ConstantOp, NoneOp>(def) && !names.count(value) &&
                  renamed.insert(value).second;
    if (direct) {
      names[value] = name;
      used.insert(name);
    }
    needsIdentity.push_back(!direct);
  }
  for (Operation &op : block.without_terminator())
    if (Error err = exportOp(&op, graph, topLevel))
      return err;
  for (auto [i, value] : llvm::enumerate(terminator->getOperands())) {
    if (needsIdentity[i]) {
      auto *node = graph.add_node();
      node->set_op_type("Identity");
      node->set_name(unique(outputNames[i] + "_identity"));
      node->add_input(nameOf(value));
      node->add_output(outputNames[i]);
      used.insert(outputNames[i]);
    }
    auto *output = graph.add_output();
    output->set_name(outputNames[i]);
    Type type = value.getType();
    if (isa<UnrankedTensorType>(type))
      if (Type declared = declaredType(terminator, i))
        type = declared;
    setType(*output->mutable_type(), type);
  }
  return Error::success();
}

Expected<std::string> Exporter::run() {
  auto func = module.lookupSymbol<func::FuncOp>("main_graph");
  if (!func) {
    for (auto candidate : module.getOps<func::FuncOp>())
      func = candidate;
  }
  if (!func || func.isExternal())
    return exportError(nullptr, "the module has no @main_graph function");

  onnx::ModelProto model;
  model.set_ir_version(10);
  model.set_producer_name("dsmp");
  auto *opsetImport = model.add_opset_import();
  opsetImport->set_domain("");
  opsetImport->set_version(options.opset);
  onnx::GraphProto *graph = model.mutable_graph();
  graph->set_name("main_graph");

  for (BlockArgument arg : func.getArguments()) {
    auto name =
        func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "dsmp.name");
    std::string argName = unique(
        name ? name.str() : "input_" + std::to_string(arg.getArgNumber()));
    names[arg] = argName;
    auto *input = graph->add_input();
    input->set_name(argName);
    setType(*input->mutable_type(), arg.getType());
  }
  SmallVector<std::string> outputNames;
  for (unsigned i = 0; i < func.getNumResults(); ++i) {
    auto name = func.getResultAttrOfType<StringAttr>(i, "dsmp.name");
    outputNames.push_back(name ? name.str() : "output_" + std::to_string(i));
  }
  if (Error err = exportBlock(func.getBody().front(), *graph,
                              /*topLevel=*/true, outputNames))
    return std::move(err);

  std::string bytes;
  if (!model.SerializeToString(&bytes))
    return exportError(nullptr, "the model does not serialize (over 2 GiB?)");
  return bytes;
}

} // namespace

Expected<std::string>
mlir::dsmp::exportONNXModel(ModuleOp module, const ONNXExportOptions &options) {
  return Exporter(module, options).run();
}
