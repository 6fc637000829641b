//===- CoherentRounding.cpp - Rounding errors shared by equal values -----===//

#include "passes/Precision/CoherentRounding.h"

#include <cassert>
#include <cstdint>
#include <cstring>
#include <vector>

namespace mlir::dsmp {
namespace {

uint32_t bitsOf(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}

uint32_t slotOf(uint32_t bits, uint32_t mask) {
  // Fibonacci hashing: nearby floats (adjacent bit patterns) spread out.
  return static_cast<uint32_t>((bits * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

/// An open-addressing map from a float's bits to a double sum, growing as
/// distinct values arrive. Zero is never a key (it rounds exactly).
class GroupSums {
public:
  GroupSums() : keys(1024, 0), sums(1024, 0.0) {}

  void add(uint32_t key, double value) {
    uint32_t mask = keys.size() - 1;
    for (uint32_t slot = slotOf(key, mask);; slot = (slot + 1) & mask) {
      if (keys[slot] == key) {
        sums[slot] += value;
        return;
      }
      if (keys[slot] == 0) {
        keys[slot] = key;
        sums[slot] = value;
        if (++used * 2 > keys.size())
          grow();
        return;
      }
    }
  }

  /// Adds `value` to `key`'s sum where `key` is in the map.
  bool addIfPresent(uint32_t key, double value) {
    uint32_t mask = keys.size() - 1;
    for (uint32_t slot = slotOf(key, mask);; slot = (slot + 1) & mask) {
      if (keys[slot] == key) {
        sums[slot] += value;
        return true;
      }
      if (keys[slot] == 0)
        return false;
    }
  }

  /// The keys whose sum is at least `least`, in a map of their own (sums 0).
  GroupSums keysWithSumAtLeast(double least) const {
    GroupSums kept;
    for (size_t slot = 0; slot < keys.size(); ++slot)
      if (keys[slot] && sums[slot] >= least)
        kept.add(keys[slot], 0.0);
    return kept;
  }

  double squareSum() const {
    double total = 0;
    for (size_t slot = 0; slot < keys.size(); ++slot)
      if (keys[slot])
        total += sums[slot] * sums[slot];
    return total;
  }

  size_t size() const { return used; }

private:
  void grow() {
    std::vector<uint32_t> oldKeys(keys.size() * 2, 0);
    std::vector<double> oldSums(sums.size() * 2, 0.0);
    oldKeys.swap(keys);
    oldSums.swap(sums);
    used = 0;
    for (size_t slot = 0; slot < oldKeys.size(); ++slot)
      if (oldKeys[slot])
        add(oldKeys[slot], oldSums[slot]);
  }

  std::vector<uint32_t> keys;
  std::vector<double> sums;
  size_t used = 0;
};

} // namespace

bool roundsExactly(float x) {
  uint32_t bits = bitsOf(x) & 0x7fffffffu;
  if (!bits)
    return true;
  uint32_t exponent = bits >> 23, mantissa = bits & 0x7fffffu;
  // The 21 low mantissa bits zero: the implicit bit and 2 explicit ones.
  return (mantissa & 0x1fffffu) == 0 && exponent >= 127 - 6 &&
         exponent <= 127 + 8;
}

namespace {

/// Tensors up to this size are grouped exactly; a larger one by its
/// frequent values, found in an evenly spaced sample of this many.
constexpr size_t kSample = 8192;

/// The nonzero values a sample of x holds twice or more (a group of at
/// least about 2 x.size() / kSample elements). One element at a
/// pseudo-random place in each stretch of x.size() / kSample: evenly spaced
/// samples alias with a layout's period (every W-th element of a row).
GroupSums frequentValues(llvm::ArrayRef<float> x) {
  size_t stride = x.size() / kSample + 1;
  GroupSums counts;
  uint64_t state = 0x9E3779B97F4A7C15ull;
  for (size_t start = 0; start < x.size(); start += stride) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    size_t i = start + (state >> 33) % stride;
    if (i < x.size() && !roundsExactly(x[i]))
      counts.add(bitsOf(x[i]), 1.0);
  }
  return counts.keysWithSumAtLeast(2.0);
}

} // namespace

double roundingSquareSum(llvm::ArrayRef<float> p, llvm::ArrayRef<float> x) {
  assert(p.size() == x.size() && "one x per product");
  if (x.size() <= kSample) {
    GroupSums groups;
    for (size_t i = 0; i < x.size(); ++i)
      if (!roundsExactly(x[i]))
        groups.add(bitsOf(x[i]), p[i]);
    return groups.squareSum();
  }
  // Frequent values are grouped exactly; every other value by its runs of
  // consecutive equal elements (a flat stretch of a row), which a tensor
  // whose values are all distinct makes single elements: sum p^2. A run of
  // a frequent value is summed first, so the map sees one entry per run.
  GroupSums frequent = frequentValues(x);
  bool anyFrequent = frequent.size() > 0;
  double singles = 0, run = 0;
  uint32_t runKey = 0; // 0: no run (zero rounds exactly)
  auto flush = [&] {
    if (runKey && !(anyFrequent && frequent.addIfPresent(runKey, run)))
      singles += run * run;
  };
  for (size_t i = 0; i < x.size(); ++i) {
    uint32_t key = bitsOf(x[i]);
    if (key == runKey) {
      run += p[i];
      continue;
    }
    flush();
    runKey = roundsExactly(x[i]) ? 0 : key;
    run = p[i];
  }
  flush();
  return singles + frequent.squareSum();
}

} // namespace mlir::dsmp
