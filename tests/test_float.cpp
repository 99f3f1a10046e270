// Host tests of chapter 19's float header (chapters/19-float-sum/wb_float.h): the exact sum,
// its rounding, the float inputs and the error bounds. Every expected value here was worked
// out by hand (see the comments) or comes from an independent exact sum (__int128), not from
// the code under test.
#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "host_test.h"
#include "wb_float.h"

static float exact_of(const std::vector<float>& x) { return wb::exact_sum(x.data(), int64_t(x.size())); }

// Left to right in float, as a naive loop sums: what the exact sum is measured against.
static float naive_of(const std::vector<float>& x) {
  volatile float s = 0.0f;  // volatile: each add rounds to float, here, in the current mode
  for (float v : x) s = s + v;
  return s;
}

static bool same_bits(float a, float b) { return wb::float_bits(a) == wb::float_bits(b); }

// The two tie cases: 2^24 + 1 lies halfway between 2^24 (even significand) and 2^24 + 2
// (odd), so it rounds down; 2^24 + 3 halfway between 2^24 + 2 (odd) and 2^24 + 4 (even),
// so it rounds up. Only ties to even passes both.
static bool ties_go_to_even(float sum_of_2p24_and_1, float sum_of_2p24_plus_2_and_1) {
  return sum_of_2p24_and_1 == 16777216.0f && sum_of_2p24_plus_2_and_1 == 16777220.0f;
}

// The exact value v (exact in long double) rounded by the FPU in another rounding mode: a
// stand-in for a reference that rounds wrongly, which the tie test must reject.
static float rounded_in_mode(long double v, int mode) {
  volatile long double exact = v;
  std::fesetround(mode);
  volatile float f = float(exact);
  std::fesetround(FE_TONEAREST);
  return f;
}

