//===- Model.cpp - libdsmprt: load, bind and run an artifact ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dsmp/runtime/Manifest.h"
#include "dsmp/runtime/Profiler.h"
#include "dsmp/runtime/dsmprt.h"
#include "gpu/DeviceBackend.h"
#include "runtime/lib/LastError.h"
#include "runtime/lib/ModelProfiler.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <malloc.h>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace art = dsmp::artifact;

namespace {
thread_local std::string lastError;

int fail(const std::string &message) {
  lastError = message;
  return -1;
}
} // namespace

int dsmprt::setLastError(const std::string &message) { return fail(message); }

namespace {

#if defined(__x86_64__)
constexpr const char *kHostTarget = "x86_64";
constexpr uint16_t kHostMachine = 62; // EM_X86_64
#elif defined(__aarch64__)
constexpr const char *kHostTarget = "aarch64";
constexpr uint16_t kHostMachine = 183; // EM_AARCH64
#else
constexpr const char *kHostTarget = "unknown";
constexpr uint16_t kHostMachine = 0;
#endif

/// A whole file, read or mapped read-only.
class FileBytes {
public:
  ~FileBytes() {
    if (mapped)
      munmap(mapped, size);
  }
  bool open(const std::string &path, std::string &error) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      error = "cannot open '" + path + "': " + std::strerror(errno);
      return false;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      error = "'" + path + "' is not a regular file";
      return false;
    }
    size = static_cast<size_t>(st.st_size);
    if (size) {
      mapped = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
      if (mapped == MAP_FAILED) {
        mapped = nullptr;
        ::close(fd);
        error = "cannot map '" + path + "': " + std::strerror(errno);
        return false;
      }
    }
    ::close(fd);
    return true;
  }
  const unsigned char *data() const {
    return static_cast<const unsigned char *>(mapped);
  }
  size_t size = 0;

private:
  void *mapped = nullptr;
};

bool readText(const std::string &path, std::string &text, std::string &error) {
  FileBytes file;
  if (!file.open(path, error))
    return false;
  if (file.size > (1u << 24)) {
    error = "'" + path + "' is too large for a manifest";
    return false;
  }
  text.assign(reinterpret_cast<const char *>(file.data()), file.size);
  return true;
}

/// Checks the bytes against the manifest's size and hash.
bool checkFile(const FileBytes &file, const art::FileSpec &spec,
               const std::string &path, std::string &error) {
  if (file.size != spec.size) {
    error = "'" + path + "' has " + std::to_string(file.size) +
            " bytes, the manifest says " + std::to_string(spec.size) +
            " (truncated or replaced?)";
    return false;
  }
  if (art::contentHash(file.data(), file.size) != spec.hash) {
    error = "'" + path + "' does not match the manifest's checksum";
    return false;
  }
  return true;
}

/// A shared object for this machine: ELF64, little-endian, this CPU.
bool checkElf(const FileBytes &file, const std::string &path,
              std::string &error) {
  const unsigned char *d = file.data();
  if (file.size < 64 || std::memcmp(d,
                                    "\x7f"
                                    "ELF",
                                    4) != 0) {
    error = "'" + path + "' is not an ELF shared library";
    return false;
  }
  uint16_t machine = static_cast<uint16_t>(d[18] | (d[19] << 8));
  if (d[4] != 2 || d[5] != 1 || machine != kHostMachine) {
    error = "'" + path + "' holds code for another CPU (ELF machine " +
            std::to_string(machine) + "); this runtime runs on " + kHostTarget;
    return false;
  }
  return true;
}

/// The manifest's dtype names and their C API codes.
constexpr std::pair<const char *, dsmp_dtype> kDtypeNames[] = {
    {"f32", DSMP_F32},   {"f64", DSMP_F64}, {"f16", DSMP_F16},
    {"bf16", DSMP_BF16}, {"i64", DSMP_I64}, {"i32", DSMP_I32},
    {"i16", DSMP_I16},   {"i8", DSMP_I8},   {"u8", DSMP_U8},
    {"u16", DSMP_U16},   {"u32", DSMP_U32}, {"u64", DSMP_U64},
    {"bool", DSMP_BOOL}};

dsmp_dtype dtypeCode(const std::string &dtype) {
  for (auto [name, code] : kDtypeNames)
    if (dtype == name)
      return code;
  return DSMP_BOOL;
}

/// The manifest's name of a C API dtype ("f64"), or "dtype code N" for a
/// number that is none.
std::string dtypeName(int code) {
  for (auto [name, known] : kDtypeNames)
    if (code == known)
      return name;
  return "dtype code " + std::to_string(code);
}

std::string dimsText(const int64_t *dims, size_t rank) {
  std::string text = "[";
  for (size_t i = 0; i < rank; ++i)
    text += (i ? "x" : "") + (dims[i] == art::kDynamicDim
                                  ? std::string("?")
                                  : std::to_string(dims[i]));
  return text + "]";
}

using EntryPoint = void (*)(void *const *, const void *);
/// A dynamic variant's entry point (dsmp-emit-entry-point{dynamic}).
using OutputBufferFn = void *(*)(void *, int64_t, const int64_t *);
using DynamicEntryPoint = int32_t (*)(void *const *, const void *,
                                      const int64_t *, OutputBufferFn, void *);

