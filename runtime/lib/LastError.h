//===- LastError.h - dsmp_last_error's message ------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_RUNTIME_LIB_LASTERROR_H
#define DSMP_RUNTIME_LIB_LASTERROR_H

#include <string>

namespace dsmprt {

/// Sets this thread's dsmp_last_error() message; returns -1 (the C API's
/// failure).
int setLastError(const std::string &message);

} // namespace dsmprt

#endif // DSMP_RUNTIME_LIB_LASTERROR_H
