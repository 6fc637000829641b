//===- Compile.h - The pipelines dsmp-compile and dsmp-run drive ---*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_EXECUTION_COMPILE_H
#define DSMP_EXECUTION_COMPILE_H

#include "dsmp/Target/CPUTarget.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir::dsmp {

using InputShapes = llvm::StringMap<SmallVector<int64_t>>;
/// Integer inputs compiled for one value each (by name; row-major
/// elements), e.g. silero_vad's sample rate: the branches the value rules
/// out disappear. The artifact records them and the runtime rejects others.
using FixedInputs = llvm::StringMap<std::vector<int64_t>>;

/// Every dialect, interface model and translation the driver's pipelines
/// need, from import to the LLVM dialect.
void registerDriverDialects(DialectRegistry &registry);

/// Registers the passes the lowering pipeline names (dsmp's and upstream
/// ones, as mlir-opt would); safe to call more than once.
void registerLoweringPasses();

/// A loaded model: the module, and the weight file its #dsmp.external
/// constants point into (empty when every constant is inline).
struct LoadedModel {
  OwningOpRef<ModuleOp> module;
  std::string weightsPath;
};

/// Imports a .onnx file (large weights go to `onnxWeightsPath`, or stay
/// inline if it is empty) or parses a .mlir file (whose weight file is
/// resolved beside it).
llvm::Expected<LoadedModel> loadModel(llvm::StringRef path,
                                      MLIRContext &context,
                                      llvm::StringRef onnxWeightsPath = "");

/// The name of argument or result `index` of the graph (its ONNX name).
std::string graphInputName(func::FuncOp graph, unsigned index);
std::string graphOutputName(func::FuncOp graph, unsigned index);

/// Gives @main_graph's inputs static shapes: dims named in `shapes` (by
/// input name) must agree with the model's static dims; the other dynamic
/// dims become `defaultDim`. Then refines shapes through the graph and
/// checks that every output is a static tensor of a type the host runs.
/// Inputs named in `fixed` then read as constants (the arguments stay, so
/// the entry point keeps its inputs).
llvm::Error specializeGraph(ModuleOp module, const InputShapes &shapes,
                            int64_t defaultDim = 1,
                            bool requireAllInputs = false,
                            const FixedInputs &fixed = {});

/// Whether @main_graph already has exactly these input shapes and a static
/// type everywhere: then specializing would change nothing (and its shape
/// refinement rounds are the costliest step on large graphs).
bool isSpecializedTo(func::FuncOp graph, const InputShapes &shapes);

/// Replaces the uses of each input in `fixed` by a constant of those
/// elements; fails on an unknown input, a non-integer one, or an element
/// count that does not match its static shape.
llvm::Error fixInputValues(func::FuncOp graph, const FixedInputs &fixed);

/// Parses NAME=V[,V...] (dsmp-compile --fix-input) into `fixed`.
llvm::Error parseFixedInput(llvm::StringRef text, FixedInputs &fixed);

struct CompileOptions {
  CPUTargetSpec target;
  /// One variant per entry (the model specialized to those input shapes;
  /// inputs not named get `defaultDim` for their dynamic dims). Empty: one
  /// variant with every dynamic dim `defaultDim`.
  std::vector<InputShapes> variants;
  int64_t defaultDim = 1;
  /// Every input must have a shape in each variant (dsmp-run: the inputs
  /// folder must hold every input).
  bool requireAllInputs = false;
  FixedInputs fixedInputs;
};

/// The input shapes of DIR/input_*.pb (by tensor name).
llvm::Expected<InputShapes> readInputShapes(llvm::StringRef dir);

/// Compiles a model file into an artifact folder: model.so, model.h (one C
/// entry point per variant), weights.bin and manifest.txt (what libdsmprt
/// reads). The folder appears whole or not at all.
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

/// Moves every inline float constant of 1 KiB or more to the end of the
/// weight file at `weightsPath` (64-byte aligned) as a #dsmp.external range,
/// so artifacts map their weights instead of embedding them in code.
llvm::Error externalizeConstants(ModuleOp module, llvm::StringRef weightsPath);

} // namespace mlir::dsmp

#endif // DSMP_EXECUTION_COMPILE_H
