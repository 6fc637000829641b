//===- ProfileTable.h - What a profiled artifact's timings mean -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// An artifact compiled with `dsmp-compile --profile` times every call of
// its lowered graph (an outlined loop nest, a GEMM library call, a copy)
// into an array model.so exports per variant (profileCountersSymbol: one
// row of {nanoseconds, calls} per timed call), and ships profile.txt, which
// this header writes and reads: per variant, the model's ops as the
// profiler reports them, and which ops each row computes.
//
//   dsmp-profile 1
//   variant <entry point> <ops> <rows>
//   op <node> <op type> <format> <flops>
//   row <loop|gemm|copy|call> <callee> <count> <op index...>
//
// Names are percent-encoded as in the manifest. Plain C++ only: dsmp-compile
// writes it and libdsmprt, which must not depend on MLIR or LLVM, reads it.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_RUNTIME_PROFILETABLE_H
#define DSMP_RUNTIME_PROFILETABLE_H

#include "dsmp/runtime/Manifest.h"

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace dsmp::artifact {

inline constexpr const char *kProfileName = "profile.txt";
inline constexpr int kProfileVersion = 1;

/// The array of {nanoseconds, calls} rows that model.so exports for the
/// variant with entry point `entry`.
inline std::string profileCountersSymbol(const std::string &entry) {
  return "dsmp_profile_" + entry;
}

struct ProfiledOp {
  std::string name;   // the ONNX node
  std::string type;   // the ONNX op type
  std::string format; // what it computes in: f32 tf32 f16 bf16 f8... i64 ...
  uint64_t flops = 0; // per run, at the variant's shapes
};

struct ProfiledRow {
  std::string kind; // loop | gemm | copy | call
  std::string callee;
  std::vector<uint32_t> ops; // indices into VariantProfile::ops
};

struct VariantProfile {
  std::string entry;
  std::vector<ProfiledOp> ops;
  std::vector<ProfiledRow> rows;
};

struct ProfileTable {
  std::vector<VariantProfile> variants;
};

inline std::string writeProfileTable(const ProfileTable &table) {
  std::ostringstream os;
  os << "dsmp-profile " << kProfileVersion << "\n";
  for (const VariantProfile &v : table.variants) {
    os << "variant " << v.entry << " " << v.ops.size() << " " << v.rows.size()
       << "\n";
    for (const ProfiledOp &op : v.ops)
      os << "op " << encodeName(op.name) << " " << encodeName(op.type) << " "
         << encodeName(op.format) << " " << op.flops << "\n";
    for (const ProfiledRow &row : v.rows) {
      os << "row " << row.kind << " " << encodeName(row.callee) << " "
         << row.ops.size();
      for (uint32_t op : row.ops)
        os << " " << op;
      os << "\n";
    }
  }
  return os.str();
}

/// Parses profile.txt; on failure returns false and says why in `error`.
/// Every count is checked against the lines that follow it, and every op
/// index against its variant's ops.
inline bool parseProfileTable(const std::string &text, ProfileTable &table,
                              std::string &error) {
  constexpr uint64_t kMaxEntries = uint64_t(1) << 22;
  std::istringstream lines(text);
  std::string line;
  int lineNo = 0;
  bool sawHeader = false;
  uint64_t opsLeft = 0, rowsLeft = 0;
  auto fail = [&](const std::string &why) {
    error = "profile line " + std::to_string(lineNo) + ": " + why;
    return false;
  };
  while (std::getline(lines, line)) {
    ++lineNo;
    if (line.empty())
      continue;
    std::istringstream fields(line);
    std::string kind, extra;
    fields >> kind;
    if (!sawHeader) {
      int version = 0;
      if (kind != "dsmp-profile" || !(fields >> version) ||
          version != kProfileVersion)
        return fail("not a dsmp profile table of version " +
                    std::to_string(kProfileVersion));
      sawHeader = true;
    } else if (kind == "variant") {
      VariantProfile v;
      if (opsLeft || rowsLeft)
        return fail("the previous variant is missing ops or rows");
      if (!(fields >> v.entry >> opsLeft >> rowsLeft) || (fields >> extra) ||
          opsLeft > kMaxEntries || rowsLeft > kMaxEntries)
        return fail("bad variant entry");
      table.variants.push_back(std::move(v));
    } else if (kind == "op") {
      ProfiledOp op;
      std::string name, type, format;
      if (table.variants.empty() || opsLeft == 0)
        return fail("an op beyond its variant's count");
      if (!(fields >> name >> type >> format >> op.flops) ||
          (fields >> extra) || !decodeName(name, op.name) ||
          !decodeName(type, op.type) || !decodeName(format, op.format))
        return fail("bad op entry");
      table.variants.back().ops.push_back(std::move(op));
      --opsLeft;
    } else if (kind == "row") {
      ProfiledRow row;
      std::string callee;
      uint64_t count = 0;
      if (table.variants.empty() || opsLeft != 0 || rowsLeft == 0)
        return fail("a row before its variant's ops or beyond its count");
      VariantProfile &v = table.variants.back();
      if (!(fields >> row.kind >> callee >> count) ||
          !decodeName(callee, row.callee) || count > v.ops.size() ||
          (row.kind != "loop" && row.kind != "gemm" && row.kind != "copy" &&
           row.kind != "call"))
        return fail("bad row entry");
      for (uint64_t i = 0; i < count; ++i) {
        uint64_t op = 0;
        if (!(fields >> op) || op >= v.ops.size())
          return fail("a row names an op that is not in its variant");
        row.ops.push_back(static_cast<uint32_t>(op));
      }
      if (fields >> extra)
        return fail("bad row entry");
      v.rows.push_back(std::move(row));
      --rowsLeft;
    } else {
      return fail("unknown entry '" + kind + "'");
    }
  }
  if (!sawHeader)
    return fail("empty profile table");
  if (opsLeft || rowsLeft)
    return fail("the last variant is missing ops or rows");
  return true;
}

} // namespace dsmp::artifact

#endif // DSMP_RUNTIME_PROFILETABLE_H