/// dlopen keeps every library it loaded for the process's life
/// (RTLD_NODELETE, below) and matches a path by name, so a library
/// recompiled at a path loaded before (a notebook compiling into one folder
/// twice, dsmp-compile measuring its artifact after a rerun) would run the
/// old code. A path loaded before with other contents (`hash`) loads from a
/// private copy of `bytes` instead.
void *openLibrary(const std::string &path, uint64_t hash,
                  const FileBytes &bytes, std::string &error) {
  static std::mutex lock;
  static std::map<std::string, uint64_t> loadedFrom;
  std::lock_guard<std::mutex> guard(lock);
  auto [it, fresh] = loadedFrom.try_emplace(path, hash);
  std::string from = path;
  if (!fresh && it->second != hash) {
    const char *tmp = std::getenv("TMPDIR");
    from = std::string(tmp && *tmp ? tmp : "/tmp") + "/dsmp-model-XXXXXX.so";
    int fd = mkstemps(from.data(), 3);
    bool written = fd >= 0;
    for (size_t done = 0; written && done < bytes.size;) {
      ssize_t n = ::write(fd, bytes.data() + done, bytes.size - done);
      written = n > 0;
      done += written ? static_cast<size_t>(n) : 0;
    }
    if (fd >= 0)
      ::close(fd);
    if (!written) {
      error = "cannot load '" + path + "' again after it changed: cannot " +
              "write a copy to '" + from + "': " + std::strerror(errno);
      if (fd >= 0)
        ::unlink(from.c_str());
      return nullptr;
    }
  }
  // Kept mapped after dlclose: a GEMM library's OpenMP runtime (oneDNN's
  // libgomp) leaves idle worker threads that crash if their code is
  // unmapped under them. The weights, the big part, are still unmapped.
  void *library = dlopen(from.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!library)
    error = "cannot load '" + path + "': " + dlerror();
  if (from != path)
    ::unlink(from.c_str());
  return library;
}
} // namespace

namespace {
/// Caller memory bound to an input or output.
struct Binding {
  void *data = nullptr;
  std::vector<int64_t> dims;
  bool bound = false;
};

std::string shapesText(const std::vector<art::Variant> &variants, size_t input,
                       bool isInput) {
  std::string text;
  for (const art::Variant &v : variants) {
    const art::TensorSpec &t = isInput ? v.inputs[input] : v.outputs[input];
    text +=
        (text.empty() ? "" : " or ") + dimsText(t.dims.data(), t.dims.size());
  }
  return text;
}

size_t byteSize(const std::string &dtype, const std::vector<int64_t> &dims) {
  size_t bytes = art::dtypeSize(dtype);
  for (int64_t d : dims)
    bytes *= static_cast<size_t>(d);
  return bytes;
}

size_t byteSize(const art::TensorSpec &t) { return byteSize(t.dtype, t.dims); }

/// Whether `given` has the rank of `spec` and its dims where they are not
/// dynamic.
bool fitsDims(const std::vector<int64_t> &spec,
              const std::vector<int64_t> &given) {
  if (spec.size() != given.size())
    return false;
  for (size_t i = 0; i < spec.size(); ++i)
    if (given[i] < 0 || (spec[i] != art::kDynamicDim && spec[i] != given[i]))
      return false;
  return true;
}

/// Whether two shapes agree past their first dim.
bool sameSample(const std::vector<int64_t> &a, const std::vector<int64_t> &b) {
  return !a.empty() && a.size() == b.size() &&
         std::equal(a.begin() + 1, a.end(), b.begin() + 1);
}

/// One slice of a split batch: `size` samples from `start`, through a
/// variant compiled for that batch.
struct Slice {
  size_t variant;
  int64_t start, size;
};
} // namespace

struct dsmp_model {
  std::string dir;
  art::Manifest manifest;
  FileBytes weights;
  void *library = nullptr;
  std::vector<EntryPoint> entries; // one per variant (null: dynamic)
  std::vector<DynamicEntryPoint> dynamicEntries; // null: static
  std::vector<Binding> inputs, outputs;
  // Each variant's own output buffers, allocated on its first run.
  std::vector<std::vector<std::vector<unsigned char>>> ownOutputs;
  size_t selected = 0; // the variant the bound inputs select (or last ran)
  std::vector<void *> io;
  // A split batch (manifest `batch` line): the shapes of the last one
  // planned, and the outputs of the last split run not bound by the caller.
  mutable std::vector<std::vector<int64_t>> splitInputDims, splitOutputDims;
  std::vector<std::vector<unsigned char>> splitOutputs;
  bool lastRunSplit = false;
  // A dynamic variant's last run: its outputs' computed dims, and the
  // outputs not bound by the caller.
  std::vector<std::vector<int64_t>> dynamicOutputDims;
  std::vector<std::vector<unsigned char>> dynamicOutputs;
  bool lastRunDynamic = false;
  alignas(64) unsigned char emptyWeights[64] = {};
  // A device artifact: its GPU's backend and the weights uploaded there.
  dsmprt::DeviceBackend *device = nullptr;
  void *deviceWeights = nullptr;
  // An artifact compiled with --profile: its counters, and the last
  // profile handed out (dsmp_profile_json/_text).
  std::unique_ptr<dsmp::Profiler> profiler;
  std::string profileText;

  ~dsmp_model() {
    if (device && deviceWeights) {
      std::lock_guard<std::mutex> lock(device->runLock);
      std::string error;
      if (device->enter(error))
        device->release(deviceWeights);
    }
    if (library) {
      // The artifact's buffer cache (it stays mapped: RTLD_NODELETE).
      using Release = void (*)();
      if (auto release =
              reinterpret_cast<Release>(dlsym(library, "dsmp_release_buffers")))
        release();
      dlclose(library);
    }
  }

