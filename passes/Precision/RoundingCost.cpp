//===- RoundingCost.cpp - Predicted error of an assignment ---- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "passes/Precision/RoundingCost.h"
#include "passes/Precision/F8Scaling.h"
#include "passes/Precision/Formats.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringSet.h"

#include <cmath>

using namespace mlir;
using namespace mlir::dsmp;

double mlir::dsmp::maxAbsPerL2(int64_t n) {
  double elements = static_cast<double>(std::max<int64_t>(n, 1));
  return std::min(1.0, std::sqrt(2 * std::log(2 * elements) / elements));
}

bool mlir::dsmp::returnsInputValues(Operation *op) {
  static const llvm::StringSet<> kSelecting = {
      "Relu", "Abs",   "Neg",  "Max",     "Min",           "Floor", "Ceil",
      "Sign", "Where", "Clip", "MaxPool", "GlobalMaxPool", "Round"};
  return kSelecting.contains(onnxTypeOf(op));
}

bool mlir::dsmp::isDataOperand(Operation *op, unsigned index) {
  StringRef name = op->getName().getStringRef();
  // Inference BatchNormalization's statistics and affine parameters stay
  // f32 (ONNX types them apart: T1, T2); only X is data.
  if (name == "dsmp.resize" || name == "dsmp.pow" ||
      name == "dsmp.batch_normalization")
    return index == 0;
  return true;
}

namespace {

bool isConstant(Value v) {
  Operation *def = v.getDefiningOp();
  return def && def->hasTrait<mlir::OpTrait::ConstantLike>();
}

bool isContraction(Operation *op) {
  auto precision = dyn_cast<PrecisionOpInterface>(op);
  return precision && (precision.getOpClass() == OpClass::matmul ||
                       precision.getOpClass() == OpClass::conv);
}

/// Ops that run in the format their data input arrives in (see
/// dsmp-assign-precision): their results are that input, moved.
bool movesData(Operation *op) {
  auto precision = dyn_cast<PrecisionOpInterface>(op);
  if (!precision || isa<CastOp>(op))
    return false;
  return precision.getOpClass() == OpClass::data_movement ||
         isa<MaxPoolOp, GlobalMaxPoolOp>(op);
}

double sensitivity(Operation *op, StringRef key) {
  auto dict =
      op ? op->getAttrOfType<DictionaryAttr>("dsmp.sensitivity") : nullptr;
  auto attr = dict ? dict.getAs<FloatAttr>(key) : nullptr;
  return attr ? attr.getValueAsDouble() : -1.0;
}

/// A measure of a value (`key` of dsmp.sensitivity: its energy, or f16's
/// subnormal_error): its producer's when it is the producer's first result
/// and was measured; -1 when unknown.
double measureOf(Value v, StringRef key) {
  auto result = dyn_cast<OpResult>(v);
  if (!result || result.getResultNumber() != 0)
    return -1.0;
  return sensitivity(result.getOwner(), key);
}

double energyOf(Value v) { return measureOf(v, "energy"); }

/// The variance of the relative error of rounding a value to `f`. A value
/// m * 2^e (m in [1, 2)) errs by up to u * 2^e, evenly, so relatively by
/// u^2 / (3 m^2) in variance. Over mantissas spread logarithmically (as
/// Benford's law has them; activations and weights come close) the mean of
/// 1 / m^2 is 3 / (8 ln 2), so u^2 / (8 ln 2), about 0.18 u^2. u^2 / 3
/// (every m near 1) overstated errors by 1.36x: resnet18 all in f16 was
/// predicted 1.64e-3 for a measured 1.25e-3, now 1.21e-3.
double roundingVariance(Format f) {
  return std::pow(unitRoundoff(f), 2) / (8 * std::log(2.0));
}

bool isSixteenBit(Format f) { return f == Format::f16 || f == Format::bf16; }

/// Whether casting a value held in `from` to `to` rounds it.
bool castRounds(Format from, Format to) {
  if (to == Format::f32 || from == to)
    return false;
  if (to == Format::tf32 && isSixteenBit(from))
    return false; // f16 and bf16 values are tf32 values
  return true;
}

/// Whether an op computing in `format` reads operand `index` in it.
bool readsIn(Operation *op, unsigned index, Format format) {
  if (format == Format::f32)
    return false;
  if (format == Format::tf32 || isF8(format))
    return index < 2; // a contraction's two factors
  return isDataOperand(op, index);
}

} // namespace

