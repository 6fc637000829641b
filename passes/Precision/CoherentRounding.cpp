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

bool repeatsValues(llvm::ArrayRef<float> x) {
  constexpr size_t kSample = 8192;
  // A small tensor is grouped whole: that costs what sampling would.
  if (x.size() <= kSample)
    return true;
  size_t stride = x.size() / kSample + 1;
  GroupSums seen;
  size_t sampled = 0;
  for (size_t i = 0; i < x.size(); i += stride) {
    if (roundsExactly(x[i]))
      continue;
    ++sampled;
    seen.add(bitsOf(x[i]), 0.0);
  }
  // A group of m elements can add m times its own part of the sum, so even
  // a group of 0.1 % of a large tensor matters; distinct values from a
  // continuous computation collide about once in such a sample.
  return sampled - seen.size() >= 8;
}

double roundingSquareSum(llvm::ArrayRef<float> p, llvm::ArrayRef<float> x) {
  assert(p.size() == x.size() && "one x per product");
  if (!repeatsValues(x)) {
    double total = 0;
    for (size_t i = 0; i < p.size(); ++i)
      if (!roundsExactly(x[i]))
        total += static_cast<double>(p[i]) * p[i];
    return total;
  }
  GroupSums groups;
  for (size_t i = 0; i < x.size(); ++i)
    if (!roundsExactly(x[i]))
      groups.add(bitsOf(x[i]), p[i]);
  return groups.squareSum();
}

} // namespace mlir::dsmp