  const art::Variant &first() const { return manifest.variants.front(); }
  std::string path(const char *name) const { return dir + "/" + name; }

  int findTensor(const std::vector<art::TensorSpec> &list,
                 const char *name) const {
    for (size_t i = 0; i < list.size(); ++i)
      if (list[i].name == name)
        return static_cast<int>(i);
    return -1;
  }

  /// Checks a caller's tensor against the variants', naming what differs.
  int checkTensor(bool isInput, size_t index, dsmp_dtype dtype,
                  const int64_t *dims, size_t rank, const void *data,
                  size_t bytes) const {
    const art::TensorSpec &spec =
        isInput ? first().inputs[index] : first().outputs[index];
    std::string what = std::string(isInput ? "input" : "output") + " '" +
                       spec.name + "' of '" + dir + "'";
    if (dtype != dtypeCode(spec.dtype))
      return fail(what + " is " + spec.dtype + ", got " + dtypeName(dtype));
    if (rank && !dims)
      return fail(what + ": dims is NULL");
    const art::TensorSpec *match = nullptr;
    std::vector<int64_t> given(dims, dims + rank);
    bool batched = isBatched(isInput, index);
    for (const art::Variant &v : manifest.variants) {
      const art::TensorSpec &t = isInput ? v.inputs[index] : v.outputs[index];
      if (t.dims == given || (v.dynamic && fitsDims(t.dims, given)) ||
          (batched && sameSample(t.dims, given) && given[0] > 0 && !match))
        match = &t;
    }
    if (!match)
      return fail(what + " has shape " +
                  shapesText(manifest.variants, index, isInput) +
                  (batched ? " (any first dim)" : "") + ", got " +
                  dimsText(dims, rank) +
                  " (the artifact was compiled for those shapes)");
    size_t need = byteSize(spec.dtype, given);
    if (bytes != need)
      return fail(what + " needs " + std::to_string(need) + " bytes, got " +
                  std::to_string(bytes));
    if (!data && bytes)
      return fail(what + ": data is NULL");
    return 0;
  }

  /// Input or output `i`'s dims under dynamic variant `variant`: a bound
  /// input's; an output's from the last run of it, else the manifest's
  /// (kDynamicDim where sized at run time).
  const int64_t *dynamicDims(bool isInput, size_t variant, size_t i) const {
    const art::Variant &v = manifest.variants[variant];
    if (isInput)
      return inputs[i].bound ? inputs[i].dims.data() : v.inputs[i].dims.data();
    if (lastRunDynamic && selected == variant && i < dynamicOutputDims.size())
      return dynamicOutputDims[i].data();
    return v.outputs[i].dims.data();
  }

  const std::vector<std::vector<int64_t>> &splitDims(bool isInput) const {
    return isInput ? splitInputDims : splitOutputDims;
  }

  bool isBatched(bool isInput, size_t index) const {
    const std::vector<bool> &flags =
        isInput ? manifest.batchInputs : manifest.batchOutputs;
    return index < flags.size() && flags[index];
  }

  /// The bound inputs' batch as slices through the variants of the same
  /// other dims, largest first; false (and why) when there is none. Sets
  /// splitInputDims/splitOutputDims to the whole batch's shapes.
  bool planSplit(std::vector<Slice> &plan, std::string &why) const {
    plan.clear();
    if (manifest.batchInputs.empty()) {
      why = "the artifact was not compiled to split batches";
      return false;
    }
    int64_t batch = -1;
    for (size_t i = 0; i < inputs.size(); ++i)
      if (isBatched(true, i)) {
        if (inputs[i].dims.empty() ||
            (batch >= 0 && inputs[i].dims[0] != batch)) {
          why = "the batched inputs differ in their first dim";
          return false;
        }
        batch = inputs[i].dims[0];
      }
    // Variants that fit the bound inputs but for the batch, by batch size.
    std::vector<std::pair<int64_t, size_t>> sizes;
    for (size_t v = 0; v < manifest.variants.size(); ++v) {
      const art::Variant &variant = manifest.variants[v];
      bool fits = true;
      int64_t size = -1;
      for (size_t i = 0; fits && i < inputs.size(); ++i) {
        const std::vector<int64_t> &dims = variant.inputs[i].dims;
        if (isBatched(true, i)) {
          fits = sameSample(dims, inputs[i].dims);
          size = dims.empty() ? -1 : dims[0];
        } else {
          fits = dims == inputs[i].dims;
        }
      }
      if (fits && size > 0)
        sizes.emplace_back(size, v);
    }
    std::sort(sizes.rbegin(), sizes.rend());
    for (int64_t start = 0; start < batch;) {
      auto slice = std::find_if(sizes.begin(), sizes.end(), [&](auto &s) {
        return s.first <= batch - start;
      });
      if (slice == sizes.end()) {
        why = sizes.empty() ? "no variant has these shapes past the first dim"
                            : "no variant has a batch of at most " +
                                  std::to_string(batch - start);
        return false;
      }
      plan.push_back({slice->second, start, slice->first});
      start += slice->first;
    }
    if (plan.empty()) {
      why = "the batch is empty";
      return false;
    }
    // The whole batch's shapes: a variant's, with the first dim scaled.
    const art::Variant &first = manifest.variants[plan.front().variant];
    auto scaled = [&](const art::TensorSpec &t, bool batchedTensor) {
      std::vector<int64_t> dims = t.dims;
      if (batchedTensor)
        dims[0] = dims[0] / plan.front().size * batch;
      return dims;
    };
    splitInputDims.clear();
    splitOutputDims.clear();
    for (size_t i = 0; i < first.inputs.size(); ++i)
      splitInputDims.push_back(scaled(first.inputs[i], isBatched(true, i)));
    for (size_t i = 0; i < first.outputs.size(); ++i)
      splitOutputDims.push_back(scaled(first.outputs[i], isBatched(false, i)));
    return true;
  }

