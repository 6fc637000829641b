//===- RoundingCost.h - Predicted error of an assignment ------ -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The predicted squared relative output error of a format assignment,
// counted value by value: a tensor is rounded where a 16-bit op produces it
// or where an op reads it in a narrower format than it arrives in (one cast
// per format, shared by its readers), and a contraction's constant weights
// are rounded once. Each rounding to a format with unit roundoff u costs
// u^2 / (8 ln 2) (the variance of a relative rounding error over mantissas
// spread logarithmically) times the value's sensitivity energy
// sum (g * x)^2
// (dsmp-analyze-sensitivity). So an op's cost depends on its neighbours'
// formats: a Relu after an f16 Conv adds nothing, an f16 op after an f32
// one pays for casting its input.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_PASSES_PRECISION_ROUNDINGCOST_H
#define DSMP_PASSES_PRECISION_ROUNDINGCOST_H

#include "dialects/Dsmp/IR/DsmpOps.h"

#include "llvm/ADT/DenseMap.h"

#include <set>

#include <optional>

namespace mlir::dsmp {

class RoundingCost {
public:
  /// `ops`: the graph's top-level ops in program order (graphOps), all f32.
  explicit RoundingCost(ArrayRef<Operation *> ops);

  /// The format `op` computes in now (f32 unless set).
  Format formatOf(Operation *op) const;
  /// How much the total changes if `op` computes in `format`.
  double delta(Operation *op, Format format);
  /// Records that `op` computes in `format`.
  void set(Operation *op, Format format);
  /// The predicted squared relative error of the formats set so far, once
  /// the casts are inserted and minimized.
  double total() const;
  /// The ops whose delta may change when `op`'s format does (but readers
  /// of widely read values, see kMaxNeighbourReaders).
  ArrayRef<Operation *> neighbours(Operation *op);

private:
  /// A value as it flows: through data movement (Reshape, Transpose, ...)
  /// and ops that select one of their inputs (MaxPool), which run in the
  /// format their input arrives in.
  struct Root {
    Value value;
    Operation *producer = nullptr;    // null for a graph input
    double energy = 0;                // what rounding it where made costs
    double subnormal = 0;             // f16's subnormal rounding of it
    bool exact = false;               // its producer returns an input's value
    SmallVector<Operation *> readers; // ops that read it (or a moved copy)
    /// The energies of the readers that read it in a narrow format, by
    /// format: one cast per format, as large as its largest reader.
    SmallVector<std::pair<Format, std::multiset<double>>, 1> casts;
  };
  /// One float operand of an op: its root, operand index and the energy a
  /// cast of it for this op rounds.
  struct Read {
    unsigned root, operand;
    double energy, subnormal;
  };

  /// `afterCasts`: as dsmp-minimize-casts leaves the graph (storesWide).
  double rootCost(const Root &root, bool afterCasts = false) const;
  /// A 16-bit MatMul or Gemm whose product every reader takes in f32 (or
  /// the graph returns): dsmp-minimize-casts folds the widening cast into
  /// it, and it stores the product in f32, unrounded.
  bool storesWide(const Root &root) const;
  double weightCost(Operation *op, Format format) const;
  double costAround(Operation *op, Format format);
  void addReads(Operation *op, Format format, bool add);

  SmallVector<Root> roots;
  llvm::DenseMap<Value, unsigned> rootOf;
  /// The roots an op's format affects: its results' and its operands'.
  llvm::DenseMap<Operation *, SmallVector<unsigned, 4>> touched;
  llvm::DenseMap<Operation *, SmallVector<Read, 2>> reads;
  /// Per contraction: the energies of its constant factors' roundings.
  llvm::DenseMap<Operation *, double> weightEnergy;
  llvm::DenseMap<Operation *, SmallVector<Operation *>> neighbourCache;
  llvm::DenseMap<Operation *, Format> formats;
  /// Readers through roots with more than this many readers are not
  /// neighbours (their costs barely move; dsmp-assign-precision checks each
  /// cost again when it takes an op).
  static constexpr size_t kMaxNeighbourReaders = 64;
};

/// Whether the op returns, elementwise, one of its inputs' values (Relu,
/// Max, Abs, ...): in a 16-bit format its result needs no rounding of its
/// own once its inputs are in the format.
bool returnsInputValues(Operation *op);

/// For a max-abs budget: the predicted largest element error per unit of
/// the outputs' absolute L2 error |e| (what the energies measure then) over
/// n elements. max |e_i| lies between |e| / sqrt(n) (spread evenly) and |e|
/// (in one element); taking n independent normal errors,
/// E max |e_i| ~ |e| sqrt(2 ln(2n) / n). Validation measures the real one.
double maxAbsPerL2(int64_t n);

/// Whether operand `index` of an op in a 16-bit format carries data in that
/// format (and is cast to it): all but Resize's scales and roi, Pow's
/// exponent and BatchNormalization's scale, bias, mean and variance.
bool isDataOperand(Operation *op, unsigned index);

} // namespace mlir::dsmp

#endif // DSMP_PASSES_PRECISION_ROUNDINGCOST_H