/// The energy of rounding a contraction's constant factors: sum (dW * W)^2
/// where the sensitivity analysis measured it (operand 1), else taken as
/// the activation's energy.
static double constantFactorEnergy(Operation *op) {
  auto constant = [&](unsigned i) {
    return i < op->getNumOperands() && isConstant(op->getOperand(i)) &&
           isF32Tensor(op->getOperand(i).getType());
  };
  double standIn = sensitivity(op, "operand_energy");
  if (standIn < 0)
    standIn = std::max(sensitivity(op, "energy"), 0.0);
  double energy = 0;
  if (constant(0))
    energy += standIn;
  if (constant(1)) {
    double measured = sensitivity(op, "weight_energy");
    energy += measured >= 0 ? measured : standIn;
  }
  return energy;
}

/// What a cast of `read` (of root value `root`) for operand `index` of
/// `op` rounds, by measure `key` ("energy" or "subnormal_error"): the
/// value's own, else the root's, else (a graph input) what the reader
/// measured for that operand ("operand_" + key), else, for the energy, its
/// result's.
static double castMeasure(Value read, Value root, Operation *op, unsigned index,
                          StringRef key) {
  double measure = measureOf(read, key);
  if (measure < 0)
    measure = measureOf(root, key);
  if (measure < 0 && (index == 0 || (index < 2 && isContraction(op))))
    measure = sensitivity(op, ("operand_" + key).str());
  if (measure < 0 && key == "energy") // a graph input an elementwise op reads
    measure = sensitivity(op, "energy");
  return std::max(measure, 0.0);
}

/// A cast's cost in `format` per unit of roundingVariance: its energy, plus
/// in f16 its subnormal error in those units.
static double castWeight(double energy, double subnormal, Format format) {
  return format == Format::f16
             ? energy + subnormal / roundingVariance(Format::f16)
             : energy;
}

RoundingCost::RoundingCost(ArrayRef<Operation *> ops) {
  auto rootFor = [&](Value v) -> std::optional<unsigned> {
    if (!isF32Tensor(v.getType()) || isConstant(v))
      return std::nullopt;
    if (auto it = rootOf.find(v); it != rootOf.end())
      return it->second;
    if (!isa<BlockArgument>(v))
      return std::nullopt; // produced outside the graph's top level
    roots.push_back({v, nullptr, 0, 0, false, {}, {}});
    return rootOf[v] = roots.size() - 1;
  };
  for (Operation *op : ops) {
    if (movesData(op)) {
      std::optional<unsigned> from;
      for (Value operand : op->getOperands())
        if ((from = rootFor(operand)))
          break;
      if (from) {
        for (Value result : op->getResults())
          if (isF32Tensor(result.getType()))
            rootOf[result] = *from;
        continue;
      }
    }
    if (isContraction(op))
      weightEnergy[op] = constantFactorEnergy(op);
    SmallVector<unsigned, 4> &mine = touched[op];
    for (auto [index, operand] : llvm::enumerate(op->getOperands()))
      if (auto root = rootFor(operand)) {
        roots[*root].readers.push_back(op);
        reads[op].push_back(
            {*root, static_cast<unsigned>(index),
             castMeasure(operand, roots[*root].value, op, index, "energy"),
             castMeasure(operand, roots[*root].value, op, index,
                         "subnormal_error")});
        if (!llvm::is_contained(mine, *root))
          mine.push_back(*root);
      }
    for (Value result : op->getResults())
      if (isF32Tensor(result.getType())) {
        roots.push_back({result,
                         op,
                         std::max(energyOf(result), 0.0),
                         std::max(measureOf(result, "subnormal_error"), 0.0),
                         returnsInputValues(op),
                         {},
                         {}});
        rootOf[result] = roots.size() - 1;
        mine.push_back(roots.size() - 1);
      }
  }
}

Format RoundingCost::formatOf(Operation *op) const {
  auto it = formats.find(op);
  return it == formats.end() ? Format::f32 : it->second;
}