  /// The variant for the bound inputs' shapes, or -1: the static one
  /// compiled for them, else a dynamic one they fit (`why` says what does
  /// not fit a dynamic variant).
  int matchVariant(std::string *why = nullptr) const {
    for (size_t v = 0; v < manifest.variants.size(); ++v) {
      bool all = !manifest.variants[v].dynamic;
      for (size_t i = 0; all && i < inputs.size(); ++i)
        all = inputs[i].dims == manifest.variants[v].inputs[i].dims;
      if (all)
        return static_cast<int>(v);
    }
    for (size_t v = 0; v < manifest.variants.size(); ++v)
      if (manifest.variants[v].dynamic && fitsDynamic(v, why))
        return static_cast<int>(v);
    return -1;
  }

  /// Whether the bound inputs fit dynamic variant `v`: their static dims,
  /// and one size for each dim name.
  bool fitsDynamic(size_t v, std::string *why) const {
    const art::Variant &variant = manifest.variants[v];
    std::map<std::string, std::pair<int64_t, std::string>> sizes;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const art::TensorSpec &t = variant.inputs[i];
      if (!fitsDims(t.dims, inputs[i].dims))
        return false;
      for (size_t d = 0; d < t.dimNames.size(); ++d) {
        if (t.dims[d] != art::kDynamicDim || t.dimNames[d].empty())
          continue;
        std::string where = "'" + t.name + "' dim " + std::to_string(d);
        auto [it, fresh] = sizes.try_emplace(
            t.dimNames[d], std::make_pair(inputs[i].dims[d], where));
        if (!fresh && it->second.first != inputs[i].dims[d]) {
          if (why)
            *why = "dim '" + t.dimNames[d] + "' is " +
                   std::to_string(it->second.first) + " in " +
                   it->second.second + " but " +
                   std::to_string(inputs[i].dims[d]) + " in " + where;
          return false;
        }
      }
    }
    return true;
  }
};

