//===- ModelPath.h - A model path checked before it is opened --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_SUPPORT_MODELPATH_H
#define DSMP_SUPPORT_MODELPATH_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace dsmp {

/// Success when `path` names a file (or is "-"); otherwise an error that
/// says what it is instead: a missing path, or a folder, with the model
/// file inside it to give instead (DIR/model.onnx, the shared models'
/// layout) when there is one.
llvm::Error checkModelPath(llvm::StringRef path);

} // namespace dsmp

#endif // DSMP_SUPPORT_MODELPATH_H
