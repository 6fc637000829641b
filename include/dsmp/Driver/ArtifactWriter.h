//===- ArtifactWriter.h - manifest.txt and model.h of an --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_DRIVER_ARTIFACTWRITER_H
#define DSMP_DRIVER_ARTIFACTWRITER_H

#include "dsmp/runtime/Manifest.h"
#include "dsmp/runtime/ProfileTable.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace mlir::dsmp {

/// The model compiled for one set of input shapes, callable as `entry`.
struct ArtifactVariant {
  std::string entry;
  /// Dynamic dims sized at run time (the manifest's `variant ENTRY
  /// dynamic`; dsmp-emit-entry-point{dynamic}'s entry point).
  bool dynamic = false;
  std::vector<std::pair<std::string, RankedTensorType>> inputs, outputs;
  /// A dynamic variant's input dim names (ONNX dim_param) by input name.
  std::map<std::string, std::vector<std::string>> dimNames;
  /// With ArtifactDescription::profiled: its ops and timed rows.
  ::dsmp::artifact::VariantProfile profile;
};

struct ArtifactDescription {
  std::string target;
  /// The GPU the kernels run on (the manifest's `device` line; empty: none).
  std::string device;
  std::string source;
  /// A precision compile's budget and choices (the manifest's `precision`
  /// and `formats` lines).
  bool hasPrecision = false;
  ::dsmp::artifact::PrecisionSpec precision;
  /// Inputs compiled for one value (recorded so the runtime checks them).
  std::map<std::string, std::vector<int64_t>> fixedInputs;
  std::vector<ArtifactVariant> variants;
  /// The manifest's `batch` line (empty: the runtime does not split).
  std::vector<bool> batchInputs, batchOutputs;
  /// Compiled with --profile: profile.txt holds each variant's `profile`.
  bool profiled = false;
};

/// The manifest dtype of an element type ("f32", "i64", ...), or "" when
/// the runtime has no name for it.
std::string manifestDType(Type elementType);

/// Writes manifest.txt (with the size and hash of model.so and weights.bin,
/// which must exist already) and model.h into `dir`.
/// The hash model.so carries of what its code assumes (each variant's
/// tensors and the weight file's size; ::dsmp::artifact::interfaceHash).
llvm::Expected<uint64_t> interfaceHashOf(const ArtifactDescription &description,
                                         uint64_t weightsSize);

llvm::Error writeArtifactFiles(llvm::StringRef dir,
                               const ArtifactDescription &description);

} // namespace mlir::dsmp

#endif // DSMP_DRIVER_ARTIFACTWRITER_H
