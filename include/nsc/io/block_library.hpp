/// \file nsc/io/block_library.hpp
/// Measured block libraries (the `block_library.json` layout of Puzzle / Puzzletron) as an exact
/// K-budget multiple-choice knapsack.
///
///     {layer id: {variant name: {"stats": {memory_mib, runtime_ms, ...}, "metrics": {kl_div, ...}}}}
///
///     auto p = nsc::io::read_block_library("lib.json", "metrics.kl_div", /*minimize=*/true,
///                                          {{"stats.memory_mib", std::nullopt, "80000"},
///                                           {"stats.runtime_ms", "10", "50"}});
///     nsc::search::search_budgets(p.groups, p.limits(), ...);   // one variant per layer
///
/// Layers are ordered by their id (numerically when every id is an integer, else by text);
/// variants by name. Fields are dotted paths into a variant's object (`stats.memory_mib`); every
/// variant must have every named field as a finite number.
///
/// Exact real-valued costs: a cost value is the decimal number of its shortest round-trip form
/// (what JSON writers print: 1234.5678, 0.1), the values of one field are scaled by 10^d (d: the
/// most decimals among them) to integers, and a budget given as decimal text is scaled the same
/// way (an upper bound floored, a lower bound ceiled). Sums of the integers are the exact sums of
/// the decimals, so `sum <= budget` is decided exactly, not on a grid. A field whose scaled sums
/// do not fit in int64 (e.g. values with 17 significant digits) is refused with the decimals it
/// needs and how many fit.
/// Bounds: `hi` gives sum_l c_l <= hi; `lo` gives sum_l c_l >= lo, solved as one more dimension
/// sum_l (max_l - c_l) <= sum_l max_l - lo (exact). Per layer the smallest cost is subtracted
/// (costs may be negative). Minimising: the knapsack value is -objective.
/// Errors: std::invalid_argument "nsc::io::read_block_library: <path>: layer L, variant V: <rule>".
#ifndef NSC_IO_BLOCK_LIBRARY_HPP
#define NSC_IO_BLOCK_LIBRARY_HPP

#include <nsc/io/input_file.hpp>
#include <nsc/search/multi_knapsack.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nsc::io {

__extension__ typedef __int128 library_i128;

/// A decimal number digits x 10^exp10 (|digits| < 10^36).
struct library_decimal {
  library_i128 digits = 0;
  int exp10 = 0;
};

/// Parses decimal text ("80000", "-1.25", "5e4", "0.1"), exactly; nullopt when malformed or
/// longer than 36 significant digits or |exponent| > 300.
inline std::optional<library_decimal> library_parse_decimal(std::string_view s) {
  library_decimal d;
  std::size_t i = 0;
  bool neg = false;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
  int digits = 0, frac = 0;
  bool any = false, dot = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '.' && !dot) {
      dot = true;
      continue;
    }
    if (c < '0' || c > '9') break;
    any = true;
    if (d.digits == 0 && c == '0') {  // leading zeros carry no digit
      if (dot) ++frac;
      continue;
    }
    if (++digits > 36) return std::nullopt;
    d.digits = d.digits * 10 + (c - '0');
    if (dot) ++frac;
  }
  if (!any) return std::nullopt;
  long e = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool eneg = false;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) eneg = s[i++] == '-';
    if (i == s.size()) return std::nullopt;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
      e = e * 10 + (s[i] - '0');
      if (e > 1000) return std::nullopt;
    }
    if (eneg) e = -e;
  }
  if (i != s.size()) return std::nullopt;
  e -= frac;
  if (e < -400 || e > 400) return std::nullopt;
  if (d.digits == 0) e = 0;
  while (d.digits != 0 && d.digits % 10 == 0) d.digits /= 10, ++e;  // normal form
  d.exp10 = int(e);
  if (neg) d.digits = -d.digits;
  return d;
}

/// The decimal of a double's shortest round-trip form.
inline library_decimal library_decimal_of(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return *library_parse_decimal(std::string_view(buf, std::size_t(r.ptr - buf)));
}

/// d x 10^scale as an integer: exact when d has at most `scale` decimals (else rounded toward
/// -inf (floor) or +inf (ceil)); nullopt when |result| >= 2^62.
inline std::optional<std::int64_t> library_scaled(const library_decimal& d, int scale, bool ceil) {
  library_i128 v = d.digits;
  const int e = d.exp10 + scale;
  const library_i128 lim = library_i128(1) << 62;
  if (e >= 0) {
    for (int t = 0; t < e; ++t) {
      v *= 10;
      if (v >= lim || v <= -lim) return std::nullopt;
    }
  } else {
    library_i128 p = 1;
    for (int t = 0; t < -e; ++t) {
      p *= 10;
      if (p > (library_i128(1) << 100)) {  // |d| < 10^36 < 2^120: the quotient is 0 or -1
        return v == 0 ? 0 : (v > 0 ? (ceil ? 1 : 0) : (ceil ? 0 : -1));
      }
    }
    library_i128 q = v / p, rem = v % p;
    if (rem != 0 && ((rem < 0) != ceil)) q += ceil ? 1 : -1;
    v = q;
  }
  if (v >= lim || v <= -lim) return std::nullopt;
  return std::int64_t(v);
}

