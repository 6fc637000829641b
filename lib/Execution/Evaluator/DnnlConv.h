//===- DnnlConv.h - Convolutions through oneDNN --------------- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The evaluator's forward convolutions and ConvTransposes as oneDNN
// convolution and deconvolution primitives on the plain row-major layouts,
// where the build has oneDNN. Against the evaluator's own im2col + sgemm,
// a whole precision flow's kernel time (DSMP_EVAL_PROFILE=1, three runs
// each at tau = 1e-2) fell 13 % on resnet18, 20 % on oww_embedding and 25 % on
// digits_cnn with the forward convs alone; the ConvTransposes (the input
// gradients) then took 20-45 % less (resnet18 51-60 -> 40-42 ms, oww_embedding
// 38-43 -> 21-23 ms). The weight gradients' convs (kernels as large as the
// input) stay with the evaluator's gather by position, which was as fast or
// faster there.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_LIB_EXECUTION_EVALUATOR_DNNLCONV_H
#define DSMP_LIB_EXECUTION_EVALUATOR_DNNLCONV_H

#include "Array.h"

namespace mlir::dsmp::eval {

/// y[N, M, out..] = conv(x[N, C, in..], w[M, C/groups, kernel..]) over
/// `spatial` (1 to 3) dims of `win` (its last ones), without bias. False
/// (y untouched) where oneDNN is not in the build or has no primitive for
/// this convolution; the caller then computes it.
bool dnnlConv(int spatial, int64_t batches, int64_t channels, int64_t maps,
              int64_t groups, const Window &win, const float *x, const float *w,
              float *y);

/// y[N, M, out..] = ConvTranspose(x[N, C, in..], w[C, M/groups, kernel..])
/// where `win` maps input position i to output i * stride - padBegin +
/// tap * dilation, without bias; false (y untouched) as for dnnlConv.
bool dnnlConvTranspose(int spatial, int64_t batches, int64_t channels,
                       int64_t maps, int64_t groups, const Window &win,
                       const float *x, const float *w, float *y);

} // namespace mlir::dsmp::eval

#endif // DSMP_LIB_EXECUTION_EVALUATOR_DNNLCONV_H
