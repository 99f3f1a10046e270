/// @file wb_float.h
/// @brief Chapter 19's float32 inputs, their exact sum and the standard error bounds (the
/// inputs and the 320-bit integers on the host and the device, the rest on the host).
///
/// Every float sum on a GPU rounds, and in an order the hardware picks, so a float result
/// can only be judged against the truth: the exact sum, rounded once. ExactSum keeps that
/// sum with no rounding at all, in a fixed-point integer wide enough for any float32 times
/// any count up to 2^40, and rounds it once, correctly, when asked. The inputs are made
/// like the int32 ones (element i from (seed, i) alone), with a spec that sets how hard
/// the sum is, and which of IEEE's special values (subnormals, zeros of both signs,
/// infinities, NaN) it holds.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "wb_reference.h"

// WB_HD (host and device) comes from wb_reference.h, whose input formula uses it too.

namespace wb {

// ---------------------------------------------------------------------------------------
// Inputs

/// Which signs an input has, whether its total cancels, and which special values it holds.
enum class FloatMode {
  Positive,   ///< every value positive: no cancellation, the easiest sum
  Mixed,      ///< each sign with probability 1/2
  Cancel,     ///< pairs x, -x moved by one ulp: the total cancels almost completely
  Subnormal,  ///< both signs, values in the lowest binades, 1 in 4 subnormal, 1 in 16 +0, 1 in 16 -0
  Special,    ///< Subnormal's values with +inf, -inf and a NaN at fixed places (kSpecialMinusInf)
  NegZero,    ///< every value -0.0: IEEE's sum is -0.0
};

/// Every mode, in the order a command line's message lists them.
constexpr FloatMode kFloatModes[] = {FloatMode::Positive,  FloatMode::Mixed,   FloatMode::Cancel,
                                     FloatMode::Subnormal, FloatMode::Special, FloatMode::NegZero};

/// FloatMode::Special's infinities and NaN: +inf at element 0, -inf at this element, a NaN
/// at kSpecialNaN. An input of at most 4096 elements sums to +inf (to -inf with element 0
/// negated, as the chapter's harness does on every other run), one of at most 65536 to NaN
/// (to -inf with element 0 negated), a longer one to NaN.
constexpr uint64_t kSpecialMinusInf = 4096;
/// FloatMode::Special's NaN (see kSpecialMinusInf).
constexpr uint64_t kSpecialNaN = 65536;

/// The widest spread of exponents: the values of Positive, Mixed and Cancel stay within
/// 2^-80 .. 2^81 (no value subnormal), Subnormal's normal values within 2^-126 .. 2^35, so
/// that no sum of up to 2^40 of them overflows, in any order of additions.
constexpr int kMaxFloatSpread = 160;

/// How hard a float input is to sum.
struct FloatInputSpec {
  /// Values are m * 2^e with m in [1, 2) and e uniform over the spread + 1 integers from
  /// -floor(spread / 2) to ceil(spread / 2): 0 gives values in [1, 2), 160 spans 2^161.
  /// Subnormal and Special: e from -126 to -126 + spread, the lowest normal binades.
  int spread = 8;
  FloatMode mode = FloatMode::Positive;  ///< the signs, the cancellation, the special values
};

/// The name a command line gives a mode.
inline const char* float_mode_name(FloatMode mode) {
  switch (mode) {
    case FloatMode::Positive: return "positive";
    case FloatMode::Mixed: return "mixed";
    case FloatMode::Cancel: return "cancel";
    case FloatMode::Subnormal: return "subnormal";
    case FloatMode::Special: return "special";
    case FloatMode::NegZero: return "negzero";
  }
  return "?";
}

/// The modes' names as a refusal lists them: "positive, mixed, ... or negzero".
inline std::string float_mode_names() {
  std::string names;
  const size_t count = sizeof kFloatModes / sizeof kFloatModes[0];
  for (size_t k = 0; k < count; ++k)
    names += std::string(k == 0 ? "" : k + 1 == count ? " or " : ", ") + float_mode_name(kFloatModes[k]);
  return names;
}

/// Whether `mode` is one of kFloatModes.
inline bool float_mode_known(FloatMode mode) {
  for (FloatMode m : kFloatModes)
    if (m == mode) return true;
  return false;
}

/// The empty string for a valid spec, otherwise the message a refused flag prints.
inline std::string float_input_error(const FloatInputSpec& spec) {
  if (spec.spread < 0 || spec.spread > kMaxFloatSpread)
    return "spread '" + std::to_string(spec.spread) + "' is not allowed: give a whole number from 0 to " +
           std::to_string(kMaxFloatSpread);
  if (!float_mode_known(spec.mode))
    return "mode " + std::to_string(int(spec.mode)) + " is not known: give " + float_mode_names();
  return "";
}

/// Read a spec from a command line's text; the empty string when both are valid, otherwise
/// the message for the first bad one (spec is then left unchanged).
inline std::string parse_float_input(const std::string& spread_text, const std::string& mode_text,
                                     FloatInputSpec& spec) {
  // Digits only, and few of them, so that "1e2", "+8", " 8" and huge numbers are all refused
  // with the same message instead of being half-read by a library call.
  std::string bad_spread = "spread '" + spread_text + "' is not allowed: give a whole number from 0 to " +
                           std::to_string(kMaxFloatSpread);
  if (spread_text.empty() || spread_text.size() > 4) return bad_spread;
  int spread = 0;
  for (char c : spread_text) {
    if (c < '0' || c > '9') return bad_spread;
    spread = spread * 10 + (c - '0');
  }
  if (spread > kMaxFloatSpread) return bad_spread;
  FloatInputSpec parsed{spread, FloatMode::Positive};
  bool known = false;
  for (FloatMode m : kFloatModes)
    if (mode_text == float_mode_name(m)) parsed.mode = m, known = true;
  if (!known) return "mode '" + mode_text + "' is not known: give " + float_mode_names();
  spec = parsed;
  return "";
}

/// The float with these IEEE-754 bits.
WB_HD inline float float_from_bits(uint32_t bits) {
#ifdef __CUDA_ARCH__
  return __uint_as_float(bits);
#else
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
#endif
}

/// The IEEE-754 bits of a float.
WB_HD inline uint32_t float_bits(float f) {
#ifdef __CUDA_ARCH__
  return __float_as_uint(f);
#else
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
#endif
}

/// Element i of the float input for a seed and a (valid) spec: for Positive, Mixed and
/// Cancel finite, never zero or NaN. Built from its bits, with no float arithmetic, so that
/// the host and a GPU make the same values. In Cancel mode elements 2j and 2j + 1 share one
/// draw x: the first is x, the second -x with its last bit flipped, so each pair sums to +-1
/// ulp of x. Subnormal draws a kind for each element (bits 55-57 of its hash): a subnormal
/// (2 in 8), a zero (1 in 8, of either sign) or a normal value of the lowest binades; Special
/// puts +inf, -inf and a positive quiet NaN (its payload from the hash) at its places among
/// those. One function for the host and a GPU (WB_HD): a chapter makes its input on the
/// device with it and checks against the same values made on the host.
WB_HD inline float float_input(uint64_t seed, uint64_t i, const FloatInputSpec& spec) {
  if (spec.mode == FloatMode::NegZero) return float_from_bits(0x80000000u);
  bool cancel = spec.mode == FloatMode::Cancel;
  bool low = spec.mode == FloatMode::Subnormal || spec.mode == FloatMode::Special;
  uint64_t draw = cancel ? i / 2 : i;
  // A stream of its own (the constant), so that the float and int32 inputs of one seed are unrelated.
  uint64_t h = mix64(mix64(seed ^ 0x5851f42d4c957f2dULL) + (draw + 1) * 0x9e3779b97f4a7c15ULL);
  uint32_t mantissa = uint32_t(h) & 0x7fffffu;                        // bits 0-22
  uint64_t exponent_draw = (h >> 23) & 0xffffffffu;                   // bits 23-54
  int e = (low ? -126 : -(spec.spread / 2)) + int((exponent_draw * uint64_t(spec.spread + 1)) >> 32);
  uint32_t sign = spec.mode == FloatMode::Positive ? 0u : uint32_t(h >> 63);  // bit 63
  uint32_t bits = sign << 31 | uint32_t(e + 127) << 23 | mantissa;
  if (cancel && (i & 1)) bits = (bits ^ 0x80000000u) ^ 1u;  // -x, one ulp off (stays in x's binade)
  if (low) {
    const uint32_t kind = uint32_t(h >> 55) & 7u;  // bits 55-57
    if (kind < 2) bits = sign << 31 | (mantissa | 1u);  // a subnormal: biased exponent 0, fraction not 0
    else if (kind == 2) bits = sign << 31;              // +0 or -0
  }
  if (spec.mode == FloatMode::Special) {
    if (i == 0) bits = 0x7f800000u;                                            // +inf
    else if (i == kSpecialMinusInf) bits = 0xff800000u;                        // -inf
    else if (i == kSpecialNaN) bits = 0x7fc00000u | (mantissa & 0x3fffffu);  // a quiet NaN, positive
  }
  return float_from_bits(bits);
}

/// Fill dst[0, n) with the float input for a seed and a spec.
inline void fill_float_input(float* dst, int64_t n, uint64_t seed, const FloatInputSpec& spec) {
  parallel_for(n, [=](int, int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) dst[i] = float_input(seed, uint64_t(i), spec);
  });
}