static void test_float_exact_cases() {
  const float two24 = 16777216.0f, inf = std::numeric_limits<float>::infinity();
  // 2^24 + 1 - 2^24 = 1, where float addition rounds 2^24 + 1 to 2^24 and loses the 1.
  EXPECT(exact_of({two24, 1.0f, -two24}) == 1.0f);
  EXPECT(naive_of({two24, 1.0f, -two24}) == 0.0f);  // negative control: the float sum is wrong
  EXPECT(exact_of({1e30f, 1.0f, -1e30f}) == 1.0f);
  EXPECT(naive_of({1e30f, 1.0f, -1e30f}) == 0.0f);

  EXPECT(ties_go_to_even(exact_of({two24, 1.0f}), exact_of({two24 + 2.0f, 1.0f})));
  EXPECT(ties_go_to_even(rounded_in_mode(16777217.0L, FE_TONEAREST), rounded_in_mode(16777219.0L, FE_TONEAREST)));
  // Negative controls: every other rounding mode fails one of the two cases.
  for (int mode : {FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO})
    EXPECT(!ties_go_to_even(rounded_in_mode(16777217.0L, mode), rounded_in_mode(16777219.0L, mode)));
  // The exact sum rounds in integers: the host's rounding mode does not move it, while a
  // float sum follows that mode (2^24 + 1 rounds up to 2^24 + 2).
  std::fesetround(FE_UPWARD);
  float up_down = exact_of({two24, 1.0f}), up_up = exact_of({two24 + 2.0f, 1.0f}), up_naive = naive_of({two24, 1.0f});
  std::fesetround(FE_TONEAREST);
  EXPECT(ties_go_to_even(up_down, up_up) && up_naive == two24 + 2.0f);
  EXPECT(exact_of({two24, 1.0f, 0x1p-20f}) == two24 + 2.0f);  // just past the tie: nearest is up
  EXPECT(exact_of({-two24, -1.0f}) == -two24 && exact_of({-two24 - 2.0f, -1.0f}) == -two24 - 4.0f);

  wb::ExactSum negative;
  for (float v : {-1.0f, -2.0f, -3.5f}) negative.add(v);
  EXPECT(negative.sign() == -1 && negative.round_to_float() == -6.5f && negative.to_double_rounded() == -6.5);
  EXPECT(exact_of({-0x1p-149f, -0x1p-149f}) == -0x1p-148f && exact_of({-1e30f, -1e30f}) == -2e30f);

  // FLT_MAX = (2^24 - 1) 2^104: halfway to the next step (2^128) is FLT_MAX + 2^103, and
  // that tie goes to the even significand, 2^128: infinity. One 2^-149 less stays finite.
  const float max = std::numeric_limits<float>::max();
  EXPECT(exact_of({max, 0x1p103f, -0x1p-149f}) == max);
  EXPECT(exact_of({max, 0x1p103f}) == inf && exact_of({-max, -0x1p103f}) == -inf);
  EXPECT(exact_of({max, 0x1p102f, 0x1p101f}) == max);  // 3/4 of the way to the tie: still down
  EXPECT(exact_of({max, max, -max}) == max);  // beyond FLT_MAX only on the way
  EXPECT(naive_of({max, max, -max}) == inf);  // negative control: the float sum overflows
  EXPECT(exact_of({max, max}) == inf && exact_of({-max, -max, -1.0f}) == -inf);  // 2^128 and past

  // Subnormal results: 1.5 2^-126 - 2^-126 = 2^-127 (bits 0x00400000); 2^-126 - 2^-149 is
  // the largest subnormal (0x007fffff); three of the smallest give 0x00000003.
  EXPECT(wb::float_bits(exact_of({0x1.8p-126f, -0x1p-126f})) == 0x00400000u);
  EXPECT(wb::float_bits(exact_of({0x1p-126f, -0x1p-149f})) == 0x007fffffu);
  EXPECT(wb::float_bits(exact_of({0x1p-149f, 0x1p-149f, 0x1p-149f})) == 3u);
  EXPECT(wb::float_bits(exact_of({-0x1p-126f, 0x1p-149f})) == 0x807fffffu);
  // A float alone comes back as itself, to float and to double: a stride over all bit
  // patterns, and every binade's first and last float (2^-125 starts the first binade whose
  // ulp is not 2^-149: bit 24 of the fixed point).
  bool round_trip = true;
  auto comes_back = [](uint32_t bits) {
    float f = wb::float_from_bits(bits);
    wb::ExactSum alone;
    alone.add(f);
    return same_bits(alone.round_to_float(), f) && alone.to_double_rounded() == double(f);
  };
  for (uint64_t bits = 1; bits < 0x7f800000u; bits += 16411)
    round_trip = round_trip && comes_back(uint32_t(bits)) && comes_back(uint32_t(bits) | 0x80000000u);
  for (uint32_t biased = 0; biased < 255; ++biased)
    round_trip = round_trip && comes_back(biased << 23 | 1u) && comes_back(biased << 23 | 0x7fffffu);
  EXPECT(round_trip);
  EXPECT(exact_of({0x1p-125f, 0x1p-149f}) == 0x1p-125f);  // a tie in that binade: to even
  // An exact zero from terms that cancel is +0, and an empty sum is +0 (test_float_signed_zero).
  EXPECT(wb::float_bits(exact_of({1.5f, -1.5f})) == 0u && wb::float_bits(exact_of({})) == 0u);
  wb::ExactSum zero;
  EXPECT(zero.is_zero() && zero.sign() == 0);
  zero.add(1.0f);
  EXPECT(!zero.is_zero() && zero.sign() == 1);

  // To double: 1 + 2^-53 is a tie (down to 1); 1 + 2^-52 + 2^-53 a tie (up to 1 + 2^-51);
  // 2^-149 past the first tie is nearest up.
  auto to_double = [](std::vector<float> x) {
    return wb::exact_total(x.data(), int64_t(x.size())).to_double_rounded();
  };
  EXPECT(to_double({1.0f, 0x1p-53f}) == 1.0 && to_double({1.0f, 0x1p-52f, 0x1p-53f}) == 1.0 + 0x1p-51);
  EXPECT(to_double({1.0f, 0x1p-53f, 0x1p-149f}) == 1.0 + 0x1p-52);
  EXPECT(to_double({max, max}) == 2.0 * double(max) && to_double({0x1p-149f}) == 0x1p-149);

  // Infinities and NaN as IEEE adds them.
  EXPECT(exact_of({1.0f, inf}) == inf && exact_of({-inf, 1.0f}) == -inf);
  EXPECT(std::isnan(exact_of({inf, -inf})) && std::isnan(exact_of({std::numeric_limits<float>::quiet_NaN()})));

  // ulps of the correctly rounded sum: 2^24 + 1 rounds to 2^24, whose ulp is 2.
  wb::ExactSum tie;
  tie.add(two24);
  tie.add(1.0f);
  EXPECT(tie.ulps(two24) == 0.5 && tie.ulps(two24 + 2.0f) == 0.5 && tie.ulps(two24 + 4.0f) == 1.5);
  EXPECT(tie.ulps(two24 - 1.0f) == 1.0 && tie.ulps(inf) == std::numeric_limits<double>::infinity());
  wb::ExactSum tiny;
  tiny.add(0x1p-149f);
  EXPECT(tiny.ulps(0x1p-149f) == 0.0 && tiny.ulps(0.0f) == 1.0 && tiny.ulps(0x1p-147f) == 3.0);
}

