//===- Einsum.cpp - ONNX Einsum equations ---------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/IR/Einsum.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>

using llvm::StringRef;

namespace mlir::dsmp {

namespace {

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError("einsum: " + message);
}

int letterLabel(char c) {
  if (c >= 'a' && c <= 'z')
    return c - 'a';
  if (c >= 'A' && c <= 'Z')
    return 26 + (c - 'A');
  return -1;
}

/// One term's labels; `rank` says how many dims its ellipsis covers (or,
/// for the result, `ellipsisRank` given).
llvm::Expected<llvm::SmallVector<int, 4>>
readTerm(StringRef term, int64_t rank, bool isResult, int64_t ellipsisRank) {
  term = term.trim();
  size_t dots = term.find("...");
  int64_t letters = 0;
  for (char c : term)
    if (c != '.' && c != ' ')
      ++letters;
  if (dots != StringRef::npos && term.find("...", dots + 3) != StringRef::npos)
    return fail("'" + term + "' has two ellipses");
  int64_t covered = isResult ? ellipsisRank : rank - letters;
  if (dots == StringRef::npos && !isResult && letters != rank)
    return fail(llvm::formatv("term '{0}' names {1} dims of an operand of "
                              "rank {2}",
                              term, letters, rank)
                    .str());
  if (dots != StringRef::npos && covered < 0)
    return fail(llvm::formatv("term '{0}' names more dims than its "
                              "operand's rank {1}",
                              term, rank)
                    .str());
  llvm::SmallVector<int, 4> labels;
  for (size_t i = 0; i < term.size(); ++i) {
    if (i == dots) {
      for (int64_t k = covered; k > 0; --k)
        labels.push_back(EinsumEquation::kEllipsis + static_cast<int>(k - 1));
      i += 2;
      continue;
    }
    if (term[i] == ' ')
      continue;
    int label = letterLabel(term[i]);
    if (label < 0)
      return fail("unexpected character '" + term.substr(i, 1) + "' in '" +
                  term + "'");
    labels.push_back(label);
  }
  return labels;
}

} // namespace

llvm::Expected<EinsumEquation>
EinsumEquation::parse(StringRef equation, llvm::ArrayRef<int64_t> ranks) {
  auto [lhs, rhs] = equation.split("->");
  bool explicitResult = equation.contains("->");
  llvm::SmallVector<StringRef, 2> terms;
  lhs.split(terms, ',');
  if (terms.size() != ranks.size())
    return fail(llvm::formatv("'{0}' has {1} operand terms for {2} operands",
                              equation, terms.size(), ranks.size())
                    .str());
  EinsumEquation eq;
  int64_t ellipsisRank = 0;
  for (auto [term, rank] : llvm::zip(terms, ranks)) {
    auto labels = readTerm(term, rank, false, 0);
    if (!labels)
      return labels.takeError();
    for (int label : *labels)
      if (label >= kEllipsis)
        ellipsisRank = std::max<int64_t>(ellipsisRank, label - kEllipsis + 1);
    eq.operands.push_back(std::move(*labels));
  }
  if (explicitResult) {
    auto labels = readTerm(rhs, 0, true, ellipsisRank);
    if (!labels)
      return labels.takeError();
    eq.result = std::move(*labels);
  } else {
    // Implicit: the ellipsis dims, then the letters used once, sorted.
    for (int64_t k = ellipsisRank; k > 0; --k)
      eq.result.push_back(kEllipsis + static_cast<int>(k - 1));
    std::map<int, int> uses;
    for (auto &labels : eq.operands)
      for (int label : labels)
        if (label < kEllipsis)
          ++uses[label];
    for (auto [label, count] : uses)
      if (count == 1)
        eq.result.push_back(label);
  }
  for (int label : eq.result) {
    if (llvm::count(eq.result, label) != 1)
      return fail("'" + equation + "' repeats a label in its result");
    bool known = llvm::any_of(eq.operands, [&](const auto &labels) {
      return llvm::is_contained(labels, label);
    });
    if (!known)
      return fail("'" + equation + "' has a result label no operand has");
    eq.loops.push_back(label);
  }
  for (auto &labels : eq.operands)
    for (int label : labels)
      if (!llvm::is_contained(eq.loops, label))
        eq.loops.push_back(label);
  return eq;
}

size_t EinsumEquation::loopOf(int label) const {
  return std::find(loops.begin(), loops.end(), label) - loops.begin();
}

llvm::Expected<llvm::SmallVector<int64_t, 6>> EinsumEquation::loopSizes(
    llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes) const {
  llvm::SmallVector<int64_t, 6> sizes(loops.size(), 1);
  llvm::SmallVector<bool, 6> dynamic(loops.size(), false);
  for (auto [labels, shape] : llvm::zip(operands, shapes))
    for (auto [label, dim] : llvm::zip(labels, shape)) {
      size_t loop = loopOf(label);
      if (dim < 0) {
        dynamic[loop] = true;
        continue;
      }
      if (sizes[loop] == 1)
        sizes[loop] = dim;
      else if (dim != 1 && dim != sizes[loop])
        return fail(
            llvm::formatv("a label has sizes {0} and {1}", sizes[loop], dim)
                .str());
    }
  for (size_t i = 0; i < sizes.size(); ++i)
    if (dynamic[i] && sizes[i] == 1)
      sizes[i] = -1; // only dynamic (or broadcast) dims: unknown
  return sizes;
}

} // namespace mlir::dsmp
