//===- Sgemm.cpp - The evaluator's f32 matrix product --------- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Sgemm.h"

#include <vector>

#if defined(DSMP_EVAL_DNNL)
#include <dlfcn.h>
#include <oneapi/dnnl/dnnl.h>
#elif defined(DSMP_EVAL_OPENBLAS)
#include <cblas.h>
#endif

namespace mlir::dsmp::eval {

namespace {
/// The loop nest for builds without a BLAS: the innermost loop runs over
/// contiguous elements of B and C.
void loopSgemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k,
               float alpha, const float *a, int64_t lda, const float *b,
               int64_t ldb, float beta, float *c, int64_t ldc) {
  std::vector<float> bt;
  if (transB) { // make B [k, n] row-major
    bt.resize(k * n);
    for (int64_t j = 0; j < n; ++j)
      for (int64_t p = 0; p < k; ++p)
        bt[p * n + j] = b[j * ldb + p];
    b = bt.data();
    ldb = n;
  }
  for (int64_t i = 0; i < m; ++i) {
    float *row = c + i * ldc;
    for (int64_t j = 0; j < n; ++j)
      row[j] = beta == 0 ? 0.0f : beta * row[j];
    for (int64_t p = 0; p < k; ++p) {
      float s = alpha * (transA ? a[p * lda + i] : a[i * lda + p]);
      const float *brow = b + p * ldb;
      for (int64_t j = 0; j < n; ++j)
        row[j] += s * brow[j];
    }
  }
}

#if defined(DSMP_EVAL_DNNL)
/// Products of at least this many multiply-adds use every OpenMP thread.
constexpr int64_t kParallelMacs = int64_t(1) << 24;

/// oneDNN's sgemm runs an OpenMP parallel region per call with as many
/// threads as the calling thread's OpenMP setting. A small product gains
/// nothing from a second thread, and when other processes load the cores
/// (lit's workers, make -j) each region waits for descheduled threads:
/// mobilenet's forward took 5x as long. So small products run on one
/// thread. libgomp comes with libdnnl; it is looked up, not linked, so a
/// oneDNN on another threading runtime just keeps its own setting.
void chooseThreadsImpl(int64_t macs) {
  using SetThreads = void (*)(int);
  using GetThreads = int (*)();
  static const SetThreads set =
      reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
  static const int most = [] {
    auto get = reinterpret_cast<GetThreads>(
        dlsym(RTLD_DEFAULT, "omp_get_max_threads"));
    return get ? get() : 1;
  }();
  if (!set || most <= 1)
    return;
  int wanted = macs >= kParallelMacs ? most : 1;
  thread_local int current = 0;
  if (wanted != current) {
    set(wanted);
    current = wanted;
  }
}
#endif
} // namespace

void sgemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k,
           float alpha, const float *a, int64_t lda, const float *b,
           int64_t ldb, float beta, float *c, int64_t ldc) {
  if (m == 0 || n == 0)
    return;
  // A BLAS call costs ~25k instructions before its first multiply-add
  // (argument checks, blocking, kernel dispatch): bench/scale's 4x16 row
  // products took 8x fewer instructions as plain loops (callgrind).
  constexpr int64_t kLoopMacs = int64_t(1) << 13;
  if (m * n * k <= kLoopMacs) {
    loopSgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
#if defined(DSMP_EVAL_DNNL)
  chooseThreadsImpl(m * n * k);
  if (dnnl_sgemm(transA ? 'T' : 'N', transB ? 'T' : 'N', m, n, k, alpha, a, lda,
                 b, ldb, beta, c, ldc) == dnnl_success)
    return;
#elif defined(DSMP_EVAL_OPENBLAS)
  cblas_sgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans,
              transB ? CblasTrans : CblasNoTrans, m, n, k, alpha, a, lda, b,
              ldb, beta, c, ldc);
  return;
#endif
  loopSgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void chooseThreads(int64_t macs) {
#if defined(DSMP_EVAL_DNNL)
  chooseThreadsImpl(macs);
#else
  (void)macs;
#endif
}

void prepareSgemm() {
#if defined(DSMP_EVAL_DNNL)
  // A 1x1 product takes a path without the generated kernels; 8x8 does not.
  constexpr int64_t n = 8;
  std::vector<float> a(n * n, 0.0f), c(n * n);
  // Straight to oneDNN: sgemm() runs a product this small as loops.
  (void)dnnl_sgemm('N', 'N', n, n, n, 1.0f, a.data(), n, a.data(), n, 0.0f,
                   c.data(), n);
#endif
}

} // namespace mlir::dsmp::eval