/// One budget on a field: optional bounds as decimal text (at least one given).
struct library_budget {
  std::string field;
  std::optional<std::string> lo, hi;
};

/// A library as a knapsack instance.
struct block_library_problem {
  std::vector<std::string> layers;                 ///< layer ids, in solve order
  std::vector<std::vector<std::string>> variants;  ///< per layer, the variant names (= options)
  std::vector<std::vector<double>> objective;      ///< per layer and variant, as in the file
  std::vector<std::string> fields;                 ///< budgeted fields (one per distinct field)
  std::vector<std::vector<std::vector<double>>> field_value;  ///< [field][layer][variant]
  std::vector<int> field_scale;                    ///< 10^scale turns a field's values into integers
  nsc::search::mmck_groups<double> groups;         ///< value = +-objective, costs per dimension
  std::vector<std::int64_t> budget;                ///< per dimension (may be < 0: infeasible)
  std::vector<std::string> dim_text;               ///< "stats.memory_mib <= 80000" per dimension
  std::vector<bool> lower;                         ///< per dimension: a lower bound's (complemented) dimension
  bool minimize = false;

  /// The total of a field over a selection (sum of the file's values, in double).
  double total(std::size_t field, const std::vector<std::size_t>& choice) const {
    long double t = 0;
    for (std::size_t l = 0; l < choice.size(); ++l) t += field_value[field][l][choice[l]];
    return double(t);
  }
  double objective_total(const std::vector<std::size_t>& choice) const {
    long double t = 0;
    for (std::size_t l = 0; l < choice.size(); ++l) t += objective[l][choice[l]];
    return double(t);
  }
};

namespace detail {

inline const nlohmann::json* library_field(const nlohmann::json& v, std::string_view path) {
  const nlohmann::json* at = &v;
  while (true) {
    const std::size_t dot = path.find('.');
    const std::string key(path.substr(0, dot));
    if (!at->is_object()) return nullptr;
    const auto it = at->find(key);
    if (it == at->end()) return nullptr;
    at = &*it;
    if (dot == std::string_view::npos) return at;
    path.remove_prefix(dot + 1);
  }
}

} // namespace detail

