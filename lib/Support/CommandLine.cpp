//===- CommandLine.cpp - Options every dsmp tool shares -----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dsmp/Support/CommandLine.h"

#include "llvm/ADT/STLExtras.h"

void dsmp::hideLLVMOptionsFromHelp(
    llvm::ArrayRef<const llvm::cl::OptionCategory *> keep) {
  for (auto &entry : llvm::cl::getRegisteredOptions()) {
    llvm::cl::Option *option = entry.second;
    bool kept = llvm::any_of(option->Categories, [&](auto *category) {
      // --help, --version and friends are in LLVM's "Generic Options",
      // which has no public handle.
      return llvm::is_contained(keep, category) ||
             category->getName() == "Generic Options";
    });
    if (!kept && option->getOptionHiddenFlag() == llvm::cl::NotHidden)
      option->setHiddenFlag(llvm::cl::Hidden);
  }
}