// ---------------------------------------------------------------------------------------
// The exact sum

/// A magnitude of ExactSum rounded to a number of significant bits (ExactSum::round_to_float,
/// ExactSum::to_double_rounded): significand x 2^(shift - 149). At namespace scope rather than
/// nested in ExactSum's private part, where Doxygen would link a section it does not write.
struct RoundedMagnitude {
  uint64_t significand = 0;  ///< the rounded significant bits
  int shift = 0;             ///< the power of two of its last bit, counted from 2^-149
};

/// An exact sum of float32 values: a two's-complement fixed-point integer whose lowest bit
/// is 2^-149, the smallest subnormal, so every float is an integer count of it (a 24-bit
/// significand shifted by at most 253 bits). Any float is below 2^128, any sum of up to
/// kMaxTerms of them below 2^168: 149 + 168 bits and a sign fit in 5 limbs of 64 bits.
/// Adding is exact and associative, so partial sums of threads merge into the same bits
/// in any order. An infinity or NaN added is kept aside and gives IEEE's answer, and so is
/// what sets the sign of an exact zero: whether every term was -0.0.
class ExactSum {
 public:
  static constexpr int kLimbs = 5;           ///< 64-bit limbs, least significant first
  static constexpr int kFractionBits = 149;  ///< the fixed point's lowest bit is 2^-149
  static constexpr int64_t kMaxTerms = int64_t(1) << 40;  ///< most values one sum may hold

