//===- OutlineLoopNests.cpp - One function per top-level loop ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lib/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"
#include <functional>

namespace mlir::dsmp {
#define GEN_PASS_DEF_OUTLINELOOPNESTSPASS
#include "lib/Conversion/Passes.h.inc"
} // namespace mlir::dsmp

using namespace mlir;

namespace {
/// The buffer a memref views (through subviews, reshapes and casts).
Value rootBuffer(Value memref) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
    memref = view.getViewSource();
  return memref;
}

/// The captured values a loop nest writes, or nullopt when it touches
/// memory other than by memref.load/store (a call, a copy).
std::optional<llvm::SmallPtrSet<Value, 4>>
writtenArguments(Operation *nest, const llvm::SetVector<Value> &captured) {
  llvm::SmallPtrSet<Value, 4> written;
  WalkResult result = nest->walk([&](Operation *op) {
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      Value target = store.getMemRef();
      while (!captured.contains(target))
        if (auto view = target.getDefiningOp<ViewLikeOpInterface>())
          target = view.getViewSource();
        else
          return WalkResult::interrupt(); // a buffer of its own
      written.insert(target);
      return WalkResult::advance();
    }
    // Loops: their bodies are walked.
    if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
        isa<memref::LoadOp, ViewLikeOpInterface>(op) || isMemoryEffectFree(op))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  if (result.wasInterrupted())
    return std::nullopt;
  return written;
}

/// The positions of the aligned pointers of the memref arguments once the
/// function is in the LLVM dialect (each memref of rank r expands to
/// allocated and aligned pointer, offset, r sizes, r strides) when no
/// buffer a nest writes is reachable through another argument: LLVM may
/// then take them as `noalias` and vectorize without runtime checks.
SmallVector<int64_t> noAliasPointerPositions(Operation *nest,
                                             ArrayRef<Value> arguments) {
  llvm::SetVector<Value> captured(arguments.begin(), arguments.end());
  auto written = writtenArguments(nest, captured);
  if (!written)
    return {};
  SmallVector<Value> roots;
  for (Value argument : arguments)
    roots.push_back(isa<MemRefType>(argument.getType()) ? rootBuffer(argument)
                                                        : Value());
  for (auto [i, argument] : llvm::enumerate(arguments)) {
    if (!written->contains(argument))
      continue;
    for (auto [j, root] : llvm::enumerate(roots))
      if (i != j && root && root == roots[i])
        return {};
  }
  SmallVector<int64_t> positions;
  int64_t position = 0;
  for (Value argument : arguments) {
    Type type = argument.getType();
    if (auto memref = dyn_cast<MemRefType>(type)) {
      positions.push_back(position + 1);
      position += 3 + 2 * memref.getRank();
    } else if (type.isIntOrIndexOrFloat()) {
      position += 1;
    } else {
      return {};
    }
  }
  return positions;
}

/// The static trip count of loop `dim` of a loop op, or nullopt.
std::optional<int64_t> tripCount(Value lower, Value upper, Value step) {
  auto lo = getConstantIntValue(lower), hi = getConstantIntValue(upper),
       st = getConstantIntValue(step);
  if (!lo || !hi || !st || *st <= 0)
    return std::nullopt;
  return *hi > *lo ? (*hi - *lo + *st - 1) / *st : 0;
}

/// Iterations of all loops in the nest (a dynamic loop counts as large).
int64_t nestWork(Operation *nest) {
  constexpr int64_t kLarge = int64_t(1) << 40;
  int64_t work = 1;
  nest->walk([&](Operation *op) {
    auto multiply = [&](std::optional<int64_t> trips) {
      work = trips ? std::min(kLarge, work * std::max<int64_t>(*trips, 1))
                   : kLarge;
    };
    if (auto loop = dyn_cast<scf::ForOp>(op))
      multiply(tripCount(loop.getLowerBound(), loop.getUpperBound(),
                         loop.getStep()));
    else if (auto parallel = dyn_cast<scf::ParallelOp>(op))
      for (unsigned d = 0; d < parallel.getNumLoops(); ++d)
        multiply(tripCount(parallel.getLowerBound()[d],
                           parallel.getUpperBound()[d], parallel.getStep()[d]));
  });
  return work;
}

