//===- BranchInputs.cpp - Inputs the data fixes for a branch --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "BranchInputs.h"

#include "dsmp/Execution/HostRun.h"

#include <cstring>
#include <optional>

namespace mlir::dsmp {

namespace {

/// The values of an int64 or int32 tensor, as fix-inputs takes them.
std::optional<std::vector<int64_t>> integerValues(const HostTensor &t) {
  constexpr int32_t kInt32 = 6, kInt64 = 7;
  // A sample rate or a mode, not data: a handful of values at most.
  constexpr size_t kMaxValues = 16;
  size_t width = t.dtype == kInt64 ? 8 : t.dtype == kInt32 ? 4 : 0;
  if (!width || t.data.size() % width || t.data.size() / width > kMaxValues)
    return std::nullopt;
  std::vector<int64_t> values;
  for (size_t at = 0; at < t.data.size(); at += width) {
    if (width == 8) {
      int64_t v;
      std::memcpy(&v, t.data.data() + at, 8);
      values.push_back(v);
    } else {
      int32_t v;
      std::memcpy(&v, t.data.data() + at, 4);
      values.push_back(v);
    }
  }
  return values;
}

} // namespace

llvm::Expected<FixedInputs> inputsFixedByData(func::FuncOp graph,
                                              llvm::ArrayRef<std::string> dirs,
                                              const FixedInputs &fixed) {
  FixedInputs result;
  std::vector<std::string> names = branchingInputs(graph);
  llvm::erase_if(names, [&](const std::string &n) { return fixed.count(n); });
  if (names.empty())
    return result;
  std::vector<HostInputs> sets;
  for (const std::string &dir : dirs) {
    if (dir.empty())
      continue;
    auto read = readInputSets(dir);
    if (!read)
      return read.takeError();
    llvm::append_range(sets, *read);
  }
  for (const std::string &name : names) {
    std::optional<std::vector<int64_t>> common;
    bool same = !sets.empty();
    for (const HostInputs &set : sets) {
      auto it = llvm::find_if(
          set, [&](const HostTensor &t) { return t.name == name; });
      std::optional<std::vector<int64_t>> values;
      if (it != set.end())
        values = integerValues(*it);
      if (!values || (common && *common != *values)) {
        same = false;
        break;
      }
      common = std::move(values);
    }
    if (same && common)
      result[name] = *common;
  }
  return result;
}

} // namespace mlir::dsmp
