//===- PrecisionReport.cpp - The precision report as JSON and - -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The JSON report (strict: no inf or NaN) and, beside it, its page
// (ReportPage.h).
//
//===----------------------------------------------------------------------===//

#include "lib/Driver/PrecisionReport.h"
#include "dsmp/Driver/MixedPrecision.h"
#include "lib/Driver/ReportPage.h"

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/OnnxOpRegistry.h"
#include "passes/Precision/Calibration.h"
#include "passes/Precision/Formats.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <map>
#include <set>

using llvm::Error;
using llvm::StringRef;
namespace json = llvm::json;

namespace mlir::dsmp {

namespace {

/// The `keys` of `dict` that hold numbers. A non-finite value (a NaN
/// energy) stays: the written report makes it null and lists it in
/// `non_finite` (strictJson). An infinite one among
/// `boundKeys` means no bound and is left out.
json::Value numbers(DictionaryAttr dict, ArrayRef<StringRef> keys,
                    ArrayRef<StringRef> boundKeys = {}) {
  json::Object out;
  if (!dict)
    return json::Value(nullptr);
  for (StringRef key : keys)
    if (auto f = dict.getAs<FloatAttr>(key))
      out[key] = f.getValueAsDouble();
  for (StringRef key : boundKeys)
    if (auto f = dict.getAs<FloatAttr>(key); f && !f.getValue().isInfinity())
      out[key] = f.getValueAsDouble();
  if (auto overflow = dict.getAs<ArrayAttr>("overflow")) {
    json::Array names;
    for (Attribute a : overflow)
      names.push_back(cast<StringAttr>(a).str());
    out["overflow"] = std::move(names);
  }
  return json::Value(std::move(out));
}

} // namespace

namespace {

using NameSet = llvm::SetVector<std::string, std::vector<std::string>,
                                std::set<std::string>>;

/// Where a value comes from, as the report's graph draws it: the nearest
/// ops with a precision decision (by report index) and the model inputs
/// upstream of it, crossing ops without a decision (constants, integer
/// shape arithmetic, casts) so that the graph stays connected.
class Provenance {
public:
  explicit Provenance(const llvm::DenseMap<Operation *, int64_t> &indexOf)
      : indexOf(indexOf) {}

  void addSourcesOf(Value value, llvm::SmallSetVector<int64_t, 4> &ops,
                    NameSet &inputs) {
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
      if (!func)
        return;
      if (auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                        "dsmp.name"))
        inputs.insert(name.str());
      return;
    }
    Operation *def = value.getDefiningOp();
    if (auto it = indexOf.find(def); it != indexOf.end()) {
      ops.insert(it->second);
      return;
    }
    auto [memo, fresh] = crossed.try_emplace(def);
    if (fresh) {
      Sources found;
      for (Value operand : def->getOperands())
        addSourcesOf(operand, found.ops, found.inputs);
      crossed[def] = std::move(found); // the map may have grown
    }
    const Sources &sources = crossed[def];
    ops.insert(sources.ops.begin(), sources.ops.end());
    inputs.insert(sources.inputs.begin(), sources.inputs.end());
  }

private:
  struct Sources {
    llvm::SmallSetVector<int64_t, 4> ops;
    NameSet inputs;
  };
  const llvm::DenseMap<Operation *, int64_t> &indexOf;
  llvm::DenseMap<Operation *, Sources> crossed;
};

json::Array toJson(ArrayRef<int64_t> values) {
  json::Array out;
  for (int64_t v : values)
    out.push_back(v);
  return out;
}

json::Array toJson(ArrayRef<std::string> values) {
  json::Array out;
  for (const std::string &v : values)
    out.push_back(v);
  return out;
}

} // namespace

