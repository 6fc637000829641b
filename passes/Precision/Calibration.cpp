//===- Calibration.cpp - Run an instrumented graph ------------ -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "passes/Precision/Calibration.h"

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/GraphBuilder.h"
#include "dsmp/Execution/Evaluator.h"
#include "dsmp/Support/DeclinableAction.h"
#include "passes/Precision/Formats.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "dsmp-calibration"

using llvm::Error;
using llvm::Expected;
using llvm::StringRef;
using llvm::Twine;

namespace mlir::dsmp {

static constexpr StringRef kIdAttr = "dsmp.calibration_id";

/// `block`'s ops in program order, each If followed by its branches' ops.
static void collectOps(Block &block, SmallVectorImpl<Operation *> &ops) {
  for (Operation &op : block.without_terminator()) {
    ops.push_back(&op);
    if (isa<IfOp>(op))
      for (Region &region : op.getRegions())
        if (!region.empty())
          collectOps(region.front(), ops);
  }
}

SmallVector<Operation *> graphOps(ModuleOp module) {
  SmallVector<Operation *> ops;
  auto graph = module.lookupSymbol<func::FuncOp>("main_graph");
  if (!graph || graph.isExternal())
    return ops;
  collectOps(graph.getBody().front(), ops);
  return ops;
}

/// Whether an If can be computed as both branches and a select: one
/// condition element, and both branches yield the If's (static) types.
static bool canFlatten(IfOp op) {
  auto cond = dyn_cast<RankedTensorType>(op.getCond().getType());
  if (!cond || !cond.hasStaticShape() || cond.getNumElements() != 1)
    return false;
  for (Region &region : op->getRegions()) {
    if (region.empty())
      return false;
    Operation *yield = region.front().getTerminator();
    if (yield->getOperandTypes() != op->getResultTypes())
      return false;
  }
  return llvm::all_of(op->getResultTypes(), [](Type t) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    return tensor && tensor.hasStaticShape();
  });
}

std::vector<FlattenedIf> flattenBranches(func::FuncOp graph) {
  std::vector<FlattenedIf> flattened;
  SmallVector<IfOp> ifs;
  graph.walk<WalkOrder::PostOrder>([&](IfOp op) {
    if (!op->getParentOfType<LoopOp>())
      ifs.push_back(op);
  });
  // Inner Ifs first, so an outer branch holds no If once it is inlined.
  for (IfOp op : ifs) {
    if (!canFlatten(op))
      continue;
    OpBuilder b(op);
    GraphBuilder g(b, op.getLoc());
    Value flag = g.reshape(op.getCond(), {});
    SmallVector<SmallVector<Value>> yielded;
    for (Region &region : op->getRegions()) {
      Block &body = region.front();
      Operation *yield = body.getTerminator();
      yielded.emplace_back(yield->getOperands());
      yield->erase();
      op->getBlock()->getOperations().splice(Block::iterator(op),
                                             body.getOperations());
    }
    b.setInsertionPoint(op);
    SmallVector<Value> results;
    for (auto [then, otherwise] : llvm::zip(yielded[0], yielded[1]))
      results.push_back(
          g.typed("dsmp.where", {flag, then, otherwise}, then.getType()));
    op->replaceAllUsesWith(results);
    flattened.push_back({op.getOperation(), flag});
    op->erase();
  }
  return flattened;
}

ArrayRef<float> floatsOf(const HostTensor &tensor) {
  return ArrayRef<float>(reinterpret_cast<const float *>(tensor.data.data()),
                         tensor.data.size() / sizeof(float));
}

