// Brute-force helpers shared by the knapsack tests: every selection of one option per group, and
// a uniform integer draw.
#ifndef NSC_TESTS_SUPPORT_BRUTE_FORCE_HPP
#define NSC_TESTS_SUPPORT_BRUTE_FORCE_HPP

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace nsc_test {

/// A uniform integer in [lo, hi].
inline std::int64_t uniform(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi) {
  return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
}

/// Calls fn(choice) for every selection of one option per group (groups[g].size() options each).
template <class Groups, class Fn>
void for_each_selection(const Groups& groups, Fn&& fn) {
  std::vector<std::size_t> choice(groups.size(), 0);
  while (true) {
    fn(choice);
    std::size_t g = 0;
    while (g < groups.size()) {
      if (++choice[g] < groups[g].size()) break;
      choice[g] = 0;
      ++g;
    }
    if (g == groups.size()) return;
  }
}

} // namespace nsc_test

#endif
