//===- CoherentRounding.cpp - Rounding errors shared by equal values -----===//

#include "passes/Precision/CoherentRounding.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cassert>
#include <cmath>
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

/// Tensors up to this size are grouped exactly; a larger one by its
/// frequent values, found in a sample of at most this many.
constexpr size_t kSample = 8192;

/// A value sampled this often is frequent. Twice happens by chance: 8192
/// floats of a continuous computation collide about once.
constexpr uint32_t kFrequent = 3;

/// An open-addressing table from a float's bits to a count and a double
/// sum, sized once per use for at most kSample keys and reused across calls
/// (the analysis calls it once per probe, thousands of times). Zero is
/// never a key (it rounds exactly).
class GroupTable {
public:
  /// Empties the table, with room for `keys` keys at half load.
  void reset(size_t keys) {
    size_t capacity = llvm::PowerOf2Ceil(std::max<size_t>(2 * keys, 64));
    if (slots.size() < capacity)
      slots.assign(capacity, Slot());
    else
      for (uint32_t slot : used)
        slots[slot] = Slot();
    used.clear();
    pending = 0;
    mask = static_cast<uint32_t>(capacity - 1);
  }

  /// The slot of `key`, inserted if absent.
  uint32_t insert(uint32_t key) {
    for (uint32_t slot = slotOf(key);; slot = (slot + 1) & mask) {
      if (slots[slot].key == key)
        return slot;
      if (slots[slot].key == 0) {
        slots[slot].key = key;
        used.push_back(slot);
        return slot;
      }
    }
  }

  /// The slot of `key`, or -1.
  int64_t find(uint32_t key) const {
    for (uint32_t slot = slotOf(key);; slot = (slot + 1) & mask) {
      if (slots[slot].key == key)
        return slot;
      if (slots[slot].key == 0)
        return -1;
    }
  }

  struct Slot {
    uint32_t key = 0;
    uint32_t count = 0;
    double sum = 0;
  };
  Slot &operator[](uint32_t slot) { return slots[slot]; }

  template <typename F> void forEach(F &&f) const {
    for (uint32_t slot : used)
      f(slots[slot]);
  }

  /// Scratch: how many keys the next reset must hold.
  size_t pending = 0;

  double squareSum() const {
    double total = 0;
    for (uint32_t slot : used)
      total += slots[slot].sum * slots[slot].sum;
    return total;
  }

private:
  uint32_t slotOf(uint32_t bits) const {
    // Fibonacci hashing: nearby floats (adjacent bit patterns) spread out.
    return static_cast<uint32_t>((bits * 0x9E3779B97F4A7C15ull) >> 32) & mask;
  }

  std::vector<Slot> slots;
  std::vector<uint32_t> used;
  uint32_t mask = 0;
};

} // namespace

bool roundsExactly(float x) {
  uint32_t bits = bitsOf(x) & 0x7fffffffu;
  if (!bits)
    return true;
  // Within 128 f32 steps (2^-16 relative) of a value with the implicit bit
  // and 2 explicit ones: the 21 low mantissa bits that far from a multiple
  // of 2^21 (a carry into the exponent is still such a value).
  constexpr uint32_t kLow = 0x1fffffu, kNear = 128;
  uint32_t low = bits & kLow;
  if (low > kNear && kLow + 1 - low > kNear)
    return false;
  uint32_t exponent = (bits + (low > kNear ? kLow + 1 - low : 0)) >> 23;
  return exponent >= 127 - 6 && exponent <= 127 + 8;
}