// The sign of an exact zero, as IEEE's round to nearest gives it: x + (-x) is +0 and
// -0 + -0 is -0, so a sum is -0 exactly when it has terms and every one is -0.0; any other
// term, +0.0 included, makes it +0, and an empty sum is +0.
static void test_float_signed_zero() {
  const float tiny = 0x1p-149f;
  volatile float minus_zero = -0.0f, plus_zero = 0.0f;  // IEEE's own additions, for the record
  EXPECT(wb::float_bits(minus_zero + minus_zero) == 0x80000000u && wb::float_bits(minus_zero + plus_zero) == 0u &&
         wb::float_bits(plus_zero + minus_zero) == 0u);
  EXPECT(wb::float_bits(exact_of({-0.0f})) == 0x80000000u &&
         wb::float_bits(exact_of({-0.0f, -0.0f, -0.0f})) == 0x80000000u);
  EXPECT(wb::float_bits(exact_of({-0.0f, 0.0f})) == 0u && wb::float_bits(exact_of({0.0f, -0.0f, -0.0f})) == 0u);
  EXPECT(wb::float_bits(exact_of({-tiny, -0.0f, tiny})) == 0u && wb::float_bits(exact_of({-1.0f, 1.0f, -0.0f})) == 0u);
  EXPECT(wb::float_bits(exact_of({0.0f})) == 0u && wb::float_bits(exact_of({})) == 0u);
  // Negative control: a loop from +0.0, as the kernels' running sums start, makes a sum of -0s +0.
  EXPECT(wb::float_bits(naive_of({-0.0f, -0.0f})) == 0u);
  wb::ExactSum minus, plus, empty;
  minus.add(-0.0f);
  plus.add(0.0f);
  EXPECT(minus.only_minus_zeros() && !plus.only_minus_zeros() && !empty.only_minus_zeros());
  EXPECT(std::signbit(minus.to_double_rounded()) && !std::signbit(plus.to_double_rounded()) &&
         minus.to_double_rounded() == 0.0);
  EXPECT(minus != empty && minus != plus && plus != empty && minus.is_zero() && minus.sign() == 0);
  // Partial sums merge to the same sign in any split; an empty one changes nothing.
  wb::ExactSum a = minus;
  a.merge(empty);
  a.merge(minus);
  EXPECT(wb::float_bits(a.round_to_float()) == 0x80000000u);
  a.merge(plus);
  EXPECT(wb::float_bits(a.round_to_float()) == 0u);
  // Negation negates the terms: +0s become -0s and back; the empty sum stays +0.
  wb::ExactSum pluses = plus;
  pluses.add(0.0f);
  pluses.negate();
  EXPECT(wb::float_bits(pluses.round_to_float()) == 0x80000000u);
  pluses.negate();
  EXPECT(wb::float_bits(pluses.round_to_float()) == 0u);
  empty.negate();
  EXPECT(wb::float_bits(empty.round_to_float()) == 0u);
  // The flags of the GPU's sum: only -0.0 leaves kSumNotMinusZero out.
  EXPECT(wb::term_flags(0x80000000u) == 0u && wb::term_flags(0u) == wb::kSumNotMinusZero &&
         wb::term_flags(1u) == wb::kSumNotMinusZero && wb::term_flags(0x80000001u) == wb::kSumNotMinusZero);
  EXPECT(wb::term_flags(0x7f800000u) == (wb::kSumPlusInf | wb::kSumNotMinusZero) &&
         wb::term_flags(0xff800000u) == (wb::kSumMinusInf | wb::kSumNotMinusZero) &&
         wb::term_flags(0xffc00001u) == (wb::kSumNaN | wb::kSumNotMinusZero));
}

