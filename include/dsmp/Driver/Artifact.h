//===- Artifact.h - Compile a model into an artifact folder ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What dsmp-compile, dsmp-run and the host runs of the precision passes do
// to turn a model into an artifact: load it, externalize its weights, run
// the registered pipeline dsmp-compile-artifact once per shape variant,
// generate code and write the folder (model.so, model.h, weights.bin,
// manifest.txt), which appears whole or not at all.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_DRIVER_ARTIFACT_H
#define DSMP_DRIVER_ARTIFACT_H

#include "dialects/Dsmp/Transforms/Passes.h"
#include "dsmp/Target/CPUTarget.h"

#include "mlir/IR/Action.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlir::dsmp {

/// A loaded model: the module, and the weight file its #dsmp.external
/// constants point into (empty when every constant is inline).
struct LoadedModel {
  OwningOpRef<ModuleOp> module;
  std::string weightsPath;
};

/// Imports a .onnx file (large weights go to `onnxWeightsPath`, or stay
/// inline if it is empty) or parses a .mlir file (whose weight file is
/// resolved beside it). Fails on a file without @main_graph.
llvm::Expected<LoadedModel> loadModel(llvm::StringRef path,
                                      MLIRContext &context,
                                      llvm::StringRef onnxWeightsPath = "");

/// The input shapes of DIR/input_*.pb (by tensor name).
llvm::Expected<InputShapes> readInputShapes(llvm::StringRef dir);

/// Parses NAME=V[,V...] (dsmp-compile --fix-input) into `fixed`.
llvm::Error parseFixedInput(llvm::StringRef text, FixedInputs &fixed);

struct CompileOptions {
  /// The CPU the artifact's code runs on (with `device`: its host code).
  CPUTargetSpec target;
  /// The GPU its kernels run on (lookupGPUTarget's names); empty: none.
  std::string device;
  /// One variant per entry (the model specialized to those input shapes;
  /// inputs not named get `defaultDim` for their dynamic dims). Empty: one
  /// variant with every dynamic dim `defaultDim`.
  std::vector<InputShapes> variants;
  int64_t defaultDim = 1;
  /// When the model computes each sample alone (BatchSplit.h), variants at
  /// these batch sizes too (beside each variant's own), so that the runtime
  /// runs any batch in slices of them; empty: only the given variants.
  std::vector<int64_t> batchSizes = {1, 8};
  /// Receives why the model does not split into samples (empty if it does,
  /// or when batchSizes is empty or no input has a dynamic first dim).
  std::string *batchNote = nullptr;
  /// Every input must have a shape in each variant (dsmp-run: the inputs
  /// folder must hold every input).
  bool requireAllInputs = false;
  FixedInputs fixedInputs;
  /// Replace an artifact folder that holds files dsmp did not write.
  bool force = false;
  /// The passes that made the module being compiled (the precision flow's),
  /// as textual pipeline elements; they lead each variant's printed
  /// pipeline.
  std::string precedingPipeline;
  /// A precision compile's rel-l2 floor per output, for the manifest
  /// (dsmprt-run --compare measures as the compile did); empty: none.
  std::vector<double> errorFloors;
  /// Receives, per variant, the whole pass pipeline that produced its LLVM
  /// dialect module (dsmp-compile --print-pipeline); replayable with
  /// `dsmp-opt MODEL --pass-pipeline=...`.
  std::vector<std::string> *pipelines = nullptr;
  /// Time every lowered call and ship profile.txt (the runtime's profiler;
  /// CPU code only).
  bool profile = false;
  /// A variant whose dims stay dynamic where the model's are, sized at run
  /// time (docs/dynamic-shapes.md): Auto adds one when an input has a
  /// dynamic dim that the batch split does not cover (none when batchSizes
  /// is empty: the given shapes only), and skips it (with `dynamicNote`)
  /// where the model needs static shapes; Always fails there.
  enum class DynamicVariant { Never, Auto, Always };
  DynamicVariant dynamicVariant = DynamicVariant::Auto;
  /// Receives why Auto built no dynamic variant for a model with dynamic
  /// dims (empty when it did, or had no reason to).
  std::string *dynamicNote = nullptr;
};

/// One step of an artifact compile ("variant 2/3: lowering"), as an MLIR
/// action: a context's action handler sees each (dsmp-compile's progress
/// lines).
class ArtifactStepAction : public tracing::ActionImpl<ArtifactStepAction> {
public:
  ArtifactStepAction(ArrayRef<IRUnit> units, std::string what)
      : ActionImpl(units), what(std::move(what)) {}
  static constexpr StringLiteral tag = "dsmp-artifact-step";
  void print(raw_ostream &os) const override { os << tag << " " << what; }
  std::string what;
};

/// Whether `outputDir` may become an artifact folder: absent, an empty
/// folder, or an artifact holding only the files dsmp writes (others only
/// with `force`); never a file, a link, `-`, or a folder of other things.
/// The error names the path and what to do.
llvm::Error checkArtifactOutput(llvm::StringRef outputDir, bool force);

/// Makes SIGINT and SIGTERM remove the staging folders of compiles in
/// progress before the process ends (for command-line tools: it replaces
/// the process's handling of those signals).
void removeStagingFoldersOnInterrupt();

/// Compiles a model file into an artifact folder `outputDir`: refused when
/// `outputDir` is a file, `-`, a folder that is not an artifact, or an
/// artifact holding files dsmp did not write (unless `force`).
llvm::Error compileArtifact(llvm::StringRef modelPath,
                            llvm::StringRef outputDir,
                            const CompileOptions &options,
                            MLIRContext &context);

/// Compiles an in-memory module (its constants inline, or #dsmp.external
/// ranges of `weightsFile`) into an artifact folder, as compileArtifact
/// does; `sourceName` is recorded in the manifest. `module` is not changed.
llvm::Error compileModuleArtifact(ModuleOp module, llvm::StringRef weightsFile,
                                  llvm::StringRef sourceName,
                                  llvm::StringRef outputDir,
                                  const CompileOptions &options);

} // namespace mlir::dsmp

#endif // DSMP_DRIVER_ARTIFACT_H