  /// Add one float, exactly.
  void add(float x) {
    uint32_t bits = float_bits(x);
    uint32_t biased = (bits >> 23) & 0xffu, fraction = bits & 0x7fffffu;
    not_minus_zero_ = not_minus_zero_ || bits != 0x80000000u;
    not_plus_zero_ = not_plus_zero_ || bits != 0u;
    if (biased == 0xffu) {
      if (fraction != 0) nan_ = true;
      else if (bits >> 31) neg_inf_ = true;
      else pos_inf_ = true;
      return;
    }
    // A subnormal is fraction * 2^-149; a normal (1.fraction) * 2^(biased - 127), which
    // is its 24-bit significand shifted left by biased - 1 units of 2^-149.
    uint64_t significand = biased == 0 ? fraction : (fraction | 0x800000u);
    int shift = biased == 0 ? 0 : int(biased) - 1;
    uint64_t term[kLimbs] = {};
    term[shift / 64] = significand << (shift % 64);
    if (shift % 64 > 40) term[shift / 64 + 1] = significand >> (64 - shift % 64);  // the bits past the limb
    if (bits >> 31) subtract_limbs(term);
    else add_limbs(term);
  }

  /// Add another exact sum (a thread's partial sum), exactly.
  void merge(const ExactSum& other) {
    add_limbs(other.limb_);
    nan_ = nan_ || other.nan_;
    pos_inf_ = pos_inf_ || other.pos_inf_;
    neg_inf_ = neg_inf_ || other.neg_inf_;
    not_minus_zero_ = not_minus_zero_ || other.not_minus_zero_;
    not_plus_zero_ = not_plus_zero_ || other.not_plus_zero_;
  }