// The GPU's rounding (round_limbs_to_float, of a 320-bit integer and the terms' flags) against
// ExactSum's, case by case: ties, subnormals, overflow, infinities, NaN and signed zeros.
static float limbs_rounding_of(const std::vector<float>& x) {
  uint64_t limb[5] = {};
  unsigned flags = 0;
  for (float v : x) {
    wb::limbs_add_double(limb, double(v));  // exact: a float is a multiple of 2^-149; nothing for inf, NaN, 0
    flags |= wb::term_flags(wb::float_bits(v));
  }
  return wb::round_limbs_to_float(limb, flags);
}

static void test_float_limbs_rounding() {
  const float max = std::numeric_limits<float>::max(), inf = std::numeric_limits<float>::infinity();
  const float tiny = 0x1p-149f, nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<std::vector<float>> cases = {
      {0x1p24f, 1.0f},    {0x1p24f, 3.0f},      {0x1p24f, 1.0f, 0x1p-30f}, {-0x1p24f, -1.0f}, {tiny, tiny, -tiny},
      {0x1p-126f, -tiny}, {max, 0x1p103f},      {max, 0x1p103f, -tiny},    {-max, -max, max}, {1e30f, 1.0f, -1e30f},
      {inf, 1.0f},        {-inf, -1.0f},        {-inf, inf},               {nan, 1.0f},       {-0.0f},
      {-0.0f, -0.0f},     {-0.0f, 0.0f},        {0.0f},                    {tiny, -tiny},     {-tiny, -0.0f, tiny},
      {-1.0f, 1.0f},      {-0.0f, -0.0f, inf}};
  bool same = true;
  for (const auto& x : cases) {
    const float want = exact_of(x), got = limbs_rounding_of(x);
    const bool ok = same_bits(got, want) || (std::isnan(got) && std::isnan(want));
    if (!ok) std::printf("  %zu terms: the limbs round to %a (0x%08x), ExactSum to %a\n", x.size(), double(got),
                         wb::float_bits(got), double(want));
    same = same && ok;
  }
  EXPECT(same);
  // Negative control: without the terms' flags (0) a zero total is taken for one of -0s only.
  uint64_t zero[5] = {};
  EXPECT(wb::float_bits(wb::round_limbs_to_float(zero, 0u)) == 0x80000000u &&
         wb::float_bits(wb::round_limbs_to_float(zero, wb::kSumNotMinusZero)) == 0u);
}

static void test_float_merge() {
  // Threads' partial sums merge into exactly the sum added in one sequence, at any split.
  std::vector<float> x(5000);
  wb::fill_float_input(x.data(), int64_t(x.size()), 7, wb::FloatInputSpec{60, wb::FloatMode::Mixed});
  wb::ExactSum all, left, right;
  for (size_t i = 0; i < x.size(); ++i) {
    all.add(x[i]);
    (i < 1234 ? left : right).add(x[i]);
  }
  wb::ExactSum right_first = right;
  right_first.merge(left);
  left.merge(right);
  EXPECT(left == all && right_first == all && wb::exact_total(x.data(), int64_t(x.size())) == all);
  // Negative control: a partial sum that missed one element is not equal.
  wb::ExactSum missing;
  for (size_t i = 0; i + 1 < x.size(); ++i) missing.add(x[i]);
  EXPECT(missing != all);
  // Adding a value and its negative leaves the sum as it was, bit for bit.
  wb::ExactSum back = all;
  back.add(3e38f);
  back.add(-3e38f);
  EXPECT(back == all);
}

// The independent reference: every value of an input with exponents >= lowest_exponent is
// an integer count of 2^(lowest_exponent - 23); __int128 holds such counts and their sum.
static __int128 units_of(float v, int lowest_exponent) {
  int e;
  float m = std::frexp(v, &e);                  // v = m 2^e, 0.5 <= |m| < 1
  int64_t significand = int64_t(std::ldexp(m, 24));  // exact: 24 bits
  int shift = e - 24 - (lowest_exponent - 23);
  return __int128(significand) * (__int128(1) << shift);
}

