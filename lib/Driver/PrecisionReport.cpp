//===- PrecisionReport.cpp - The precision report as JSON and - -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The HTML page is self-contained (inline SVG, no scripts or fetches): the
// budget used, the FLOP share per format, the format of every op in graph
// order, and each op's sensitivity on a log scale.
//
//===----------------------------------------------------------------------===//

#include "lib/Driver/PrecisionReport.h"
#include "dsmp/Driver/MixedPrecision.h"

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/OnnxOpRegistry.h"
#include "passes/Precision/Calibration.h"
#include "passes/Precision/Formats.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <map>

using llvm::Error;
using llvm::StringRef;
namespace json = llvm::json;

namespace mlir::dsmp {

namespace {

std::string escape(StringRef text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '&':
      out += "&amp;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

StringRef colorOf(StringRef format) {
  if (format == "f16")
    return "#2b8a3e";
  if (format == "bf16")
    return "#1971c2";
  if (format == "tf32")
    return "#e8590c";
  if (format.starts_with("f8"))
    return "#9c36b5";
  return "#868e96";
}

json::Value numbers(DictionaryAttr dict, ArrayRef<StringRef> keys) {
  json::Object out;
  if (!dict)
    return json::Value(nullptr);
  for (StringRef key : keys)
    if (auto f = dict.getAs<FloatAttr>(key);
        f && std::isfinite(f.getValueAsDouble())) // JSON has no inf
      out[key] = f.getValueAsDouble();
  if (auto overflow = dict.getAs<ArrayAttr>("overflow")) {
    json::Array names;
    for (Attribute a : overflow)
      names.push_back(cast<StringAttr>(a).str());
    out["overflow"] = std::move(names);
  }
  return json::Value(std::move(out));
}

void writeHtml(const json::Object &report, llvm::raw_ostream &os) {
  const json::Object *summary = report.getObject("summary");
  const json::Array *ops = report.getArray("ops");
  auto number = [&](StringRef key) {
    return summary ? summary->getNumber(key).value_or(0) : 0;
  };
  os << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
        "<title>dsmp precision report</title><style>"
        "body{font-family:sans-serif;margin:2em;color:#212529}"
        "table{border-collapse:collapse}td,th{padding:2px 8px;"
        "border-bottom:1px solid #dee2e6;text-align:left;font-size:13px}"
        "</style></head><body>\n";
  os << "<h1>dsmp precision report</h1>\n";
  if (summary) {
    os << "<p>target <b>" << escape(summary->getString("target").value_or(""))
       << "</b>, budget &tau; = " << number("tolerance")
       << (summary->getString("error_metric").value_or("rel-l2") == "max-abs"
               ? " (max abs error of any output element), budget "
               : " (relative L2 per output), budget ")
       << (summary->getBoolean("met").value_or(false) ? "met" : "NOT met")
       << ".</p>\n";
    // Budget bar: predicted and measured against the tolerance.
    double tol = number("tolerance");
    os << "<h2>Error budget</h2><svg width=\"520\" height=\"70\">";
    int y = 5;
    for (StringRef key : {"predicted_error", "measured_error"}) {
      double used = tol > 0 ? std::min(number(key) / tol, 1.5) : 0;
      os << "<text x=\"0\" y=\"" << y + 14 << "\" font-size=\"12\">" << key
         << "</text><rect x=\"120\" y=\"" << y << "\" width=\""
         << static_cast<int>(used * 260) << "\" height=\"20\" fill=\""
         << (number(key) <= tol ? "#2b8a3e" : "#c92a2a") << "\"/><text x=\""
         << 125 + static_cast<int>(used * 260) << "\" y=\"" << y + 14
         << "\" font-size=\"12\">" << number(key) << " ("
         << static_cast<int>(100 * number(key) / tol) << "% of budget)</text>";
      y += 30;
    }
    os << "<line x1=\"380\" y1=\"0\" x2=\"380\" y2=\"65\" stroke=\"black\" "
          "stroke-dasharray=\"4\"/></svg>\n";
    os << "<h2>Summary</h2><table>";
    for (StringRef key :
         {"low_precision_flop_share", "reduced_precision_flop_share",
          "total_flops", "weight_bytes_before", "weight_bytes_after",
          "activation_bytes_before", "activation_bytes_after",
          "analysis_seconds", "total_seconds"})
      os << "<tr><th>" << key << "</th><td>" << number(key) << "</td></tr>";
    if (const json::Object *share = summary->getObject("flop_share"))
      for (const auto &[format, value] : *share)
        os << "<tr><th>FLOP share " << escape(format.str()) << "</th><td>"
           << value.getAsNumber().value_or(0) << "</td></tr>";
    os << "</table>\n";
  }
  if (!ops)
    return;
  // Format map: one cell per op in graph order.
  os << "<h2>Format map</h2><p>";
  for (StringRef f : {"f32", "tf32", "f16", "bf16", "f8"})
    os << "<span style=\"color:" << colorOf(f) << "\">&#9632; " << f
       << "</span> ";
  os << "</p><svg width=\"900\" height=\"" << 14 * ((ops->size() + 59) / 60) + 4
     << "\">";
  for (size_t i = 0; i < ops->size(); ++i) {
    const json::Object &op = *(*ops)[i].getAsObject();
    StringRef format = op.getString("format").value_or("f32");
    os << "<rect x=\"" << (i % 60) * 15 << "\" y=\"" << (i / 60) * 14
       << "\" width=\"13\" height=\"12\" fill=\"" << colorOf(format)
       << "\"><title>" << escape(op.getString("name").value_or("")) << " ("
       << escape(op.getString("op_type").value_or("")) << "): " << format
       << ", " << escape(op.getString("reason").value_or(""))
       << "</title></rect>";
  }
  os << "</svg>\n";
  // Sensitivity per op (log10 of the energy term).
  os << "<h2>Per-op sensitivity</h2><p>log10 of sum (dy/dx &middot; x)&sup2; "
        "(the variance a unit relative rounding of the op's result adds to "
        "the relative output error); color: chosen format.</p>";
  os << "<svg width=\"900\" height=\"" << 12 * ops->size() + 10 << "\">";
  int row = 0;
  for (const json::Value &v : *ops) {
    const json::Object &op = *v.getAsObject();
    const json::Object *s = op.getObject("sensitivity");
    double energy = s ? s->getNumber("energy").value_or(0) : 0;
    double width =
        energy > 0 ? std::clamp((std::log10(energy) + 12) * 25, 1.0, 500.0) : 0;
    os << "<text x=\"0\" y=\"" << row * 12 + 10 << "\" font-size=\"9\">"
       << escape(op.getString("name").value_or("").take_front(40))
       << "</text><rect x=\"300\" y=\"" << row * 12 + 2 << "\" width=\""
       << static_cast<int>(width) << "\" height=\"9\" fill=\""
       << colorOf(op.getString("format").value_or("f32")) << "\"/>";
    ++row;
  }
  os << "</svg>\n";
  os << "<h2>Ops</h2><table><tr><th>#</th><th>name</th><th>type</th>"
        "<th>format</th><th>acc</th><th>reason</th><th>FLOPs</th>"
        "<th>energy</th><th>amax</th></tr>";
  for (const json::Value &v : *ops) {
    const json::Object &op = *v.getAsObject();
    const json::Object *s = op.getObject("sensitivity");
    const json::Object *r = op.getObject("range");
    os << "<tr><td>" << op.getInteger("index").value_or(0) << "</td><td>"
       << escape(op.getString("name").value_or("")) << "</td><td>"
       << escape(op.getString("op_type").value_or("")) << "</td><td>"
       << op.getString("format").value_or("") << "</td><td>"
       << op.getString("accumulation").value_or("") << "</td><td>"
       << op.getString("reason").value_or("") << "</td><td>"
       << op.getInteger("flops").value_or(0) << "</td><td>"
       << (s ? s->getNumber("energy").value_or(0) : 0) << "</td><td>"
       << (r ? r->getNumber("amax").value_or(0) : 0) << "</td></tr>";
  }
  os << "</table></body></html>\n";
}
} // namespace

/// One entry per op that has a precision decision (before casts).
json::Array describeOps(ModuleOp assigned) {
  json::Array ops;
  for (auto [index, op] : llvm::enumerate(graphOps(assigned))) {
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
    entry["sensitivity"] =
        numbers(op->getAttrOfType<DictionaryAttr>("dsmp.sensitivity"),
                {"adapt", "energy", "operand_energy", "weight_energy"});
    entry["range"] = numbers(op->getAttrOfType<DictionaryAttr>("dsmp.range"),
                             {"min", "max", "amax", "static_lo", "static_hi"});
    if (auto stop = op->getAttrOfType<StringAttr>("dsmp.no_adjoint"))
      entry["no_adjoint"] = stop.str();
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
  writeHtml(report, os);
  return Error::success();
}

} // namespace mlir::dsmp
