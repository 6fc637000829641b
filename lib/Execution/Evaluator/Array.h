//===- Array.h - The evaluator's host tensors ----------------- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A row-major tensor for the graph evaluator: f32 elements, or integer and
// bool elements held as int64. Kernels read their result shapes from the
// op's (static) result types, so shape ops only move data.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_LIB_EXECUTION_EVALUATOR_ARRAY_H
#define DSMP_LIB_EXECUTION_EVALUATOR_ARRAY_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

namespace mlir::dsmp::eval {

struct Array {
  llvm::SmallVector<int64_t, 4> shape;
  bool isFloat = true;
  std::vector<float> f;   // when isFloat
  std::vector<int64_t> i; // integers and bools otherwise

  int64_t size() const { return isFloat ? f.size() : i.size(); }
  int64_t rank() const { return shape.size(); }
  double at(int64_t k) const { return isFloat ? f[k] : double(i[k]); }
  /// Resizes the storage to the product of `shape`.
  void allocate();
  /// Copies element `from` of `src` (same kind) to element `to`.
  void copyFrom(const Array &src, int64_t from, int64_t to) {
    if (isFloat)
      f[to] = src.f[from];
    else
      i[to] = src.i[from];
  }
};

int64_t product(llvm::ArrayRef<int64_t> dims);
llvm::SmallVector<int64_t, 4> stridesOf(llvm::ArrayRef<int64_t> shape);
/// The strides of a tensor of shape `in` broadcast (numpy, right-aligned)
/// to `out`: 0 along the dims it is repeated in.
llvm::SmallVector<int64_t, 4> broadcastStrides(llvm::ArrayRef<int64_t> in,
                                               llvm::ArrayRef<int64_t> out);

/// Calls body(o, idx) for every element o of `shape` in row-major order,
/// where idx[n] = base[n] + sum_d coord_d * strides[n][d].
template <size_t N, typename Body>
void stridedLoop(llvm::ArrayRef<int64_t> shape,
                 const std::array<llvm::SmallVector<int64_t, 4>, N> &strides,
                 std::array<int64_t, N> base, Body body) {
  int64_t total = product(shape);
  if (total == 0)
    return;
  int rank = shape.size();
  if (rank == 0) {
    body(0, base);
    return;
  }
  int64_t inner = shape.back();
  std::array<int64_t, N> innerStride;
  for (size_t n = 0; n < N; ++n)
    innerStride[n] = strides[n][rank - 1];
  llvm::SmallVector<int64_t, 4> counter(rank, 0);
  std::array<int64_t, N> idx;
  for (int64_t o = 0; o < total; o += inner) {
    for (int64_t j = 0; j < inner; ++j) {
      for (size_t n = 0; n < N; ++n)
        idx[n] = base[n] + j * innerStride[n];
      body(o + j, idx);
    }
    for (int d = rank - 2; d >= 0; --d) {
      for (size_t n = 0; n < N; ++n)
        base[n] += strides[n][d];
      if (++counter[d] < shape[d])
        break;
      for (size_t n = 0; n < N; ++n)
        base[n] -= strides[n][d] * shape[d];
      counter[d] = 0;
    }
  }
}

/// Attribute readers with the ODS defaults.
int64_t intAttr(Operation *op, llvm::StringRef name, int64_t fallback);
float floatAttr(Operation *op, llvm::StringRef name, float fallback);
/// A DenseI64ArrayAttr, or `count` copies of `fallback` when unset.
llvm::SmallVector<int64_t, 4> intsAttr(Operation *op, llvm::StringRef name,
                                       size_t count, int64_t fallback);
/// A negative axis counted from the back.
int64_t normalizeAxis(int64_t axis, int64_t rank);

/// A convolution or pooling window, padded to 3 spatial dims (leading 1s)
/// so that one loop nest serves 1-D to 3-D.
struct Window {
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, kernel[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1}, dilation[3] = {1, 1, 1}, padBegin[3] = {};
  int64_t padEnd[3] = {};
};
/// The window of a Conv/pool `op` from input [N, C, ...] to output
/// [N, M, ...] (auto_pad resolved against the output dims); `kernel`
/// stands in for an unset kernel_shape.
llvm::Expected<Window> slidingWindow(Operation *op,
                                     llvm::ArrayRef<int64_t> inShape,
                                     llvm::ArrayRef<int64_t> outShape,
                                     llvm::ArrayRef<int64_t> kernel);

/// Computes `op`'s results. `in` holds one entry per operand (null for a
/// `none` operand); `out` has one entry per result, already shaped and
/// allocated from the result types (empty for a `none` result).
using Kernel =
    std::function<llvm::Error(Operation *op, llvm::ArrayRef<const Array *> in,
                              llvm::MutableArrayRef<Array> out)>;
/// Whether a kernel writes every element of its results: if so, recycled
/// storage is handed to it as it is, else cleared to zeros first.
enum class Writes { some, all };
struct KernelEntry {
  Kernel run;
  Writes writes = Writes::some;
  KernelEntry() = default;
  template <typename F>
  KernelEntry(F f, Writes writes = Writes::some)
      : run(std::move(f)), writes(writes) {}
};
using KernelTable = llvm::StringMap<KernelEntry>;

llvm::Error unsupported(Operation *op, const llvm::Twine &why);

/// Narrow float types live in f32 storage, rounded to their type after each
/// kernel (Rounding.cpp). The rounding to `element` (f16, bf16, f8), or
/// null for f32, tf32 and non-float types; f8 casts saturate when
/// `saturate` is set.
using Rounding = float (*)(float);
Rounding roundingFor(Type element, bool saturate = true);
/// What a cast to `element` rounds with: as roundingFor, and tf32's
/// rounding (only casts round to tf32).
Rounding castRoundingFor(Type element, bool saturate = true);
/// f32, or a narrow float type the evaluator rounds to.
bool isHeldInF32(Type element);
void roundInPlace(Rounding rounding, std::vector<float> &values);

void addElementwiseKernels(KernelTable &table);
void addReductionKernels(KernelTable &table);
void addContractionKernels(KernelTable &table);
void addDataMovementKernels(KernelTable &table);
void addScatterKernels(KernelTable &table);
void addRoiAlignKernel(KernelTable &table);
void addQuantizationKernels(KernelTable &table);

} // namespace mlir::dsmp::eval

#endif // DSMP_LIB_EXECUTION_EVALUATOR_ARRAY_H
