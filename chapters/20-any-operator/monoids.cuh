/// @file monoids.cuh
/// @brief Chapter 20's instances: each a type, an associative operator on it and the operator's
/// identity (a monoid), with the input the program makes for it and its CPU reference.
///
/// The kernels of any_reduce.cuh and any_scan.cuh know nothing but this interface:
/// - `In`, the element the input holds, and `T`, what the reduction carries (an argmax carries a
///   value and its index, so T is not In there); `lift(x, i)` makes element i a T;
/// - `combine(earlier, later)`, the operator, whose arguments are named for their order in the
///   input: a kernel that swaps them is wrong for an operator that does not commute;
/// - `identity()`, which combined with any value on either side gives that value: the kernels pad
///   a partial tile with it;
/// - `kAssociative` and `kCommutative`, which the kernels do not read: the CPU reference and the
///   algebra check (--emulate) do, and the page says which kernel needs which.
/// Subtract is here as the negative control: it is not associative, and its identity works on the
/// right only (x - 0 = x), so it is no monoid.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "wb_reference.h"

/// An affine map x -> a x + b over the integers modulo 2^32: the step of the recurrence
/// x_t = a_t x_(t-1) + b_t. 8 bytes, aligned so that one 64-bit access moves it.
struct alignas(8) AffineMap {
  uint32_t a;  ///< the factor
  uint32_t b;  ///< the addend
};

/// The largest value met so far and the first index where it was met. 16 bytes: an index past
/// 2^32 needs 64 bits. `unused` is 0 in every pair the workbook makes and is never compared.
struct alignas(8) ArgMaxPair {
  int32_t value;   ///< the value
  int32_t unused;  ///< padding, kept 0
  int64_t index;   ///< where it was found
};

/// The element that --seed and index i give an instance (`salt` tells instances apart).
WB_HD inline uint64_t instance_bits(uint64_t seed, uint64_t salt, uint64_t i) {
  return wb::mix64(wb::mix64(seed ^ salt) + (i + 1) * 0x9e3779b97f4a7c15ULL);
}

// [sum_int64]
/// The sum of int64 values, modulo 2^64 (as the GPU's 64-bit adds make it; unsigned, so that
/// C++ defines the wrap).
struct SumInt64 {
  using In = int64_t;  ///< the input's elements
  using T = int64_t;   ///< what the reduction carries
  static constexpr bool kAssociative = true;  ///< ((a + b) + c) = (a + (b + c))
  static constexpr bool kCommutative = true;  ///< a + b = b + a
  /// 0: x + 0 = 0 + x = x.
  WB_HD static T identity() { return 0; }
  /// Element i as a T: itself.
  WB_HD static T lift(In x, int64_t) { return x; }
  /// earlier + later.
  WB_HD static T combine(T earlier, T later) { return int64_t(uint64_t(earlier) + uint64_t(later)); }
};
// [sum_int64]

/// The largest of int32 values.
struct MaxInt32 {
  using In = int32_t;  ///< the input's elements
  using T = int32_t;   ///< what the reduction carries
  static constexpr bool kAssociative = true;  ///< max(max(a, b), c) = max(a, max(b, c))
  static constexpr bool kCommutative = true;  ///< max(a, b) = max(b, a)
  /// The smallest int32, which every value beats or ties.
  WB_HD static T identity() { return INT32_MIN; }
  /// Element i as a T: itself.
  WB_HD static T lift(In x, int64_t) { return x; }
  /// max(earlier, later).
  WB_HD static T combine(T earlier, T later) { return later > earlier ? later : earlier; }
};

