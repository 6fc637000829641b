//===- WeightFile.h - The raw weight file beside a .mlir --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A weight file is a flat sequence of little-endian tensors, each aligned to
// kWeightAlignment bytes. Constants refer to it by (offset, size).
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_SUPPORT_WEIGHTFILE_H
#define DSMP_SUPPORT_WEIGHTFILE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <memory>
#include <string>

namespace mlir::dsmp {

inline constexpr uint64_t kWeightAlignment = 64;

/// Read access to a weight file (memory-mapped).
class WeightFileReader {
public:
  static llvm::Expected<WeightFileReader> open(llvm::StringRef path);
  /// The bytes [offset, offset + size), or an error if they lie outside.
  llvm::Expected<llvm::ArrayRef<char>> read(uint64_t offset,
                                            uint64_t size) const;
  uint64_t size() const { return buffer->getBufferSize(); }

private:
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  std::string path;
};

/// Appends tensors to a weight file; returns each tensor's offset.
class WeightFileWriter {
public:
  explicit WeightFileWriter(llvm::raw_ostream &os) : os(os) {}
  uint64_t append(llvm::ArrayRef<char> bytes);
  uint64_t bytesWritten() const { return offset; }

private:
  llvm::raw_ostream &os;
  uint64_t offset = 0;
};

/// Resolves `weightsName` (from a module's dsmp.weights attribute) relative
/// to the folder of `mlirPath`.
std::string resolveWeightsPath(llvm::StringRef mlirPath,
                               llvm::StringRef weightsName);

} // namespace mlir::dsmp

#endif // DSMP_SUPPORT_WEIGHTFILE_H
