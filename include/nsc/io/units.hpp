/// \file nsc/io/units.hpp
/// Budgets and sizes as people write them: `24GiB`, `80GB`, `1.5e9`, `8B`, `32k`, `32Ki`, `70%`,
/// `50ms`. One parser for every command that takes a budget or a size (nsc prune, design,
/// search, score, fit); no CLI library needed.
///
/// Synopsis
///
///     parse_quantity(text, kind, where) -> quantity {value, relative}
///     quantity.resolve(reference)        value, or value x reference for a percentage
///     parse_bytes / parse_count / parse_tokens / parse_milliseconds / parse_fraction
///
/// Forms (case-sensitive suffixes; a number is decimal with an optional exponent, 1.5e9):
///  * SI prefixes k = 1e3, M = 1e6, G = 1e9, T = 1e12, P = 1e15; IEC prefixes Ki = 2^10,
///    Mi = 2^20, Gi = 2^30, Ti = 2^40, Pi = 2^50 (vLLM's human_readable_int convention:
///    lowercase k is 1,000 and Ki is 1,024; an upper-case K is refused as ambiguous).
///  * bytes: the prefixes, optionally followed by B (`24GiB`, `80GB`, `512Mi`, `1.5e9`, `100B`).
///  * count (params, FLOPs): the SI prefixes, and B = 1e9 (`8B`, `70B`: billions, as model
///    names write them).
///  * tokens (context, batch, prefill length): the SI and IEC prefixes; the value must be an
///    integer (`25.6k` = 25,600; `32Ki` = 32,768).
///  * milliseconds: a number of ms, or with a unit us / ms / s (`40ms`, `0.04s`).
///  * fraction: a number in (0, 1], or a percentage (`0.9`, `90%`).
///  * A trailing `%` (bytes, count, milliseconds) is relative: `70%` is 0.7 x the reference
///    the command names (the unpruned model's value); resolve() applies it.
/// Every value must be finite and >= 0; errors are std::invalid_argument
/// "<where>: cannot read '<text>' (<why>); write <kind's accepted forms>", short on purpose.
#ifndef NSC_IO_UNITS_HPP
#define NSC_IO_UNITS_HPP

#include <nsc/error_handling.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace nsc::io {

/// What a quantity measures (selects the accepted suffixes).
enum class quantity_kind { bytes, count, tokens, milliseconds, fraction };

/// A parsed quantity: an absolute value, or (relative) a fraction of a reference.
struct quantity {
  double value = 0;      ///< absolute value, or the fraction (0.7 for 70%) when relative
  bool relative = false; ///< written as a percentage
  /// The value in units: value, or value x reference when relative.
  double resolve(double reference) const { return relative ? value * reference : value; }
};

/// The accepted forms of a kind, for messages.
constexpr std::string_view accepted_forms(quantity_kind k) noexcept {
  switch (k) {
  case quantity_kind::bytes: return "bytes as 24GiB, 80GB, 512MiB or 1.5e9, or a share of the reference as 70%";
  case quantity_kind::count: return "a count as 8B, 1.5e9, 750M or 8190735360, or a share of the reference as 70%";
  case quantity_kind::tokens: return "an integer count of tokens as 32k (32,000), 32Ki (32,768), 25.6k or 4096";
  case quantity_kind::milliseconds: return "a time as 40 (ms), 40ms, 500us or 0.04s, or a share of the reference as 70%";
  case quantity_kind::fraction: return "a fraction as 0.9 or 90%";
  }
  return "";
}

namespace detail {

[[noreturn]] inline void units_fail(std::string_view where, std::string_view text, std::string_view why,
                                    quantity_kind k) {
  std::string msg(where);
  msg.append(": cannot read '").append(text.substr(0, 64)).append(text.size() > 64 ? "...'" : "'");
  msg.append(" (").append(why).append("); write ").append(accepted_forms(k));
  throw std::invalid_argument(msg);
}

/// Multiplier of an SI / IEC prefix at the start of s (consumed), 1 when none.
inline double units_prefix(std::string_view& s, bool& binary) {
  static constexpr struct {
    std::string_view name;
    double scale;
    bool binary;
  } table[] = {{"Ki", 0x1p10, true}, {"Mi", 0x1p20, true}, {"Gi", 0x1p30, true}, {"Ti", 0x1p40, true},
               {"Pi", 0x1p50, true}, {"k", 1e3, false},    {"M", 1e6, false},    {"G", 1e9, false},
               {"T", 1e12, false},   {"P", 1e15, false}};
  for (const auto& p : table)
    if (s.substr(0, p.name.size()) == p.name) {
      s.remove_prefix(p.name.size());
      binary = p.binary;
      return p.scale;
    }
  return 1;
}

} // namespace detail