  /// Turn the sum into its negative, exactly: the sum of its terms negated.
  void negate() {
    ExactSum zero;
    zero.subtract_limbs(limb_);
    std::memcpy(limb_, zero.limb_, sizeof limb_);
    std::swap(pos_inf_, neg_inf_);
    std::swap(not_minus_zero_, not_plus_zero_);
  }

  /// Whether the finite part of the sum is exactly zero.
  bool is_zero() const {
    for (uint64_t l : limb_)
      if (l != 0) return false;
    return true;
  }

  /// The sign of the finite part: -1, 0 or +1.
  int sign() const { return (limb_[kLimbs - 1] >> 63) ? -1 : is_zero() ? 0 : 1; }

  /// Whether the sum has terms and every one was -0.0: then IEEE's sum is -0.0.
  bool only_minus_zeros() const { return not_plus_zero_ && !not_minus_zero_; }

  /// The same exact value, the same infinities and NaN, and the same sign of an exact zero.
  bool operator==(const ExactSum& o) const {
    return std::memcmp(limb_, o.limb_, sizeof limb_) == 0 && nan_ == o.nan_ && pos_inf_ == o.pos_inf_ &&
           neg_inf_ == o.neg_inf_ && not_minus_zero_ == o.not_minus_zero_ && not_plus_zero_ == o.not_plus_zero_;
  }
  /// Not the same exact value, infinities and NaN, or sign of an exact zero.
  bool operator!=(const ExactSum& o) const { return !(*this == o); }

  /// The sum correctly rounded to float32: to nearest, ties to even, +-inf once the exact
  /// sum reaches FLT_MAX + half an ulp (2^128 - 2^103), subnormal results exact. An exact
  /// zero is IEEE's: -0 when every term was -0.0, else +0 (x + -x is +0, and so is an
  /// empty sum). Integer arithmetic only: the host's rounding mode plays no part.
  float round_to_float() const {
    float special;
    if (nonfinite(special)) return special;
    if (is_zero()) return float_from_bits(only_minus_zeros() ? 0x80000000u : 0u);
    RoundedMagnitude r = rounded_magnitude(24);
    // The result is significand * 2^(shift - 149). shift 0 covers the subnormals and the
    // smallest normal binade, whose bits are the significand itself; otherwise the
    // significand has its leading bit (2^23) and the biased exponent is shift + 1.
    uint32_t bits;
    if (r.shift == 0) bits = uint32_t(r.significand);
    else if (r.shift + 1 >= 255) bits = 0x7f800000u;  // past FLT_MAX after rounding: infinity
    else bits = uint32_t(r.shift + 1) << 23 | (uint32_t(r.significand) & 0x7fffffu);
    return float_from_bits(bits | (sign() < 0 ? 0x80000000u : 0u));
  }

  /// The sum correctly rounded to double (to nearest, ties to even). Any exact sum of
  /// kMaxTerms floats lies inside double's normal range, so only the significand rounds. An
  /// exact zero has round_to_float's sign.
  double to_double_rounded() const {
    float special;
    if (nonfinite(special)) return double(special);
    if (is_zero()) return only_minus_zeros() ? -0.0 : 0.0;
    RoundedMagnitude r = rounded_magnitude(53);
    double magnitude = std::ldexp(double(r.significand), r.shift - kFractionBits);  // exact
    return sign() < 0 ? -magnitude : magnitude;
  }

  /// |s - exact sum| in ulps of the correctly rounded sum r (the ulp of r's binade; 2^-149
  /// below 2^-125). 0 when s and r are the same infinity or both NaN, +inf when either is not
  /// finite otherwise. s is subtracted exactly; only the difference is rounded, to double.
  double ulps(float s) const {
    float r = round_to_float();
    if (std::isnan(r) && std::isnan(s)) return 0.0;
    if (!std::isfinite(r) || !std::isfinite(s)) return s == r ? 0.0 : std::numeric_limits<double>::infinity();
    ExactSum difference = *this;
    difference.negate();
    difference.add(s);
    return std::fabs(difference.to_double_rounded()) / float_ulp(r);
  }