extern "C" {

const char *dsmp_version(void) { return DSMP_VERSION_STRING; }

const char *dsmp_last_error(void) { return lastError.c_str(); }

int dsmp_model_load(const char *artifactDir, dsmp_model **out) {
  if (!out)
    return fail("dsmp_model_load: model pointer is NULL");
  *out = nullptr;
  if (!artifactDir)
    return fail("dsmp_model_load: artifact folder is NULL");
  auto model = std::make_unique<dsmp_model>();
  model->dir = artifactDir;
#ifdef __GLIBC__
  // The generated code allocates its intermediate buffers with malloc on
  // every run. Keep freed memory in the heap instead of unmapping it, so
  // the next run reuses pages instead of faulting in fresh zeroed ones
  // (a quarter of resnet18's time otherwise).
  static const bool tuned = [] {
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    return true;
  }();
  (void)tuned;
#endif
  std::string error, text;
  std::string manifestPath = model->path(art::kManifestName);
  if (!readText(manifestPath, text, error))
    return fail(error + " (is '" + model->dir + "' a dsmp artifact?)");
  if (!art::parseManifest(text, model->manifest, error))
    return fail(manifestPath + ": " + error);
  const art::Manifest &m = model->manifest;
  if (m.target != kHostTarget)
    return fail("'" + model->dir + "' was compiled for " + m.target +
                "; this runtime runs on " + kHostTarget);
  if (m.library.name != art::kLibraryName ||
      m.weights.name != art::kWeightsName)
    return fail(manifestPath + ": unexpected file names");
  for (const art::Variant &v : m.variants)
    for (const auto *list : {&v.inputs, &v.outputs})
      for (const art::TensorSpec &t : *list) {
        size_t elements = 1;
        for (int64_t d : t.dims) {
          if (d == art::kDynamicDim && v.dynamic)
            continue; // sized at run time
          if (d != 0 && elements > (size_t(1) << 38) / static_cast<size_t>(d))
            return fail(manifestPath + ": tensor '" + t.name +
                        "' is too large");
          elements *= static_cast<size_t>(d);
        }
      }

  std::string libraryPath = model->path(art::kLibraryName);
  FileBytes libraryBytes;
  if (!libraryBytes.open(libraryPath, error) ||
      !checkFile(libraryBytes, m.library, libraryPath, error) ||
      !checkElf(libraryBytes, libraryPath, error))
    return fail(error);
  std::string weightsPath = model->path(art::kWeightsName);
  if (!model->weights.open(weightsPath, error) ||
      !checkFile(model->weights, m.weights, weightsPath, error))
    return fail(error);
  // A profiled artifact: what its timing counters mean.
  art::ProfileTable profileTable;
  if (!m.profile.name.empty()) {
    if (m.profile.name != art::kProfileName || !m.device.empty())
      return fail(manifestPath + ": unexpected profile entry");
    std::string profilePath = model->path(art::kProfileName);
    FileBytes profile;
    if (!profile.open(profilePath, error) ||
        !checkFile(profile, m.profile, profilePath, error))
      return fail(error);
    std::string profileText(reinterpret_cast<const char *>(profile.data()),
                            profile.size);
    if (!art::parseProfileTable(profileText, profileTable, error))
      return fail(profilePath + ": " + error);
  }

  // A device artifact: its GPU, with the weights uploaded once.
  if (!m.device.empty()) {
    model->device = dsmprt::DeviceBackend::forDevice(m.device, error);
    if (!model->device)
      return fail("'" + model->dir + "' runs on " + m.device + ": " + error);
    std::lock_guard<std::mutex> lock(model->device->runLock);
    if (!model->device->enter(error))
      return fail("'" + model->dir + "': " + error);
    model->deviceWeights = model->device->allocate(model->weights.size, error);
    if (!model->deviceWeights ||
        !model->device->upload(model->deviceWeights, model->weights.data(),
                               model->weights.size, error) ||
        !model->device->finish(error))
      return fail("'" + model->dir + "': cannot upload its weights (" +
                  std::to_string(model->weights.size) + " bytes): " + error);
  }

  model->library =
      openLibrary(libraryPath, m.library.hash, libraryBytes, error);
  if (!model->library)
    return fail(error);
  // The code was compiled for the manifest's shapes and weight size: a
  // manifest that says otherwise would let it read or write past buffers.
  const auto *interface = static_cast<const uint64_t *>(
      dlsym(model->library, art::kInterfaceSymbol));
  if (!interface || *interface != art::interfaceHash(m))
    return fail(manifestPath + ": does not describe '" + libraryPath +
                "' (inputs, outputs or weight size differ from what it was "
                "compiled for); recompile the artifact");
  if (model->device) {
    using Bind = int (*)(const dsmp_gpu_api *);
    auto bind =
        reinterpret_cast<Bind>(dlsym(model->library, DSMP_GPU_BIND_SYMBOL));
    if (!bind || bind(model->device->api()) != 0)
      return fail("'" + libraryPath +
                  "' does not take this runtime's GPU launch table; "
                  "recompile the artifact");
  }
  for (const art::Variant &v : m.variants) {
    void *entry = dlsym(model->library, v.entry.c_str());
    if (!entry)
      return fail("'" + libraryPath + "' has no entry point " + v.entry);
    if (v.dynamic && (model->device || !m.profile.name.empty()))
      return fail(manifestPath + ": a dynamic variant runs on the CPU and is "
                                 "not profiled");
    model->entries.push_back(v.dynamic ? nullptr
                                       : reinterpret_cast<EntryPoint>(entry));
    model->dynamicEntries.push_back(
        v.dynamic ? reinterpret_cast<DynamicEntryPoint>(entry) : nullptr);
  }
  if (!m.profile.name.empty()) {
    model->profiler = dsmp::Profiler::create(std::move(profileTable), m,
                                             model->library, error);
    if (!model->profiler)
      return fail("'" + model->dir + "': " + error);
  }
  model->inputs.resize(m.variants.front().inputs.size());
  model->outputs.resize(m.variants.front().outputs.size());
  model->ownOutputs.resize(m.variants.size());
  *out = model.release();
  lastError.clear();
  return 0;
}

void dsmp_model_free(dsmp_model *model) { delete model; }

const char *dsmp_model_target(const dsmp_model *model) {
  return model ? model->manifest.target.c_str() : nullptr;
}

const char *dsmp_model_device(const dsmp_model *model) {
  return model && !model->manifest.device.empty()
             ? model->manifest.device.c_str()
             : nullptr;
}

const char *dsmp_model_formats_of(const dsmp_model *model) {
  return model && model->manifest.hasPrecision
             ? model->manifest.precision.formatsOf.c_str()
             : nullptr;
}

const char *dsmp_model_error_metric(const dsmp_model *model) {
  return model && model->manifest.hasPrecision
             ? model->manifest.precision.metric.c_str()
             : nullptr;
}

double dsmp_model_tolerance(const dsmp_model *model) {
  return model && model->manifest.hasPrecision
             ? model->manifest.precision.tolerance
             : 0;
}

double dsmp_model_error_floor(const dsmp_model *model, size_t i) {
  if (!model)
    return 0;
  const std::vector<double> &floors = model->manifest.precision.errorFloors;
  return i < floors.size() ? floors[i] : 0;
}

size_t dsmp_num_inputs(const dsmp_model *model) {
  return model ? model->inputs.size() : 0;
}
size_t dsmp_num_outputs(const dsmp_model *model) {
  return model ? model->outputs.size() : 0;
}

// Names and dtypes are the same in every variant; shapes are those of the
// variant the bound inputs select, or of the whole batch they split into.
#define DSMP_TENSOR_QUERIES(kind, list, isInput)                               \
  const char *dsmp_##kind##_name(const dsmp_model *model, size_t i) {          \
    return model && i < model->list.size()                                     \
               ? model->first().list[i].name.c_str()                           \
               : nullptr;                                                      \
  }                                                                            \
  dsmp_dtype dsmp_##kind##_dtype(const dsmp_model *model, size_t i) {          \
    return model && i < model->list.size()                                     \
               ? dtypeCode(model->first().list[i].dtype)                       \
               : static_cast<dsmp_dtype>(0);                                   \
  }                                                                            \
  size_t dsmp_##kind##_rank(const dsmp_model *model, size_t i) {               \
    return model && i < model->list.size()                                     \
               ? model->first().list[i].dims.size()                            \
               : 0;                                                            \
  }                                                                            \
  const int64_t *dsmp_##kind##_dims(const dsmp_model *model, size_t i) {       \
    if (!model || i >= model->list.size())                                     \
      return nullptr;                                                          \
    int v = model->matchVariant();                                             \
    std::vector<Slice> plan;                                                   \
    std::string why;                                                           \
    if (v < 0 && model->planSplit(plan, why))                                  \
      return model->splitDims(isInput)[i].data();                              \
    size_t variant = v >= 0 ? static_cast<size_t>(v) : model->selected;        \
    if (model->manifest.variants[variant].dynamic)                             \
      return model->dynamicDims(isInput, variant, i);                          \
    return model->manifest.variants[variant].list[i].dims.data();              \
  }