/// One entry per op that has a precision decision (before casts).
json::Array describeOps(ModuleOp assigned) {
  SmallVector<Operation *> graph = graphOps(assigned);
  llvm::DenseMap<Operation *, int64_t> indexOf;
  for (auto [index, op] : llvm::enumerate(graph))
    if (op->hasAttr("dsmp.assigned"))
      indexOf[op] = static_cast<int64_t>(index);
  Provenance provenance(indexOf);
  // The model outputs each op computes (crossing ops without a decision).
  llvm::DenseMap<int64_t, SmallVector<std::string>> outputsOf;
  assigned.walk([&](func::ReturnOp ret) {
    auto func = dyn_cast<func::FuncOp>(ret->getParentOp());
    if (!func || func.getSymName() != "main_graph")
      return;
    for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
      llvm::SmallSetVector<int64_t, 4> ops;
      NameSet inputs;
      provenance.addSourcesOf(value, ops, inputs);
      auto name = func.getResultAttrOfType<StringAttr>(i, "dsmp.name");
      for (int64_t op : ops)
        outputsOf[op].push_back(name ? name.str() : std::to_string(i));
    }
  });

  json::Array ops;
  for (auto [index, op] : llvm::enumerate(graph)) {
    auto format = op->getAttrOfType<FormatAttr>("dsmp.assigned");
    if (!format)
      continue;
    json::Object entry;
    entry["index"] = static_cast<int64_t>(index);
    entry["name"] = nodeName(op);
    entry["op_type"] = onnxTypeOf(op);
    entry["format"] = stringifyFormat(format.getValue()).str();
    auto precision = cast<PrecisionOpInterface>(op);
    entry["class"] = stringifyOpClass(precision.getOpClass()).str();
    entry["accumulation"] =
        precision.getOpClass() == OpClass::data_movement
            ? std::string("none")
            : stringifyFormat(precision.getAccumulationFormat()).str();
    if (auto reason = op->getAttrOfType<StringAttr>("dsmp.reason"))
      entry["reason"] = reason.str();
    if (auto flops = op->getAttrOfType<IntegerAttr>("dsmp.flops"))
      entry["flops"] = flops.getInt();
    if (auto share = op->getAttrOfType<FloatAttr>("dsmp.error_share"))
      entry["error_share"] = share.getValueAsDouble();
    entry["sensitivity"] = numbers(
        op->getAttrOfType<DictionaryAttr>("dsmp.sensitivity"),
        {"adapt", "energy", "operand_energy", "weight_energy",
         "independent_energy", "subnormal_error", "operand_subnormal_error"});
    entry["range"] =
        numbers(op->getAttrOfType<DictionaryAttr>("dsmp.range"),
                {"min", "max", "amax"}, {"static_lo", "static_hi"});
    if (auto stop = op->getAttrOfType<StringAttr>("dsmp.no_adjoint"))
      entry["no_adjoint"] = stop.str();
    // The graph: which ops (by index) and model inputs feed this one, and
    // which model outputs it computes.
    llvm::SmallSetVector<int64_t, 4> from;
    NameSet inputs;
    for (Value operand : op->getOperands())
      provenance.addSourcesOf(operand, from, inputs);
    entry["inputs"] = toJson(from.getArrayRef());
    if (!inputs.empty())
      entry["model_inputs"] = toJson(inputs.getArrayRef());
    if (auto it = outputsOf.find(static_cast<int64_t>(index));
        it != outputsOf.end())
      entry["model_outputs"] = toJson(it->second);
    ops.push_back(std::move(entry));
  }
  return ops;
}

void summarizeFlops(const json::Array &ops, json::Object &summary) {
  std::map<std::string, double> flopsByFormat;
  double totalFlops = 0;
  for (const json::Value &v : ops) {
    const json::Object &op = *v.getAsObject();
    double flops = op.getInteger("flops").value_or(0);
    flopsByFormat[op.getString("format")->str()] += flops;
    totalFlops += flops;
  }
  json::Object share;
  double low16 = 0, reduced = 0, eightBit = 0;
  for (auto &[format, flops] : flopsByFormat) {
    double s = totalFlops > 0 ? flops / totalFlops : 0;
    share[format] = s;
    if (format != "f32")
      reduced += s;
    if (format != "f32" && format != "tf32")
      low16 += s;
    if (StringRef(format).starts_with("f8"))
      eightBit += s;
  }
  summary["flop_share"] = std::move(share);
  summary["low_precision_flop_share"] = low16; // 16- and 8-bit
  summary["f8_flop_share"] = eightBit;
  summary["reduced_precision_flop_share"] = reduced;
  summary["total_flops"] = totalFlops;
}

/// `value` with every inf or NaN number replaced by null (JSON has none),
/// each recorded in `replaced` as {path, value} (path like
/// "summary.error_vs_stored_outputs.y").
static json::Value strictJson(const json::Value &value, const std::string &path,
                              json::Array &replaced) {
  if (auto number = value.getAsNumber(); number &&
                                         value.kind() == json::Value::Number &&
                                         !std::isfinite(*number)) {
    replaced.push_back(json::Object{{"path", path},
                                    {"value", std::isnan(*number) ? "nan"
                                              : *number > 0       ? "inf"
                                                                  : "-inf"}});
    return nullptr;
  }
  if (const json::Object *object = value.getAsObject()) {
    json::Object out;
    for (const auto &[key, member] : *object)
      out[key] = strictJson(
          member, path.empty() ? key.str() : path + "." + key.str(), replaced);
    return out;
  }
  if (const json::Array *array = value.getAsArray()) {
    json::Array out;
    for (size_t i = 0; i < array->size(); ++i)
      out.push_back(
          strictJson((*array)[i], path + "." + std::to_string(i), replaced));
    return out;
  }
  return value;
}

Error writePrecisionReport(const json::Object &report, StringRef path) {
  // Strict JSON: a non-finite number (the relative error of an output that
  // is zero in FP32, say) is null, and `non_finite` says which.
  json::Array replaced;
  json::Value strict = strictJson(json::Object(report), "", replaced);
  if (!replaced.empty())
    (*strict.getAsObject())["non_finite"] = std::move(replaced);
  if (path == "-") { // JSON alone on stdout, for a pipe
    llvm::outs() << llvm::formatv("{0:2}", strict) << "\n";
    llvm::outs().flush();
    return Error::success();
  }
  std::error_code ec;
  {
    llvm::raw_fd_ostream os(path, ec);
    if (ec)
      return llvm::createStringError("cannot write '" + path +
                                     "': " + ec.message());
    os << llvm::formatv("{0:2}", strict) << "\n";
  }
  llvm::SmallString<256> html(path);
  llvm::sys::path::replace_extension(html, "html");
  llvm::raw_fd_ostream os(html, ec);
  if (ec)
    return llvm::createStringError("cannot write '" + html +
                                   "': " + ec.message());
  writeReportPage(*strict.getAsObject(), os);
  return Error::success();
}

} // namespace mlir::dsmp