/// The smallest of int32 values.
struct MinInt32 {
  using In = int32_t;  ///< the input's elements
  using T = int32_t;   ///< what the reduction carries
  static constexpr bool kAssociative = true;  ///< min(min(a, b), c) = min(a, min(b, c))
  static constexpr bool kCommutative = true;  ///< min(a, b) = min(b, a)
  /// The largest int32, which every value beats or ties.
  WB_HD static T identity() { return INT32_MAX; }
  /// Element i as a T: itself.
  WB_HD static T lift(In x, int64_t) { return x; }
  /// min(earlier, later).
  WB_HD static T combine(T earlier, T later) { return later < earlier ? later : earlier; }
};

// [argmax]
/// The largest int32 and the first index that holds it. The tie rule makes the operator a
/// maximum over (value, -index), a total order, so it is associative and commutative: which
/// pair is "earlier" never matters, only the indexes they carry.
struct ArgMaxInt32 {
  using In = int32_t;     ///< the input's elements
  using T = ArgMaxPair;   ///< a value and its index
  static constexpr bool kAssociative = true;  ///< a maximum over a total order
  static constexpr bool kCommutative = true;  ///< likewise
  /// A value below every int32 at an index past every element: it loses to any pair.
  WB_HD static T identity() { return {INT32_MIN, 0, INT64_MAX}; }
  /// Element i as the pair (x, i).
  WB_HD static T lift(In x, int64_t i) { return {x, 0, i}; }
  /// The larger value; of equal values, the smaller index.
  WB_HD static T combine(T earlier, T later) {
    const bool later_wins = later.value > earlier.value || (later.value == earlier.value && later.index < earlier.index);
    return later_wins ? later : earlier;
  }
};
// [argmax]

// [affine]
/// The composition of affine maps: (a2, b2) after (a1, b1) is x -> a2 (a1 x + b1) + b2, the map
/// (a2 a1, a2 b1 + b2), modulo 2^32. Associative (composing functions is), not commutative:
/// doubling then adding 1 is not adding 1 then doubling. The inclusive scan of the maps gives,
/// in its b, every x_t of the recurrence from x_(-1) = 0.
struct AffineCompose {
  using In = AffineMap;  ///< the input's elements
  using T = AffineMap;   ///< what the reduction carries
  static constexpr bool kAssociative = true;   ///< composition of functions
  static constexpr bool kCommutative = false;  ///< the order of the maps matters
  /// x -> x.
  WB_HD static T identity() { return {1u, 0u}; }
  /// Element i as a T: itself.
  WB_HD static T lift(In x, int64_t) { return x; }
  /// `later` applied after `earlier`.
  WB_HD static T combine(T earlier, T later) { return {later.a * earlier.a, later.a * earlier.b + later.b}; }
};
// [affine]

/// The negative control: int32 subtraction modulo 2^32. Not associative ((a - b) - c is not
/// a - (b - c)) and not commutative; 0 is an identity on the right only. The CPU's reference
/// for it is the left fold ((x0 - x1) - x2) - ..., which a parallel kernel does not compute.
struct SubtractInt32 {
  using In = int32_t;  ///< the input's elements
  using T = int32_t;   ///< what the reduction carries
  static constexpr bool kAssociative = false;  ///< (a - b) - c != a - (b - c)
  static constexpr bool kCommutative = false;  ///< a - b != b - a
  /// 0, an identity on the right only: x - 0 = x, but 0 - x = -x.
  WB_HD static T identity() { return 0; }
  /// Element i as a T: itself.
  WB_HD static T lift(In x, int64_t) { return x; }
  /// earlier - later, modulo 2^32.
  WB_HD static T combine(T earlier, T later) { return int32_t(uint32_t(earlier) - uint32_t(later)); }
};

// ---------------------------------------------------------------------------------------
// Equality and text: what the checks compare and print

/// Whether two results are the same (every field but an ArgMaxPair's padding).
WB_HD inline bool same(int32_t a, int32_t b) { return a == b; }
/// See same(int32_t, int32_t).
WB_HD inline bool same(int64_t a, int64_t b) { return a == b; }
/// See same(int32_t, int32_t).
WB_HD inline bool same(ArgMaxPair a, ArgMaxPair b) { return a.value == b.value && a.index == b.index; }
/// See same(int32_t, int32_t).
WB_HD inline bool same(AffineMap a, AffineMap b) { return a.a == b.a && a.b == b.b; }

