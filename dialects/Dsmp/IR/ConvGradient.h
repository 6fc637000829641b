//===- ConvGradient.h - The gradient of a convolution's filter -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_DIALECTS_DSMP_IR_CONVGRADIENT_H
#define DSMP_DIALECTS_DSMP_IR_CONVGRADIENT_H

#include "dialects/Dsmp/IR/GraphBuilder.h"

namespace mlir::dsmp {

/// dW of dsmp.conv y = conv(x, W) (group g, W [M, C/g, k...]) given dL/dy,
/// as another convolution: per group, the images' C/g channels act as a
/// batch and the gradient's M/g channels as filters over the N images, the
/// window's strides and dilations swapped; cropped to the kernel and
/// transposed to W's layout. Null for a shape it does not handle (dynamic
/// dims, auto_pad SAME_*).
Value convFilterGradient(GraphBuilder &g, Operation *conv, Value resultGrad);

} // namespace mlir::dsmp

#endif // DSMP_DIALECTS_DSMP_IR_CONVGRADIENT_H
