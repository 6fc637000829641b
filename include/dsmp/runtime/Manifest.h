//===- Manifest.h - The manifest of a compiled dsmp artifact ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// An artifact folder holds model.so (the generated code), model.h (its C
// entry point), weights.bin and manifest.txt, which this header writes and
// reads. Plain C++ only: dsmp-compile writes it and libdsmprt, which must
// not depend on MLIR or LLVM, reads it.
//
//   dsmp-artifact 2
//   target x86_64
//   device sm_80
//   source resnet18.onnx
//   library model.so <bytes> <contentHash hex>
//   weights weights.bin <bytes> <contentHash hex>
//   profile profile.txt <bytes> <contentHash hex>
//   batch <inputs> <flag per input> <outputs> <flag per output>
//   variant <entry point symbol> [dynamic]
//   profile-rows <rows>
//   input <name> <dtype> <rank> <dims...>
//   output <name> <dtype> <rank> <dims...>
//   variant ...
//
// The optional `device` line names the GPU the kernels run on (sm_80,
// sm_90, gfx90a, ...): model.so then holds the host code that launches
// them, and libdsmprt runs it through that GPU's backend. Each variant is
// the model compiled for one set of static input shapes;
// every variant has the same input and output names and dtypes, in the
// same order. The optional `batch` line says the model computes each
// sample along the first dim of the flagged inputs and outputs on its own
// (lib/Driver/Artifact/BatchSplit.h): the runtime then runs any batch as
// consecutive slices through the variants of the same other dims.
// A `dynamic` variant's dims may be `?` or `?NAME` (kDynamicDim here; inputs
// whose dims share a NAME must agree on it): sized at run
// time from the inputs, its outputs from what it computes (its entry point
// takes the inputs' dims and a callback for the output buffers:
// dsmp-emit-entry-point{dynamic}, docs/dynamic-shapes.md).
// The optional `profile` file and each variant's `profile-rows` (an
// artifact of `dsmp-compile --profile`) describe the timing counters
// model.so exports (ProfileTable.h); the row counts are part of the
// interface hash, so that an edited table cannot make the runtime read past
// the array.
// Names are percent-encoded (anything but [A-Za-z0-9_.:/-]). The sizes and
// hashes let the runtime refuse a truncated or altered artifact before it
// maps any code.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_RUNTIME_MANIFEST_H
#define DSMP_RUNTIME_MANIFEST_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace dsmp::artifact {

inline constexpr const char *kManifestName = "manifest.txt";
inline constexpr const char *kLibraryName = "model.so";
inline constexpr const char *kWeightsName = "weights.bin";
inline constexpr const char *kHeaderName = "model.h";
inline constexpr const char *kEntryPrefix = "dsmp_model_run_";
// 2: contentHash (version 1 hashed the files with byte-wise FNV-1a).
// 3: model.so carries kInterfaceSymbol.
// 4: optional `precision` and `formats` lines (a precision compile's
//    budget and choices); version 3 manifests still load.
// 5: optional `batch` line.
// 6: optional `device` line.
// 7: optional `profile` and `profile-rows` lines.
// 8: optional `error-floor` line (rel-l2's floor per output).
// 9: `variant ENTRY dynamic` and `?` dims.
inline constexpr int kVersion = 9;
inline constexpr int kOldestVersion = 3;
/// model.so's `const uint64_t` holding interfaceHash() of the manifest it
/// was compiled with.
inline constexpr const char *kInterfaceSymbol = "dsmp_interface_hash";
/// A dim a dynamic variant sizes at run time (`?` in the manifest).
inline constexpr int64_t kDynamicDim = -1;

struct TensorSpec {
  std::string name;
  std::string dtype; // f32 f64 f16 bf16 i64 i32 i16 i8 u64 u32 u16 u8 bool
  std::vector<int64_t> dims;
  /// A dynamic variant's names of its kDynamicDim dims (`?NAME`; "" for a
  /// plain `?`), one per dim or empty: dims of one name have one size.
  std::vector<std::string> dimNames;
  /// An integer input the model was compiled for one value of (dsmp-compile
  /// --fix-input): its elements; empty for any value.
  std::vector<int64_t> fixed;
};

struct FileSpec {
  std::string name;
  uint64_t size = 0;
  uint64_t hash = 0;
};

struct Variant {
  std::string entry;
  /// Dims kDynamicDim are sized at run time (the dynamic entry point).
  bool dynamic = false;
  std::vector<TensorSpec> inputs, outputs;
  /// Rows of the timing counters model.so exports for this variant (an
  /// artifact compiled with --profile); 0: none.
  uint64_t profileRows = 0;
};