DSMP_TENSOR_QUERIES(input, inputs, true)
DSMP_TENSOR_QUERIES(output, outputs, false)
#undef DSMP_TENSOR_QUERIES

/// Element k of an array of T (any alignment).
extern "C++" {
template <typename T> static int64_t elementAt(const void *data, size_t k) {
  T x;
  std::memcpy(&x, static_cast<const char *>(data) + sizeof(T) * k, sizeof(T));
  return static_cast<int64_t>(x);
}
}

/// Element k of an integer or bool input, as int64.
static int64_t integerAt(const std::string &dtype, const void *data, size_t k) {
  if (dtype == "i64" || dtype == "u64")
    return elementAt<int64_t>(data, k);
  if (dtype == "i32")
    return elementAt<int32_t>(data, k);
  if (dtype == "u32")
    return elementAt<uint32_t>(data, k);
  if (dtype == "u16")
    return elementAt<uint16_t>(data, k);
  if (dtype == "i16")
    return elementAt<int16_t>(data, k);
  if (dtype == "i8")
    return elementAt<int8_t>(data, k);
  return elementAt<uint8_t>(data, k); // u8, bool
}

int dsmp_bind_input(dsmp_model *model, const char *name, dsmp_dtype dtype,
                    const int64_t *dims, size_t rank, const void *data,
                    size_t bytes) {
  if (!model || !name)
    return fail("dsmp_bind_input: model or name is NULL");
  int index = model->findTensor(model->first().inputs, name);
  if (index < 0) {
    std::string known;
    for (const art::TensorSpec &t : model->first().inputs)
      known += (known.empty() ? "'" : ", '") + t.name + "'";
    return fail("'" + model->dir + "' has no input '" + name +
                "' (inputs: " + known + ")");
  }
  if (model->checkTensor(true, index, dtype, dims, rank, data, bytes))
    return -1;
  Binding &b = model->inputs[index];
  b.data = const_cast<void *>(data);
  b.dims.assign(dims, dims + rank);
  b.bound = true;
  return 0;
}

int dsmp_bind_output(dsmp_model *model, const char *name, dsmp_dtype dtype,
                     const int64_t *dims, size_t rank, void *data,
                     size_t bytes) {
  if (!model || !name)
    return fail("dsmp_bind_output: model or name is NULL");
  int index = model->findTensor(model->first().outputs, name);
  if (index < 0)
    return fail("'" + model->dir + "' has no output '" + name + "'");
  if (model->checkTensor(false, index, dtype, dims, rank, data, bytes))
    return -1;
  Binding &b = model->outputs[index];
  b.data = data;
  b.dims.assign(dims, dims + rank);
  b.bound = true;
  return 0;
}

/// Inputs fixed at compile time (--fix-input) must hold those values.
static int checkFixed(const dsmp_model *model, const art::Variant &v) {
  for (size_t i = 0; i < v.inputs.size(); ++i) {
    const art::TensorSpec &t = v.inputs[i];
    if (t.fixed.empty())
      continue;
    std::string got;
    bool same = true;
    for (size_t k = 0; k < t.fixed.size(); ++k) {
      int64_t x = integerAt(t.dtype, model->inputs[i].data, k);
      same &= x == t.fixed[k];
      got += (k ? "," : "") + std::to_string(x);
    }
    if (!same) {
      std::string want;
      for (size_t k = 0; k < t.fixed.size(); ++k)
        want += (k ? "," : "") + std::to_string(t.fixed[k]);
      return fail("input '" + t.name + "' of '" + model->dir +
                  "' was fixed to " + want +
                  " when it was compiled (--fix-input); got " + got);
    }
  }
  return 0;
}

/// Runs variant `variant`'s entry point on model->io (host pointers): on the
/// CPU directly; for a device artifact through device copies of the inputs
/// and outputs, the only host/device transfers of a run.
static int invoke(dsmp_model *model, size_t variant) {
  const art::Variant &v = model->manifest.variants[variant];
  if (!model->device) {
    const void *weights =
        model->weights.size ? model->weights.data() : model->emptyWeights;
    if (!model->profiler) {
      model->entries[variant](model->io.data(), weights);
      return 0;
    }
    auto start = std::chrono::steady_clock::now();
    model->entries[variant](model->io.data(), weights);
    auto elapsed = std::chrono::steady_clock::now() - start;
    model->profiler->recordRun(
        variant,
        std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count());
    return 0;
  }
  dsmprt::DeviceBackend &device = *model->device;
  std::lock_guard<std::mutex> lock(device.runLock);
  std::string error;
  if (!device.enter(error))
    return fail("'" + model->dir + "': " + error);
  const dsmp_gpu_api &api = *device.api();
  std::vector<void *> deviceIo;
  std::vector<size_t> sizes;
  for (const art::TensorSpec &t : v.inputs)
    sizes.push_back(byteSize(t));
  for (const art::TensorSpec &t : v.outputs)
    sizes.push_back(byteSize(t));
  auto release = [&] {
    for (void *pointer : deviceIo)
      api.free(api.backend, pointer);
  };
  bool ok = true;
  for (size_t i = 0; i < sizes.size() && ok; ++i) {
    void *pointer = api.alloc(api.backend, sizes[i]);
    ok = pointer != nullptr;
    if (ok)
      deviceIo.push_back(pointer);
    if (ok && i < v.inputs.size())
      ok = device.upload(pointer, model->io[i], sizes[i], error);
  }
  if (ok)
    model->entries[variant](deviceIo.data(), model->deviceWeights);
  for (size_t i = v.inputs.size(); i < sizes.size() && ok; ++i)
    ok = device.download(model->io[i], deviceIo[i], sizes[i], error);
  std::string runError;
  bool finished = device.finish(runError);
  release();
  if (!finished || !ok) {
    // A run that ran out of memory leaves the cache to the next.
    device.trimCache();
    return fail("'" + model->dir + "' on " + device.description() + ": " +
                (runError.empty() ? error : runError));
  }
  return 0;
}

