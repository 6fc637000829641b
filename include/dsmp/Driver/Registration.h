//===- Registration.h - Every pass the dsmp tools know -------- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_DRIVER_REGISTRATION_H
#define DSMP_DRIVER_REGISTRATION_H

namespace mlir::dsmp {

/// Registers dsmp's passes and pipelines (lowering and precision) and the
/// upstream passes the lowering pipeline names. Safe to call more than once.
void registerDriverPasses();

} // namespace mlir::dsmp

#endif // DSMP_DRIVER_REGISTRATION_H