/// What a precision compile (dsmp-compile --tolerance) chose: the target
/// whose formats the code runs (the host CPU emulates them exactly when it
/// is not `Manifest::target`), the budget it met on its validation inputs,
/// and how many ops run in each format.
struct PrecisionSpec {
  std::string formatsOf; // sm_80, gfx90a, aarch64, ...
  std::string metric;    // rel-l2 | max-abs
  double tolerance = 0;
  std::vector<std::pair<std::string, uint64_t>> opsPerFormat;
  /// Under rel-l2, each output's absolute floor (ErrorFloor.h): its error
  /// is |y' - y| / max(|y|, floor * sqrt(n)). Empty: no floor.
  std::vector<double> errorFloors;
};

struct Manifest {
  std::string target; // x86_64 | aarch64: the CPU model.so runs on
  /// sm_80 | sm_90 | gfx90a | ...: the GPU its kernels run on (empty: none,
  /// the code runs on the CPU).
  std::string device;
  std::string source;
  FileSpec library, weights;
  /// profile.txt of a profiled artifact (empty name: not profiled).
  FileSpec profile;
  std::vector<Variant> variants;
  bool hasPrecision = false;
  PrecisionSpec precision;
  /// Per input and output: whether its first dim is a batch the runtime
  /// may split (empty: no split).
  std::vector<bool> batchInputs, batchOutputs;
};

/// Bytes per element of a manifest dtype, 0 if unknown.
inline unsigned dtypeSize(const std::string &dtype) {
  if (dtype == "f64" || dtype == "i64" || dtype == "u64")
    return 8;
  if (dtype == "f32" || dtype == "i32" || dtype == "u32")
    return 4;
  if (dtype == "f16" || dtype == "bf16" || dtype == "i16" || dtype == "u16")
    return 2;
  if (dtype == "i8" || dtype == "u8" || dtype == "bool")
    return 1;
  return 0;
}

/// FNV-1a, 64-bit, byte by byte.
inline uint64_t fnv1a(const void *data, size_t size,
                      uint64_t hash = 0xcbf29ce484222325ull) {
  const unsigned char *bytes = static_cast<const unsigned char *>(data);
  for (size_t i = 0; i < size; ++i) {
    hash ^= bytes[i];
    hash *= 0x100000001b3ull;
  }
  return hash;
}

/// The manifest's file hash: FNV-1a's step on 64-bit little-endian words
/// in four interleaved lanes (32 bytes a round), the tail bytes and then
/// the lanes folded in byte-wise FNV-1a seeded with the first lane xor the
/// size. Each step is a bijection of a lane's state, so a changed word
/// always changes its lane; any truncation changes the size. Four
/// independent multiply chains: 45 MB in ~6 ms where byte-wise FNV-1a
/// took 53 ms at every load of resnet18's weights.
inline uint64_t contentHash(const void *data, size_t size) {
  const unsigned char *bytes = static_cast<const unsigned char *>(data);
  uint64_t lanes[4] = {0xcbf29ce484222325ull, 0x84222325cbf29ce4ull,
                       0xcbf29ce4cbf29ce4ull, 0x8422232584222325ull};
  size_t i = 0;
  for (; i + 32 <= size; i += 32)
    for (int lane = 0; lane < 4; ++lane) {
      uint64_t word = 0;
      for (int b = 7; b >= 0; --b) // little-endian on any host
        word = (word << 8) | bytes[i + 8 * lane + b];
      lanes[lane] = (lanes[lane] ^ word) * 0x100000001b3ull;
    }
  uint64_t hash = fnv1a(bytes + i, size - i, lanes[0] ^ size);
  for (int lane = 1; lane < 4; ++lane)
    for (int b = 0; b < 8; ++b)
      hash = (hash ^ ((lanes[lane] >> (8 * b)) & 0xff)) * 0x100000001b3ull;
  return hash;
}

inline std::string encodeName(const std::string &name) {
  std::string out;
  for (unsigned char c : name) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                 (c >= '0' && c <= '9') || c == '_' || c == '.' || c == ':' ||
                 c == '/' || c == '-';
    if (plain) {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out.empty() ? "%" : out; // "%" alone: the empty name
}

inline bool decodeName(const std::string &text, std::string &name) {
  name.clear();
  if (text == "%")
    return true;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      name += text[i];
      continue;
    }
    if (i + 2 >= text.size())
      return false;
    unsigned value = 0;
    if (std::sscanf(text.substr(i + 1, 2).c_str(), "%2X", &value) != 1)
      return false;
    name += static_cast<char>(value);
    i += 2;
  }
  return true;
}

