//===- SpecializeShapes.cpp - Static shapes through the graph ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What every compile does first: @main_graph's inputs get the shapes of
// the data it will run on, integer inputs named by fix-inputs become
// constants, and the shapes are refined through the graph until every
// output is static. A failure names the input or output, and the inputs an
// If branches on (fixing one often removes the branch that fails).
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/MainGraph.h"
#include "dialects/Dsmp/IR/OnnxOpRegistry.h"
#include "dialects/Dsmp/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <limits>

#define DEBUG_TYPE "dsmp-specialize-shapes"

namespace mlir::dsmp {
#define GEN_PASS_DEF_SPECIALIZESHAPESPASS
#include "dialects/Dsmp/Transforms/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;
using namespace mlir::dsmp;

namespace {

std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// NAME=ITEM<sep>ITEM...: the name and its items, or failure.
FailureOr<std::pair<std::string, SmallVector<int64_t>>>
parseNamedList(StringRef text, char sep) {
  auto [name, list] = text.rsplit('=');
  if (name.empty() || !text.contains('='))
    return failure();
  SmallVector<int64_t> values;
  SmallVector<StringRef> parts;
  list.split(parts, sep, -1, /*KeepEmpty=*/false);
  for (StringRef part : parts) {
    int64_t v;
    if (part.trim().getAsInteger(10, v))
      return failure();
    values.push_back(v);
  }
  return std::make_pair(name.str(), values);
}

} // namespace

// Each input an If branches on selects a branch that may only be valid for
// some input shapes.
std::vector<std::string> mlir::dsmp::branchingInputs(func::FuncOp graph) {
  llvm::SetVector<Value> seen;
  std::vector<std::string> names;
  graph.walk([&](IfOp op) {
    SmallVector<Value> work{op.getCond()};
    while (!work.empty()) {
      Value v = work.pop_back_val();
      if (!seen.insert(v))
        continue;
      if (auto arg = dyn_cast<BlockArgument>(v)) {
        auto type = dyn_cast<ShapedType>(arg.getType());
        if (arg.getOwner() == &graph.getBody().front() && type &&
            isa<IntegerType>(type.getElementType())) // what fix-inputs takes
          names.push_back(graphInputName(graph, arg.getArgNumber()));
        continue;
      }
      llvm::append_range(work, v.getDefiningOp()->getOperands());
    }
  });
  llvm::sort(names);
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::string mlir::dsmp::branchHint(func::FuncOp graph) {
  std::vector<std::string> branching = branchingInputs(graph);
  if (branching.empty())
    return "";
  return "the graph branches (If) on " +
         std::string(branching.size() == 1 ? "input '" : "inputs '") +
         llvm::join(branching, "', '") +
         "': a branch that cannot run at these shapes or in this form "
         "fails; --fix-input " +
         branching.front() + "=V compiles the branch your inputs take";
}

namespace {

struct SpecializeShapesPass final
    : mlir::dsmp::impl::SpecializeShapesPassBase<SpecializeShapesPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    for (const std::string &text : shapes) {
      auto parsed = parseNamedList(text, 'x');
      if (failed(parsed) ||
          llvm::any_of(parsed->second, [](int64_t d) { return d < 0; }))
        return emitError(UnknownLoc::get(context))
               << "dsmp-specialize-shapes: '" << text
               << "' is not NAME=D0xD1x... with dims >= 0";
      given[parsed->first] = parsed->second;
    }
    for (const std::string &text : fixInputs) {
      auto parsed = parseNamedList(text, ':');
      if (failed(parsed))
        return emitError(UnknownLoc::get(context))
               << "dsmp-specialize-shapes: fix-inputs expects NAME=V[:V...], "
                  "got '"
               << text << "'";
      fixed[parsed->first] =
          std::vector<int64_t>(parsed->second.begin(), parsed->second.end());
    }
    if (defaultDim < 1)
      return emitError(UnknownLoc::get(context))
             << "dsmp-specialize-shapes: default-dim must be at least 1";
    return success();
  }

  /// Results with a dynamic dim, and ops left (folding removes them,
  /// decomposing a recurrence adds them).
  static std::pair<int64_t, int64_t> countUnresolved(ModuleOp module) {
    int64_t dynamic = 0, ops = 0;
    module.walk([&](Operation *op) {
      ++ops;
      for (Type type : op->getResultTypes())
        if (auto shaped = dyn_cast<ShapedType>(type))
          dynamic += !shaped.hasStaticShape();
    });
    return {dynamic, ops};
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp graph = lookupMainGraph(module);
    if (!graph) {
      module.emitError("the model has no @main_graph");
      return signalPassFailure();
    }
    // ShapedType::kDynamic as the default keeps those dims dynamic.
    int64_t unnamedDim =
        keepDynamic ? ShapedType::kDynamic : int64_t(defaultDim);
    if (llvm::Error err = applyInputShapes(graph, given, unnamedDim,
                                           requireAllInputs, fixed)) {
      graph.emitError(llvm::toString(std::move(err)));
      return signalPassFailure();
    }

    // Every branch is specialized, also one the inputs' values never take
    // at these shapes (onnxruntime fails there too, at run time); whoever
    // runs this adds branchHint() to a failure.
    OpPassManager refine(ModuleOp::getOperationName());
    buildRefineShapesPipeline(refine);
    // With static shapes, recurrences unroll into ops the lowering, the
    // evaluator and the precision analyses all know.
    refine.addNestedPass<func::FuncOp>(createDecomposeRecurrentPass());
    refine.addNestedPass<func::FuncOp>(createUnrollLoopsPass());
    refine.addPass(createCSEPass());
    // Each round folds one more link of the shape arithmetic that deep
    // graphs chain from block to block (ShuffleNet's 16 channel splits,
    // each sliced at Shape/2 of the block before): repeat to a fixed point.
    // A round makes progress when it leaves fewer dynamic results or
    // changes the op count: a round that unrolls a recurrence adds ops
    // while its shape arithmetic is folded only by the next (EnCodec's
    // LSTM, then the Shape -> Gather -> Slice of its padding).
    constexpr int kMaxRounds = 32;
    std::pair<int64_t, int64_t> before{std::numeric_limits<int64_t>::max(), -1};
    for (int round = 0; round < kMaxRounds; ++round) {
      if (failed(runPipeline(refine, module)))
        return signalPassFailure();
      std::pair<int64_t, int64_t> now = countUnresolved(module);
      if (now.first == 0 ||
          (now.first >= before.first && now.second == before.second))
        break;
      before = now;
    }
    for (unsigned i = 0; i < graph.getNumResults(); ++i) {
      auto type = dyn_cast<RankedTensorType>(graph.getResultTypes()[i]);
      if (!type || (!keepDynamic && !type.hasStaticShape())) {
        InFlightDiagnostic diag = module.emitError()
                                  << "output '" << graphOutputName(graph, i)
                                  << "' has type "
                                  << typeText(graph.getResultTypes()[i])
                                  << " after specialization; the host runs "
                                     "static shapes";
        // A Loop left is one whose trip count the data decides.
        graph.walk([&](LoopOp loop) {
          diag << "; Loop " << loop.getLoc()
               << " stays a loop (its trip count or condition depends on "
                  "the data), and the host does not run Loops";
          return WalkResult::interrupt();
        });
        return signalPassFailure();
      }
    }
  }

private:
  InputShapes given;
  FixedInputs fixed;
};

} // namespace

