//===- ReplaceInitializers.h - An ONNX model with new weights --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_EXPORT_REPLACEINITIALIZERS_H
#define DSMP_EXPORT_REPLACEINITIALIZERS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace mlir::dsmp {

/// The bytes of ONNX model `onnxPath` with the f32 initializers named in
/// `weights` holding those values (stored inline; the trainers' export of a
/// trained model). Fails on a name the model lacks or a size that differs.
llvm::Expected<std::string>
replaceInitializers(llvm::StringRef onnxPath,
                    const std::map<std::string, std::vector<float>> &weights);

} // namespace mlir::dsmp

#endif // DSMP_EXPORT_REPLACEINITIALIZERS_H
