//===- TensorFile.cpp - ONNX TensorProto files without protobuf -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dsmp/runtime/TensorFile.h"

#include "dsmp/Support/FloatFormats.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace dsmp::runtime {

namespace {
enum Field : uint32_t {
  kDims = 1,
  kDataType = 2,
  kFloatData = 4,
  kInt32Data = 5,
  kStringData = 6,
  kInt64Data = 7,
  kName = 8,
  kRawData = 9,
  kDoubleData = 10,
  kUint64Data = 11,
  kExternalData = 13,
  kDataLocation = 14,
};

/// A bounds-checked cursor over protobuf wire-format bytes.
struct Reader {
  const unsigned char *p, *end;
  bool varint(uint64_t &value) {
    value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p == end)
        return false;
      unsigned char byte = *p++;
      value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80))
        return true;
    }
    return false;
  }
  bool bytes(size_t n, const unsigned char *&out) {
    if (static_cast<size_t>(end - p) < n)
      return false;
    out = p;
    p += n;
    return true;
  }
  bool skip(uint32_t wireType) {
    uint64_t n;
    const unsigned char *ignored;
    switch (wireType) {
    case 0:
      return varint(n);
    case 1:
      return bytes(8, ignored);
    case 2:
      return varint(n) && bytes(n, ignored);
    case 5:
      return bytes(4, ignored);
    default:
      return false;
    }
  }
};

/// Reads a repeated scalar field in either encoding (packed or one by one),
/// appending each element's value through `add`.
template <typename Add>
bool repeated(Reader &r, uint32_t wireType, uint32_t elementWire, Add add) {
  auto one = [&](Reader &in) -> bool {
    if (elementWire == 0) {
      uint64_t v = 0;
      if (!in.varint(v))
        return false;
      add(v);
      return true;
    }
    const unsigned char *b;
    unsigned width = elementWire == 5 ? 4 : 8;
    if (!in.bytes(width, b))
      return false;
    uint64_t v = 0;
    std::memcpy(&v, b, width);
    add(v);
    return true;
  };
  if (wireType == elementWire)
    return one(r);
  if (wireType != 2)
    return false;
  uint64_t length;
  const unsigned char *b;
  if (!r.varint(length) || !r.bytes(length, b))
    return false;
  Reader packed{b, b + length};
  while (packed.p != packed.end)
    if (!one(packed))
      return false;
  return true;
}

void putVarint(std::string &out, uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}
} // namespace

size_t dtypeSize(int32_t dtype) {
  switch (dtype) {
  case 1:  // FLOAT
  case 6:  // INT32
  case 12: // UINT32
    return 4;
  case 7:  // INT64
  case 11: // DOUBLE
  case 13: // UINT64
    return 8;
  case 5:  // INT16
  case 4:  // UINT16
  case 10: // FLOAT16
  case 16: // BFLOAT16
    return 2;
  case 2: // UINT8
  case 3: // INT8
  case 9: // BOOL
    return 1;
  default:
    return 0;
  }
}

