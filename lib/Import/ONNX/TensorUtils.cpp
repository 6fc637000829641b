//===- TensorUtils.cpp - ONNX tensors: types, checks, bytes -----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "ImportUtils.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstring>

using namespace mlir;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace mlir::dsmp::onnx_import {

namespace {
Error tensorError(const onnx::TensorProto &tensor, const llvm::Twine &message) {
  return llvm::createStringError(
      std::make_error_code(std::errc::invalid_argument),
      "tensor '" + tensor.name() + "': " + message);
}
} // namespace

Error makeError(StringRef file, const Where &where, int64_t opset,
                const llvm::Twine &message) {
  // The tool that reports it says "error:" once, before the file.
  std::string text = file.str() + ": ";
  if (!where.nodeName.empty() || !where.opType.empty()) {
    text += "node '" + where.nodeName + "'";
    if (!where.opType.empty())
      text += " (" + where.opType + ", opset " + std::to_string(opset) + ")";
    text += ": ";
  }
  text += message.str();
  // Keep the message on one line.
  for (char &c : text)
    if (c == '\n')
      c = ' ';
  return llvm::createStringError(
      std::make_error_code(std::errc::invalid_argument), text);
}

Expected<std::string> resolveExternalLocation(StringRef location,
                                              StringRef modelDir) {
  if (location.empty())
    return llvm::createStringError(
        std::make_error_code(std::errc::invalid_argument),
        "external data has an empty location");
  // A NUL ends the path the file system sees: it could name another file.
  if (location.contains('\0'))
    return llvm::createStringError(
        std::make_error_code(std::errc::invalid_argument),
        "external data location holds a NUL byte");
  if (llvm::sys::path::is_absolute(location) ||
      llvm::sys::path::is_absolute(location, llvm::sys::path::Style::windows))
    return llvm::createStringError(
        std::make_error_code(std::errc::permission_denied),
        "external data location '%s' is an absolute path; it must lie "
        "inside the model's folder",
        location.str().c_str());
  for (StringRef part : llvm::make_range(llvm::sys::path::begin(location),
                                         llvm::sys::path::end(location)))
    if (part == "..")
      return llvm::createStringError(
          std::make_error_code(std::errc::permission_denied),
          "external data location '%s' escapes the model's folder through '..'",
          location.str().c_str());
  llvm::SmallString<256> joined(modelDir.empty() ? "." : modelDir);
  llvm::sys::path::append(joined, location);
  // Follow symlinks and check the real path is still inside the folder.
  llvm::SmallString<256> realDir, realFile;
  if (llvm::sys::fs::real_path(modelDir.empty() ? "." : modelDir, realDir))
    return llvm::createStringError(
        std::make_error_code(std::errc::no_such_file_or_directory),
        "cannot resolve the model's folder");
  if (std::error_code ec = llvm::sys::fs::real_path(joined, realFile))
    return llvm::createStringError(ec, "external data file '%s' not found",
                                   location.str().c_str());
  StringRef real = realFile;
  if (!real.starts_with(realDir) ||
      (real.size() > realDir.size() &&
       !llvm::sys::path::is_separator(real[realDir.size()])))
    return llvm::createStringError(
        std::make_error_code(std::errc::permission_denied),
        "external data location '%s' leads outside the model's folder "
        "(through a symlink)",
        location.str().c_str());
  if (!llvm::sys::fs::is_regular_file(realFile))
    return llvm::createStringError(
        std::make_error_code(std::errc::invalid_argument),
        "external data location '%s' is not a file", location.str().c_str());
  return std::string(realFile);
}

namespace {
struct ExternalRef {
  std::string location;
  uint64_t offset = 0;
  std::optional<uint64_t> length;
};

Expected<ExternalRef> parseExternal(const onnx::TensorProto &tensor) {
  ExternalRef ref;
  for (const auto &entry : tensor.external_data()) {
    if (entry.key() == "location") {
      ref.location = entry.value();
    } else if (entry.key() == "offset" || entry.key() == "length") {
      uint64_t value;
      if (StringRef(entry.value()).getAsInteger(10, value))
        return tensorError(tensor, "external data " + entry.key() + " '" +
                                       entry.value() + "' is not a number");
      if (entry.key() == "offset")
        ref.offset = value;
      else
        ref.length = value;
    }
  }
  return ref;
}

/// Element count of `dims`, failing on negative dims or int64 overflow.
Expected<int64_t> elementCount(const onnx::TensorProto &tensor) {
  int64_t count = 1;
  for (int64_t dim : tensor.dims()) {
    if (dim < 0)
      return tensorError(tensor, "has negative dim " + std::to_string(dim));
    if (__builtin_mul_overflow(count, dim, &count))
      return tensorError(tensor, "dims' element count overflows int64");
  }
  return count;
}

/// Number of entries in the typed data field that holds this dtype.
int64_t typedFieldSize(const onnx::TensorProto &tensor) {
  switch (tensor.data_type()) {
  case onnx::TensorProto::FLOAT:
    return tensor.float_data_size();
  case onnx::TensorProto::INT64:
    return tensor.int64_data_size();
  case onnx::TensorProto::DOUBLE:
    return tensor.double_data_size();
  case onnx::TensorProto::UINT32:
  case onnx::TensorProto::UINT64:
    return tensor.uint64_data_size();
  default:
    return tensor.int32_data_size();
  }
}
} // namespace

Expected<int64_t> checkTensor(const onnx::TensorProto &tensor,
                              StringRef modelDir, uint64_t maxBytes) {
  unsigned elementBytes = getOnnxElementBytes(tensor.data_type());
  if (elementBytes == 0)
    return tensorError(tensor, "has unsupported dtype " +
                                   getOnnxTypeName(tensor.data_type()));
  auto count = elementCount(tensor);
  if (!count)
    return count.takeError();
  uint64_t bytes;
  if (__builtin_mul_overflow(static_cast<uint64_t>(*count),
                             static_cast<uint64_t>(elementBytes), &bytes))
    return tensorError(tensor, "byte size overflows");
  if (bytes > maxBytes)
    return tensorError(tensor, "declares " + std::to_string(bytes) +
                                   " bytes, more than the limit of " +
                                   std::to_string(maxBytes));
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
    auto ref = parseExternal(tensor);
    if (!ref)
      return ref.takeError();
    auto file = resolveExternalLocation(ref->location, modelDir);
    if (!file)
      return tensorError(tensor, llvm::toString(file.takeError()));
    uint64_t fileSize;
    if (llvm::sys::fs::file_size(*file, fileSize))
      return tensorError(tensor, "cannot read external data file");
    uint64_t length = ref->length.value_or(bytes);
    if (length != bytes)
      return tensorError(tensor,
                         "external data length " + std::to_string(length) +
                             " != " + std::to_string(bytes) + " bytes of dims");
    if (ref->offset > fileSize || bytes > fileSize - ref->offset)
      return tensorError(tensor, "external data range lies outside '" +
                                     ref->location + "'");
    return *count;
  }
  if (tensor.has_raw_data()) {
    if (tensor.raw_data().size() != bytes)
      return tensorError(
          tensor, "raw_data has " + std::to_string(tensor.raw_data().size()) +
                      " bytes but dims need " + std::to_string(bytes));
    return *count;
  }
  if (tensor.data_type() == onnx::TensorProto::STRING)
    return tensorError(tensor, "string tensors are not supported");
  if (typedFieldSize(tensor) != *count)
    return tensorError(tensor,
                       "holds " + std::to_string(typedFieldSize(tensor)) +
                           " values but dims need " + std::to_string(*count));
  return *count;
}

