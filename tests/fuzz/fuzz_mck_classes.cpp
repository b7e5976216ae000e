// libFuzzer harness, differential: solve_mck_classes (identical groups as multisets) against
// solve_mck over the materialised groups (nsc/search/multiple_choice_knapsack.hpp). The bytes
// are an instance: a header byte (classes, pruning), per class a multiplicity byte and an option
// count, per option a value and a cost (little-endian fields of the remaining bytes), then a
// budget. Integer values, so both engines must agree exactly: best, best_cost and status at
// several budgets, the whole front, and every reported choice must cost best_cost(b) and be
// worth best(b). Instances whose materialised form exceeds 48 groups are solved by
// solve_mck_classes alone (large multiplicities, bounded by a 16 MiB table cap and 2^22
// pairs). Exceptions are normal outcomes when solve_mck throws; solve_mck_classes may refuse
// only for memory or work (its limits differ); a disagreement is a finding (__builtin_trap).
// Build: clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude
// tests/fuzz/fuzz_mck_classes.cpp; seed corpus tests/fuzz/corpus/mck_classes/.
#include <nsc/search/multiple_choice_knapsack.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string_view>
#include <vector>

namespace {

struct reader {
  const std::uint8_t* p;
  std::size_t n;
  std::uint64_t bytes(std::size_t k) {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < k; ++i) v |= std::uint64_t(n > i ? p[i] : 0) << (8 * i);
    const std::size_t used = k < n ? k : n;
    p += used;
    n -= used;
    return v;
  }
};

void require(bool ok) {
  if (!ok) __builtin_trap();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace ns = nsc::search;
  reader in{data, size};
  const std::uint64_t head = in.bytes(1);
  const std::size_t C = std::size_t(head % 4);  // 0..3 classes
  ns::mck_settings s;
  s.pruning = (head >> 2) & 1 ? ns::mck_pruning::dominated : ns::mck_pruning::same_cost;
  s.max_table_bytes = std::size_t(16) << 20;
  s.max_work = std::uint64_t(1) << 22;  // fast executions; the refusal is a normal outcome
  const bool wide = (head >> 3) & 1;  // wide costs (one copy at a time) or small ones (doubling)
  std::vector<ns::mck_class<std::int64_t>> classes(C);
  std::size_t groups = 0;
  bool huge = false;
  for (auto& c : classes) {
    const std::uint64_t m = in.bytes(1);
    c.multiplicity = m < 240 ? std::size_t(m % 12) + 1 : std::size_t(1) << (m - 239);  // up to 2^16
    huge = huge || c.multiplicity > 48;
    groups += c.multiplicity;
    const std::size_t J = std::size_t(in.bytes(1) % 6) + 1;
    for (std::size_t j = 0; j < J; ++j) {
      const auto v = std::int64_t(in.bytes(1)) - 100;
      const auto cost = std::int64_t(wide ? in.bytes(2) : in.bytes(1) % 9);
      c.options.push_back({v, cost});
    }
  }
  const auto budget = std::int64_t(in.bytes(3));
  std::optional<ns::mck_result<std::int64_t>> a;
  bool refused = false;  // a memory refusal (its tables differ from solve_mck's)
  try {
    a.emplace(ns::solve_mck_classes(classes, budget, s));
  } catch (const std::exception& e) {
    const std::string_view what = e.what();
    refused = what.find("max_table_bytes") != std::string_view::npos || what.find("max_work") != std::string_view::npos;
  }
  if (huge || groups > 48) {
    if (a && a->status(budget) == ns::mck_status::optimal) {
      const auto ch = *a->choice(budget);
      require(ch.size() == groups);
    }
    return 0;
  }
  ns::mck_groups<std::int64_t> g;
  for (const auto& c : classes)
    for (std::size_t t = 0; t < c.multiplicity; ++t) g.push_back(c.options);
  std::optional<ns::mck_result<std::int64_t>> b;
  try {
    ns::mck_settings small = s;
    small.max_table_bytes = std::size_t(1) << 20;  // the reference stays fast: ~20,000 cells
    b.emplace(ns::solve_mck(g, budget, small));
  } catch (const std::exception&) {
  }
  if (!b) return 0;  // solve_mck refused (its tables); the classes engine may still answer
  if (!a) {
    require(refused);  // every instance solve_mck accepts is valid: only memory may differ
    return 0;
  }
  const auto check = [&](std::int64_t q) {
    require(a->status(q) == b->status(q));
    if (b->status(q) != ns::mck_status::optimal) return;
    require(*a->best(q) == *b->best(q));
    require(*a->best_cost(q) == *b->best_cost(q));
    const auto ch = *a->choice(q);
    require(ch.size() == g.size());
    std::int64_t cost = 0, value = 0;
    for (std::size_t i = 0; i < g.size(); ++i) {
      require(ch[i] < g[i].size());
      cost += g[i][ch[i]].cost;
      value += g[i][ch[i]].value;
    }
    require(cost == *b->best_cost(q) && value == *b->best(q));
  };
  for (std::int64_t q : {budget, budget / 2, budget / 3, std::int64_t(0)}) check(q);
  const auto fa = a->front(), fb = b->front();
  require(fa.size() == fb.size());
  for (std::size_t i = 0; i < fa.size(); ++i) require(fa[i].cost == fb[i].cost && fa[i].value == fb[i].value);
  if (s.pruning == ns::mck_pruning::same_cost)
    for (std::int64_t q : {budget, budget / 2}) require(a->best_exact(q) == b->best_exact(q));
  return 0;
}