bool RoundingCost::storesWide(const Root &root) const {
  Operation *producer = root.producer;
  if (!producer || !isa<MatMulOp, GemmOp>(producer) ||
      root.value != producer->getResult(0))
    return false;
  return llvm::all_of(root.value.getUsers(), [&](Operation *user) {
    if (user->getBlock() != producer->getBlock())
      return false;
    return isa<func::ReturnOp>(user) ||
           (!movesData(user) && formatOf(user) == Format::f32);
  });
}

double RoundingCost::rootCost(const Root &root, bool afterCasts) const {
  Format held = root.producer ? formatOf(root.producer) : Format::f32;
  if (!isSixteenBit(held))
    held = Format::f32; // tf32 and f8 contractions give f32 results
  double cost = 0;
  // A 16-bit contraction rounds its sum plus the bias once (the lowering
  // adds the bias in f32). One whose every reader takes it in f32 stores it
  // unrounded once the casts are minimized; the choices still count that
  // rounding, so that a product's reader does not pay for it (an exact Relu
  // after an f16 MatMul stays free).
  if (held != Format::f32 && !root.exact && !(afterCasts && storesWide(root)))
    cost +=
        roundingVariance(held) * castWeight(root.energy, root.subnormal, held);
  for (const auto &[format, energies] : root.casts)
    if (!energies.empty() && castRounds(held, format))
      cost += roundingVariance(format) * *energies.rbegin();
  return cost;
}

void RoundingCost::addReads(Operation *op, Format format, bool add) {
  auto it = reads.find(op);
  if (format == Format::f32 || it == reads.end())
    return;
  for (const Read &read : it->second) {
    if (!readsIn(op, read.operand, format))
      continue;
    auto &casts = roots[read.root].casts;
    auto group =
        llvm::find_if(casts, [&](auto &c) { return c.first == format; });
    if (add) {
      if (group == casts.end())
        casts.push_back({format, {}}), group = std::prev(casts.end());
      group->second.insert(castWeight(read.energy, read.subnormal, format));
    } else if (group != casts.end()) {
      auto entry =
          group->second.find(castWeight(read.energy, read.subnormal, format));
      if (entry != group->second.end())
        group->second.erase(entry);
    }
  }
}

double RoundingCost::weightCost(Operation *op, Format format) const {
  if (format == Format::f32)
    return 0;
  auto it = weightEnergy.find(op);
  return it == weightEnergy.end() ? 0 : roundingVariance(format) * it->second;
}

double RoundingCost::costAround(Operation *op, Format format) {
  double cost = weightCost(op, format);
  auto it = touched.find(op);
  if (it != touched.end())
    for (unsigned root : it->second)
      cost += rootCost(roots[root]);
  return cost;
}

double RoundingCost::delta(Operation *op, Format format) {
  Format old = formatOf(op);
  if (old == format)
    return 0;
  double before = costAround(op, old);
  set(op, format);
  double after = costAround(op, format);
  set(op, old);
  return after - before;
}

void RoundingCost::set(Operation *op, Format format) {
  Format old = formatOf(op);
  if (old == format)
    return;
  addReads(op, old, /*add=*/false);
  addReads(op, format, /*add=*/true);
  if (format == Format::f32)
    formats.erase(op);
  else
    formats[op] = format;
}

double RoundingCost::total() const {
  double cost = 0;
  for (const Root &root : roots)
    cost += rootCost(root, /*afterCasts=*/true);
  // Summed in value order, not the map's (pointer-hashed) order, so that a
  // replayed compile predicts the same error to the last bit.
  SmallVector<double> weights;
  for (auto [op, format] : formats)
    weights.push_back(weightCost(op, format));
  llvm::sort(weights);
  for (double w : weights)
    cost += w;
  return cost;
}

ArrayRef<Operation *> RoundingCost::neighbours(Operation *op) {
  if (auto it = neighbourCache.find(op); it != neighbourCache.end())
    return it->second;
  llvm::SmallPtrSet<Operation *, 8> seen{op};
  SmallVector<Operation *> list;
  auto add = [&](Operation *other) {
    if (other && seen.insert(other).second)
      list.push_back(other);
  };
  if (auto t = touched.find(op); t != touched.end())
    for (unsigned root : t->second) {
      add(roots[root].producer);
      if (roots[root].readers.size() <= kMaxNeighbourReaders)
        for (Operation *reader : roots[root].readers)
          add(reader);
    }
  return neighbourCache[op] = std::move(list);
}