Expected<std::vector<char>> readTensorBytes(const onnx::TensorProto &tensor,
                                            StringRef modelDir,
                                            uint64_t maxBytes) {
  auto count = checkTensor(tensor, modelDir, maxBytes);
  if (!count)
    return count.takeError();
  unsigned elementBytes = getOnnxElementBytes(tensor.data_type());
  std::vector<char> bytes(static_cast<size_t>(*count) * elementBytes);
  // An empty tensor's repeated field has no storage: memcpy from its null
  // data() is undefined even for zero bytes.
  if (bytes.empty())
    return bytes;
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
    auto ref = parseExternal(tensor);
    auto file = resolveExternalLocation(ref->location, modelDir);
    if (!file)
      return file.takeError();
    auto buffer =
        llvm::MemoryBuffer::getFileSlice(*file, bytes.size(), ref->offset);
    if (!buffer)
      return tensorError(tensor, "cannot read external data: " +
                                     buffer.getError().message());
    std::memcpy(bytes.data(), (*buffer)->getBufferStart(), bytes.size());
    return bytes;
  }
  if (tensor.has_raw_data()) {
    std::memcpy(bytes.data(), tensor.raw_data().data(), bytes.size());
    return bytes;
  }
  char *out = bytes.data();
  switch (tensor.data_type()) {
  case onnx::TensorProto::FLOAT:
    std::memcpy(out, tensor.float_data().data(), bytes.size());
    break;
  case onnx::TensorProto::INT64:
    std::memcpy(out, tensor.int64_data().data(), bytes.size());
    break;
  case onnx::TensorProto::DOUBLE:
    std::memcpy(out, tensor.double_data().data(), bytes.size());
    break;
  case onnx::TensorProto::UINT64:
    std::memcpy(out, tensor.uint64_data().data(), bytes.size());
    break;
  case onnx::TensorProto::UINT32:
    for (int64_t i = 0; i < *count; ++i) {
      uint32_t v = static_cast<uint32_t>(tensor.uint64_data(i));
      std::memcpy(out + 4 * i, &v, 4);
    }
    break;
  default:
    // int32_data holds every narrower type, one value per entry.
    for (int64_t i = 0; i < *count; ++i) {
      int32_t v = tensor.int32_data(i);
      std::memcpy(out + elementBytes * i, &v, elementBytes);
    }
    break;
  }
  return bytes;
}

Expected<std::optional<llvm::ArrayRef<char>>>
viewRawTensorBytes(const onnx::TensorProto &tensor, StringRef modelDir,
                   uint64_t maxBytes) {
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL ||
      !tensor.has_raw_data())
    return std::nullopt;
  auto count = checkTensor(tensor, modelDir, maxBytes);
  if (!count)
    return count.takeError();
  size_t size =
      static_cast<size_t>(*count) * getOnnxElementBytes(tensor.data_type());
  return llvm::ArrayRef<char>(tensor.raw_data().data(), size);
}

DenseElementsAttr makeDenseAttr(RankedTensorType type,
                                llvm::ArrayRef<char> bytes) {
  if (type.getElementType().isInteger(1)) {
    llvm::SmallVector<bool> values;
    for (char c : bytes)
      values.push_back(c != 0);
    return DenseElementsAttr::get(type, values);
  }
  return DenseElementsAttr::getFromRawBuffer(type, bytes);
}

} // namespace mlir::dsmp::onnx_import
