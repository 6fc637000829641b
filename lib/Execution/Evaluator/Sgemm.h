//===- Sgemm.h - The evaluator's f32 matrix product ----------- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// C = alpha * op(A) * op(B) + beta * C, row-major, through oneDNN's
// dnnl_sgemm (or OpenBLAS's cblas_sgemm) where the build found one, and a
// plain loop nest otherwise. The evaluator's MatMul, Gemm, Conv and
// ConvTranspose kernels reduce to it (forward Convs go to oneDNN's
// convolution primitive where it has one: DnnlConv.h).
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_LIB_EXECUTION_EVALUATOR_SGEMM_H
#define DSMP_LIB_EXECUTION_EVALUATOR_SGEMM_H

#include <cstdint>

namespace mlir::dsmp::eval {

/// op(A) is [m, k] (A itself [k, m] when transA), op(B) is [k, n]; lda, ldb
/// and ldc are the row strides.
void sgemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k,
           float alpha, const float *a, int64_t lda, const float *b,
           int64_t ldb, float beta, float *c, int64_t ldc);

/// Sets how many OpenMP threads the calling thread's next oneDNN call may
/// use for `macs` multiply-adds: all of them for large work, one for small
/// (a no-op without oneDNN).
void chooseThreads(int64_t macs);

/// Does the library's one-time set-up: oneDNN generates its sgemm kernels
/// on the first call of the process (30-50 ms); a no-op otherwise.
void prepareSgemm();

} // namespace mlir::dsmp::eval

#endif // DSMP_LIB_EXECUTION_EVALUATOR_SGEMM_H