llvm::Error mlir::dsmp::applyInputShapes(func::FuncOp graph,
                                         const InputShapes &shapes,
                                         int64_t defaultDim,
                                         bool requireAllInputs,
                                         const FixedInputs &fixed) {
  auto error = [](const llvm::Twine &message) {
    return llvm::createStringError(message);
  };
  llvm::StringSet<> names;
  for (unsigned i = 0; i < graph.getNumArguments(); ++i)
    names.insert(graphInputName(graph, i));
  for (auto &entry : shapes)
    if (!names.contains(entry.getKey()))
      return error("'" + entry.getKey() + "' is not an input of the model");
  SmallVector<Type> argTypes;
  for (unsigned i = 0; i < graph.getNumArguments(); ++i) {
    std::string name = graphInputName(graph, i);
    auto type = dyn_cast<RankedTensorType>(graph.getArgument(i).getType());
    if (!type)
      return error("input '" + name + "' has no rank");
    SmallVector<int64_t> dims(type.getShape());
    auto it = shapes.find(name);
    if (it != shapes.end()) {
      if (it->second.size() != dims.size())
        return error("input '" + name + "' has rank " +
                     llvm::Twine(dims.size()) + ", the given shape rank " +
                     llvm::Twine(it->second.size()));
      for (auto [want, got] : llvm::zip(dims, it->second)) {
        if (got < 0 || (!ShapedType::isDynamic(want) && want != got))
          return error("input '" + name + "' has shape " + typeText(type) +
                       "; the given shape does not fit");
        want = got;
      }
    } else if (requireAllInputs) {
      return error("missing input '" + name + "'");
    } else {
      for (int64_t &d : dims)
        if (ShapedType::isDynamic(d))
          d = defaultDim;
    }
    auto concrete = RankedTensorType::get(dims, type.getElementType());
    graph.getArgument(i).setType(concrete);
    // Dim names describe dynamic dims only.
    if (concrete.hasStaticShape())
      graph.removeArgAttr(i, kDimParamsAttr);
    argTypes.push_back(concrete);
  }
  graph.setFunctionType(
      FunctionType::get(graph.getContext(), argTypes, graph.getResultTypes()));

  return fixInputValues(graph, fixed);
}