  /// The ulp of a finite float's binade: the gap to the next float away from zero.
  static double float_ulp(float r) {
    int biased = int((float_bits(r) >> 23) & 0xffu);
    return std::ldexp(1.0, (biased == 0 ? 1 : biased) - 150);
  }

 private:
  uint64_t limb_[kLimbs] = {};
  bool nan_ = false, pos_inf_ = false, neg_inf_ = false;
  // A term other than -0.0, and one other than +0.0, was added: the sign of an exact zero
  // (both kept, so that negate() can swap them).
  bool not_minus_zero_ = false, not_plus_zero_ = false;

  void add_limbs(const uint64_t* t) {
    uint64_t carry = 0;
    for (int k = 0; k < kLimbs; ++k) {
      uint64_t sum = limb_[k] + t[k];
      uint64_t out = sum < t[k];  // wrapped
      sum += carry;
      out |= sum < carry;  // cannot wrap twice: a wrapped sum is at most 2^64 - 2
      limb_[k] = sum;
      carry = out;
    }
  }

  void subtract_limbs(const uint64_t* t) {
    uint64_t borrow = 0;
    for (int k = 0; k < kLimbs; ++k) {
      uint64_t difference = limb_[k] - t[k];
      uint64_t out = limb_[k] < t[k];
      out |= difference < borrow;
      limb_[k] = difference - borrow;
      borrow = out;
    }
  }

  /// IEEE's sum when an infinity or NaN was added: NaN for a NaN or both infinities.
  bool nonfinite(float& special) const {
    if (!nan_ && !pos_inf_ && !neg_inf_) return false;
    const float inf = std::numeric_limits<float>::infinity();
    special = nan_ || (pos_inf_ && neg_inf_) ? std::numeric_limits<float>::quiet_NaN() : pos_inf_ ? inf : -inf;
    return true;
  }

  /// The magnitude rounded to `digits` significant bits (nearest, ties to even).
  RoundedMagnitude rounded_magnitude(int digits) const {
    ExactSum m = *this;
    if (sign() < 0) m.negate();
    auto bit = [&](int p) { return (m.limb_[p / 64] >> (p % 64)) & 1u; };
    int top = kLimbs * 64 - 1;
    while (top >= 0 && !bit(top)) --top;
    int shift = top < digits ? 0 : top - digits + 1;  // below 2^digits units the value is exact
    uint64_t significand = 0;
    for (int p = shift + digits - 1; p >= shift; --p) significand = significand << 1 | bit(p);
    if (shift > 0 && bit(shift - 1)) {  // at least half an ulp dropped
      bool above_half = false;
      for (int p = 0; p < shift - 1; ++p) above_half = above_half || bit(p);
      if (above_half || (significand & 1)) ++significand;  // nearest; a tie goes to the even one
      if (significand >> digits) significand >>= 1, ++shift;  // rounded up to the next power of two
    }
    return {significand, shift};
  }
};

/// The exact sum of term(x[i]) over [0, n) (n at most ExactSum::kMaxTerms), one partial
/// sum per host thread, merged: exact, so the split does not change a bit.
template <class Term>
inline ExactSum exact_total_of(const float* x, int64_t n, Term term) {
  std::vector<ExactSum> partial(size_t(worker_count(n)));
  parallel_for(n, [&](int w, int64_t b, int64_t e) {
    ExactSum s;
    for (int64_t i = b; i < e; ++i) s.add(term(x[i]));
    partial[size_t(w)] = s;
  });
  ExactSum total;
  for (const ExactSum& p : partial) total.merge(p);
  return total;
}

/// The exact sum of x[0, n).
inline ExactSum exact_total(const float* x, int64_t n) {
  return exact_total_of(x, n, [](float v) { return v; });
}

/// The correctly rounded float32 sum of x[0, n): the reference every float sum is judged by.
inline float exact_sum(const float* x, int64_t n) { return exact_total(x, n).round_to_float(); }

/// sum |x[i]| over [0, n), summed exactly and rounded once to double (relative error at most
/// 2^-53), for the error bounds below.
inline double sum_abs(const float* x, int64_t n) {
  return exact_total_of(x, n, [](float v) { return std::fabs(v); }).to_double_rounded();
}