static void check_generated_sum(wb::FloatInputSpec spec, uint64_t seed, int64_t n) {
  std::vector<float> x(static_cast<size_t>(n));
  wb::fill_float_input(x.data(), n, seed, spec);
  int lowest = -(spec.spread / 2);
  __int128 total = 0;
  for (float v : x) total += units_of(v, lowest);
  // libgcc's __int128 conversions round correctly (to nearest, ties to even); the scaling by
  // a power of two is exact, the result being normal.
  float want = std::ldexp(float(total), lowest - 23);
  wb::ExactSum exact = wb::exact_total(x.data(), n);
  bool right = same_bits(exact.round_to_float(), want) && same_bits(wb::exact_sum(x.data(), n), want);
  EXPECT(right);
  if (!right) std::printf("  spread %d, %s: got %a, want %a\n", spec.spread, wb::float_mode_name(spec.mode),
                          double(exact.round_to_float()), double(want));
  // The naive float sum is off (so the reference matters), by the ulps the reference says:
  // s is a multiple of the same unit, the ulp of want a power of two of it.
  float s = naive_of(x);
  int e;
  std::frexp(want, &e);
  __int128 error = units_of(s, lowest) - total;
  double ulps = double(error < 0 ? -error : error) / std::ldexp(1.0, e - 24 - (lowest - 23));
  EXPECT(s != want && exact.ulps(s) == ulps && ulps > 0.0);
  // sum |x| rounded to double, from the same counts.
  __int128 abs_total = 0;
  for (float v : x) abs_total += units_of(std::fabs(v), lowest);
  EXPECT(wb::sum_abs(x.data(), n) == std::ldexp(double(abs_total), lowest - 23));
}

static void test_float_against_reference() {
  // 3000017 elements: split across threads (above 2^20), and odd, so a cancelling pair is cut.
  check_generated_sum(wb::FloatInputSpec{8, wb::FloatMode::Positive}, 1, 3000017);
  check_generated_sum(wb::FloatInputSpec{60, wb::FloatMode::Mixed}, 2, 3000017);
  check_generated_sum(wb::FloatInputSpec{40, wb::FloatMode::Cancel}, 3, 3000017);
  check_generated_sum(wb::FloatInputSpec{0, wb::FloatMode::Mixed}, 4, 100001);
}

static float pairwise_of(const float* x, int64_t n) {
  if (n == 1) return x[0];
  int64_t half = (n + 1) / 2;  // a tree of depth ceil(log2(n))
  volatile float s = pairwise_of(x, half) + pairwise_of(x + half, n - half);
  return s;
}

static double error_of(float s, const wb::ExactSum& exact) {
  wb::ExactSum difference = exact;
  difference.negate();
  difference.add(s);
  return std::fabs(difference.to_double_rounded());
}

static void test_float_bounds() {
  // gamma(k) = k 2^-24 / (1 - k 2^-24): gamma(1) = 1 / (2^24 - 1), gamma(2) = 1 / (2^23 - 1),
  // gamma(2^23) = (1/2) / (1/2) = 1, and from k = 2^24 on no bound.
  EXPECT(wb::gamma(0) == 0.0 && wb::gamma(1) == 1.0 / 16777215.0 && wb::gamma(2) == 1.0 / 8388607.0);
  EXPECT(wb::gamma(int64_t(1) << 23) == 1.0 && std::isinf(wb::gamma(int64_t(1) << 24)));
  EXPECT(wb::recursive_sum_bound(1, 5.0) == 0.0 && wb::recursive_sum_bound(3, 10.0) == 10.0 / 8388607.0);
  EXPECT(wb::pairwise_sum_bound(1, 3.0) == 3.0 / 16777215.0 && wb::pairwise_sum_bound(0, 3.0) == 0.0);
  EXPECT(wb::pairwise_depth(0) == 0 && wb::pairwise_depth(1) == 0 && wb::pairwise_depth(2) == 1 &&
         wb::pairwise_depth(3) == 2 && wb::pairwise_depth(1024) == 10 && wb::pairwise_depth(1025) == 11);

  // Both bounds hold for their sums of a hard input; the pairwise one is far tighter.
  const int64_t n = 100000;
  std::vector<float> x(static_cast<size_t>(n));
  wb::fill_float_input(x.data(), n, 5, wb::FloatInputSpec{30, wb::FloatMode::Mixed});
  wb::ExactSum exact = wb::exact_total(x.data(), n);
  double abs_sum = wb::sum_abs(x.data(), n);
  double recursive_error = error_of(naive_of(x), exact), pairwise_error = error_of(pairwise_of(x.data(), n), exact);
  EXPECT(recursive_error > 0.0 && recursive_error <= wb::recursive_sum_bound(n, abs_sum));
  EXPECT(pairwise_error <= wb::pairwise_sum_bound(wb::pairwise_depth(n), abs_sum));
  EXPECT(wb::pairwise_sum_bound(wb::pairwise_depth(n), abs_sum) * 1000 < wb::recursive_sum_bound(n, abs_sum));
  // Negative control: values in [1, 2) with one of them dropped are off by at least 1, past
  // the bound (gamma(999) * 1500 is about 0.09).
  std::vector<float> ones(1000);
  wb::fill_float_input(ones.data(), 1000, 6, wb::FloatInputSpec{0, wb::FloatMode::Positive});
  wb::ExactSum ones_exact = wb::exact_total(ones.data(), 1000);
  float dropped = naive_of(std::vector<float>(ones.begin(), ones.end() - 1));
  EXPECT(error_of(naive_of(ones), ones_exact) <= wb::recursive_sum_bound(1000, wb::sum_abs(ones.data(), 1000)));
  EXPECT(error_of(dropped, ones_exact) > wb::recursive_sum_bound(1000, wb::sum_abs(ones.data(), 1000)));
}

