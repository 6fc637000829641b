//===- LayerFallback.cpp - Per-layer FP32 variants of a step ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "passes/Training/LayerFallback.h"

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/GraphBuilder.h"
#include "dialects/Dsmp/IR/OnnxOpRegistry.h"
#include "passes/Precision/Adjoint.h"
#include "passes/Precision/Formats.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Regex.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::dsmp;

namespace {

/// Which layer an op belongs to, while the step is being built (the ops
/// are tagged before dead ones are erased, so no pointer is kept).
constexpr llvm::StringLiteral kLayerAttr = "dsmp.fallback_layer";
/// Tags the ops of the forward pass (and the Ifs of forward runs).
constexpr llvm::StringLiteral kForwardAttr = "dsmp.fallback_forward";
/// Tags each layer's contraction.
constexpr llvm::StringLiteral kAnchorAttr = "dsmp.fallback_anchor";

bool isDataMovement(Operation *op) {
  auto precision = dyn_cast_or_null<PrecisionOpInterface>(op);
  return precision && precision.getOpClass() == OpClass::data_movement;
}

/// Whether `v` is a weight, or data moved from one (a transposed or
/// reshaped weight).
bool fromWeight(Value v, const llvm::DenseSet<Value> &weights, int depth = 0) {
  if (weights.contains(v))
    return true;
  Operation *def = v.getDefiningOp();
  if (!def || depth > 8 || !isDataMovement(def))
    return false;
  return llvm::any_of(def->getOperands(), [&](Value operand) {
    return fromWeight(operand, weights, depth + 1);
  });
}

/// A layer's anchor: a contraction that reads a trainable weight.
bool isAnchor(Operation *op, const llvm::DenseSet<Value> &weights) {
  auto precision = dyn_cast<PrecisionOpInterface>(op);
  if (!precision || (precision.getOpClass() != OpClass::matmul &&
                     precision.getOpClass() != OpClass::conv))
    return false;
  return llvm::any_of(op->getOperands(),
                      [&](Value v) { return fromWeight(v, weights); });
}

std::optional<int64_t> layerOf(Operation *op) {
  if (auto attr = op->getAttrOfType<IntegerAttr>(kLayerAttr))
    return attr.getInt();
  return std::nullopt;
}

/// Half the smallest subnormal of `format`: smaller magnitudes round to 0.
double underflowBound(StringRef format) {
  if (format == "bf16")
    return std::ldexp(1.0, -134);
  return std::ldexp(1.0, -25); // f16
}

struct Run {
  int64_t layer;
  SmallVector<Operation *> ops;
};

} // namespace

std::vector<std::string> mlir::dsmp::markFallbackLayers(
    ArrayRef<Operation *> forward,
    const llvm::DenseMap<Operation *, Operation *> &origin,
    ArrayRef<BlockArgument> weights, StringRef keptF32) {
  llvm::DenseSet<Value> weightSet(weights.begin(), weights.end());
  std::optional<llvm::Regex> sensitive;
  if (!keptF32.empty())
    sensitive.emplace(keptF32);
  std::vector<std::string> names;
  llvm::StringSet<> taken;
  int64_t current = -1;
  for (Operation *op : forward) {
    MLIRContext *ctx = op->getContext();
    op->setAttr(kForwardAttr, UnitAttr::get(ctx));
    if (op->hasTrait<mlir::OpTrait::ConstantLike>())
      continue;
    if (isAnchor(op, weightSet)) {
      std::string name = onnxNodeName(op->getLoc());
      if (sensitive && !name.empty() && sensitive->match(name)) {
        current = -1; // FP32 already
        continue;
      }
      current = static_cast<int64_t>(names.size());
      if (name.empty())
        name = "layer_" + std::to_string(current);
      std::string unique = name;
      for (int k = 2; !taken.insert(unique).second; ++k)
        unique = name + "_" + std::to_string(k);
      names.push_back(unique);
      op->setAttr(kAnchorAttr, UnitAttr::get(ctx));
    }
    if (current >= 0)
      op->setAttr(kLayerAttr,
                  IntegerAttr::get(IntegerType::get(ctx, 64), current));
  }
  for (auto [built, from] : origin)
    if (std::optional<int64_t> layer = layerOf(from);
        layer && !built->hasTrait<mlir::OpTrait::ConstantLike>())
      built->setAttr(kLayerAttr, from->getAttr(kLayerAttr));
  return names;
}