llvm::Error mlir::dsmp::fixInputValues(func::FuncOp graph,
                                       const FixedInputs &fixed) {
  auto error = [](const llvm::Twine &message) {
    return llvm::createStringError(message);
  };
  for (auto &entry : fixed) {
    unsigned index = graph.getNumArguments();
    for (unsigned i = 0; i < graph.getNumArguments(); ++i)
      if (graphInputName(graph, i) == entry.getKey())
        index = i;
    if (index == graph.getNumArguments())
      return error("--fix-input: '" + entry.getKey() +
                   "' is not an input of the model");
    BlockArgument arg = graph.getArgument(index);
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || !isa<IntegerType>(type.getElementType()))
      return error("--fix-input: input '" + entry.getKey() +
                   "' is not an integer tensor");
    if (!type.hasStaticShape() ||
        type.getNumElements() != static_cast<int64_t>(entry.second.size()))
      return error("--fix-input: input '" + entry.getKey() + "' has type " +
                   typeText(type) + ", " + llvm::Twine(entry.second.size()) +
                   " values were given");
    unsigned width = type.getElementTypeBitWidth();
    SmallVector<APInt> values;
    for (int64_t v : entry.second)
      values.push_back(APInt(width, static_cast<uint64_t>(v),
                             /*isSigned=*/true, /*implicitTrunc=*/true));
    OpBuilder b(graph.getBody());
    auto constant = ConstantOp::create(b, arg.getLoc(), type,
                                       DenseElementsAttr::get(type, values));
    arg.replaceAllUsesWith(constant);
  }
  return llvm::Error::success();
}

SpecializeShapesPassOptions
mlir::dsmp::specializeShapesOptions(const InputShapes &shapes,
                                    int64_t defaultDim, bool requireAllInputs,
                                    const FixedInputs &fixed) {
  SpecializeShapesPassOptions options;
  // In name order, so the same shapes always print the same pipeline.
  std::vector<std::string> names;
  for (auto &entry : shapes)
    names.push_back(entry.getKey().str());
  llvm::sort(names);
  for (const std::string &name : names) {
    std::string text = name + "=";
    for (auto [i, d] : llvm::enumerate(shapes.lookup(name)))
      text += (i ? "x" : "") + std::to_string(d);
    options.shapes.push_back(text);
  }
  options.defaultDim = defaultDim;
  options.requireAllInputs = requireAllInputs;
  names.clear();
  for (auto &entry : fixed)
    names.push_back(entry.getKey().str());
  llvm::sort(names);
  for (const std::string &name : names) {
    std::string text = name + "=";
    for (auto [i, v] : llvm::enumerate(fixed.lookup(name)))
      text += (i ? ":" : "") + std::to_string(v);
    options.fixInputs.push_back(text);
  }
  return options;
}

llvm::Error mlir::dsmp::specializeGraph(ModuleOp module,
                                        const InputShapes &shapes,
                                        int64_t defaultDim,
                                        bool requireAllInputs,
                                        const FixedInputs &fixed) {
  if (!lookupMainGraph(module))
    return llvm::createStringError("the model has no @main_graph");
  std::string diagnostics;
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      diagnostics +=
          (diagnostics.empty() ? "" : "\n  ") + describeDiagnostic(diag);
    return success();
  });
  func::FuncOp graph = lookupMainGraph(module);
  // Inputs that do not fit are the caller's to report as they are.
  if (llvm::Error err =
          applyInputShapes(graph, shapes, defaultDim, requireAllInputs, fixed))
    return err;
  std::string hint = branchHint(graph);
  PassManager pm(module.getContext());
  pm.addPass(createSpecializeShapesPass());
  if (succeeded(pm.run(module)))
    return llvm::Error::success();
  return llvm::createStringError(
      "specializing the shapes failed" +
      (diagnostics.empty() ? "" : "\n  " + diagnostics) +
      (hint.empty() ? "" : "\n  " + hint));
}

bool mlir::dsmp::isSpecializedTo(func::FuncOp graph,
                                 const InputShapes &shapes) {
  if (shapes.size() != graph.getNumArguments())
    return false;
  for (unsigned i = 0; i < graph.getNumArguments(); ++i) {
    auto given = shapes.find(graphInputName(graph, i));
    auto type = dyn_cast<RankedTensorType>(graph.getArgument(i).getType());
    if (given == shapes.end() || !type ||
        type.getShape() != ArrayRef<int64_t>(given->second))
      return false;
  }
  auto isStatic = [](Type t) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    return isa<NoneType>(t) || (tensor && tensor.hasStaticShape());
  };
  WalkResult result = graph.walk([&](Operation *op) {
    return llvm::all_of(op->getResultTypes(), isStatic)
               ? WalkResult::advance()
               : WalkResult::interrupt();
  });
  return !result.wasInterrupted() &&
         llvm::all_of(graph.getResultTypes(), isStatic);
}
