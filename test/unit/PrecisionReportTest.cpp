//===- PrecisionReportTest.cpp - The report is strict JSON -------*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "lib/Driver/PrecisionReport.h"
#include "dsmp/Driver/MixedPrecision.h"

#include "dialects/Dsmp/IR/DsmpDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::dsmp;
namespace json = llvm::json;

namespace {

/// An op whose analysis left a NaN energy and an infinite range, and a
/// sigmoid whose static upper bound is infinite (no bound), as attributes.
constexpr const char *kAnnotated = R"mlir(
  func.func @main_graph(%x: tensor<4xf32> {dsmp.name = "x"}) -> (tensor<4xf32> {dsmp.name = "y"}) {
    %y = dsmp.exp %x {dsmp.assigned = #dsmp.format<f32>, dsmp.reason = "budget",
      dsmp.sensitivity = {adapt = 1.5 : f64, energy = 0x7FF8000000000000 : f64},
      dsmp.range = {min = 0.0 : f64, max = 0x7FF0000000000000 : f64, amax = 0x7FF0000000000000 : f64,
                    static_lo = 0.0 : f64, static_hi = 0x7FF0000000000000 : f64}} : (tensor<4xf32>) -> tensor<4xf32>
    return %y : tensor<4xf32>
  })mlir";

/// Writes `report` with writePrecisionReport and parses it back with
/// llvm::json, which takes only standard JSON (no inf or NaN tokens).
json::Value writeAndParse(const json::Object &report) {
  llvm::SmallString<128> path;
  EXPECT_FALSE(llvm::sys::fs::createTemporaryFile("report", "json", path));
  EXPECT_FALSE(llvm::errorToBool(writePrecisionReport(report, path)));
  auto text = llvm::MemoryBuffer::getFile(path);
  EXPECT_TRUE(bool(text));
  llvm::sys::fs::remove(path);
  llvm::SmallString<128> page(path);
  llvm::sys::path::replace_extension(page, "html");
  llvm::sys::fs::remove(page);
  auto parsed = json::parse((*text)->getBuffer());
  EXPECT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  return parsed ? std::move(*parsed) : json::Value(nullptr);
}

TEST(PrecisionReportTest, NonFiniteValuesAreNullAndListed) {
  MLIRContext context;
  context.loadDialect<DsmpDialect, func::FuncDialect>();
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(kAnnotated, &context);
  ASSERT_TRUE(module);
  json::Array ops = describeOps(*module);
  ASSERT_EQ(ops.size(), 1u);
  json::Object summary;
  summarizeFlops(ops, summary);
  json::Value parsed = writeAndParse(
      json::Object{{"summary", std::move(summary)}, {"ops", std::move(ops)}});

  const json::Object *report = parsed.getAsObject();
  ASSERT_TRUE(report);
  const json::Object *op = (*report->getArray("ops"))[0].getAsObject();
  ASSERT_TRUE(op);
  // The NaN energy is there as null, not dropped; the finite number stays.
  const json::Object *sensitivity = op->getObject("sensitivity");
  ASSERT_TRUE(sensitivity);
  ASSERT_TRUE(sensitivity->get("energy"));
  EXPECT_EQ(sensitivity->get("energy")->kind(), json::Value::Null);
  EXPECT_EQ(sensitivity->getNumber("adapt"), 1.5);
  // An infinite max is null; an infinite static bound means no bound and
  // is left out.
  const json::Object *range = op->getObject("range");
  ASSERT_TRUE(range);
  EXPECT_EQ(range->get("max")->kind(), json::Value::Null);
  EXPECT_EQ(range->getNumber("static_lo"), 0.0);
  EXPECT_FALSE(range->get("static_hi"));

  // `non_finite` says which values were replaced and what they were.
  const json::Array *nonFinite = report->getArray("non_finite");
  ASSERT_TRUE(nonFinite);
  std::vector<std::pair<std::string, std::string>> listed;
  for (const json::Value &entry : *nonFinite) {
    const json::Object *object = entry.getAsObject();
    ASSERT_TRUE(object);
    listed.emplace_back(object->getString("path")->str(),
                        object->getString("value")->str());
  }
  llvm::sort(listed);
  std::vector<std::pair<std::string, std::string>> expected = {
      {"ops.0.range.amax", "inf"},
      {"ops.0.range.max", "inf"},
      {"ops.0.sensitivity.energy", "nan"}};
  EXPECT_EQ(listed, expected);
}

} // namespace