FallbackLayers
mlir::dsmp::addFallbackVariants(func::FuncOp func,
                                ArrayRef<std::string> layerNames,
                                const LayerFallbackOptions &options) {
  FallbackLayers out;
  out.names.assign(layerNames.begin(), layerNames.end());
  MLIRContext *ctx = func.getContext();
  Block &body = func.getBody().front();
  auto cleanup = [&] {
    func.walk([](Operation *op) {
      op->removeAttr(kLayerAttr);
      op->removeAttr(kForwardAttr);
      op->removeAttr(kAnchorAttr);
    });
  };
  int64_t numLayers = static_cast<int64_t>(layerNames.size());
  if (numLayers == 0) {
    cleanup();
    return out;
  }

  // Constants first: a run then never splits around one.
  Operation *firstNonConstant = nullptr;
  for (Operation &op : llvm::make_early_inc_range(body.without_terminator())) {
    if (op.hasTrait<mlir::OpTrait::ConstantLike>() &&
        op.getNumOperands() == 0) {
      if (firstNonConstant)
        op.moveBefore(firstNonConstant);
    } else if (!firstNonConstant) {
      firstNonConstant = &op;
    }
  }

  // The per-layer selectors, before every layer.
  Type f32 = Float32Type::get(ctx);
  auto layersType = RankedTensorType::get({numLayers}, f32);
  auto addInput = [&](StringRef name) {
    unsigned index = func.getNumArguments();
    (void)func.insertArgument(
        index, layersType,
        DictionaryAttr::get(ctx,
                            {NamedAttribute(StringAttr::get(ctx, "dsmp.name"),
                                            StringAttr::get(ctx, name))}),
        NameLoc::get(StringAttr::get(ctx, name)));
    return func.getArgument(index);
  };
  Value selector = addInput(fallback_names::kLayerFallback);
  Value faults =
      options.faultInjection ? addInput(fallback_names::kLayerFault) : Value();
  OpBuilder b(ctx);
  if (firstNonConstant)
    b.setInsertionPoint(firstNonConstant);
  else
    b.setInsertionPoint(body.getTerminator());
  GraphBuilder g(b, func.getLoc());
  SmallVector<Value> conditions, faultOf;
  for (int64_t k = 0; k < numLayers; ++k) {
    Value flag = g.value("dsmp.gather", {selector, g.i64s({k})});
    conditions.push_back(g.value("dsmp.greater", {flag, g.scalar(0.5, f32)}));
    if (faults)
      faultOf.push_back(g.value("dsmp.gather", {faults, g.i64s({k})}));
  }

  // Maximal runs of consecutive ops of one layer.
  SmallVector<Run> runs;
  for (Operation &op : body.without_terminator()) {
    std::optional<int64_t> layer = layerOf(&op);
    if (!layer || op.hasTrait<mlir::OpTrait::ConstantLike>()) {
      if (!op.hasTrait<mlir::OpTrait::ConstantLike>())
        runs.push_back({-1, {}});
      continue;
    }
    if (runs.empty() || runs.back().layer != *layer)
      runs.push_back({*layer, {}});
    runs.back().ops.push_back(&op);
  }

  SmallVector<SmallVector<Value>> forwardOut(numLayers), reverseOut(numLayers),
      reverseIn(numLayers);
  for (Run &run : runs) {
    if (run.layer < 0 || run.ops.empty())
      continue;
    llvm::SmallPtrSet<Operation *, 16> inRun(run.ops.begin(), run.ops.end());
    bool forwardRun = run.ops.front()->hasAttr(kForwardAttr);
    // Values the rest of the graph reads.
    SmallVector<Value> escaping;
    for (Operation *op : run.ops)
      for (Value result : op->getResults())
        if (llvm::any_of(result.getUsers(), [&](Operation *user) {
              return !inRun.contains(body.findAncestorOpInBlock(*user));
            }))
          escaping.push_back(result);
    // The gradients entering the layer's first reverse run (its output's).
    if (!forwardRun && reverseIn[run.layer].empty())
      for (Operation *op : run.ops)
        for (Value operand : op->getOperands()) {
          Operation *def = operand.getDefiningOp();
          if (!def || inRun.contains(def) || def->hasAttr(kForwardAttr) ||
              def->hasTrait<mlir::OpTrait::ConstantLike>() ||
              !isF32Tensor(operand.getType()) ||
              llvm::is_contained(reverseIn[run.layer], operand))
            continue;
          reverseIn[run.layer].push_back(operand);
        }

    b.setInsertionPoint(run.ops.front());
    SmallVector<Type> types;
    for (Value v : escaping)
      types.push_back(v.getType());
    auto ifOp = IfOp::create(b, run.ops.front()->getLoc(), types,
                             conditions[run.layer]);
    if (forwardRun)
      ifOp->setAttr(kForwardAttr, UnitAttr::get(ctx));
    Block *thenBlock = b.createBlock(&ifOp.getThenBranch());
    Block *elseBlock = b.createBlock(&ifOp.getElseBranch());

    // FP32: clones, marked.
    b.setInsertionPointToEnd(thenBlock);
    IRMapping mapping;
    for (Operation *op : run.ops) {
      Operation *clone = b.clone(*op, mapping);
      clone->walk([&](Operation *nested) {
        nested->setAttr(kFallbackF32Attr, UnitAttr::get(ctx));
      });
    }
    SmallVector<Value> thenYield;
    for (Value v : escaping)
      thenYield.push_back(mapping.lookup(v));
    YieldOp::create(b, ifOp.getLoc(), thenYield);

    // The configured format: the ops themselves.
    b.setInsertionPointToEnd(elseBlock);
    auto elseYield = YieldOp::create(b, ifOp.getLoc(), escaping);
    for (Operation *op : run.ops)
      op->moveBefore(elseYield);
    for (auto [v, result] : llvm::zip(escaping, ifOp.getResults()))
      v.replaceUsesWithIf(result, [&](OpOperand &use) {
        return !ifOp->isAncestor(use.getOwner());
      });
    if (faults)
      for (Operation *op : run.ops)
        if (op->hasAttr(kAnchorAttr)) {
          b.setInsertionPointAfter(op);
          GraphBuilder fg(b, op->getLoc());
          Value result = op->getResult(0);
          Value scaled = fg.mul(result, faultOf[run.layer]);
          Value back = fg.div(scaled, faultOf[run.layer]);
          result.replaceUsesWithIf(back, [&](OpOperand &use) {
            return use.getOwner() != scaled.getDefiningOp();
          });
        }
    for (Value r : ifOp.getResults())
      if (isF32Tensor(r.getType()))
        (forwardRun ? forwardOut : reverseOut)[run.layer].push_back(r);
  }

  if (options.layerStats) {
    Operation *before = body.getTerminator()->getPrevNode();
    b.setInsertionPoint(body.getTerminator());
    GraphBuilder sg(b, func.getLoc());
    auto one = [&](double v) { return sg.scalar(v, f32); };
    double inf = std::numeric_limits<double>::infinity();
    auto count = [&](Value flags) {
      return sg.reduceAll("dsmp.reduce_sum",
                          sg.value("dsmp.where", {flags, one(1), one(0)}));
    };
    auto elements = [](Value v) {
      return static_cast<double>(
          cast<RankedTensorType>(v.getType()).getNumElements());
    };
    // The largest |value| (reduce_max and max propagate NaN, so an inf or
    // NaN anywhere shows in it), and whether it is finite.
    auto amaxOf = [&](ArrayRef<Value> values) {
      Value amax = one(0);
      for (Value v : values)
        amax = sg.value(
            "dsmp.max",
            {amax, sg.reduceAll("dsmp.reduce_max", sg.value("dsmp.abs", {v}))});
      return amax;
    };
    auto notFinite = [&](Value amax) {
      return sg.value("dsmp.where", {sg.value("dsmp.less", {amax, one(inf)}),
                                     one(0), one(1)});
    };
    double tiny = underflowBound(options.format);
    SmallVector<Value> rows;
    for (int64_t k = 0; k < numLayers; ++k) {
      Value amax = amaxOf(forwardOut[k]);
      Value under = one(0), nonZero = one(0);
      for (Value v : reverseIn[k]) {
        Value zeros = count(sg.value("dsmp.equal", {v, one(0)}));
        Value small = count(
            sg.value("dsmp.less", {sg.value("dsmp.abs", {v}), one(tiny)}));
        under = sg.add(under, sg.sub(small, zeros));
        nonZero = sg.add(nonZero, sg.sub(one(elements(v)), zeros));
      }
      Value fraction = sg.div(under, sg.value("dsmp.max", {nonZero, one(1)}));
      SmallVector<Value> parts;
      for (Value v :
           {amax, notFinite(amax), notFinite(amaxOf(reverseOut[k])), fraction})
        parts.push_back(sg.reshape(v, {1, 1}));
      rows.push_back(sg.value("dsmp.concat", parts, {sg.i64("axis", 1)}));
    }
    out.stats = rows.size() == 1
                    ? rows.front()
                    : sg.value("dsmp.concat", rows, {sg.i64("axis", 0)});
    // Measurements, not the model: f32.
    for (Operation *op = before ? before->getNextNode() : &body.front();
         op != body.getTerminator(); op = op->getNextNode())
      op->setAttr(kTrainingF32Attr, UnitAttr::get(ctx));
  }
  cleanup();
  return out;
}