/// A result as the FAIL lines print it.
inline std::string text(int32_t v) { return std::to_string(v); }
/// See text(int32_t).
inline std::string text(int64_t v) { return std::to_string(v); }
/// See text(int32_t).
inline std::string text(ArgMaxPair v) {
  return "(value " + std::to_string(v.value) + ", index " + std::to_string(v.index) + ")";
}
/// See text(int32_t).
inline std::string text(AffineMap v) { return "(a " + std::to_string(v.a) + ", b " + std::to_string(v.b) + ")"; }

// ---------------------------------------------------------------------------------------
// The CPU's references

/// The left fold of x[begin, end) (begin < end): ((x_b . x_(b+1)) . x_(b+2)) . ..., the one order
/// every instance's result is defined by; element i lifted with its own index.
template <class M>
typename M::T fold_on_host(const typename M::In* x, int64_t begin, int64_t end) {
  typename M::T acc = M::lift(x[begin], begin);
  for (int64_t i = begin + 1; i < end; ++i) acc = M::combine(acc, M::lift(x[i], i));
  return acc;
}

/// The reduction of x[begin, end) in the input's order. An associative operator lets the host's
/// threads fold contiguous ranges and the results be folded in range order, which is the same
/// value; the negative control is folded left by one thread, as its definition says.
template <class M>
typename M::T reduce_on_host(const typename M::In* x, int64_t begin, int64_t end) {
  const int64_t n = end - begin;
  if (!M::kAssociative || wb::worker_count(n) == 1) return fold_on_host<M>(x, begin, end);
  std::vector<typename M::T> partial(size_t(wb::worker_count(n)), M::identity());
  wb::parallel_for(n, [&](int w, int64_t b, int64_t e) {
    if (b < e) partial[size_t(w)] = fold_on_host<M>(x, begin + b, begin + e);
  });
  typename M::T acc = partial[0];
  for (size_t w = 1; w < partial.size(); ++w) acc = M::combine(acc, partial[w]);
  return acc;
}

/// The inclusive scan out[i] = x_0 . x_1 . ... . x_i in the input's order: for an associative
/// operator in two passes over contiguous ranges (each range's fold, the folds' running
/// combination, then each range scanned from the combination of those before it), else in one.
template <class M>
void scan_on_host(const typename M::In* x, typename M::T* out, int64_t n) {
  using T = typename M::T;
  const int workers = M::kAssociative ? wb::worker_count(n) : 1;
  const int64_t chunk = (n + workers - 1) / workers;
  std::vector<T> before(size_t(workers), M::identity());
  std::vector<bool> has_before(size_t(workers), false);
  if (workers > 1) {
    std::vector<T> total(size_t(workers), M::identity());
    wb::parallel_for(n, [&](int w, int64_t b, int64_t e) {
      if (b < e) total[size_t(w)] = fold_on_host<M>(x, b, e);
    });
    for (int w = 1; w < workers; ++w) {
      before[size_t(w)] = has_before[size_t(w - 1)] ? M::combine(before[size_t(w - 1)], total[size_t(w - 1)])
                                                    : total[size_t(w - 1)];
      has_before[size_t(w)] = true;
    }
  }
  auto scan_range = [&](int w, int64_t b, int64_t e) {
    if (b >= e) return;
    T acc = has_before[size_t(w)] ? M::combine(before[size_t(w)], M::lift(x[b], b)) : M::lift(x[b], b);
    out[b] = acc;
    for (int64_t i = b + 1; i < e; ++i) out[i] = acc = M::combine(acc, M::lift(x[i], i));
  };
  if (workers > 1) wb::parallel_for(n, scan_range);
  else scan_range(0, 0, std::min(n, chunk));
}