double roundingSquareSum(llvm::ArrayRef<float> p, llvm::ArrayRef<float> x,
                         bool leaveOutExact) {
  assert(p.size() == x.size() && "one x per product");
  // Zero rounds exactly under any scale; other short values only unscaled;
  // infinities and NaN round to themselves (their products may be NaN).
  auto skipped = [&](float v) {
    return !std::isfinite(v) ||
           (leaveOutExact ? roundsExactly(v) : (bitsOf(v) << 1) == 0);
  };
  thread_local GroupTable table;
  if (x.size() <= kSample) {
    table.reset(x.size());
    for (size_t i = 0; i < x.size(); ++i)
      if (!skipped(x[i]))
        table[table.insert(bitsOf(x[i]))].sum += p[i];
    return table.squareSum();
  }
  // The values a sample holds kFrequent times or more (groups of about 3 n
  // / samples elements and more) are grouped exactly. The sample takes one
  // element at a pseudo-random place in each stretch of x (evenly spaced
  // samples alias with a layout's period, every W-th element of a row), a
  // sixteenth of x up to kSample elements: its random reads cost more than
  // the sequential pass below.
  size_t samples = std::min(kSample, std::max<size_t>(1024, x.size() / 16));
  table.reset(samples);
  uint64_t stride = x.size() / samples + 1;
  uint64_t state = 0x9E3779B97F4A7C15ull;
  for (size_t start = 0; start < x.size(); start += stride) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    size_t i = start + (((state >> 32) * stride) >> 32);
    if (i < x.size() && !skipped(x[i]))
      ++table[table.insert(bitsOf(x[i]))].count;
  }
  // The frequent values in a table of their own: most lookups below are
  // of other values and end at once in a small, mostly empty table.
  thread_local GroupTable frequent;
  table.forEach([&](const GroupTable::Slot &slot) {
    if (slot.count >= kFrequent)
      ++frequent.pending;
  });
  bool anyFrequent = frequent.pending > 0;
  frequent.reset(frequent.pending);
  // A 4096-bit filter in front of it: most values are not frequent, and a
  // table lookup that misses mispredicts its probe loop's exit.
  uint64_t filter[64] = {};
  auto filterBit = [](uint32_t key) {
    return static_cast<uint32_t>((key * 0xC2B2AE3D27D4EB4Full) >> 52);
  };
  if (anyFrequent)
    table.forEach([&](const GroupTable::Slot &slot) {
      if (slot.count < kFrequent)
        return;
      frequent.insert(slot.key);
      uint32_t bit = filterBit(slot.key);
      filter[bit >> 6] |= uint64_t(1) << (bit & 63);
    });
  if (!anyFrequent) {
    // Most tensors: no frequent value, and often no two neighbours equal,
    // where the sum is that of the squares; one branch-free pass says.
    double lanes[8] = {};
    size_t neighbours = 0;
    for (size_t i = 0; i < x.size(); i += 8) {
      size_t end = std::min(i + 8, x.size());
      for (size_t j = i; j < end; ++j) {
        uint32_t bits = bitsOf(x[j]);
        double v = skipped(x[j]) ? 0.0 : p[j];
        lanes[j - i] += v * v;
        neighbours += j > 0 && bits == bitsOf(x[j - 1]) && (bits << 1);
      }
    }
    if (!neighbours) {
      double total = 0;
      for (double lane : lanes)
        total += lane;
      return total;
    }
  }
  // Any other value by its runs of consecutive equal elements (a flat
  // stretch of a row); where all values differ, each run is one element.
  // A run of a frequent value is summed first: one lookup per run.
  double singles = 0, run = 0;
  uint32_t runKey = 0; // 0: no run (zero rounds exactly)
  auto flush = [&] {
    if (!runKey)
      return;
    uint32_t bit = filterBit(runKey);
    if (filter[bit >> 6] >> (bit & 63) & 1)
      if (int64_t slot = frequent.find(runKey); slot >= 0) {
        frequent[slot].sum += run;
        return;
      }
    singles += run * run;
  };
  for (size_t i = 0; i < x.size(); ++i) {
    uint32_t key = bitsOf(x[i]);
    if (key == runKey) {
      run += p[i];
      continue;
    }
    flush();
    runKey = skipped(x[i]) ? 0 : key;
    run = p[i];
  }
  flush();
  return singles + (anyFrequent ? frequent.squareSum() : 0.0);
}

} // namespace mlir::dsmp