/// The manifest's variant lines: each entry point and its tensors.
inline void writeVariants(std::ostream &os, const Manifest &m) {
  if (!m.batchInputs.empty()) {
    os << "batch " << m.batchInputs.size();
    for (bool b : m.batchInputs)
      os << " " << b;
    os << " " << m.batchOutputs.size();
    for (bool b : m.batchOutputs)
      os << " " << b;
    os << "\n";
  }
  auto tensor = [&](const char *kind, const TensorSpec &t) {
    os << kind << " " << encodeName(t.name) << " " << t.dtype << " "
       << t.dims.size();
    for (size_t i = 0; i < t.dims.size(); ++i)
      if (t.dims[i] == kDynamicDim)
        os << " ?"
           << (i < t.dimNames.size() && !t.dimNames[i].empty()
                   ? encodeName(t.dimNames[i])
                   : "");
      else
        os << " " << t.dims[i];
    os << "\n";
  };
  for (const Variant &v : m.variants) {
    os << "variant " << v.entry << (v.dynamic ? " dynamic" : "") << "\n";
    if (v.profileRows)
      os << "profile-rows " << v.profileRows << "\n";
    for (const TensorSpec &t : v.inputs) {
      tensor("input", t);
      if (!t.fixed.empty()) {
        os << "fixed " << encodeName(t.name) << " " << t.fixed.size();
        for (int64_t x : t.fixed)
          os << " " << x;
        os << "\n";
      }
    }
    for (const TensorSpec &t : v.outputs)
      tensor("output", t);
  }
}

inline std::string writeManifest(const Manifest &m) {
  std::ostringstream os;
  os << "dsmp-artifact " << kVersion << "\n";
  os << "target " << m.target << "\n";
  if (!m.device.empty())
    os << "device " << m.device << "\n";
  os << "source " << encodeName(m.source) << "\n";
  auto file = [&](const char *kind, const FileSpec &f) {
    char hash[17];
    std::snprintf(hash, sizeof hash, "%016llx",
                  static_cast<unsigned long long>(f.hash));
    os << kind << " " << f.name << " " << f.size << " " << hash << "\n";
  };
  file("library", m.library);
  file("weights", m.weights);
  if (!m.profile.name.empty())
    file("profile", m.profile);
  if (m.hasPrecision) {
    char tolerance[32];
    std::snprintf(tolerance, sizeof tolerance, "%.17g", m.precision.tolerance);
    os << "precision " << m.precision.formatsOf << " " << m.precision.metric
       << " " << tolerance << "\n";
    if (!m.precision.opsPerFormat.empty()) {
      os << "formats";
      for (const auto &[format, count] : m.precision.opsPerFormat)
        os << " " << format << " " << count;
      os << "\n";
    }
    if (!m.precision.errorFloors.empty()) {
      os << "error-floor " << m.precision.errorFloors.size();
      for (double floor : m.precision.errorFloors) {
        char text[32];
        std::snprintf(text, sizeof text, "%.17g", floor);
        os << " " << text;
      }
      os << "\n";
    }
  }
  writeVariants(os, m);
  return os.str();
}

/// What model.so's code takes for granted about its caller: every variant's
/// entry point and tensors (names, dtypes, dims, fixed values) and the
/// weight file's size. The library carries this hash (kInterfaceSymbol) and
/// the runtime compares it with the manifest's before it binds anything, so
/// a manifest edited to other shapes, or to a weight file of another size,
/// cannot make the code read or write outside its buffers.
inline uint64_t interfaceHash(const Manifest &m) {
  std::ostringstream os;
  os << "weights " << m.weights.size << "\n";
  if (!m.device.empty())
    os << "device " << m.device << "\n";
  writeVariants(os, m);
  std::string text = os.str();
  return contentHash(text.data(), text.size());
}

