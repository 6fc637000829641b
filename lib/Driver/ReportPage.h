//===- ReportPage.h - The precision report as a page ------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_LIB_DRIVER_REPORTPAGE_H
#define DSMP_LIB_DRIVER_REPORTPAGE_H

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::dsmp {

/// Writes the precision report (PrecisionReport.h's JSON) as one
/// self-contained HTML page: the summary in percentages and MB, the error
/// budget on an axis, the rounds, the data sets and each output's error, a
/// legend of formats and reasons, the graph laid out by dagre with nodes
/// coloured by format, the most sensitive ops on a log axis, and every op
/// with one sentence on why it got its format. Sections carry ids (summary,
/// budget, rounds, outputs, data, legend, graph, sensitivity, ops) that
/// test/Precision/report-page.test looks for in headless Chromium.
void writeReportPage(const llvm::json::Object &report, llvm::raw_ostream &os);

/// One sentence on why `op` (a report `ops` entry) got its format, e.g.
/// "f16: its rounding uses 0.36 % of the error budget".
std::string explainFormat(const llvm::json::Object &op);

} // namespace mlir::dsmp

#endif // DSMP_LIB_DRIVER_REPORTPAGE_H
