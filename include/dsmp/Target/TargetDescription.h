//===- TargetDescription.h - Per-target formats, as data --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What each target can compute in: the formats allowed per op class, the
// relative throughput of each format (the precision assignment weights FLOPs
// by it), how f32 matmuls run, and which vendor variant of FP8 it has. The
// table is data (lib/Target/Description/targets.json, compiled in); a target
// is an entry there, not code.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_TARGET_TARGETDESCRIPTION_H
#define DSMP_TARGET_TARGETDESCRIPTION_H

#include "dialects/Dsmp/IR/DsmpOps.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace mlir::dsmp {

struct TargetDescription {
  std::string name;
  std::string description;
  /// Formats other than f32 that each op class may compute in (f32 is
  /// always allowed).
  std::map<OpClass, std::vector<Format>> formats;
  /// Throughput of each format relative to f32 (= 1).
  std::map<Format, double> throughput;
  /// The format an f32 matmul/conv runs in on this target (tf32 on sm_80).
  Format f32MatmulFormat = Format::f32;
  /// FP8 tensors carry a per-tensor scale.
  bool perTensorFP8Scale = false;

  /// Whether ops of class `cls` may compute in `format` here.
  bool allows(OpClass cls, Format format) const;
  /// The relative throughput of `format`, 0 where the target lacks it.
  double throughputOf(Format format) const;
};

/// The target named `name` from the built-in table, with the optional
/// features (such as "+bf16" on aarch64) that add formats. Fails naming the
/// known targets, or the features the target has.
llvm::Expected<TargetDescription>
getTargetDescription(llvm::StringRef name,
                     llvm::ArrayRef<std::string> features = {});

/// The names of the built-in targets, in table order.
std::vector<std::string> knownTargetNames();

/// Parses a target table (the schema of targets.json); every format must
/// be one dsmp knows, every allowed format must have a throughput, and
/// every throughput must be positive.
llvm::Expected<std::vector<TargetDescription>>
parseTargetTable(llvm::StringRef json);

} // namespace mlir::dsmp

#endif // DSMP_TARGET_TARGETDESCRIPTION_H
