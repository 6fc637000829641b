//===- CommandLine.h - What all dsmp tools share ---------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_SUPPORT_COMMANDLINE_H
#define DSMP_SUPPORT_COMMANDLINE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/CommandLine.h"

#include <string>

namespace dsmp {

/// "dsmp 0.1.0 (commit 8170ea4c1b2a, LLVM 22.1.0)": the version in the
/// top-level CMakeLists.txt and the commit the tool was built from.
std::string versionLine();

/// Makes --version print versionLine() (LLVM's own printer names only LLVM).
void installVersionPrinter();

/// Hides from --help every option registered so far, except --help and
/// --version and those in `keep`: called first in main, that is the
/// hundreds of LLVM back-end and Polly options linked in by static
/// initializers. Options registered later (MLIR's, the pass list) stay
/// listed; hidden ones still work and --help-hidden lists them.
void hideLLVMOptionsFromHelp(
    llvm::ArrayRef<const llvm::cl::OptionCategory *> keep = {});

} // namespace dsmp

#endif // DSMP_SUPPORT_COMMANDLINE_H