/// Runs a batch no variant was compiled for as consecutive slices, each
/// through the variant of its size: the batched inputs and outputs are
/// addressed at the slice's first sample, the others passed whole (every
/// slice computes the same values into an unbatched output).
static int runSplit(dsmp_model *model, const std::vector<Slice> &plan) {
  const std::vector<std::vector<int64_t>> &outDims = model->splitOutputDims;
  const art::Variant &first = model->manifest.variants[plan.front().variant];
  std::vector<unsigned char *> outputs;
  for (size_t i = 0; i < first.outputs.size(); ++i) {
    const Binding &b = model->outputs[i];
    if (b.bound && b.dims != outDims[i])
      return fail("output '" + first.outputs[i].name + "' of '" + model->dir +
                  "' is bound with shape " +
                  dimsText(b.dims.data(), b.dims.size()) +
                  ", these inputs give " +
                  dimsText(outDims[i].data(), outDims[i].size()));
  }
  model->splitOutputs.resize(first.outputs.size());
  for (size_t i = 0; i < first.outputs.size(); ++i) {
    Binding &b = model->outputs[i];
    if (b.bound) {
      outputs.push_back(static_cast<unsigned char *>(b.data));
      continue;
    }
    auto &own = model->splitOutputs[i];
    own.resize(
        std::max<size_t>(byteSize(first.outputs[i].dtype, outDims[i]), 1));
    outputs.push_back(own.data());
  }
  for (const Slice &slice : plan) {
    const art::Variant &v = model->manifest.variants[slice.variant];
    if (checkFixed(model, v))
      return -1;
    model->io.clear();
    for (size_t i = 0; i < v.inputs.size(); ++i) {
      auto *data = static_cast<unsigned char *>(model->inputs[i].data);
      size_t perSample = byteSize(v.inputs[i]) / slice.size;
      model->io.push_back(
          model->isBatched(true, i) ? data + slice.start * perSample : data);
    }
    for (size_t i = 0; i < v.outputs.size(); ++i) {
      size_t perSample = byteSize(v.outputs[i]) / slice.size;
      model->io.push_back(model->isBatched(false, i)
                              ? outputs[i] + slice.start * perSample
                              : outputs[i]);
    }
    if (invoke(model, slice.variant))
      return -1;
  }
  model->selected = plan.back().variant;
  model->lastRunSplit = true;
  return 0;
}

/// What a dynamic variant's entry point asks for each output's buffer.
struct DynamicRun {
  dsmp_model *model;
  const art::Variant *variant;
  std::string error;

  /// Output `k` at `dims` (its rank from the manifest): the caller's bound
  /// buffer when it has those dims, else the model's own; NULL, with
  /// `error`, for dims that contradict the manifest or the binding.
  static void *buffer(void *context, int64_t k, const int64_t *dims) {
    auto &run = *static_cast<DynamicRun *>(context);
    dsmp_model &model = *run.model;
    if (k < 0 || static_cast<size_t>(k) >= run.variant->outputs.size()) {
      run.error = "the model asked for output " + std::to_string(k);
      return nullptr;
    }
    const art::TensorSpec &spec = run.variant->outputs[k];
    std::vector<int64_t> got(dims, dims + spec.dims.size());
    if (!fitsDims(spec.dims, got)) {
      run.error = "output '" + spec.name + "' came out " +
                  dimsText(got.data(), got.size()) + ", not " +
                  dimsText(spec.dims.data(), spec.dims.size());
      return nullptr;
    }
    size_t elements = 1;
    for (int64_t d : got) {
      if (d != 0 && elements > (size_t(1) << 38) / static_cast<size_t>(d)) {
        run.error = "output '" + spec.name + "' came out too large (" +
                    dimsText(got.data(), got.size()) + ")";
        return nullptr;
      }
      elements *= static_cast<size_t>(d);
    }
    model.dynamicOutputDims[k] = got;
    const Binding &bound = model.outputs[k];
    if (bound.bound) {
      if (bound.dims == got)
        return bound.data;
      run.error = "output '" + spec.name + "' is bound with shape " +
                  dimsText(bound.dims.data(), bound.dims.size()) +
                  ", these inputs give " + dimsText(got.data(), got.size());
      return nullptr;
    }
    auto &own = model.dynamicOutputs[k];
    own.resize(std::max<size_t>(byteSize(spec.dtype, got), 1));
    return own.data();
  }
};

