//===- dsmp-compile.cpp - Ahead-of-time compiler --------------------*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
//   dsmp-compile MODEL.onnx|MODEL.mlir --target=x86_64|aarch64 -o DIR
//                [--shape NAME=D0xD1x...]... | [--shapes-from DIR]...
//                [--default-dim N] [--cpu CPU]
//
// Writes an artifact folder: model.so, model.h (the C entry points),
// weights.bin and manifest.txt. Dynamic input dims are fixed at compile
// time: by --shape, else --default-dim (1). Each --shapes-from adds a
// variant for the shapes of one test-data folder; the runtime picks the
// variant whose shapes the caller binds.
//
//===----------------------------------------------------------------------===//

#include "dsmp/Driver/Registration.h"
#include "dsmp/Execution/Compile.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

using namespace mlir;

namespace {
llvm::cl::opt<std::string> modelPath(llvm::cl::Positional,
                                     llvm::cl::desc("<model.onnx|.mlir>"),
                                     llvm::cl::Required);
llvm::cl::opt<std::string> outputDir("o", llvm::cl::desc("Artifact folder"),
                                     llvm::cl::value_desc("dir"),
                                     llvm::cl::Required);
llvm::cl::opt<std::string>
    targetName("target", llvm::cl::desc("Target: x86_64 or aarch64"),
               llvm::cl::init("x86_64"));
llvm::cl::opt<std::string>
    cpu("cpu",
        llvm::cl::desc("CPU to tune for ('native': the host's where the "
                       "host is the target, a portable baseline otherwise)"),
        llvm::cl::init("native"));
llvm::cl::list<std::string>
    shapeOptions("shape", llvm::cl::desc("Static shape of an input"),
                 llvm::cl::value_desc("name=D0xD1x..."));
llvm::cl::list<std::string> variantShapes(
    "shapes-from",
    llvm::cl::desc("Add a variant for the input shapes of DIR/input_*.pb "
                   "(repeatable; the runtime picks the variant by shape)"),
    llvm::cl::value_desc("dir"));
llvm::cl::opt<int64_t>
    defaultDim("default-dim",
               llvm::cl::desc("Value of dynamic input dims not given by "
                              "--shape"),
               llvm::cl::init(1));

int fail(const llvm::Twine &message) {
  llvm::errs() << "dsmp-compile: error: " << message << "\n";
  return 1;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::ParseCommandLineOptions(argc, argv,
                                    "dsmp ahead-of-time compiler\n");

  dsmp::CompileOptions options;
  auto target = dsmp::lookupCPUTarget(targetName, cpu);
  if (!target)
    return fail("unknown target '" + targetName +
                "' (known: " + dsmp::knownCPUTargets() + ")");
  options.target = *target;
  if (defaultDim < 1)
    return fail("--default-dim must be at least 1");
  options.defaultDim = defaultDim;
  if (!shapeOptions.empty() && !variantShapes.empty())
    return fail("give either --shape or --shapes-from, not both");
  for (const std::string &dir : variantShapes) {
    auto shapes = dsmp::readInputShapes(dir);
    if (!shapes)
      return fail(llvm::toString(shapes.takeError()));
    options.variants.push_back(std::move(*shapes));
  }
  dsmp::InputShapes given;
  for (const std::string &text : shapeOptions) {
    auto [name, dims] = llvm::StringRef(text).rsplit('=');
    if (dims.empty() && !llvm::StringRef(text).contains('='))
      return fail("--shape '" + text + "': expected NAME=D0xD1x...");
    SmallVector<int64_t> shape;
    SmallVector<llvm::StringRef> parts;
    dims.split(parts, 'x', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef part : parts) {
      int64_t d;
      if (part.getAsInteger(10, d) || d < 0)
        return fail("--shape '" + text + "': '" + part +
                    "' is not a dimension");
      shape.push_back(d);
    }
    given[name] = shape;
  }
  if (!given.empty())
    options.variants.push_back(std::move(given));

  dsmp::registerDriverPasses();
  DialectRegistry registry;
  dsmp::registerDriverDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  if (llvm::Error err =
          dsmp::compileArtifact(modelPath, outputDir, options, context))
    return fail(llvm::toString(std::move(err)));
  return 0;
}
