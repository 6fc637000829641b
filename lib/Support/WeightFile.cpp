//===- WeightFile.cpp - The raw weight file beside a .mlir ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dsmp/Support/WeightFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace mlir::dsmp {

Expected<WeightFileReader> WeightFileReader::open(StringRef path) {
  auto buffer = MemoryBuffer::getFile(path, /*IsText=*/false,
                                      /*RequiresNullTerminator=*/false);
  if (!buffer)
    return createStringError(
        buffer.getError(), "cannot open weight file '%s': %s",
        path.str().c_str(), buffer.getError().message().c_str());
  WeightFileReader reader;
  reader.buffer = std::move(*buffer);
  reader.path = path.str();
  return reader;
}

Expected<ArrayRef<char>> WeightFileReader::read(uint64_t offset,
                                                uint64_t size) const {
  uint64_t total = buffer->getBufferSize();
  if (offset > total || size > total - offset)
    return createStringError(
        std::make_error_code(std::errc::invalid_argument),
        "range [%llu, +%llu) lies outside weight file '%s' (%llu bytes)",
        (unsigned long long)offset, (unsigned long long)size, path.c_str(),
        (unsigned long long)total);
  return ArrayRef<char>(buffer->getBufferStart() + offset, size);
}

uint64_t WeightFileWriter::append(ArrayRef<char> bytes) {
  uint64_t padding =
      (kWeightAlignment - offset % kWeightAlignment) % kWeightAlignment;
  for (uint64_t i = 0; i < padding; ++i)
    os << '\0';
  offset += padding;
  uint64_t start = offset;
  os.write(bytes.data(), bytes.size());
  offset += bytes.size();
  return start;
}

std::string resolveWeightsPath(StringRef mlirPath, StringRef weightsName) {
  if (sys::path::is_absolute(weightsName))
    return weightsName.str();
  SmallString<256> path(mlirPath == "-" ? ""
                                        : sys::path::parent_path(mlirPath));
  sys::path::append(path, weightsName);
  return std::string(path);
}

} // namespace mlir::dsmp