/// Parses manifest text; on failure returns false and says why in `error`.
inline bool parseManifest(const std::string &text, Manifest &m,
                          std::string &error) {
  m = Manifest();
  std::istringstream lines(text);
  std::string line;
  int lineNo = 0;
  bool sawHeader = false, sawLibrary = false, sawWeights = false;
  auto fail = [&](const std::string &why) {
    error = "manifest line " + std::to_string(lineNo) + ": " + why;
    return false;
  };
  while (std::getline(lines, line)) {
    ++lineNo;
    if (line.empty())
      continue;
    std::istringstream fields(line);
    std::string kind;
    fields >> kind;
    if (!sawHeader) {
      int version = 0;
      if (kind != "dsmp-artifact" || !(fields >> version))
        return fail("not a dsmp artifact manifest");
      if (version < kOldestVersion || version > kVersion)
        return fail("artifact version " + std::to_string(version) +
                    ", this runtime reads versions " +
                    std::to_string(kOldestVersion) + " to " +
                    std::to_string(kVersion));
      sawHeader = true;
    } else if (kind == "target") {
      if (!(fields >> m.target))
        return fail("missing target");
    } else if (kind == "device") {
      std::string extra;
      if (!m.device.empty() || !(fields >> m.device) || (fields >> extra) ||
          m.device.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") !=
              std::string::npos)
        return fail("bad device entry");
    } else if (kind == "source") {
      std::string encoded;
      if (!(fields >> encoded) || !decodeName(encoded, m.source))
        return fail("bad source name");
    } else if (kind == "library" || kind == "weights" || kind == "profile") {
      FileSpec &f = kind == "library"   ? m.library
                    : kind == "weights" ? m.weights
                                        : m.profile;
      std::string hash;
      if (!f.name.empty() || !(fields >> f.name >> f.size >> hash) ||
          hash.size() != 16 ||
          hash.find_first_not_of("0123456789abcdef") != std::string::npos)
        return fail("bad " + kind + " entry");
      f.hash = std::strtoull(hash.c_str(), nullptr, 16);
      if (kind != "profile")
        (kind == "library" ? sawLibrary : sawWeights) = true;
    } else if (kind == "precision") {
      PrecisionSpec &p = m.precision;
      std::string tolerance, extra;
      if (m.hasPrecision || !(fields >> p.formatsOf >> p.metric >> tolerance) ||
          (fields >> extra))
        return fail("bad precision entry");
      char *end = nullptr;
      p.tolerance = std::strtod(tolerance.c_str(), &end);
      if (*end || !(p.tolerance > 0) || p.tolerance > 1e30)
        return fail("bad tolerance '" + tolerance + "'");
      if (p.metric != "rel-l2" && p.metric != "max-abs")
        return fail("unknown error metric '" + p.metric + "'");
      m.hasPrecision = true;
    } else if (kind == "error-floor") {
      std::vector<double> &floors = m.precision.errorFloors;
      size_t count = 0;
      if (!m.hasPrecision || !floors.empty() || !(fields >> count) ||
          count == 0 || count > 4096)
        return fail("bad error-floor entry");
      for (size_t i = 0; i < count; ++i) {
        std::string text;
        char *end = nullptr;
        if (!(fields >> text))
          return fail("bad error-floor entry");
        double floor = std::strtod(text.c_str(), &end);
        if (*end || !(floor > 0) || floor > 1e30)
          return fail("bad error floor '" + text + "'");
        floors.push_back(floor);
      }
      std::string extra;
      if (fields >> extra)
        return fail("bad error-floor entry");
    } else if (kind == "formats") {
      if (!m.hasPrecision || !m.precision.opsPerFormat.empty())
        return fail("formats without one precision entry before it");
      std::string format;
      while (fields >> format) {
        uint64_t count = 0;
        if (!(fields >> count) || m.precision.opsPerFormat.size() >= 16)
          return fail("bad formats entry");
        m.precision.opsPerFormat.emplace_back(format, count);
      }
      if (m.precision.opsPerFormat.empty())
        return fail("empty formats entry");
    } else if (kind == "batch") {
      auto flags = [&](std::vector<bool> &list) {
        size_t count = 0;
        if (!(fields >> count) || count > 4096)
          return false;
        for (size_t i = 0; i < count; ++i) {
          int flag = -1;
          if (!(fields >> flag) || (flag != 0 && flag != 1))
            return false;
          list.push_back(flag == 1);
        }
        return true;
      };
      std::string extra;
      if (!m.batchInputs.empty() || !m.variants.empty() ||
          !flags(m.batchInputs) || !flags(m.batchOutputs) ||
          m.batchInputs.empty() || (fields >> extra))
        return fail("bad batch entry");
    } else if (kind == "variant") {
      Variant v;
      if (!(fields >> v.entry))
        return fail("missing entry point");
      std::string flag, extra;
      if (fields >> flag) {
        if (flag != "dynamic" || (fields >> extra))
          return fail("bad variant entry");
        v.dynamic = true;
      }
      m.variants.push_back(std::move(v));
    } else if (kind == "profile-rows") {
      std::string extra;
      if (m.variants.empty() || m.variants.back().profileRows ||
          !(fields >> m.variants.back().profileRows) || (fields >> extra) ||
          m.variants.back().profileRows == 0 ||
          m.variants.back().profileRows > (uint64_t(1) << 22))
        return fail("bad profile-rows entry");
    } else if (kind == "input" || kind == "output") {
      if (m.variants.empty())
        return fail(kind + " before any variant");
      TensorSpec t;
      std::string encoded;
      size_t rank = 0;
      if (!(fields >> encoded >> t.dtype >> rank) ||
          !decodeName(encoded, t.name) || dtypeSize(t.dtype) == 0 || rank > 64)
        return fail("bad " + kind + " entry");
      for (size_t i = 0; i < rank; ++i) {
        std::string text;
        char *end = nullptr;
        if (!(fields >> text))
          return fail("bad dims for " + kind + " '" + t.name + "'");
        if (!text.empty() && text[0] == '?' && m.variants.back().dynamic) {
          std::string name;
          if (text.size() > 1 && !decodeName(text.substr(1), name))
            return fail("bad dim name for " + kind + " '" + t.name + "'");
          t.dims.push_back(kDynamicDim);
          t.dimNames.resize(rank);
          t.dimNames[i] = name;
          continue;
        }
        long long d = std::strtoll(text.c_str(), &end, 10);
        if (text.empty() || *end || d < 0 || text[0] == '-' || text[0] == '+')
          return fail("bad dims for " + kind + " '" + t.name + "'");
        t.dims.push_back(d);
      }
      Variant &v = m.variants.back();
      (kind == "input" ? v.inputs : v.outputs).push_back(std::move(t));
    } else if (kind == "fixed") {
      std::string encoded, name;
      size_t count = 0;
      if (m.variants.empty() || m.variants.back().inputs.empty() ||
          !(fields >> encoded >> count) || !decodeName(encoded, name) ||
          name != m.variants.back().inputs.back().name || count == 0 ||
          count > 4096)
        return fail("bad fixed entry");
      TensorSpec &t = m.variants.back().inputs.back();
      for (size_t i = 0; i < count; ++i) {
        int64_t x = 0;
        if (!(fields >> x))
          return fail("bad fixed values for '" + name + "'");
        t.fixed.push_back(x);
      }
    } else {
      return fail("unknown entry '" + kind + "'");
    }
  }
  if (!sawHeader)
    return fail("empty manifest");
  if (!sawLibrary || !sawWeights || m.target.empty() || m.variants.empty())
    return fail("the library, weights, target or variant entry is missing");
  // Variants differ in shapes only.
  const Variant &first = m.variants.front();
  for (const Variant &v : m.variants) {
    bool same = v.inputs.size() == first.inputs.size() &&
                v.outputs.size() == first.outputs.size();
    for (size_t i = 0; same && i < v.inputs.size(); ++i)
      same = v.inputs[i].name == first.inputs[i].name &&
             v.inputs[i].dtype == first.inputs[i].dtype &&
             v.inputs[i].dims.size() == first.inputs[i].dims.size();
    for (size_t i = 0; same && i < v.outputs.size(); ++i)
      same = v.outputs[i].name == first.outputs[i].name &&
             v.outputs[i].dtype == first.outputs[i].dtype &&
             v.outputs[i].dims.size() == first.outputs[i].dims.size();
    if (!same)
      return fail("variant '" + v.entry +
                  "' differs from the first in names, dtypes or ranks");
  }
  if (!m.batchInputs.empty()) {
    bool fits = m.batchInputs.size() == first.inputs.size() &&
                m.batchOutputs.size() == first.outputs.size();
    for (size_t i = 0; fits && i < first.inputs.size(); ++i)
      fits = !m.batchInputs[i] || !first.inputs[i].dims.empty();
    for (size_t i = 0; fits && i < first.outputs.size(); ++i)
      fits = !m.batchOutputs[i] || !first.outputs[i].dims.empty();
    if (!fits)
      return fail("the batch entry does not fit the variants' tensors");
  }
  if (!m.precision.errorFloors.empty() &&
      m.precision.errorFloors.size() != first.outputs.size())
    return fail("the error-floor entry does not fit the outputs");
  return true;
}

} // namespace dsmp::artifact

#endif // DSMP_RUNTIME_MANIFEST_H