namespace {
std::string shapeText(ArrayRef<int64_t> dims) {
  std::string text;
  for (auto [i, d] : llvm::enumerate(dims))
    text += (i ? "x" : "") + std::to_string(d);
  return text.empty() ? "scalar" : text;
}

/// Every set must bind the same names with the same shapes as the first.
Error checkSetsAlike(StringRef dir, const std::vector<HostInputs> &sets) {
  const HostInputs &first = sets.front();
  for (size_t s = 1; s < sets.size(); ++s) {
    if (sets[s].size() != first.size())
      return llvm::createStringError(
          "calibration folder '" + dir + "': set " + Twine(s) + " has " +
          Twine(sets[s].size()) + " inputs, set 0 has " + Twine(first.size()));
    for (size_t i = 0; i < first.size(); ++i)
      if (sets[s][i].name != first[i].name || sets[s][i].dims != first[i].dims)
        return llvm::createStringError(
            "calibration folder '" + dir + "': input '" + sets[s][i].name +
            "' of set " + Twine(s) + " (" + shapeText(sets[s][i].dims) +
            ") differs from set 0's '" + first[i].name + "' (" +
            shapeText(first[i].dims) + ")");
  }
  return Error::success();
}

/// Erases the ops nothing uses but those computing a value in `keep` (the
/// probes). One backward sweep suffices: an op's users come after it.
void eraseDeadOps(func::FuncOp graph, const llvm::DenseSet<Value> &keep) {
  SmallVector<Operation *> ops;
  for (Operation &op : graph.getBody().front().without_terminator())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (op->use_empty() && isPure(op) && op->getNumRegions() == 0 &&
        llvm::none_of(op->getResults(),
                      [&](Value v) { return keep.contains(v); }))
      op->erase();
}
} // namespace

namespace {
/// The calibration sets of `dir` and a copy of the module specialized to
/// their shapes, its ops matched to the original's graphOps order.
struct CalibrationCopy {
  std::vector<HostInputs> sets;
  OwningOpRef<ModuleOp> module;
  SmallVector<Operation *> ops; // null where specialization folded one away
  std::vector<OpParts> parts;   // by op, see OpParts
};

Expected<CalibrationCopy> prepareCopy(ModuleOp module, StringRef dir) {
  CalibrationCopy result;
  auto sets = readInputSets(dir);
  if (!sets)
    return llvm::createStringError("calibration: " +
                                   llvm::toString(sets.takeError()));
  if (Error err = checkSetsAlike(dir, *sets))
    return std::move(err);
  result.sets = std::move(*sets);

  bool external = false;
  module.walk(
      [&](ConstantOp op) { external |= isa<ExternalAttr>(op.getValue()); });
  if (external)
    return llvm::createStringError(
        "calibration needs the weights in memory: run dsmp-load-weights "
        "first");

  SmallVector<Operation *> original = graphOps(module);
  InputShapes shapes = shapesOf(result.sets.front());
  OwningOpRef<ModuleOp> &copy = result.module;
  SmallVector<Operation *> &ops = result.ops;
  ops.assign(original.size(), nullptr);
  if (isSpecializedTo(module.lookupSymbol<func::FuncOp>("main_graph"),
                      shapes)) {
    // Nothing to specialize: the copy's ops match the original's in order.
    copy = module.clone();
    ops = graphOps(*copy);
  } else {
    // Specializing folds and replaces ops: match them by an id attribute.
    for (auto [id, op] : llvm::enumerate(original))
      op->setAttr(kIdAttr, IntegerAttr::get(
                               IntegerType::get(module.getContext(), 64), id));
    copy = module.clone();
    for (Operation *op : original)
      op->removeAttr(kIdAttr);
    if (Error err = specializeGraph(*copy, shapes, 1,
                                    /*requireAllInputs=*/true))
      return llvm::createStringError(
          "calibration folder '" + dir +
          "' does not fit the model: " + llvm::toString(std::move(err)));
    // Ifs the shapes decide are inlined: their ops keep their ids.
    copy->walk([&](Operation *op) {
      if (auto id = op->getAttrOfType<IntegerAttr>(kIdAttr))
        ops[id.getInt()] = op;
    });
    // An op that specialization rewrote into several (an unrolled
    // recurrence) left them its location and no id.
    llvm::DenseMap<Location, size_t> replaced;
    for (auto [id, op] : llvm::enumerate(original))
      if (!ops[id] && op->getNumResults() > 0 &&
          isF32Tensor(op->getResult(0).getType()))
        replaced.try_emplace(op->getLoc(), id);
    result.parts.resize(original.size());
    if (!replaced.empty())
      for (Operation *op : graphOps(*copy))
        if (!op->hasAttr(kIdAttr) &&
            !op->hasTrait<mlir::OpTrait::ConstantLike>())
          if (auto it = replaced.find(op->getLoc()); it != replaced.end())
            result.parts[it->second].push_back(op);
  }
  result.parts.resize(original.size());
  return result;
}
} // namespace