/// The dim of a top-level scf.parallel that threads split: the first with
/// unit step, zero lower bound and more than one iteration.
std::optional<unsigned> splitDim(Operation *nest) {
  auto parallel = dyn_cast<scf::ParallelOp>(nest);
  if (!parallel || parallel.getNumReductions() != 0)
    return std::nullopt;
  for (unsigned d = 0; d < parallel.getNumLoops(); ++d) {
    auto lo = getConstantIntValue(parallel.getLowerBound()[d]);
    auto step = getConstantIntValue(parallel.getStep()[d]);
    auto trips = tripCount(parallel.getLowerBound()[d],
                           parallel.getUpperBound()[d], parallel.getStep()[d]);
    if (lo && *lo == 0 && step && *step == 1 && trips && *trips > 1)
      return d;
  }
  return std::nullopt;
}

/// `argument`'s type with a strided layout's static offset made dynamic,
/// where the nest only loads and stores through it: nests that differ only
/// in where their views start (one step of an unrolled recurrence and the
/// next) then outline into one function. Otherwise its own type.
Type sharedArgumentType(Value argument, Operation *nest) {
  auto memref = dyn_cast<MemRefType>(argument.getType());
  auto strided =
      memref ? dyn_cast<StridedLayoutAttr>(memref.getLayout()) : nullptr;
  if (!strided || ShapedType::isDynamic(strided.getOffset()))
    return argument.getType();
  for (OpOperand &use : argument.getUses()) {
    Operation *user = use.getOwner();
    if (!nest->isAncestor(user))
      continue;
    bool accessed = false;
    if (auto load = dyn_cast<memref::LoadOp>(user))
      accessed = use.get() == load.getMemRef();
    else if (auto store = dyn_cast<memref::StoreOp>(user))
      accessed = use.get() == store.getMemRef();
    if (!accessed)
      return argument.getType();
  }
  auto layout = StridedLayoutAttr::get(
      argument.getContext(), ShapedType::kDynamic, strided.getStrides());
  return MemRefType::get(memref.getShape(), memref.getElementType(), layout,
                         memref.getMemorySpace());
}

/// The text of `function` without its name: equal texts compute the same.
std::string bodyKey(func::FuncOp function) {
  std::string text;
  llvm::raw_string_ostream os(text);
  // Local scope: otherwise each print numbers the whole module's values.
  function->print(os, OpPrintingFlags().useLocalScope().assumeVerified());
  std::string name = "@" + function.getSymName().str() + "(";
  if (size_t at = text.find(name); at != std::string::npos)
    text.replace(at, name.size(), "@(");
  return text;
}

