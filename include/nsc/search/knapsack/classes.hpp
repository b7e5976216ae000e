/// \file nsc/search/knapsack/classes.hpp
/// solve_mmck_classes: classes of identical groups solved without materialising the copies (the
/// lattice path; the groups materialised for solve_mmck when a class table does not fit).
/// Part of the K-budget knapsack engine (nsc/search/multi_knapsack.hpp: the file comment there
/// describes every algorithm, the choice rule, ties, accuracy and memory).
#ifndef NSC_SEARCH_KNAPSACK_CLASSES_HPP
#define NSC_SEARCH_KNAPSACK_CLASSES_HPP

#include <nsc/search/knapsack/solve.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <queue>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace nsc::search {

/// A class of identical groups: `multiplicity` groups, each choosing one of `options`.
template <class Value>
struct mmck_class {
  std::vector<mmck_option<Value>> options;
  std::size_t multiplicity = 1;
};

/// solve_mmck over classes of identical groups without materialising the copies: the groups
/// are class 0's multiplicity copies, then class 1's, ... (choices are per group in that
/// order). Runs the lattice path (products split, one multiset table per class); when a class
/// table does not fit and settings.method is automatic, the groups are materialised (if their
/// options fit max_table_bytes) and solve_mmck decides. Domain and errors as solve_mmck, with
/// "class c, option j" in the messages; multiplicity must be >= 1 and the total number of
/// groups times 8 bytes within max_table_bytes.
template <mck_value Value>
mmck_result<Value> solve_mmck_classes(const std::vector<mmck_class<Value>>& classes,
                                      const std::vector<std::int64_t>& budget,
                                      const mmck_settings& settings = {}) {
  const std::size_t K = budget.size();
  if (K < 1 || K > mmck_max_dims)
    detail::mmck_fail("the budget vector needs 1 to ", mmck_max_dims, " entries (got ", K, ")");
  for (std::size_t k = 0; k < K; ++k)
    if (budget[k] < 0) detail::mmck_fail("budgets must be >= 0 (got ", budget[k], " for budget ", k, ")");
  std::size_t G = 0;
  long double vsum = 0;
  for (std::size_t c = 0; c < classes.size(); ++c) {
    const auto& cl = classes[c];
    if (cl.multiplicity < 1) detail::mmck_fail("every class needs multiplicity >= 1 (got 0 for class ", c, ")");
    if (cl.options.empty()) detail::mmck_fail("every class needs at least one option (got an empty class ", c, ")");
    if (cl.options.size() > 0xffffffffu)
      detail::mmck_fail("at most 2^32 - 1 options per class (got ", cl.options.size(), " in class ", c, ")");
    G = nsc::detail::checked_add(G, cl.multiplicity, "nsc::solve_mmck", "the number of groups");
    long double big = 0;
    for (std::size_t j = 0; j < cl.options.size(); ++j) {
      const auto& o = cl.options[j];
      if (o.cost.size() != K)
        detail::mmck_fail("every option needs one cost per budget (", K, "; got ", o.cost.size(), " at class ", c,
                          ", option ", j, ")");
      for (std::size_t k = 0; k < K; ++k)
        if (o.cost[k] < 0)
          detail::mmck_fail("option costs must be >= 0 (got ", o.cost[k], " for budget ", k, " at class ", c,
                            ", option ", j, ")");
      if (detail::mck_nonfinite(o.value))
        detail::mmck_fail("option values must be finite (got ", detail::mck_describe(o.value), " at class ", c,
                          ", option ", j, ")");
      if constexpr (std::is_arithmetic_v<Value>) big = std::max(big, std::fabs((long double)o.value));
    }
    vsum += big * (long double)cl.multiplicity;
  }
  if constexpr (std::is_integral_v<Value>) {
    if (vsum > (long double)std::numeric_limits<Value>::max())
      detail::mmck_fail("the sum over groups of the largest |value| must fit in the value type (got ", (double)vsum,
                        " > ", std::numeric_limits<Value>::max(), ")");
  } else if constexpr (std::is_floating_point_v<Value>) {
    if (!(vsum <= (long double)std::numeric_limits<Value>::max()))
      detail::mmck_fail("the sum over groups of the largest |value| must be finite in the value type (got ",
                        (double)vsum, ")");
  }
  if ((long double)G * 8.0L > (long double)settings.max_table_bytes)
    detail::mmck_fail("the choices of ", G, " groups need ", (unsigned long long)G * 8ull,
                      " bytes, more than max_table_bytes (got ", settings.max_table_bytes, ")");
  detail::mmck_lattice_input<Value> in;
  std::size_t at = 0;
  for (const auto& cl : classes) {
    in.push_back({cl.options, {}});
    for (std::size_t t = 0; t < cl.multiplicity; ++t) in.back().second.push_back({at++, 1});
  }
  const bool force = settings.method == mmck_method::lattice || settings.method == mmck_method::automatic ? settings.method == mmck_method::lattice : true;
  if (settings.method == mmck_method::automatic || settings.method == mmck_method::lattice) {
    if (auto r = detail::mmck_solve_lattice(in, G, budget, settings, force)) return std::move(*r);
  }
  long double obytes = 0;
  for (const auto& cl : classes)
    obytes += (long double)cl.multiplicity * (long double)cl.options.size() * (long double)(8 * K + sizeof(Value) + 32);
  if (obytes > (long double)settings.max_table_bytes)
    detail::mmck_fail("the lattice path does not fit and materialising the ", G, " groups needs ", (unsigned long long)obytes,
                      " bytes, more than max_table_bytes (got ", settings.max_table_bytes, ")");
  mmck_groups<Value> groups;
  groups.reserve(G);
  for (const auto& cl : classes)
    for (std::size_t t = 0; t < cl.multiplicity; ++t) groups.push_back(cl.options);
  mmck_settings s = settings;
  if (s.method == mmck_method::automatic) s.method = mmck_method::sparse;
  return solve_mmck(groups, budget, s);
}

} // namespace nsc::search

#endif // NSC_SEARCH_KNAPSACK_CLASSES_HPP