static void test_float_input() {
  const wb::FloatInputSpec mixed{8, wb::FloatMode::Mixed};
  // A prefix of a long input is the short input; a split fill is the element-wise one.
  std::vector<float> a(100000), b(1000), c(1000);
  wb::fill_float_input(a.data(), int64_t(a.size()), 42, mixed);
  wb::fill_float_input(b.data(), int64_t(b.size()), 42, mixed);
  wb::fill_float_input(c.data(), int64_t(c.size()), 43, mixed);
  EXPECT(std::equal(b.begin(), b.end(), a.begin()) && c != b);
  std::vector<float> big(3000017);
  wb::fill_float_input(big.data(), int64_t(big.size()), 9, mixed);
  bool same = true;
  for (size_t i = 0; i < big.size(); i += 9973) same = same && same_bits(big[i], wb::float_input(9, i, mixed));
  EXPECT(same && same_bits(big.back(), wb::float_input(9, big.size() - 1, mixed)));
  // Pinned bits: a GPU must make these same values, and hashes of sums depend on them.
  EXPECT(wb::float_bits(wb::float_input(42, 0, mixed)) == 0x3dc7412du &&
         wb::float_bits(wb::float_input(42, 1, mixed)) == 0xc116e230u &&
         wb::float_bits(wb::float_input(42, 2, mixed)) == 0xbe6644a7u);

  // Exponents cover exactly -floor(spread/2) .. ceil(spread/2), both ends included.
  for (int spread : {0, 7, 8, 160}) {
    int lo = -(spread / 2), hi = spread - spread / 2, seen_lo = 0, seen_hi = 0, negatives = 0;
    bool inside = true;
    for (int64_t i = 0; i < 100000; ++i) {
      float v = wb::float_input(11, uint64_t(i), wb::FloatInputSpec{spread, wb::FloatMode::Mixed});
      int e;
      std::frexp(v, &e);
      --e;  // v = m 2^e with 1 <= |m| < 2
      inside = inside && std::isfinite(v) && v != 0.0f && e >= lo && e <= hi;
      seen_lo += e == lo;
      seen_hi += e == hi;
      negatives += v < 0.0f;
    }
    EXPECT(inside && seen_lo > 0 && seen_hi > 0 && negatives > 45000 && negatives < 55000);
  }
  bool positive = true;
  for (int64_t i = 0; i < 100000; ++i)
    positive = positive && wb::float_input(12, uint64_t(i), wb::FloatInputSpec{160, wb::FloatMode::Positive}) > 0.0f;
  EXPECT(positive);

  // Cancel: element 2j + 1 is -x[2j] with its last bit flipped, so the total is a tiny part
  // of sum |x|; the same spread in Mixed mode (the negative control) cancels far less.
  const wb::FloatInputSpec cancel{40, wb::FloatMode::Cancel};
  std::vector<float> p(100001), q(100001);
  wb::fill_float_input(p.data(), int64_t(p.size()), 13, cancel);
  wb::fill_float_input(q.data(), int64_t(q.size()), 13, wb::FloatInputSpec{40, wb::FloatMode::Mixed});
  bool pairs = true;
  for (size_t i = 0; i + 1 < p.size(); i += 2)
    pairs = pairs && wb::float_bits(p[i + 1]) == (wb::float_bits(p[i]) ^ 0x80000001u);
  EXPECT(pairs);
  auto cancelled = [](const std::vector<float>& v) {
    // Without the unpaired last element, the sum is below 2^-20 of sum |x|.
    wb::ExactSum s = wb::exact_total(v.data(), int64_t(v.size()) - 1);
    return std::fabs(s.to_double_rounded()) < 0x1p-20 * wb::sum_abs(v.data(), int64_t(v.size()) - 1);
  };
  EXPECT(cancelled(p) && !cancelled(q));
}

