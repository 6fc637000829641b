//===- ArtifactWriter.cpp - manifest.txt and model.h of an ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dsmp/Driver/ArtifactWriter.h"

#include "dsmp/runtime/Manifest.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using llvm::Error;
using llvm::StringRef;
using llvm::Twine;

namespace mlir::dsmp {

namespace {

std::string join(StringRef dir, StringRef name) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, name);
  return std::string(path);
}

Error describeFile(StringRef dir, const char *name,
                   ::dsmp::artifact::FileSpec &spec) {
  std::string path = join(dir, name);
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError("cannot read '" + path +
                                   "': " + buffer.getError().message());
  spec.name = name;
  spec.size = (*buffer)->getBufferSize();
  spec.hash =
      ::dsmp::artifact::contentHash((*buffer)->getBufferStart(), spec.size);
  return Error::success();
}

Error writeFile(StringRef path, StringRef text) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return llvm::createStringError("cannot write '" + path +
                                   "': " + ec.message());
  os << text;
  return Error::success();
}

} // namespace

std::string manifestDType(Type t) {
  if (t.isF32())
    return "f32";
  if (t.isF64())
    return "f64";
  if (t.isF16())
    return "f16";
  if (t.isBF16())
    return "bf16";
  if (t.isInteger(1))
    return "bool";
  for (unsigned width : {8u, 16u, 32u, 64u})
    if (t.isUnsignedInteger(width))
      return "u" + std::to_string(width);
  for (unsigned width : {8u, 16u, 32u, 64u})
    if (t.isSignlessInteger(width) || t.isSignedInteger(width))
      return "i" + std::to_string(width);
  return "";
}

/// The manifest's variants: each entry point and its tensors.
static Error addVariants(const ArtifactDescription &description,
                         ::dsmp::artifact::Manifest &manifest) {
  namespace art = ::dsmp::artifact;
  auto specs = [](const char *kind, const auto &tensors,
                  std::vector<art::TensorSpec> &out) -> Error {
    for (const auto &[name, type] : tensors) {
      std::string dtype = manifestDType(type.getElementType());
      if (dtype.empty())
        return llvm::createStringError(
            std::string(kind) + " '" + name +
            "' has an element type the runtime cannot bind");
      std::vector<int64_t> dims;
      for (int64_t d : type.getShape())
        dims.push_back(ShapedType::isDynamic(d) ? art::kDynamicDim : d);
      out.push_back({name, dtype, dims, /*fixed=*/{}});
    }
    return Error::success();
  };
  for (const ArtifactVariant &variant : description.variants) {
    art::Variant spec;
    spec.entry = variant.entry;
    spec.dynamic = variant.dynamic;
    if (Error err = specs("input", variant.inputs, spec.inputs))
      return err;
    for (art::TensorSpec &input : spec.inputs) {
      auto it = variant.dimNames.find(input.name);
      if (it != variant.dimNames.end() &&
          it->second.size() == input.dims.size())
        input.dimNames = it->second;
    }
    for (art::TensorSpec &input : spec.inputs) {
      auto it = description.fixedInputs.find(input.name);
      if (it != description.fixedInputs.end())
        input.fixed = it->second;
    }
    if (Error err = specs("output", variant.outputs, spec.outputs))
      return err;
    if (description.profiled)
      spec.profileRows = variant.profile.rows.size();
    manifest.variants.push_back(std::move(spec));
  }
  manifest.batchInputs = description.batchInputs;
  manifest.batchOutputs = description.batchOutputs;
  manifest.device = description.device;
  return Error::success();
}

llvm::Expected<uint64_t> interfaceHashOf(const ArtifactDescription &description,
                                         uint64_t weightsSize) {
  ::dsmp::artifact::Manifest manifest;
  manifest.weights.size = weightsSize;
  if (Error err = addVariants(description, manifest))
    return std::move(err);
  return ::dsmp::artifact::interfaceHash(manifest);
}

Error writeArtifactFiles(StringRef dir,
                         const ArtifactDescription &description) {
  namespace art = ::dsmp::artifact;
  art::Manifest manifest;
  manifest.target = description.target;
  manifest.source = description.source;
  manifest.hasPrecision = description.hasPrecision;
  manifest.precision = description.precision;
  if (Error err = describeFile(dir, art::kLibraryName, manifest.library))
    return err;
  if (Error err = describeFile(dir, art::kWeightsName, manifest.weights))
    return err;
  if (Error err = addVariants(description, manifest))
    return err;
  if (description.profiled) {
    art::ProfileTable table;
    for (const ArtifactVariant &variant : description.variants)
      table.variants.push_back(variant.profile);
    if (Error err = writeFile(join(dir, art::kProfileName),
                              art::writeProfileTable(table)))
      return err;
    if (Error err = describeFile(dir, art::kProfileName, manifest.profile))
      return err;
  }

  std::string header;
  llvm::raw_string_ostream h(header);
  h << "/* Generated by dsmp-compile from " << description.source << " for "
    << description.target
    << (description.device.empty() ? "" : " and " + description.device)
    << ". Do not edit.\n"
    << " *\n"
    << " * Each entry point runs the model once for one set of input shapes.\n"
    << " * io[] holds one pointer per tensor, row-major and densely packed,\n"
    << " * inputs first, then outputs.\n";
  auto describe = [&](const char *kind,
                      const std::vector<art::TensorSpec> &tensors,
                      size_t first) {
    for (size_t i = 0; i < tensors.size(); ++i) {
      std::string dims;
      for (int64_t d : tensors[i].dims)
        dims += (dims.empty() ? "" : "x") +
                (d == art::kDynamicDim ? std::string("?") : std::to_string(d));
      h << " *     io[" << first + i << "]  " << kind << " \""
        << tensors[i].name << "\": " << tensors[i].dtype << "[" << dims
        << "]\n";
    }
  };
  for (const art::Variant &variant : manifest.variants) {
    h << " *\n * " << variant.entry
      << (variant.dynamic ? " (? dims sized at run time: dims[] holds every "
                            "input's dims;\n *   output(context, k, dims) "
                            "returns the buffer for output k, NULL to stop; "
                            "returns 0\n *   when every output was written)"
                          : "")
      << ":\n";
    describe("input ", variant.inputs, 0);
    describe("output", variant.outputs, variant.inputs.size());
  }
  h << " *\n * weights is the start of " << art::kWeightsName << " ("
    << manifest.weights.size
    << " bytes), loaded or mapped\n"
       " * at a 64-byte aligned address and never written.\n"
       " * libdsmprt (dsmp/runtime/dsmprt.h) does all of this by name.\n"
       " */\n"
       "#ifndef DSMP_MODEL_H\n#define DSMP_MODEL_H\n\n"
       "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
    << "#define DSMP_MODEL_WEIGHTS_BYTES " << manifest.weights.size
    << "ull\n\n";
  for (const ArtifactVariant &variant : description.variants)
    if (variant.dynamic)
      h << "int " << variant.entry
        << "(void *const *io, const void *weights, const long long *dims,\n"
           "    void *(*output)(void *context, long long k, const long long "
           "*dims),\n    void *context);\n";
    else
      h << "void " << variant.entry
        << "(void *const *io, const void *weights);\n";
  h << "\n#ifdef __cplusplus\n}\n#endif\n\n#endif /* DSMP_MODEL_H */\n";

  if (Error err = writeFile(join(dir, art::kHeaderName), header))
    return err;
  return writeFile(join(dir, art::kManifestName), art::writeManifest(manifest));
}

} // namespace mlir::dsmp
