//===- PrecisionMetrics.cpp - Errors and sizes the flow ---------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lib/Driver/PrecisionMetrics.h"

#include "dialects/Dsmp/IR/DsmpOps.h"
#include "dialects/Dsmp/IR/MainGraph.h"
#include "passes/Precision/Calibration.h"
#include "passes/Precision/ErrorFloor.h"
#include "passes/Precision/Formats.h"

#include <algorithm>
#include <cmath>

namespace mlir::dsmp {

double relativeL2(const HostTensor &a, const HostTensor &ref, double floor) {
  size_t n = std::min(a.data.size() / ::dsmp::runtime::dtypeSize(a.dtype),
                      ref.data.size() / ::dsmp::runtime::dtypeSize(ref.dtype));
  double diff = 0, norm = 0;
  for (size_t i = 0; i < n; ++i) {
    double x = ::dsmp::runtime::elementAsDouble(a, i);
    double r = ::dsmp::runtime::elementAsDouble(ref, i);
    diff += (x - r) * (x - r);
    norm += r * r;
  }
  if (std::isnan(diff) || std::isnan(norm))
    return INFINITY; // NaN counts as the worst, as in maxAbsError
  norm = std::max(norm, floor * floor * static_cast<double>(n));
  if (norm == 0)
    return diff == 0 ? 0 : INFINITY;
  return std::sqrt(diff / norm);
}

bool sameTop1(const HostTensor &a, const HostTensor &ref) {
  if (a.dims.empty() || a.dims != ref.dims)
    return true;
  size_t classes = static_cast<size_t>(a.dims.back());
  size_t n = a.data.size() / ::dsmp::runtime::dtypeSize(a.dtype);
  if (classes < 2)
    return true;
  for (size_t row = 0; row + classes <= n; row += classes) {
    size_t ia = row, ir = row;
    for (size_t i = row; i < row + classes; ++i) {
      if (::dsmp::runtime::elementAsDouble(a, i) >
          ::dsmp::runtime::elementAsDouble(a, ia))
        ia = i;
      if (::dsmp::runtime::elementAsDouble(ref, i) >
          ::dsmp::runtime::elementAsDouble(ref, ir))
        ir = i;
    }
    if (ia != ir)
      return false;
  }
  return true;
}

double maxAbsError(const HostTensor &a, const HostTensor &ref) {
  size_t n = std::min(a.data.size() / ::dsmp::runtime::dtypeSize(a.dtype),
                      ref.data.size() / ::dsmp::runtime::dtypeSize(ref.dtype));
  double worst = 0;
  for (size_t i = 0; i < n; ++i) {
    double d = std::fabs(::dsmp::runtime::elementAsDouble(a, i) -
                         ::dsmp::runtime::elementAsDouble(ref, i));
    if (!(d <= worst)) // NaN counts as the worst
      worst = std::isnan(d) ? INFINITY : d;
  }
  return worst;
}

double Measurement::worst() const {
  double w = 0;
  for (double e : error)
    w = std::max(w, e);
  return w;
}

Measurement measure(const OutputSets &outputs, const OutputSets &reference,
                    bool maxAbs, llvm::ArrayRef<double> floors) {
  Measurement m;
  for (const HostTensor &t : reference.front())
    m.names.push_back(t.name);
  m.error.assign(m.names.size(), 0.0);
  for (size_t s = 0; s < outputs.size(); ++s)
    for (size_t o = 0; o < m.names.size(); ++o) {
      m.error[o] = std::max(
          m.error[o], maxAbs ? maxAbsError(outputs[s][o], reference[s][o])
                             : relativeL2(outputs[s][o], reference[s][o],
                                          o < floors.size() ? floors[o] : 0));
      m.top1Same &= sameTop1(outputs[s][o], reference[s][o]);
    }
  return m;
}

std::vector<double> errorFloors(ModuleOp analyzed, const OutputSets &reference,
                                double option,
                                std::vector<std::string> &zeroOutputs) {
  size_t outputs = reference.empty() ? 0 : reference.front().size();
  if (option > 0)
    return std::vector<double>(outputs, option);
  std::vector<double> floors(outputs, kSmallestErrorFloor);
  func::FuncOp graph = lookupMainGraph(analyzed);
  Operation *ret = graph ? graph.getBody().front().getTerminator() : nullptr;
  for (size_t o = 0; o < outputs; ++o) {
    std::optional<double> amax;
    if (ret && o < ret->getNumOperands())
      if (DictionaryAttr range = rangeOf(ret->getOperand(o)))
        if (auto a = range.getAs<FloatAttr>("amax"))
          amax = a.getValueAsDouble();
    if (!amax) { // a graph output no calibration run measured
      amax = 0.0;
      for (const std::vector<HostTensor> &set : reference) {
        const HostTensor &t = set[o];
        size_t n = t.data.size() / ::dsmp::runtime::dtypeSize(t.dtype);
        for (size_t i = 0; i < n; ++i)
          amax = std::max(*amax,
                          std::fabs(::dsmp::runtime::elementAsDouble(t, i)));
      }
    }
    int32_t dtype = reference.front()[o].dtype;
    bool isFloat = dtype == 1 || dtype == 10 || dtype == 11 || dtype == 16;
    if (*amax == 0 && isFloat)
      zeroOutputs.push_back(reference.front()[o].name);
    floors[o] = defaultErrorFloor(*amax);
  }
  return floors;
}

namespace {
RankedTensorType cast_if_ranked(Type type) {
  return dyn_cast<RankedTensorType>(type);
}

int64_t bytesOf(RankedTensorType type) {
  if (!type || !type.hasStaticShape())
    return 0;
  Type element = type.getElementType();
  int64_t bits = isa<FloatTF32Type>(element) ? 32
                 : element.isIntOrFloat()    ? element.getIntOrFloatBitWidth()
                                             : 0;
  return type.getNumElements() * ((bits + 7) / 8);
}

/// An op dsmp-convert-to-linalg makes one all-parallel loop nest of.
bool isElementwise(Operation *op) {
  auto precision = dyn_cast<PrecisionOpInterface>(op);
  return precision && (precision.getOpClass() == OpClass::elementwise ||
                       precision.getOpClass() == OpClass::transcendental);
}

/// The casts' values that dsmp-fuse-elementwise leaves in no buffer: a
/// cast's input that an elementwise op makes for the cast alone, or a cast
/// that an elementwise op alone reads (each element once, no broadcast).
/// The pair is one loop nest, so the 16-bit value and its f32 copy never
/// live side by side.
llvm::DenseSet<Value> fusedCastValues(Block &body) {
  llvm::DenseSet<Value> fused;
  for (CastOp cast : body.getOps<CastOp>()) {
    Operation *producer = cast.getInput().getDefiningOp();
    if (producer && producer->getBlock() == &body && isElementwise(producer) &&
        cast.getInput().hasOneUse()) {
      fused.insert(cast.getInput());
      continue;
    }
    if (!cast.getResult().hasOneUse())
      continue;
    Operation *user = *cast.getResult().getUsers().begin();
    if (user->getBlock() == &body && isElementwise(user) &&
        user->getNumResults() == 1 &&
        cast_if_ranked(user->getResult(0).getType()) &&
        cast_if_ranked(cast.getType()) &&
        cast_if_ranked(user->getResult(0).getType()).getShape() ==
            cast_if_ranked(cast.getType()).getShape())
      fused.insert(cast.getResult());
  }
  return fused;
}

} // namespace

llvm::Expected<Footprint> footprint(ModuleOp module,
                                    const InputShapes &shapes) {
  OwningOpRef<ModuleOp> copy(module.clone());
  if (llvm::Error err = specializeGraph(*copy, shapes, 1, true))
    return std::move(err);
  Footprint result;
  copy->walk([&](ConstantOp op) {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (type && isa<FloatType>(type.getElementType()))
      result.weights += bytesOf(type);
  });
  func::FuncOp graph = lookupMainGraph(*copy);
  Block &body = graph.getBody().front();
  // Each counted value's last reader, by top-level position (an op inside
  // an If reads for the If); a graph output lives to the end.
  llvm::DenseMap<Operation *, size_t> position;
  for (Operation &op : body)
    position[&op] = position.size();
  llvm::DenseSet<Value> fused = fusedCastValues(body);
  auto counted = [&](Operation *op, Value result) -> int64_t {
    if (op->hasTrait<mlir::OpTrait::ConstantLike>() ||
        isa<DequantizeLinearOp>(op) || fused.contains(result) ||
        op->hasAttr(kInputRoundedAttr))
      return 0;
    auto type = dyn_cast<RankedTensorType>(result.getType());
    return type && isa<FloatType>(type.getElementType()) ? bytesOf(type) : 0;
  };
  std::vector<SmallVector<int64_t, 2>> freedAfter(position.size());
  int64_t live = 0, peak = 0;
  for (Operation &op : body.without_terminator()) {
    size_t at = position[&op];
    for (Value result : op.getResults()) {
      int64_t bytes = counted(&op, result);
      if (!bytes)
        continue;
      size_t last = at;
      for (Operation *user : result.getUsers())
        last = std::max(last, position[body.findAncestorOpInBlock(*user)]);
      live += bytes;
      freedAfter[last].push_back(bytes);
    }
    peak = std::max(peak, live);
    for (int64_t bytes : freedAfter[at])
      live -= bytes;
  }
  result.peakActivations = peak;
  return result;
}

} // namespace mlir::dsmp