/// Reads and converts a block library (see the file comment).
inline block_library_problem read_block_library(const std::filesystem::path& path, const std::string& objective,
                                                bool minimize, const std::vector<library_budget>& budgets) {
  constexpr std::string_view fn = "nsc::io::read_block_library";
  const std::string src = path.string();
  auto fail = [&](const std::string& where, const std::string& rule) -> void {
    throw std::invalid_argument(std::string(fn) + ": " + excerpt(src, 200) + ": " + where + rule);
  };
  const nlohmann::json j = read_json_file(path, fn);
  if (!j.is_object() || j.empty()) fail("", "the top level must be a non-empty object {layer id: {variant: ...}}");
  if (j.size() > 100000) fail("", "at most 100,000 layers (got " + std::to_string(j.size()) + ")");
  block_library_problem p;
  p.minimize = minimize;
  std::vector<std::string> ids;
  bool numeric = true;
  for (auto it = j.begin(); it != j.end(); ++it) {
    ids.push_back(it.key());
    const std::string& k = it.key();
    numeric = numeric && !k.empty() && k.size() < 10 && std::all_of(k.begin(), k.end(), [](char c) { return c >= '0' && c <= '9'; });
  }
  if (numeric) std::sort(ids.begin(), ids.end(), [](const std::string& a, const std::string& b) { return std::stol(a) < std::stol(b); });
  for (const auto& b : budgets) {
    if (!b.lo && !b.hi) fail("", "budget on " + excerpt(b.field, 60) + " has no bound");
    if (std::find(p.fields.begin(), p.fields.end(), b.field) == p.fields.end()) p.fields.push_back(b.field);
  }
  const std::size_t F = p.fields.size(), L = ids.size();
  p.field_value.assign(F, std::vector<std::vector<double>>(L));
  std::vector<std::vector<std::vector<library_decimal>>> dec(F, std::vector<std::vector<library_decimal>>(L));
  p.field_scale.assign(F, 0);
  std::size_t total_options = 0;
  for (std::size_t l = 0; l < L; ++l) {
    const nlohmann::json& layer = j.at(ids[l]);
    const std::string where = "layer " + excerpt(ids[l], 40) + ": ";
    if (!layer.is_object() || layer.empty()) fail(where, "must be a non-empty object {variant name: {stats, metrics}}");
    total_options += layer.size();
    if (total_options > 10000000) fail(where, "at most 10,000,000 variants in all");
    p.layers.push_back(ids[l]);
    p.variants.emplace_back();
    p.objective.emplace_back();
    for (auto it = layer.begin(); it != layer.end(); ++it) {
      const std::string w = where + "variant " + excerpt(it.key(), 40) + ": ";
      auto number = [&](const std::string& field) {
        const nlohmann::json* v = detail::library_field(it.value(), field);
        if (v == nullptr) fail(w, "has no field " + excerpt(field, 60));
        if (!v->is_number()) fail(w, excerpt(field, 60) + " must be a number (got " + json_excerpt(*v, 40) + ")");
        const double x = v->get<double>();
        if (!std::isfinite(x)) fail(w, excerpt(field, 60) + " must be finite");
        return x;
      };
      p.variants[l].push_back(it.key());
      p.objective[l].push_back(number(objective));
      for (std::size_t f = 0; f < F; ++f) {
        const double x = number(p.fields[f]);
        p.field_value[f][l].push_back(x);
        dec[f][l].push_back(library_decimal_of(x));
        p.field_scale[f] = std::max(p.field_scale[f], -dec[f][l].back().exp10);
      }
    }
  }
  // integer costs per field; the scaled sums must fit
  std::vector<std::vector<std::vector<std::int64_t>>> ic(F, std::vector<std::vector<std::int64_t>>(L));
  for (std::size_t f = 0; f < F; ++f) {
    long double big = 0;
    for (std::size_t l = 0; l < L; ++l) {
      long double m = 0;
      for (std::size_t v = 0; v < dec[f][l].size(); ++v) {
        const auto s = library_scaled(dec[f][l][v], p.field_scale[f], false);
        if (!s) {
          big = 1e30L;
          break;
        }
        ic[f][l].push_back(*s);
        m = std::max(m, std::fabs((long double)*s));
      }
      big += 2 * m;
    }
    if (big > 0x1p61L)
      fail("", "field " + excerpt(p.fields[f], 60) + ": its values need " + std::to_string(p.field_scale[f]) +
                   " decimals to be exact and their scaled sums over " + std::to_string(L) +
                   " layers pass 2^61; round the field's values to fewer decimals (exact sums hold ~18 significant digits)");
  }
  // groups: value, then one dimension per bound
  p.groups.assign(L, {});
  for (std::size_t l = 0; l < L; ++l)
    for (std::size_t v = 0; v < p.variants[l].size(); ++v)
      p.groups[l].push_back({minimize ? -p.objective[l][v] : p.objective[l][v], {}});
  for (const auto& b : budgets) {
    const std::size_t f = std::size_t(std::find(p.fields.begin(), p.fields.end(), b.field) - p.fields.begin());
    for (int side = 0; side < 2; ++side) {
      const std::optional<std::string>& text = side == 0 ? b.hi : b.lo;
      if (!text) continue;
      const auto d = library_parse_decimal(*text);
      if (!d) fail("", "budget " + excerpt(b.field, 60) + ": bound must be a decimal number (got '" + excerpt(*text, 40) + "')");
      const auto B = library_scaled(*d, p.field_scale[f], side == 1);
      long double shift = 0;  // sum of the per-layer minima (hi) or maxima (lo)
      for (std::size_t l = 0; l < L; ++l) {
        std::int64_t m = ic[f][l][0];
        for (std::int64_t c : ic[f][l]) m = side == 0 ? std::min(m, c) : std::max(m, c);
        for (std::size_t v = 0; v < ic[f][l].size(); ++v)
          p.groups[l][v].cost.push_back(side == 0 ? ic[f][l][v] - m : m - ic[f][l][v]);
        shift += (long double)m;
      }
      // hi: sum (c - min) <= B - sum min; lo: sum (max - c) <= sum max - B
      long double bud = !B ? (d->digits < 0 ? -0x1p62L : 0x1p62L) : (long double)*B;
      bud = side == 0 ? bud - shift : shift - bud;
      bud = std::clamp(bud, -0x1p62L, 0x1p62L);
      p.budget.push_back(std::int64_t(bud));
      p.dim_text.push_back(b.field + (side == 0 ? " <= " : " >= ") + *text);
      p.lower.push_back(side == 1);
    }
  }
  if (p.budget.empty()) {  // no budget: one free dimension
    for (auto& g : p.groups)
      for (auto& o : g) o.cost.push_back(0);
    p.budget.push_back(0);
    p.dim_text.push_back("no budget");
    p.lower.push_back(false);
  }
  if (p.budget.size() > nsc::search::mmck_max_dims)
    fail("", "at most " + std::to_string(nsc::search::mmck_max_dims) + " bounds in all (a range counts 2; got " +
                 std::to_string(p.budget.size()) + ")");
  return p;
}

} // namespace nsc::io

#endif // NSC_IO_BLOCK_LIBRARY_HPP