// The inputs with IEEE's special values: what each mode holds, where, and what it sums to.
static void test_float_special_inputs() {
  const wb::FloatInputSpec negzero{8, wb::FloatMode::NegZero}, subnormal{8, wb::FloatMode::Subnormal},
      special{8, wb::FloatMode::Special}, mixed{8, wb::FloatMode::Mixed};
  bool minus_zeros = true;
  for (uint64_t i = 0; i < 100000; i += 7)
    minus_zeros = minus_zeros && wb::float_bits(wb::float_input(3, i, negzero)) == 0x80000000u;
  EXPECT(minus_zeros);

  // Subnormal: by kind, over 2^17 elements: subnormals 2 in 8 (0.25), zeros 1 in 8 of either sign
  // (0.0625 each), the rest normal with exponents -126 to -126 + spread, both ends seen; nothing
  // infinite or NaN. Mixed, the negative control, has none of the three.
  auto kinds = [](const wb::FloatInputSpec& spec, int64_t counts[6]) {
    for (int k = 0; k < 6; ++k) counts[k] = 0;  // subnormal, +0, -0, normal at -126, at -126 + spread, other
    bool inside = true;
    for (uint64_t i = 0; i < (uint64_t(1) << 17); ++i) {
      const uint32_t bits = wb::float_bits(wb::float_input(21, i, spec));
      const int biased = int((bits >> 23) & 0xffu);
      if ((bits & 0x7fffffffu) == 0) ++counts[bits ? 2 : 1];
      else if (biased == 0) ++counts[0];
      else if (biased == 1) ++counts[3];
      else if (biased == 1 + spec.spread) ++counts[4];
      inside = inside && biased <= 1 + spec.spread;
    }
    return inside;
  };
  int64_t c[6];
  const double total = double(int64_t(1) << 17);
  EXPECT(kinds(subnormal, c) && std::fabs(c[0] / total - 0.25) < 0.01 && std::fabs(c[1] / total - 0.0625) < 0.005 &&
         std::fabs(c[2] / total - 0.0625) < 0.005 && c[3] > 0 && c[4] > 0);
  int64_t m[6];
  kinds(mixed, m);
  EXPECT(m[0] == 0 && m[1] == 0 && m[2] == 0);

  // Special: Subnormal's values but +inf at 0, -inf at 4096, a NaN at 65536, and nowhere else.
  bool places = true;
  for (uint64_t i = 0; i < 200000; ++i) {
    const float v = wb::float_input(21, i, special), w = wb::float_input(21, i, subnormal);
    if (i == 0) places = places && wb::float_bits(v) == 0x7f800000u;
    else if (i == 4096) places = places && wb::float_bits(v) == 0xff800000u;
    else if (i == 65536) places = places && std::isnan(v);
    else places = places && same_bits(v, w) && std::isfinite(v);
  }
  EXPECT(places && wb::kSpecialMinusInf == 4096 && wb::kSpecialNaN == 65536);
  // Its NaN is positive, whatever the seed: never the bits chapter 19's harness poisons its
  // outputs with (0xffffffff), which an unwritten result would hold.
  bool positive_nan = true;
  for (uint64_t seed = 0; seed < 256; ++seed)
    positive_nan = positive_nan && (wb::float_bits(wb::float_input(seed, 65536, special)) >> 22) == 0x1ffu;
  EXPECT(positive_nan);
  // Pinned bits: a GPU must make these same values (two subnormals, a normal value of the top
  // binade, 2^-118, and the NaN with its payload).
  EXPECT(wb::float_bits(wb::float_input(42, 1, subnormal)) == 0x8016e231u &&
         wb::float_bits(wb::float_input(42, 2, subnormal)) == 0x806644a7u &&
         wb::float_bits(wb::float_input(42, 3, subnormal)) == 0x04803e6bu &&
         wb::float_bits(wb::float_input(42, 65536, special)) == 0x7fe41f3du);

  // What Special sums to by N, as the page says: element 0 alone infinite up to 4096 elements
  // (+inf, or -inf with it negated), +inf and -inf up to 65536 (NaN, or two -inf: -inf), a NaN
  // beyond.
  auto sum_of = [](int64_t n, bool negate_first) {
    std::vector<float> x(static_cast<size_t>(n));
    wb::fill_float_input(x.data(), n, 21, wb::FloatInputSpec{8, wb::FloatMode::Special});
    if (negate_first) x[0] = -x[0];
    return wb::exact_sum(x.data(), n);
  };
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT(sum_of(4096, false) == inf && sum_of(4096, true) == -inf && sum_of(1, false) == inf);
  EXPECT(std::isnan(sum_of(4097, false)) && sum_of(4097, true) == -inf && std::isnan(sum_of(65536, false)) &&
         sum_of(65536, true) == -inf);
  EXPECT(std::isnan(sum_of(65537, false)) && std::isnan(sum_of(65537, true)));
  // NegZero sums to -0.0, and to +0.0 with element 0 negated (+0.0).
  std::vector<float> z(1000);
  wb::fill_float_input(z.data(), 1000, 5, negzero);
  EXPECT(wb::float_bits(wb::exact_sum(z.data(), 1000)) == 0x80000000u);
  z[0] = -z[0];
  EXPECT(wb::float_bits(wb::exact_sum(z.data(), 1000)) == 0u);
}