// ---------------------------------------------------------------------------------------
// A 320-bit two's-complement fixed-point integer in units of 2^-149 (the smallest subnormal
// float), five uint64_t limbs, least significant first (ExactSum's layout), on the device and
// the host: every finite float, and every sum of up to 2^40 of them, is such an integer
// exactly, so integer additions sum floats without rounding, in any order.

// The flags of such a sum: what IEEE's answer needs beside the exact finite total, or-ed
// over the terms (term_flags), so that threads and blocks combine them in any order.

/// A NaN was added: the sum is NaN.
constexpr unsigned kSumNaN = 1u;
/// +inf was added: the sum is +inf, or NaN with kSumMinusInf or kSumNaN.
constexpr unsigned kSumPlusInf = 2u;
/// -inf was added: the sum is -inf, or NaN with kSumPlusInf or kSumNaN.
constexpr unsigned kSumMinusInf = 4u;
/// A term other than -0.0 was added: an exact zero total is +0. Without it (every term -0.0)
/// IEEE's sum is -0.
constexpr unsigned kSumNotMinusZero = 8u;

/// What an infinity or NaN adds to the flags (0 for a finite float).
WB_HD inline unsigned special_flags(uint32_t bits) {
  if (((bits >> 23) & 0xffu) != 0xffu) return 0;
  return (bits & 0x7fffffu) ? kSumNaN : (bits >> 31) ? kSumMinusInf : kSumPlusInf;
}

/// What one term adds to the flags: special_flags, and kSumNotMinusZero unless it is -0.0.
WB_HD inline unsigned term_flags(uint32_t bits) {
  return special_flags(bits) | (bits != 0x80000000u ? kSumNotMinusZero : 0u);
}

/// Add one 320-bit fixed-point integer to another.
WB_HD inline void limbs_add(uint64_t limb[5], const uint64_t term[5]) {
  uint64_t carry = 0;
  for (int j = 0; j < 5; ++j) {
    const uint64_t sum = limb[j] + term[j];
    uint64_t out = sum < term[j];
    const uint64_t total = sum + carry;
    out |= total < carry;
    limb[j] = total;
    carry = out;
  }
}

/// Add v * 2^shift (v signed, shift from 0 to 319) to a 320-bit two's-complement integer.
WB_HD inline void limbs_add_shifted(uint64_t limb[5], long long v, int shift) {
  const uint64_t fill = v < 0 ? ~0ull : 0ull;
  const int k = shift / 64, r = shift % 64;
  if (k < 0 || k >= 5) return;  // outside the integer: no sum of floats gets there (a compiler cannot tell)
  uint64_t t[5];
  for (int j = 0; j < 5; ++j) t[j] = j < k ? 0 : fill;
  t[k] = uint64_t(v) << r;
  if (k + 1 < 5) t[k + 1] = r ? uint64_t(v >> (64 - r)) : fill;  // arithmetic: the sign follows
  limbs_add(limb, t);
}

/// The bits of a double (host and device).
WB_HD inline uint64_t double_bits(double d) {
#ifdef __CUDA_ARCH__
  return uint64_t(__double_as_longlong(d));
#else
  uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return b;
#endif
}

/// Add a finite double that is an integer multiple of 2^-149 (a double bin) to a 320-bit
/// integer in units of 2^-149, exactly. Not finite: nothing (the flags carry it).
WB_HD inline void limbs_add_double(uint64_t limb[5], double d) {
  const uint64_t b = double_bits(d);
  const int biased = int((b >> 52) & 0x7ff);
  if (biased == 0x7ff || (b << 1) == 0) return;  // infinity or NaN; or zero
  // d = significand * 2^(biased - 1075); in units of 2^-149 the shift is biased - 926.
  // The bins hold no double below 2^-149, so biased > 0 and a negative shift drops zeros only.
  long long significand = (long long)((b & 0xfffffffffffffull) | 0x10000000000000ull);
  int shift = biased - 926;
  if (shift < 0) significand >>= -shift, shift = 0;
  limbs_add_shifted(limb, (b >> 63) ? -significand : significand, shift);
}