/// Runs dynamic variant `variant` on the bound inputs: their dims go in,
/// each output comes back at the dims the model computed.
static int runDynamic(dsmp_model *model, size_t variant) {
  const art::Variant &v = model->manifest.variants[variant];
  if (checkFixed(model, v))
    return -1;
  std::vector<int64_t> dims;
  model->io.clear();
  for (const Binding &b : model->inputs) {
    model->io.push_back(b.data);
    dims.insert(dims.end(), b.dims.begin(), b.dims.end());
  }
  model->io.resize(v.inputs.size() + v.outputs.size(), nullptr);
  model->dynamicOutputDims.assign(v.outputs.size(), {});
  model->dynamicOutputs.resize(v.outputs.size());
  DynamicRun run{model, &v, {}};
  const void *weights =
      model->weights.size ? model->weights.data() : model->emptyWeights;
  if (model->dynamicEntries[variant](model->io.data(), weights, dims.data(),
                                     &DynamicRun::buffer, &run) != 0) {
    model->lastRunDynamic = false;
    return fail("'" + model->dir +
                "': " + (run.error.empty() ? "the run failed" : run.error));
  }
  model->selected = variant;
  model->lastRunSplit = false;
  model->lastRunDynamic = true;
  return 0;
}

int dsmp_run(dsmp_model *model) {
  if (!model)
    return fail("dsmp_run: model is NULL");
  std::string missing;
  for (size_t i = 0; i < model->inputs.size(); ++i)
    if (!model->inputs[i].bound)
      missing +=
          (missing.empty() ? "'" : ", '") + model->first().inputs[i].name + "'";
  if (!missing.empty())
    return fail("'" + model->dir + "': missing input " + missing);
  std::string dynamicWhy;
  int variant = model->matchVariant(&dynamicWhy);
  if (variant >= 0 && model->manifest.variants[variant].dynamic)
    return runDynamic(model, static_cast<size_t>(variant));
  if (variant < 0) {
    std::vector<Slice> plan;
    std::string why;
    if (model->planSplit(plan, why)) {
      model->lastRunDynamic = false;
      return runSplit(model, plan);
    }
    if (!dynamicWhy.empty())
      why = dynamicWhy;
    std::string got;
    for (const Binding &b : model->inputs)
      got += (got.empty() ? "" : ", ") + dimsText(b.dims.data(), b.dims.size());
    return fail("'" + model->dir +
                "' was not compiled for these input shapes together: " + got +
                (model->manifest.batchInputs.empty() && dynamicWhy.empty()
                     ? ""
                     : " (" + why + ")"));
  }
  const art::Variant &v = model->manifest.variants[variant];
  if (checkFixed(model, v))
    return -1;
  auto &own = model->ownOutputs[variant];
  if (own.empty())
    for (const art::TensorSpec &t : v.outputs)
      own.emplace_back(std::max<size_t>(byteSize(t), 1));
  model->io.clear();
  for (const Binding &b : model->inputs)
    model->io.push_back(b.data);
  for (size_t i = 0; i < v.outputs.size(); ++i) {
    const Binding &b = model->outputs[i];
    if (b.bound && b.dims != v.outputs[i].dims)
      return fail("output '" + v.outputs[i].name + "' of '" + model->dir +
                  "' is bound with shape " +
                  dimsText(b.dims.data(), b.dims.size()) +
                  ", these inputs give " +
                  dimsText(v.outputs[i].dims.data(), v.outputs[i].dims.size()));
    model->io.push_back(b.bound ? b.data : own[i].data());
  }
  if (invoke(model, static_cast<size_t>(variant)))
    return -1;
  model->selected = static_cast<size_t>(variant);
  model->lastRunSplit = false;
  model->lastRunDynamic = false;
  return 0;
}

const void *dsmp_output_data(const dsmp_model *model, const char *name) {
  if (!model || !name)
    return nullptr;
  int index = model->findTensor(model->first().outputs, name);
  if (index < 0)
    return nullptr;
  if (model->outputs[index].bound)
    return model->outputs[index].data;
  if (model->lastRunSplit)
    return model->splitOutputs[index].data();
  if (model->lastRunDynamic)
    return model->dynamicOutputs[index].data();
  const auto &own = model->ownOutputs[model->selected];
  return own.empty() ? nullptr : own[index].data();
}

} // extern "C"

int dsmp_model_profiled(const dsmp_model *model) {
  return model && model->profiler ? 1 : 0;
}

static dsmp::Profiler *profilerOf(const dsmp_model *model, const char *what) {
  if (!model) {
    fail(std::string(what) + ": model is NULL");
    return nullptr;
  }
  if (!model->profiler)
    fail(std::string(what) + ": '" + model->dir +
         "' was not compiled with --profile (dsmp-compile --profile times "
         "each op)");
  return model->profiler.get();
}

int dsmp_profile_reset(dsmp_model *model) {
  dsmp::Profiler *profiler = profilerOf(model, "dsmp_profile_reset");
  if (!profiler)
    return -1;
  profiler->reset();
  return 0;
}

const char *dsmp_profile_json(dsmp_model *model) {
  dsmp::Profiler *profiler = profilerOf(model, "dsmp_profile_json");
  if (!profiler)
    return nullptr;
  model->profileText = profiler->report(model->dir).json();
  return model->profileText.c_str();
}

const char *dsmp_profile_text(dsmp_model *model, size_t top_ops) {
  dsmp::Profiler *profiler = profilerOf(model, "dsmp_profile_text");
  if (!profiler)
    return nullptr;
  model->profileText = profiler->report(model->dir).text(top_ops);
  return model->profileText.c_str();
}

namespace dsmprt {
const dsmp::Profiler *profilerOf(const dsmp_model *model) {
  return model ? model->profiler.get() : nullptr;
}
} // namespace dsmprt