static void test_float_spec_errors() {
  const std::string range = "is not allowed: give a whole number from 0 to 160";
  EXPECT(wb::float_input_error(wb::FloatInputSpec{0, wb::FloatMode::Positive}).empty());
  EXPECT(wb::float_input_error(wb::FloatInputSpec{160, wb::FloatMode::Cancel}).empty());
  EXPECT(wb::float_input_error(wb::FloatInputSpec{-1, wb::FloatMode::Mixed}) == "spread '-1' " + range);
  EXPECT(wb::float_input_error(wb::FloatInputSpec{161, wb::FloatMode::Mixed}) == "spread '161' " + range);
  EXPECT(wb::float_input_error(wb::FloatInputSpec{8, wb::FloatMode(7)}) ==
         "mode 7 is not known: give positive, mixed, cancel, subnormal, special or negzero");
  wb::FloatInputSpec spec{3, wb::FloatMode::Positive};
  EXPECT(wb::parse_float_input("160", "cancel", spec).empty() && spec.spread == 160 &&
         spec.mode == wb::FloatMode::Cancel);
  EXPECT(wb::parse_float_input("0", "mixed", spec).empty() && spec.spread == 0 && spec.mode == wb::FloatMode::Mixed);
  EXPECT(wb::parse_float_input("08", "positive", spec).empty() && spec.spread == 8 &&
         spec.mode == wb::FloatMode::Positive);
  for (const char* bad : {"161", "-1", "abc", "", "1e2", "+8", " 8", "8 ", "99999", "2.5", "99999999999999999999"})
    EXPECT(wb::parse_float_input(bad, "mixed", spec) == std::string("spread '") + bad + "' " + range);
  const std::string known = "is not known: give positive, mixed, cancel, subnormal, special or negzero";
  EXPECT(wb::parse_float_input("8", "Mixed", spec) == "mode 'Mixed' " + known);
  EXPECT(wb::parse_float_input("8", "", spec) == "mode '' " + known);
  EXPECT(wb::parse_float_input("8", "special ", spec) == "mode 'special ' " + known);
  for (const char* name : {"subnormal", "special", "negzero"})
    EXPECT(wb::parse_float_input("0", name, spec).empty() && wb::float_mode_name(spec.mode) == std::string(name));
  EXPECT(wb::parse_float_input("8", "positive", spec).empty());
  EXPECT(wb::parse_float_input("999", "nope", spec) == "spread '999' " + range);  // the first bad one
  EXPECT(spec.spread == 8 && spec.mode == wb::FloatMode::Positive);  // refused input left it unchanged
}

int main() {
  test_float_exact_cases();
  test_float_signed_zero();
  test_float_limbs_rounding();
  test_float_merge();
  test_float_against_reference();
  test_float_bounds();
  test_float_input();
  test_float_special_inputs();
  test_float_spec_errors();
  return host_test_summary();
}