/// The sum of at least one term, as a 320-bit fixed-point integer (units of 2^-149) and its
/// flags (term_flags of every term, or-ed), correctly rounded to float: nearest, ties to even,
/// infinity from FLT_MAX + half an ulp on; IEEE's answer when an infinity or NaN was added,
/// and an exact zero -0 when every term was -0.0, +0 otherwise. Integer arithmetic only, as
/// ExactSum's round_to_float, which the host check compares it with.
WB_HD inline float round_limbs_to_float(const uint64_t limb_in[5], unsigned flags) {
  if (flags & kSumNaN || (flags & (kSumPlusInf | kSumMinusInf)) == (kSumPlusInf | kSumMinusInf))
    return float_from_bits(0x7fc00000u);
  if (flags & kSumPlusInf) return float_from_bits(0x7f800000u);
  if (flags & kSumMinusInf) return float_from_bits(0xff800000u);
  uint64_t m[5];
  const bool negative = limb_in[4] >> 63;
  uint64_t borrow = 1;  // two's complement: invert and add one
  for (int j = 0; j < 5; ++j) {
    m[j] = negative ? ~limb_in[j] + borrow : limb_in[j];
    if (negative) borrow = borrow && m[j] == 0;
  }
  int top = 319;
  while (top >= 0 && !((m[top / 64] >> (top % 64)) & 1u)) --top;
  if (top < 0) return float_from_bits(flags & kSumNotMinusZero ? 0u : 0x80000000u);
  auto bit = [&](int p) -> uint32_t { return uint32_t((m[p / 64] >> (p % 64)) & 1u); };
  const int shift = top < 24 ? 0 : top - 23;
  uint32_t significand = 0;
  for (int p = shift + 23; p >= shift; --p) significand = significand << 1 | bit(p);
  int exponent_shift = shift;
  if (shift > 0 && bit(shift - 1)) {
    bool above_half = false;
    for (int p = 0; p < shift - 1 && !above_half; ++p) above_half = bit(p);
    if (above_half || (significand & 1u)) ++significand;
    if (significand >> 24) significand >>= 1, ++exponent_shift;
  }
  uint32_t bits;
  if (exponent_shift == 0) bits = significand;
  else if (exponent_shift + 1 >= 255) bits = 0x7f800000u;
  else bits = uint32_t(exponent_shift + 1) << 23 | (significand & 0x7fffffu);
  return float_from_bits(bits | (negative ? 0x80000000u : 0u));
}

// ---------------------------------------------------------------------------------------
// Error bounds, from N. J. Higham, "Accuracy and Stability of Numerical Algorithms",
// 2nd ed., SIAM, 2002, chapter 4 (summation), section 4.2: a sum computed in any order
// with k additions on the longest path from an input to the result has
// |computed - exact| <= gamma(k) * sum |x|, as long as nothing overflows.

/// The unit roundoff of float32 with round to nearest: half the gap between 1 and the next float.
constexpr double kFloatUnitRoundoff = 0x1p-24;

/// gamma(k) = k u / (1 - k u), u = 2^-24; +inf once k u >= 1, where the bound says nothing.
/// Evaluated in double: its own rounding (a few parts in 2^53) is far below its slack.
inline double gamma(int64_t k) {
  double ku = double(k) * kFloatUnitRoundoff;  // exact: a product with a power of two
  return ku < 1.0 ? ku / (1.0 - ku) : std::numeric_limits<double>::infinity();
}

/// The bound for recursive summation of n values, one after another: gamma(n - 1) * sum |x|.
inline double recursive_sum_bound(int64_t n, double abs_sum) { return n <= 1 ? 0.0 : gamma(n - 1) * abs_sum; }

/// The bound for a pairwise tree of the given depth: gamma(depth) * sum |x|.
inline double pairwise_sum_bound(int depth, double abs_sum) { return gamma(depth) * abs_sum; }

/// The depth of a balanced pairwise tree over n values: ceil(log2(n)), 0 for n <= 1.
inline int pairwise_depth(int64_t n) {
  int depth = 0;
  while ((int64_t(1) << depth) < n) ++depth;
  return depth;
}

}  // namespace wb
