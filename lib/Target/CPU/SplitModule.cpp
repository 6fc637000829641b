//===- SplitModule.cpp - Split LLVM modules for threads ---------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dsmp/Target/SplitModule.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include <algorithm>

namespace mlir::dsmp {

uint64_t countInstructions(const llvm::Module &module) {
  uint64_t count = 0;
  for (const llvm::Function &function : module)
    count += function.getInstructionCount();
  return count;
}

namespace {
/// Basic blocks: what optimizing and compiling a function costs grows with
/// its loops (vectorized, unrolled, scheduled), not with straight-line code
/// (the entry's calls and address computations compile fast).
uint64_t compileCost(const llvm::Function &function) { return function.size(); }

/// A local symbol as a hidden external one named `prefix`.name, so that
/// another part can reference it (unique within the module, and `prefix`
/// keeps it apart from the other modules linked into the same library).
void externalize(llvm::GlobalValue &value, llvm::StringRef prefix,
                 unsigned &unnamed) {
  if (!value.hasLocalLinkage())
    return;
  std::string name = value.hasName() ? value.getName().str()
                                     : "unnamed." + std::to_string(unnamed++);
  value.setName(prefix + "." + name);
  value.setLinkage(llvm::GlobalValue::ExternalLinkage);
  value.setVisibility(llvm::GlobalValue::HiddenVisibility);
}
} // namespace

std::vector<llvm::SmallString<0>>
splitIntoBitcode(llvm::Module &module, unsigned parts, llvm::StringRef prefix) {
  std::vector<llvm::Function *> definitions;
  unsigned unnamed = 0;
  for (llvm::Function &function : module) {
    if (function.isDeclaration())
      continue;
    externalize(function, prefix, unnamed);
    definitions.push_back(&function);
  }
  // Local constants stay local, one copy in each part that uses them
  // (loads from them still fold); other globals are defined once.
  for (llvm::GlobalVariable &global : module.globals())
    if (!(global.hasLocalLinkage() && global.isConstant()))
      externalize(global, prefix, unnamed);
  parts = std::max<unsigned>(1, std::min<size_t>(parts, definitions.size()));

  // Costliest first, each onto the lightest part (ties: module order and the
  // lower part, so the split is deterministic).
  std::vector<std::pair<uint64_t, size_t>> byCost;
  for (auto [index, function] : llvm::enumerate(definitions))
    byCost.push_back({compileCost(*function), index});
  llvm::sort(byCost, [](auto a, auto b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  std::vector<uint64_t> load(parts, 0);
  llvm::DenseMap<const llvm::GlobalValue *, unsigned> partOf;
  for (auto [cost, index] : byCost) {
    unsigned lightest =
        std::min_element(load.begin(), load.end()) - load.begin();
    partOf[definitions[index]] = lightest;
    load[lightest] += cost + 1;
  }

  std::vector<llvm::SmallString<0>> bitcode(parts);
  for (unsigned part = 0; part < parts; ++part) {
    llvm::ValueToValueMapTy map;
    std::unique_ptr<llvm::Module> piece =
        llvm::CloneModule(module, map, [&](const llvm::GlobalValue *value) {
          if (auto it = partOf.find(value); it != partOf.end())
            return it->second == part;
          return value->hasLocalLinkage() || part == 0;
        });
    llvm::raw_svector_ostream os(bitcode[part]);
    llvm::WriteBitcodeToFile(*piece, os);
  }
  return bitcode;
}

} // namespace mlir::dsmp