/// Parses `text` as a quantity of kind k (forms in the file comment). `where` names the flag or
/// field in messages ("nsc prune: --memory"). std::invalid_argument on anything else: empty
/// text, junk, a negative or non-finite value, an ambiguous K, a fractional token count, a
/// percentage where none is accepted (tokens), or a fraction outside (0, 1].
inline quantity parse_quantity(std::string_view text, quantity_kind k, std::string_view where) {
  std::string_view s = text;
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  if (s.empty()) detail::units_fail(where, text, "empty", k);
  if (s.size() > 64) detail::units_fail(where, text, "too long", k);
  // The number: [digits][.digits][e[+-]digits], no sign (budgets are >= 0).
  std::size_t n = 0;
  bool digits = false;
  while (n < s.size() && s[n] >= '0' && s[n] <= '9') ++n, digits = true;
  if (n < s.size() && s[n] == '.') {
    ++n;
    while (n < s.size() && s[n] >= '0' && s[n] <= '9') ++n, digits = true;
  }
  if (!digits) detail::units_fail(where, text, s.front() == '-' ? "negative" : "no number", k);
  if (n < s.size() && (s[n] == 'e' || s[n] == 'E')) {
    std::size_t m = n + 1;
    if (m < s.size() && (s[m] == '+' || s[m] == '-')) ++m;
    const std::size_t first = m;
    while (m < s.size() && s[m] >= '0' && s[m] <= '9') ++m;
    if (m == first) detail::units_fail(where, text, "an exponent needs digits", k);
    n = m;
  }
  const std::string number(s.substr(0, n));
  double v = std::strtod(number.c_str(), nullptr);
  std::string_view rest = s.substr(n);
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  quantity q;
  if (rest == "%") {
    if (k == quantity_kind::tokens) detail::units_fail(where, text, "no percentage for a token count", k);
    q.relative = true;
    v /= 100;
  } else if (k == quantity_kind::milliseconds) {
    if (rest == "us") v /= 1000;
    else if (rest == "s") v *= 1000;
    else if (!(rest.empty() || rest == "ms")) detail::units_fail(where, text, "unknown unit", k);
  } else if (k == quantity_kind::fraction) {
    if (!rest.empty()) detail::units_fail(where, text, "unknown unit", k);
  } else {
    if (!rest.empty() && rest.front() == 'K' && rest.substr(0, 2) != "Ki") detail::units_fail(where, text, "K is ambiguous: k is 1,000, Ki is 1,024", k);
    bool binary = false;
    double scale = detail::units_prefix(rest, binary);
    if (k == quantity_kind::bytes && rest == "B") rest.remove_prefix(1);
    if (k == quantity_kind::count && scale == 1 && rest == "B") { // billions: 8B
      scale = 1e9;
      rest.remove_prefix(1);
    }
    if (k == quantity_kind::count && binary) detail::units_fail(where, text, "binary prefixes are for bytes and tokens", k);
    if (!rest.empty()) detail::units_fail(where, text, "unknown unit", k);
    v *= scale;
  }
  if (!std::isfinite(v)) detail::units_fail(where, text, "not finite", k);
  if (k == quantity_kind::fraction) {
    if (q.relative) q.relative = false; // 90% is the fraction 0.9 itself
    if (!(v > 0 && v <= 1)) detail::units_fail(where, text, "must be in (0, 1]", k);
  }
  if (k == quantity_kind::tokens && v != std::floor(v)) detail::units_fail(where, text, "not a whole number of tokens", k);
  q.value = v;
  return q;
}

namespace detail {
/// A quantity of kind k resolved against `reference` when relative (< 0: none), at most `max`.
inline double units_resolved(std::string_view text, quantity_kind k, std::string_view where, double reference,
                             double max, std::string_view above) {
  const quantity q = parse_quantity(text, k, where);
  if (q.relative && reference < 0) units_fail(where, text, "no reference for a percentage here", k);
  const double v = q.resolve(reference);
  if (v > max) units_fail(where, text, above, k);
  return v;
}
} // namespace detail

/// Bytes (see parse_quantity), resolved against `reference` when relative; [0, 2^62].
inline double parse_bytes(std::string_view text, std::string_view where, double reference = -1) {
  return detail::units_resolved(text, quantity_kind::bytes, where, reference, 0x1p62, "above 2^62 bytes");
}

/// A count (see parse_quantity), resolved against `reference` when relative; [0, 2^62].
inline double parse_count(std::string_view text, std::string_view where, double reference = -1) {
  return detail::units_resolved(text, quantity_kind::count, where, reference, 0x1p62, "above 2^62");
}

/// A whole number of tokens in [lo, hi] (see parse_quantity).
inline std::int64_t parse_tokens(std::string_view text, std::string_view where, std::int64_t lo, std::int64_t hi) {
  const quantity q = parse_quantity(text, quantity_kind::tokens, where);
  if (q.value < double(lo) || q.value > double(hi)) {
    std::string msg(where);
    msg.append(": ").append(text.substr(0, 64)).append(" is outside [").append(std::to_string(lo)).append(", ");
    msg.append(std::to_string(hi)).append("]");
    throw std::invalid_argument(msg);
  }
  return std::int64_t(q.value);
}

/// Milliseconds (see parse_quantity), resolved against `reference` (ms) when relative; [0, 1e12].
inline double parse_milliseconds(std::string_view text, std::string_view where, double reference = -1) {
  return detail::units_resolved(text, quantity_kind::milliseconds, where, reference, 1e12, "above 1e12 ms");
}

/// A fraction in (0, 1] (0.9 or 90%).
inline double parse_fraction(std::string_view text, std::string_view where) {
  return parse_quantity(text, quantity_kind::fraction, where).value;
}

} // namespace nsc::io

#endif // NSC_IO_UNITS_HPP
