//===- DsmpDialect.h - dsmp dialect -----------------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_DIALECTS_DSMP_IR_DSMPDIALECT_H
#define DSMP_DIALECTS_DSMP_IR_DSMPDIALECT_H

#include "mlir/IR/Dialect.h"
#include "llvm/ADT/DenseMap.h"

#include <mutex>

#include "dialects/Dsmp/IR/DsmpDialect.h.inc"

#endif // DSMP_DIALECTS_DSMP_IR_DSMPDIALECT_H
