//===- CoherentRoundingTest.cpp - Energies of values that repeat ---------===//
//
// roundingSquareSum against a direct computation: group the elements by
// their value with a std::map, leave out the values every format holds.
//
//===----------------------------------------------------------------------===//

#include "passes/Precision/CoherentRounding.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <vector>

using namespace mlir::dsmp;

namespace {

double directGrouped(const std::vector<float> &p, const std::vector<float> &x) {
  std::map<float, double> sums;
  for (size_t i = 0; i < x.size(); ++i)
    if (!roundsExactly(x[i]))
      sums[x[i]] += p[i];
  double total = 0;
  for (auto &[value, sum] : sums)
    total += sum * sum;
  return total;
}

TEST(CoherentRoundingTest, ExactValuesAreTheShortOnesInRange) {
  for (float v : {0.0f, -0.0f, 1.0f, -6.0f, 0.5f, 0.75f, 448.0f, 0.015625f})
    EXPECT_TRUE(roundsExactly(v)) << v;
  // Within 128 f32 steps of such a value, on either side: a saturated
  // sigmoid, a uniform softmax over 16 keys.
  for (float v : {0.99999994f, 1.0000001f, 0.06250011f, 0.0624999f, -6.00001f})
    EXPECT_TRUE(roundsExactly(v)) << v;
  // 256 steps away is not.
  EXPECT_FALSE(roundsExactly(1.0f + 256 * 1.1920929e-7f));
  // Over 3 significant bits (E5M2 rounds them), past E4M3's largest, under its
  // smallest normal, and a value no binary format holds.
  for (float v : {1.0625f, 9.0f, 512.0f, 0.0078125f, 0.1f, 2.6386f})
    EXPECT_FALSE(roundsExactly(v)) << v;
}

TEST(CoherentRoundingTest, DistinctValuesSumTheirSquares) {
  std::mt19937 rng(1);
  std::normal_distribution<float> normal;
  std::vector<float> p(100000), x(100000);
  double squares = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    p[i] = normal(rng);
    x[i] = 3.0f + 1e-4f * static_cast<float>(i); // all distinct
    if (!roundsExactly(x[i]))
      squares += double(p[i]) * p[i];
  }
  EXPECT_NEAR(roundingSquareSum(p, x), squares, 1e-9 * squares);
}

TEST(CoherentRoundingTest, RunsOfOneValueErrAsOne) {
  // 20000 values, each in one run of 50 consecutive elements: too rare for
  // the sample to call any of them frequent, grouped by their runs.
  std::mt19937 rng(3);
  std::normal_distribution<float> normal;
  size_t n = 1000000;
  std::vector<float> p(n), x(n);
  for (size_t i = 0; i < n; ++i) {
    p[i] = 1.0f + 0.1f * normal(rng);
    x[i] = 1.3f + 1e-5f * static_cast<float>(i / 50);
  }
  double grouped = roundingSquareSum(p, x);
  EXPECT_NEAR(grouped, directGrouped(p, x), 1e-9 * grouped);
  // (50 * 1)^2 per run against 50 * 1.01: about 50 times the squares.
  EXPECT_GT(grouped, 40.0 * n);
}

TEST(CoherentRoundingTest, AFlatRegionErrsAsOne) {
  // 70 % of a large tensor holds one background value (plus the levels of
  // an 8-bit image elsewhere): its products add before squaring.
  std::mt19937 rng(2);
  std::normal_distribution<float> normal;
  std::uniform_int_distribution<int> level(0, 255);
  size_t n = 200000;
  std::vector<float> p(n), x(n);
  for (size_t i = 0; i < n; ++i) {
    p[i] = 0.1f + normal(rng) * 0.01f;
    x[i] = i % 10 < 7 ? 2.2489083f : (level(rng) / 255.0f - 0.485f) / 0.229f;
  }
  double grouped = roundingSquareSum(p, x);
  // The background and most levels are sampled often enough to be grouped
  // exactly; a rare level only by its runs.
  EXPECT_NEAR(grouped, directGrouped(p, x), 1e-5 * grouped);
  double independent = 0;
  for (float v : p)
    independent += double(v) * v;
  // (0.7 n * 0.1)^2 against n * 0.01: about 70000 times larger.
  EXPECT_GT(grouped, 1e4 * independent);
}

TEST(CoherentRoundingTest, ExactValuesAddNothing) {
  // A Clip saturated at 6 on most elements: that value never rounds.
  std::vector<float> p(20000, 1.0f), x(20000, 6.0f);
  x[0] = 2.6386f;
  EXPECT_DOUBLE_EQ(roundingSquareSum(p, x), 1.0);
  EXPECT_DOUBLE_EQ(roundingSquareSum(std::vector<float>(20000, 1.0f),
                                     std::vector<float>(20000, 0.0f)),
                   0.0);
}

TEST(CoherentRoundingTest, UnderAnF8ScaleShortValuesCount) {
  // An f8 format's per-tensor scale makes a saturated 6 round: only zero
  // is left out then.
  std::vector<float> p(20000, 1.0f), x(20000, 6.0f);
  x[1] = 0.0f;
  EXPECT_DOUBLE_EQ(roundingSquareSum(p, x, /*leaveOutExact=*/false),
                   19999.0 * 19999.0);
  std::vector<float> q = {1, 2}, y = {6, 0.5f};
  EXPECT_DOUBLE_EQ(roundingSquareSum(q, y, /*leaveOutExact=*/false), 5.0);
}

TEST(CoherentRoundingTest, SmallTensorsAreGroupedWhole) {
  std::vector<float> p = {1, 2, -3, 4}, x = {0.3f, 0.3f, 0.3f, 0.7f};
  // (1 + 2 - 3)^2 + 4^2
  EXPECT_DOUBLE_EQ(roundingSquareSum(p, x), 16.0);
}

} // namespace