bool parseTensorProto(const unsigned char *bytes, size_t size, HostTensor &t,
                      std::string &error) {
  t = HostTensor();
  Reader r{bytes, bytes + size};
  std::vector<uint64_t> values; // the typed *_data fields, widened
  bool haveRaw = false, external = false;
  std::string why;
  while (r.p != r.end) {
    uint64_t key;
    if (!r.varint(key)) {
      error = "malformed TensorProto";
      return false;
    }
    uint32_t field = static_cast<uint32_t>(key >> 3), wire = key & 7;
    bool ok = true;
    switch (field) {
    case kDims:
      ok = repeated(r, wire, 0, [&](uint64_t v) {
        t.dims.push_back(static_cast<int64_t>(v));
      });
      break;
    case kDataType: {
      uint64_t v = 0;
      ok = wire == 0 && r.varint(v);
      t.dtype = static_cast<int32_t>(v);
      break;
    }
    case kFloatData:
      ok = repeated(r, wire, 5, [&](uint64_t v) { values.push_back(v); });
      break;
    case kInt32Data:
    case kInt64Data:
    case kUint64Data:
      ok = repeated(r, wire, 0, [&](uint64_t v) { values.push_back(v); });
      break;
    case kDoubleData:
      ok = repeated(r, wire, 1, [&](uint64_t v) { values.push_back(v); });
      break;
    case kName:
    case kRawData: {
      uint64_t length;
      const unsigned char *b;
      ok = wire == 2 && r.varint(length) && r.bytes(length, b);
      if (ok && field == kName)
        t.name.assign(reinterpret_cast<const char *>(b), length);
      if (ok && field == kRawData) {
        t.data.assign(b, b + length);
        haveRaw = true;
      }
      break;
    }
    case kStringData:
      why = "string tensors are not supported";
      ok = r.skip(wire);
      break;
    case kExternalData:
      external = true;
      ok = r.skip(wire);
      break;
    case kDataLocation: {
      uint64_t v = 0;
      ok = wire == 0 && r.varint(v);
      external |= v == 1;
      break;
    }
    default:
      ok = r.skip(wire);
    }
    if (!ok) {
      error = "malformed TensorProto (field " + std::to_string(field) + ")";
      return false;
    }
  }
  if (!why.empty() || external) {
    error = why.empty() ? "external tensor data is not supported" : why;
    return false;
  }
  size_t width = dtypeSize(t.dtype);
  if (!width) {
    error = "unsupported data_type " + std::to_string(t.dtype);
    return false;
  }
  size_t count = 1;
  for (int64_t d : t.dims) {
    if (d < 0 || (d && count > (size_t(1) << 40) / static_cast<size_t>(d))) {
      error = "bad dims";
      return false;
    }
    count *= static_cast<size_t>(d);
  }
  if (!haveRaw) {
    if (values.size() != count) {
      error = "has " + std::to_string(values.size()) + " values for " +
              std::to_string(count) + " elements";
      return false;
    }
    t.data.resize(count * width);
    for (size_t i = 0; i < count; ++i) {
      // float_data holds f32 bits, double_data f64 bits; int32_data holds
      // the 16/8-bit types (f16/bf16 as their bit patterns) widened.
      uint64_t v = values[i];
      std::memcpy(t.data.data() + i * width, &v, width); // little-endian
    }
  }
  if (t.data.size() != count * width) {
    error = "raw_data has " + std::to_string(t.data.size()) + " bytes for " +
            std::to_string(count) + " elements";
    return false;
  }
  return true;
}

bool readTensorFile(const std::string &path, HostTensor &tensor,
                    std::string &error) {
  // One sized read of a regular file (istreambuf_iterator copied byte by
  // byte: resnet18's 600 KB input took milliseconds).
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    error = "'" + path + "' is not a readable file";
    return false;
  }
  uintmax_t size = std::filesystem::file_size(path, ec);
  std::ifstream in(path, std::ios::binary);
  if (ec || !in) {
    error = "cannot open '" + path + "'";
    return false;
  }
  std::vector<unsigned char> bytes(static_cast<size_t>(size));
  if (size > 0 &&
      !in.read(reinterpret_cast<char *>(bytes.data()), std::streamsize(size))) {
    error = "cannot read '" + path + "'";
    return false;
  }
  if (!parseTensorProto(bytes.data(), bytes.size(), tensor, error)) {
    error = "'" + path + "': " + error;
    return false;
  }
  return true;
}

bool writeTensorFile(const std::string &path, const HostTensor &t,
                     std::string &error) {
  std::string out;
  for (int64_t d : t.dims) {
    putVarint(out, (kDims << 3) | 0);
    putVarint(out, static_cast<uint64_t>(d));
  }
  putVarint(out, (kDataType << 3) | 0);
  putVarint(out, static_cast<uint64_t>(t.dtype));
  putVarint(out, (kName << 3) | 2);
  putVarint(out, t.name.size());
  out += t.name;
  putVarint(out, (kRawData << 3) | 2);
  putVarint(out, t.data.size());
  out.append(reinterpret_cast<const char *>(t.data.data()), t.data.size());
  std::ofstream file(path, std::ios::binary);
  if (!file || !file.write(out.data(), out.size())) {
    error = "cannot write '" + path + "'";
    return false;
  }
  return true;
}

double elementAsDouble(const HostTensor &t, size_t i) {
  const unsigned char *p = t.data.data() + i * dtypeSize(t.dtype);
  auto load = [&](auto value) {
    std::memcpy(&value, p, sizeof value);
    return value;
  };
  switch (t.dtype) {
  case 1:
    return load(float());
  case 11:
    return load(double());
  case 10:
    return formats::fromF16(load(uint16_t()));
  case 16:
    return formats::fromBF16(load(uint16_t()));
  case 7:
    return static_cast<double>(load(int64_t()));
  case 13:
    return static_cast<double>(load(uint64_t()));
  case 6:
    return load(int32_t());
  case 12:
    return load(uint32_t());
  case 5:
    return load(int16_t());
  case 4:
    return load(uint16_t());
  case 3:
    return load(int8_t());
  default:
    return load(uint8_t());
  }
}

} // namespace dsmp::runtime