struct OutlineLoopNestsPass final
    : mlir::dsmp::impl::OutlineLoopNestsPassBase<OutlineLoopNestsPass> {
  using OutlineLoopNestsPassBase::OutlineLoopNestsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto graph = module.lookupSymbol<func::FuncOp>("main_graph");
    if (!graph || graph.isExternal())
      return;
    // The graph's nests, and those in the branches of its scf.ifs (a
    // training step's per-layer variants).
    SmallVector<Operation *> nests;
    std::function<void(Block &)> collect = [&](Block &block) {
      for (Operation &op : block)
        if (isa<scf::ForOp, scf::ParallelOp>(op) && op.getNumResults() == 0)
          nests.push_back(&op);
        else if (isa<scf::IfOp>(op))
          for (Region &region : op.getRegions())
            for (Block &inner : region)
              collect(inner);
    };
    for (Block &block : graph.getBody())
      collect(block);

    MLIRContext *context = &getContext();
    SymbolTable symbols(module);
    unsigned counter = 0;
    // Outlined functions by their text: a nest equal to an earlier one
    // calls that (an unrolled recurrence repeats each step's nests).
    llvm::StringMap<func::FuncOp> outlinedByKey;
    for (Operation *nest : nests) {
      // Values from outside: constants are cloned, the rest are arguments.
      llvm::SetVector<Value> captured;
      getUsedValuesDefinedAbove(nest->getRegions(), captured);
      for (Value operand : nest->getOperands())
        captured.insert(operand);
      SmallVector<Value> arguments;
      SmallVector<Operation *> constants;
      for (Value v : captured) {
        Operation *def = v.getDefiningOp();
        if (def && def->hasTrait<OpTrait::ConstantLike>() &&
            def->getNumOperands() == 0)
          constants.push_back(def);
        else
          arguments.push_back(v);
      }

      // A nest with enough parallel work takes the range of its split dim
      // as two leading index arguments (threads run parts of it).
      std::optional<unsigned> split;
      if (splitParallel && nestWork(nest) >= minParallelWork)
        split = splitDim(nest);
      OpBuilder b(graph);
      SmallVector<Type> argumentTypes;
      if (split)
        argumentTypes.append(2, b.getIndexType());
      for (Value argument : arguments)
        argumentTypes.push_back(sharedArgumentType(argument, nest));
      auto type = FunctionType::get(context, argumentTypes, {});
      auto outlined = func::FuncOp::create(
          b, nest->getLoc(), "main_graph_loop" + std::to_string(counter++),
          type);
      outlined.setPrivate();
      // Kept out of line through LLVM (the inliner would otherwise rebuild
      // the one big function) and internal to the artifact.
      outlined->setAttr("passthrough",
                        b.getArrayAttr({b.getStringAttr("noinline")}));
      outlined->setAttr("llvm.linkage", LLVM::LinkageAttr::get(
                                            context, LLVM::Linkage::Internal));
      SmallVector<int64_t> noAlias = noAliasPointerPositions(nest, arguments);
      if (split) {
        for (int64_t &position : noAlias)
          position += 2; // after lo and hi
        outlined->setAttr("dsmp.fork", b.getUnitAttr());
      }
      if (!noAlias.empty())
        outlined->setAttr("dsmp.noalias_pointers",
                          b.getDenseI64ArrayAttr(noAlias));
      symbols.insert(outlined);
      Block *body = outlined.addEntryBlock();
      OpBuilder inner = OpBuilder::atBlockBegin(body);
      IRMapping mapping;
      unsigned first = split ? 2 : 0;
      for (auto [value, arg] :
           llvm::zip(arguments, body->getArguments().drop_front(first)))
        mapping.map(value, arg);
      for (Operation *constant : constants)
        inner.clone(*constant, mapping);
      Operation *clone = inner.clone(*nest, mapping);
      func::ReturnOp::create(inner, nest->getLoc());

      OpBuilder call(nest);
      SmallVector<Value> operands;
      if (split) {
        auto parallel = cast<scf::ParallelOp>(clone);
        unsigned loops = parallel.getNumLoops();
        Value whole = cast<scf::ParallelOp>(nest).getUpperBound()[*split];
        operands.push_back(
            arith::ConstantIndexOp::create(call, nest->getLoc(), 0));
        operands.push_back(arith::ConstantIndexOp::create(
            call, nest->getLoc(), *getConstantIntValue(whole)));
        parallel->setOperand(*split, body->getArgument(0));
        parallel->setOperand(loops + *split, body->getArgument(1));
      }
      for (auto [argument, type] :
           llvm::zip(arguments, ArrayRef(argumentTypes).drop_front(first)))
        operands.push_back(
            argument.getType() == type
                ? argument
                : memref::CastOp::create(call, nest->getLoc(), type, argument)
                      .getResult());
      auto [known, added] =
          outlinedByKey.try_emplace(bodyKey(outlined), outlined);
      if (!added) {
        symbols.erase(outlined);
        --counter;
      }
      func::CallOp::create(call, nest->getLoc(), known->second, operands);
      nest->erase();
    }
  }
};
} // namespace