Value concatFlattened(Operation *before, ArrayRef<Value> values) {
  OpBuilder b(before);
  GraphBuilder g(b, before->getLoc());
  SmallVector<Value> flat;
  for (Value v : values)
    flat.push_back(
        g.reshape(v, {cast<RankedTensorType>(v.getType()).getNumElements()}));
  if (flat.size() == 1)
    return flat.front();
  return g.value("dsmp.concat", flat, {g.i64("axis", 0)});
}

Error runProbes(ModuleOp module, StringRef dir, Instrument instrument,
                ProbeObserver observe, HostEngine engine,
                std::vector<bool> *reached) {
  auto prepared = prepareCopy(module, dir);
  if (!prepared)
    return prepared.takeError();
  OwningOpRef<ModuleOp> &copy = prepared->module;
  auto graph = copy->lookupSymbol<func::FuncOp>("main_graph");
  // Which branches enclose each op, before the Ifs go.
  SmallVector<SmallVector<std::pair<Operation *, unsigned>, 1>> branchesOf(
      prepared->ops.size());
  for (auto [id, op] : llvm::enumerate(prepared->ops))
    for (Operation *at = op; at && at != graph.getOperation();
         at = at->getParentOp())
      if (auto parent = dyn_cast_or_null<IfOp>(at->getParentOp()))
        branchesOf[id].push_back(
            {parent, at->getParentRegion()->getRegionNumber()});
  std::vector<FlattenedIf> flattened = flattenBranches(graph);
  llvm::DenseMap<Operation *, size_t> flagOf;
  for (auto [index, f] : llvm::enumerate(flattened))
    flagOf[f.op] = index;
  Block &top = graph.getBody().front();
  for (Operation *&op : prepared->ops)
    if (op && (flagOf.contains(op) || op->getBlock() != &top))
      op = nullptr; // flattened away, or inside an If that was not
  auto probes = instrument(graph, prepared->ops, prepared->parts);
  if (failed(probes))
    return llvm::createStringError("calibration: cannot instrument the graph");
  // Each flattened If's condition, as f32, after the instrument's probes.
  size_t numProbes = probes->size();
  for (FlattenedIf &f : flattened) {
    OpBuilder b(graph.getContext());
    b.setInsertionPointAfterValue(f.flag);
    probes->push_back(
        GraphBuilder(b, f.flag.getLoc()).convert(f.flag, b.getF32Type()));
  }
  std::vector<std::vector<bool>> taken(
      flattened.size(), std::vector<bool>(prepared->sets.size()));
  size_t setIndex = 0;
  auto observeProbe = [&](size_t index, ArrayRef<float> values) {
    if (index < numProbes)
      return observe(index, values);
    taken[index - numProbes][setIndex] = !values.empty() && values[0] != 0;
  };
  // An op is reached in a set where every branch around it is taken.
  auto markReached = [&]() {
    if (!reached)
      return;
    reached->assign(branchesOf.size(), false);
    for (size_t id = 0; id < branchesOf.size(); ++id)
      for (size_t set = 0; set < prepared->sets.size() && !(*reached)[id];
           ++set)
        (*reached)[id] = llvm::all_of(branchesOf[id], [&](auto &entry) {
          auto it = flagOf.find(entry.first);
          return it == flagOf.end() ||
                 taken[it->second][set] == (entry.second == 0);
        });
  };
  llvm::DenseSet<Value> keep(probes->begin(), probes->end());
  eraseDeadOps(graph, keep);
  // LLVM_DEBUG is compiled out of Debian's release LLVM; this env var is
  // the way to see what the calibration run computes.
  bool dump = getenv("DSMP_DUMP_CALIBRATION");
  if (dump)
    llvm::errs() << "// instrumented graph\n" << *copy << "\n";

  if (engine != HostEngine::Compile) {
    auto evaluator = GraphEvaluator::create(graph);
    if (evaluator) {
      llvm::DenseMap<Value, SmallVector<size_t, 1>> probesOf;
      for (auto [index, value] : llvm::enumerate(*probes))
        probesOf[value].push_back(index);
      MLIRContext *context = module.getContext();
      for (setIndex = 0; setIndex < prepared->sets.size(); ++setIndex) {
        Error failure = runDeclinable<CalibrationRunAction>(
            context,
            [&]() -> Error {
              auto out = (*evaluator)
                             ->run(prepared->sets[setIndex],
                                   [&](Operation *op, unsigned result,
                                       ArrayRef<float> values) {
                                     auto it =
                                         probesOf.find(op->getResult(result));
                                     if (it != probesOf.end())
                                       for (size_t index : it->second)
                                         observeProbe(index, values);
                                   });
              return out ? Error::success() : out.takeError();
            },
            setIndex, prepared->sets.size(), false);
        if (failure)
          return llvm::createStringError("calibration run: " +
                                         llvm::toString(std::move(failure)));
      }
      markReached();
      return Error::success();
    }
    if (engine == HostEngine::Evaluate)
      return llvm::createStringError("calibration: " +
                                     llvm::toString(evaluator.takeError()));
    // Compiling handles more ops and types; say why when asked.
    std::string why = llvm::toString(evaluator.takeError());
    if (dump)
      llvm::errs() << "// calibration compiles: " << why << "\n";
  }

  // Compiled: the probes become outputs.
  Operation *ret = graph.getBody().front().getTerminator();
  unsigned numOriginal = ret->getNumOperands();
  SmallVector<DictionaryAttr> resultAttrs;
  graph.getAllResultAttrs(resultAttrs);
  resultAttrs.resize(numOriginal);
  SmallVector<Value> results(ret->getOperands());
  results.append(probes->begin(), probes->end());
  ret->setOperands(results);
  SmallVector<Type> resultTypes;
  Builder b(copy->getContext());
  for (auto [i, v] : llvm::enumerate(results)) {
    resultTypes.push_back(v.getType());
    if (i >= numOriginal)
      resultAttrs.push_back(b.getDictionaryAttr(b.getNamedAttr(
          "dsmp.name",
          b.getStringAttr("dsmp_probe_" + Twine(i - numOriginal)))));
  }
  graph.setFunctionType(FunctionType::get(
      copy->getContext(), graph.getArgumentTypes(), resultTypes));
  graph.setAllResultAttrs(resultAttrs);
  std::vector<std::vector<HostTensor>> outputs;
  Error failure = runDeclinable<CalibrationRunAction>(
      module.getContext(),
      [&]() -> Error {
        auto all =
            runOnInputSets(*copy, prepared->sets, HostEngine::Compile, nullptr);
        if (!all)
          return all.takeError();
        outputs = std::move(*all);
        return Error::success();
      },
      0, prepared->sets.size(), true);
  if (failure)
    return llvm::createStringError("calibration run: " +
                                   llvm::toString(std::move(failure)));
  for (setIndex = 0; setIndex < outputs.size(); ++setIndex)
    for (size_t index = 0; index < probes->size(); ++index)
      observeProbe(index, floatsOf(outputs[setIndex][numOriginal + index]));
  markReached();
  return Error::success();
}

} // namespace mlir::dsmp
