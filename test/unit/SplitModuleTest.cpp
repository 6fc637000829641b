//===- SplitModuleTest.cpp - splitIntoBitcode ---------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The parts of a split LLVM module: each definition in exactly one part,
// the function with the most blocks alone where it outweighs the rest,
// locals renamed to hidden prefixed symbols, local constants copied where
// used, and the parts linking back into one valid module.
//
//===----------------------------------------------------------------------===//

#include "dsmp/Target/SplitModule.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

using namespace llvm;
using mlir::dsmp::countInstructions;
using mlir::dsmp::splitIntoBitcode;

namespace {
// @big's loop has more basic blocks than everything else together.
const char *kModule = R"ir(
@table = internal constant [2 x float] [float 1.0, float 2.0]
@counter = internal global i32 0

define internal float @big(float %x, i64 %n) noinline {
entry:
  %a = load float, ptr @table
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %latch ]
  %acc = phi float [ %x, %entry ], [ %sum, %latch ]
  %odd = trunc i64 %i to i1
  br i1 %odd, label %then, label %else
then:
  %t = fmul float %acc, %a
  br label %latch
else:
  %e = fadd float %acc, %a
  br label %latch
latch:
  %sum = phi float [ %t, %then ], [ %e, %else ]
  %next = add i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret float %sum
}

define internal float @small(float %x) noinline {
  %p = getelementptr [2 x float], ptr @table, i64 0, i64 1
  %a = load float, ptr %p
  %b = fadd float %x, %a
  ret float %b
}

define internal void @count() noinline {
  %n = load i32, ptr @counter
  %m = add i32 %n, 1
  store i32 %m, ptr @counter
  ret void
}

define float @entry(float %x) {
  call void @count()
  %a = call float @big(float %x, i64 8)
  %b = call float @small(float %a)
  ret float %b
}
)ir";

std::unique_ptr<Module> parse(LLVMContext &context, const char *ir) {
  SMDiagnostic diagnostic;
  std::unique_ptr<Module> module = parseAssemblyString(ir, diagnostic, context);
  EXPECT_TRUE(module) << diagnostic.getMessage().str();
  return module;
}

std::unique_ptr<Module> readPart(LLVMContext &context,
                                 const SmallString<0> &bitcode) {
  auto module = parseBitcodeFile(MemoryBufferRef(bitcode, "part"), context);
  EXPECT_TRUE(!!module) << toString(module.takeError());
  return module ? std::move(*module) : nullptr;
}

TEST(SplitModule, BalancesByBlocksAndLinksBack) {
  LLVMContext context;
  std::unique_ptr<Module> module = parse(context, kModule);
  ASSERT_TRUE(module);
  EXPECT_EQ(countInstructions(*module), 15u + 4u + 4u + 4u);
  std::vector<SmallString<0>> bitcode = splitIntoBitcode(*module, 2, "v0");
  ASSERT_EQ(bitcode.size(), 2u);

  std::unique_ptr<Module> parts[2] = {readPart(context, bitcode[0]),
                                      readPart(context, bitcode[1])};
  ASSERT_TRUE(parts[0] && parts[1]);
  // The loop alone in the first part, the rest in the second.
  auto defines = [](const Module &m, StringRef name) {
    const Function *f = m.getFunction(name);
    return f && !f->isDeclaration();
  };
  EXPECT_TRUE(defines(*parts[0], "v0.big"));
  for (const char *name : {"entry", "v0.small", "v0.count"}) {
    EXPECT_FALSE(defines(*parts[0], name)) << name;
    EXPECT_TRUE(defines(*parts[1], name)) << name;
  }
  EXPECT_FALSE(defines(*parts[1], "v0.big"));
  // Locals: hidden external symbols under the prefix; the entry keeps its
  // name and visibility.
  const Function *big = parts[0]->getFunction("v0.big");
  EXPECT_EQ(big->getLinkage(), GlobalValue::ExternalLinkage);
  EXPECT_EQ(big->getVisibility(), GlobalValue::HiddenVisibility);
  const Function *entry = parts[1]->getFunction("entry");
  EXPECT_EQ(entry->getVisibility(), GlobalValue::DefaultVisibility);
  // The local constant is defined (still local) in both parts; the global
  // variable once, in the first part, and declared in the second.
  for (auto &part : parts) {
    const GlobalVariable *table = part->getGlobalVariable("table", true);
    ASSERT_TRUE(table);
    EXPECT_TRUE(table->hasLocalLinkage());
    EXPECT_TRUE(table->hasInitializer());
  }
  const GlobalVariable *counter0 = parts[0]->getGlobalVariable("v0.counter");
  const GlobalVariable *counter1 = parts[1]->getGlobalVariable("v0.counter");
  ASSERT_TRUE(counter0 && counter1);
  EXPECT_TRUE(counter0->hasInitializer());
  EXPECT_FALSE(counter1->hasInitializer());

  // Linked back together: no symbol defined twice, a valid module.
  std::unique_ptr<Module> joined = std::move(parts[0]);
  ASSERT_FALSE(Linker::linkModules(*joined, std::move(parts[1])));
  std::string problems;
  raw_string_ostream os(problems);
  EXPECT_FALSE(verifyModule(*joined, &os)) << problems;
  for (const char *name : {"entry", "v0.big", "v0.small", "v0.count"})
    EXPECT_TRUE(defines(*joined, name)) << name;
}

TEST(SplitModule, NoMorePartsThanDefinitions) {
  LLVMContext context;
  std::unique_ptr<Module> module = parse(context, kModule);
  ASSERT_TRUE(module);
  EXPECT_EQ(splitIntoBitcode(*module, 16, "v1").size(), 4u);
}
} // namespace
