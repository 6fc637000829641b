//===- Scatter.cpp - Evaluator kernels: ScatterND, ScatterElements -*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The result starts as a copy of the data; each update is written over its
// target element, or combined with it by `reduction` (none, add, mul, max,
// min), in the order of the updates (ONNX leaves duplicate indices with
// reduction none undefined; the last one wins here, as in onnxruntime).
//
//===----------------------------------------------------------------------===//

#include "Array.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <algorithm>

using llvm::ArrayRef;
using llvm::Error;
using llvm::MutableArrayRef;
using llvm::StringRef;

namespace mlir::dsmp::eval {
namespace {

/// Writes element `from` of `updates` into element `to` of `y`.
using Combine = void (*)(Array &y, const Array &updates, int64_t from,
                         int64_t to);

template <typename Fn>
void apply(Array &y, const Array &u, int64_t from, int64_t to, Fn fn) {
  if (y.isFloat)
    y.f[to] = fn(y.f[to], u.f[from]);
  else
    y.i[to] = fn(y.i[to], u.i[from]);
}

llvm::Expected<Combine> combineFor(Operation *op) {
  StringRef reduction = "none";
  if (auto attr = op->getAttrOfType<StringAttr>("reduction"))
    reduction = attr.getValue();
  if (reduction == "none")
    return +[](Array &y, const Array &u, int64_t from, int64_t to) {
      y.copyFrom(u, from, to);
    };
  if (reduction == "add")
    return +[](Array &y, const Array &u, int64_t from, int64_t to) {
      apply(y, u, from, to, [](auto a, auto b) { return a + b; });
    };
  if (reduction == "mul")
    return +[](Array &y, const Array &u, int64_t from, int64_t to) {
      apply(y, u, from, to, [](auto a, auto b) { return a * b; });
    };
  if (reduction == "max")
    return +[](Array &y, const Array &u, int64_t from, int64_t to) {
      apply(y, u, from, to, [](auto a, auto b) { return std::max(a, b); });
    };
  if (reduction == "min")
    return +[](Array &y, const Array &u, int64_t from, int64_t to) {
      apply(y, u, from, to, [](auto a, auto b) { return std::min(a, b); });
    };
  return llvm::createStringError("unknown scatter reduction '" + reduction +
                                 "'");
}

/// The result starts as the data; returns how updates go in.
llvm::Expected<Combine> startScatter(Operation *op, const Array &x, Array &y) {
  for (int64_t e = 0; e < x.size(); ++e)
    y.copyFrom(x, e, e);
  return combineFor(op);
}

Error outOfRange(int64_t index, int64_t dim) {
  return llvm::createStringError("scatter index " + llvm::Twine(index) +
                                 " is outside a dim of " + llvm::Twine(dim));
}

Error evalScatterND(Operation *op, ArrayRef<const Array *> in,
                    MutableArrayRef<Array> out) {
  const Array &x = *in[0], &indices = *in[1], &updates = *in[2];
  Array &y = out[0];
  auto combine = startScatter(op, x, y);
  if (!combine)
    return combine.takeError();
  int64_t q = indices.rank() ? indices.shape.back() : 0;
  if (q < 1 || q > x.rank())
    return llvm::createStringError("scatter_nd index tuples of " +
                                   llvm::Twine(q) + " into rank " +
                                   llvm::Twine(x.rank()));
  int64_t slice = product(ArrayRef<int64_t>(x.shape).drop_front(q));
  int64_t tuples = indices.size() / q;
  if (updates.size() != tuples * slice)
    return llvm::createStringError(
        "scatter_nd updates hold " + llvm::Twine(updates.size()) +
        " elements, the indices name " + llvm::Twine(tuples * slice));
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t offset = 0;
    for (int64_t k = 0; k < q; ++k) {
      int64_t index = indices.i[t * q + k];
      int64_t dim = x.shape[k];
      if (index < 0)
        index += dim;
      if (index < 0 || index >= dim)
        return outOfRange(indices.i[t * q + k], dim);
      offset = offset * dim + index;
    }
    for (int64_t e = 0; e < slice; ++e)
      (*combine)(y, updates, t * slice + e, offset * slice + e);
  }
  return Error::success();
}

Error evalScatterElements(Operation *op, ArrayRef<const Array *> in,
                          MutableArrayRef<Array> out) {
  const Array &x = *in[0], &indices = *in[1], &updates = *in[2];
  Array &y = out[0];
  auto combine = startScatter(op, x, y);
  if (!combine)
    return combine.takeError();
  int64_t rank = x.rank();
  int64_t axis = normalizeAxis(intAttr(op, "axis", 0), rank);
  auto xStrides = stridesOf(x.shape);
  auto uStrides = stridesOf(indices.shape);
  for (int64_t e = 0; e < indices.size(); ++e) {
    int64_t target = 0, rest = e;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t coord = rest / uStrides[d];
      rest %= uStrides[d];
      if (d == axis) {
        coord = indices.i[e] < 0 ? indices.i[e] + x.shape[d] : indices.i[e];
        if (coord < 0 || coord >= x.shape[d])
          return outOfRange(indices.i[e], x.shape[d]);
      }
      target += coord * xStrides[d];
    }
    (*combine)(y, updates, e, target);
  }
  return Error::success();
}

} // namespace

void addScatterKernels(KernelTable &table) {
  table["dsmp.scatter_nd"] = evalScatterND;
  table["dsmp.scatter_elements"] = evalScatterElements;
}

} // namespace mlir::dsmp::eval
