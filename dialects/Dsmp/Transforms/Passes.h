//===- Passes.h - dsmp -> dsmp transforms ----------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The passes that rewrite dsmp IR into dsmp IR (weights, shapes,
// recurrences) and the C++ entry points of the ones other layers call.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_DIALECTS_DSMP_TRANSFORMS_PASSES_H
#define DSMP_DIALECTS_DSMP_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlir::dsmp {

#define GEN_PASS_DECL
#include "dialects/Dsmp/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "dialects/Dsmp/Transforms/Passes.h.inc"

/// Replaces every #dsmp.external constant of `module` by its bytes from
/// the weight file at `path` (what dsmp-load-weights does).
llvm::Error loadExternalWeights(ModuleOp module, llvm::StringRef path);

/// Makes dynamic dims static where the operands tell them: a few rounds of
/// dsmp-refine-shapes and canonicalize (static shapes let shape arithmetic
/// fold, which gives reshapes constant targets, which makes more shapes
/// static).
void buildRefineShapesPipeline(OpPassManager &pm);

/// Input shapes by input name.
using InputShapes = llvm::StringMap<SmallVector<int64_t>>;
/// Integer inputs compiled for one value each (by name; row-major
/// elements), e.g. silero_vad's sample rate: the branches the value rules
/// out disappear. The artifact records them and the runtime rejects others.
using FixedInputs = llvm::StringMap<std::vector<int64_t>>;

/// What dsmp-specialize-shapes does to @main_graph's signature: the given
/// shapes (dims that the model has static must agree), `defaultDim` for
/// the other dynamic dims (or, with `requireAllInputs`, an error for an
/// input without a shape), and each fixed input's uses reading a constant.
/// The error names the input.
llvm::Error applyInputShapes(func::FuncOp graph, const InputShapes &shapes,
                             int64_t defaultDim, bool requireAllInputs,
                             const FixedInputs &fixed);

/// Replaces the uses of each input in `fixed` by a constant of those
/// elements (the argument stays); fails on an unknown input, a non-integer
/// one, or an element count that does not match its static shape.
llvm::Error fixInputValues(func::FuncOp graph, const FixedInputs &fixed);

/// dsmp-specialize-shapes' options for these shapes and fixed inputs.
SpecializeShapesPassOptions
specializeShapesOptions(const InputShapes &shapes, int64_t defaultDim = 1,
                        bool requireAllInputs = false,
                        const FixedInputs &fixed = {});

/// Runs dsmp-specialize-shapes on `module` (see its description); the
/// diagnostics become the error's text.
llvm::Error specializeGraph(ModuleOp module, const InputShapes &shapes,
                            int64_t defaultDim = 1,
                            bool requireAllInputs = false,
                            const FixedInputs &fixed = {});

/// The integer graph inputs an If's condition is computed from (silero
/// VAD's sample rate), sorted.
std::vector<std::string> branchingInputs(func::FuncOp graph);

/// What to tell a user whose graph failed to specialize or lower when it
/// branches (If) on integer inputs: which ones, and that --fix-input
/// compiles one branch. Empty when it does not branch on an input.
std::string branchHint(func::FuncOp graph);

/// Whether @main_graph already has exactly these input shapes and a static
/// type everywhere: then specializing would change nothing (and its shape
/// refinement rounds are the costliest step on large graphs).
bool isSpecializedTo(func::FuncOp graph, const InputShapes &shapes);

} // namespace mlir::dsmp

#endif // DSMP_DIALECTS_DSMP_TRANSFORMS_PASSES_H
