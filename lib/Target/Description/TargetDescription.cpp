//===- TargetDescription.cpp - Per-target formats, as data ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dsmp/Target/TargetDescription.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"

using llvm::Error;
using llvm::Expected;
using llvm::StringRef;
using llvm::Twine;

namespace mlir::dsmp {

namespace {
// The built-in table (targets.json, embedded by CMake).
#include "lib/Target/Description/TargetsJson.inc"

/// Reads {"class": ["format", ...]} into `formats`.
Error readFormats(const llvm::json::Object &object, StringRef where,
                  std::map<OpClass, std::vector<Format>> &formats) {
  for (const auto &[objectKey, value] : object) {
    StringRef key = objectKey;
    auto cls = symbolizeOpClass(key);
    if (!cls)
      return llvm::createStringError(where + ": unknown op class '" +
                                     key.str() + "'");
    const llvm::json::Array *list = value.getAsArray();
    if (!list)
      return llvm::createStringError(where + ": formats of '" + key.str() +
                                     "' must be a list");
    for (const llvm::json::Value &item : *list) {
      std::optional<StringRef> text = item.getAsString();
      std::optional<Format> format =
          text ? symbolizeFormat(*text) : std::nullopt;
      if (!format)
        return llvm::createStringError(
            where + ": unknown format " +
            (text ? "'" + text->str() + "'" : "(not a string)") + " for '" +
            key.str() + "'");
      if (!llvm::is_contained(formats[*cls], *format))
        formats[*cls].push_back(*format);
    }
  }
  return Error::success();
}

Error readThroughput(const llvm::json::Object &object, StringRef where,
                     std::map<Format, double> &throughput) {
  for (const auto &[objectKey, value] : object) {
    StringRef key = objectKey;
    auto format = symbolizeFormat(key);
    std::optional<double> number = value.getAsNumber();
    if (!format)
      return llvm::createStringError(where + ": unknown format '" + key.str() +
                                     "' in throughput");
    if (!number || *number <= 0)
      return llvm::createStringError(where + ": throughput of '" + key.str() +
                                     "' must be a positive number");
    throughput[*format] = *number;
  }
  return Error::success();
}

Error checkThroughputs(const TargetDescription &t, StringRef where) {
  for (const auto &[cls, formats] : t.formats)
    for (Format f : formats)
      if (!t.throughput.count(f))
        return llvm::createStringError(where + ": format '" +
                                       stringifyFormat(f) +
                                       "' is allowed but has no throughput");
  if (!t.throughput.count(Format::f32))
    return llvm::createStringError(where + ": no f32 throughput");
  return Error::success();
}

/// The whole table: targets, each with its features' extra formats.
struct Entry {
  TargetDescription base;
  std::map<std::string, llvm::json::Object> features;
};

Expected<std::vector<Entry>> parseEntries(StringRef json) {
  Expected<llvm::json::Value> parsed = llvm::json::parse(json);
  if (!parsed)
    return llvm::createStringError("target table: " +
                                   llvm::toString(parsed.takeError()));
  const llvm::json::Object *root = parsed->getAsObject();
  const llvm::json::Array *targets = root ? root->getArray("targets") : nullptr;
  if (!targets)
    return llvm::createStringError("target table: no \"targets\" list");
  std::vector<Entry> entries;
  for (const llvm::json::Value &value : *targets) {
    const llvm::json::Object *object = value.getAsObject();
    std::optional<StringRef> name =
        object ? object->getString("name") : std::nullopt;
    if (!name)
      return llvm::createStringError("target table: a target without a name");
    std::string where = "target table: '" + name->str() + "'";
    Entry entry;
    TargetDescription &t = entry.base;
    t.name = name->str();
    t.description = object->getString("description").value_or("").str();
    const llvm::json::Object *formats = object->getObject("formats");
    const llvm::json::Object *throughput = object->getObject("throughput");
    if (!formats || !throughput)
      return llvm::createStringError(where +
                                     ": needs \"formats\" and \"throughput\"");
    if (Error err = readFormats(*formats, where, t.formats))
      return std::move(err);
    if (Error err = readThroughput(*throughput, where, t.throughput))
      return std::move(err);
    if (auto f32Matmul = object->getString("f32_matmul_format")) {
      auto format = symbolizeFormat(*f32Matmul);
      if (!format || (*format != Format::f32 && *format != Format::tf32))
        return llvm::createStringError(
            where + ": f32_matmul_format must be f32 or tf32");
      t.f32MatmulFormat = *format;
    }
    t.perTensorFP8Scale =
        object->getString("fp8_scale").value_or("") == "per_tensor";
    if (const llvm::json::Object *features = object->getObject("features"))
      for (const auto &[feature, extra] : *features) {
        const llvm::json::Object *extraObject = extra.getAsObject();
        if (!extraObject)
          return llvm::createStringError(where + ": feature '" + feature.str() +
                                         "' must be an object");
        entry.features[feature.str()] = *extraObject;
      }
    if (Error err = checkThroughputs(t, where))
      return std::move(err);
    if (llvm::any_of(entries,
                     [&](const Entry &e) { return e.base.name == t.name; }))
      return llvm::createStringError(where + ": defined twice");
    entries.push_back(std::move(entry));
  }
  return entries;
}

const std::vector<Entry> &builtinEntries() {
  static const std::vector<Entry> entries = [] {
    auto parsed = parseEntries(kTargetsJson);
    if (!parsed)
      llvm::report_fatal_error(llvm::Twine("the built-in ") +
                               llvm::toString(parsed.takeError()));
    return std::move(*parsed);
  }();
  return entries;
}
} // namespace

bool TargetDescription::allows(OpClass cls, Format format) const {
  if (format == Format::f32)
    return true;
  auto it = formats.find(cls);
  return it != formats.end() && llvm::is_contained(it->second, format);
}

double TargetDescription::throughputOf(Format format) const {
  auto it = throughput.find(format);
  return it == throughput.end() ? 0.0 : it->second;
}

Expected<std::vector<TargetDescription>> parseTargetTable(StringRef json) {
  auto entries = parseEntries(json);
  if (!entries)
    return entries.takeError();
  std::vector<TargetDescription> targets;
  for (Entry &e : *entries)
    targets.push_back(e.base);
  return targets;
}

std::vector<std::string> knownTargetNames() {
  std::vector<std::string> names;
  for (const Entry &e : builtinEntries())
    names.push_back(e.base.name);
  return names;
}

Expected<TargetDescription>
getTargetDescription(StringRef name, llvm::ArrayRef<std::string> features) {
  for (const Entry &e : builtinEntries()) {
    if (e.base.name != name)
      continue;
    TargetDescription t = e.base;
    for (const std::string &feature : features) {
      auto it = e.features.find(feature);
      if (it == e.features.end()) {
        std::vector<std::string> known;
        for (const auto &[f, extra] : e.features)
          known.push_back(f);
        return llvm::createStringError(
            "target '" + name + "' has no feature '" + feature +
            "' (features: " +
            (known.empty() ? "none" : llvm::join(known, ", ")) + ")");
      }
      std::map<OpClass, std::vector<Format>> extraFormats;
      llvm::json::Object formats;
      for (const auto &[key, value] : it->second)
        if (key != "throughput")
          formats[key] = value;
      std::string where = "target table: '" + name.str() + feature + "'";
      if (Error err = readFormats(formats, where, extraFormats))
        return std::move(err);
      for (auto &[cls, list] : extraFormats)
        for (Format f : list)
          if (!llvm::is_contained(t.formats[cls], f))
            t.formats[cls].push_back(f);
      if (const llvm::json::Object *throughput =
              it->second.getObject("throughput"))
        if (Error err = readThroughput(*throughput, where, t.throughput))
          return std::move(err);
      if (Error err = checkThroughputs(t, where))
        return std::move(err);
    }
    return t;
  }
  return llvm::createStringError("unknown target '" + name + "' (known: " +
                                 llvm::join(knownTargetNames(), ", ") + ")");
}

} // namespace mlir::dsmp
