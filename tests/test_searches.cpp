// Tests for the architecture searches: nsc/search/{transformer_xl,autoformer,lonas,nats_sss,
// transformer_space,groups}.hpp and the SPACE.json reader nsc/io/search_space.hpp.
// Paper answers come from reference-conventions.md; optimality is checked against brute force
// (multisets of layer choices, every combination) or an independent DP written here, never
// against the code under test.
#include <nsc/io/hf_config.hpp>
#include <nsc/io/nats_sss.hpp>
#include <nsc/io/prune_config.hpp>
#include <nsc/io/search_space.hpp>
#include <nsc/model/resources.hpp>
#include <nsc/model/score.hpp>
#include <nsc/model/transformer.hpp>
#include <nsc/presets/autoformer.hpp>
#include <nsc/presets/lonas.hpp>
#include <nsc/presets/nats_sss.hpp>
#include <nsc/presets/transformer_xl.hpp>
#include <nsc/search/autoformer.hpp>
#include <nsc/search/groups.hpp>
#include <nsc/search/lonas.hpp>
#include <nsc/search/nats_sss.hpp>
#include <nsc/search/transformer_space.hpp>
#include <nsc/search/transformer_xl.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

using Catch::Contains;
using i64 = std::int64_t;
namespace ns = nsc::search;
namespace np = nsc::presets;

namespace {

template <class T>
std::map<T, std::size_t> counts(const std::vector<T>& v) {
  std::map<T, std::size_t> m;
  for (const T& x : v) ++m[x];
  return m;
}

bool rel_close(double a, double b, double tol) {
  return std::fabs(a - b) <= tol * std::max({1.0, std::fabs(a), std::fabs(b)});
}

/// Calls f(counts) for every multiset of `depth` items drawn from `options` kinds
/// (counts[j] = how many layers take option j).
void for_each_multiset(std::size_t options, std::size_t depth,
                       const std::function<void(const std::vector<std::size_t>&)>& f) {
  std::vector<std::size_t> c(options, 0);
  std::function<void(std::size_t, std::size_t)> rec = [&](std::size_t j, std::size_t left) {
    if (j + 1 == options) {
      c[j] = left;
      f(c);
      return;
    }
    for (std::size_t k = 0; k <= left; ++k) {
      c[j] = k;
      rec(j + 1, left - k);
    }
  };
  rec(0, depth);
}

std::string source_file(const std::string& rel) { return std::string(NSC_SOURCE_DIR) + "/" + rel; }

} // namespace

// =============================================================================================
// Transformer-XL
// =============================================================================================

namespace {

/// An independent exact-cost DP for one (d, L): best value per total cost, in units of
/// 128 (2d + 1) above L * params(512), written without solve_mck. Returns the best value whose
/// cost lies in [lo, hi] (or nullopt).
std::optional<double> txl_reference_band(i64 d, i64 L, const std::vector<i64>& d_inner, i64 lo,
                                         i64 hi) {
  const i64 unit = 128 * (2 * d + 1);
  const i64 base = np::transformer_xl_search_layer_params(d, d_inner.front());
  std::vector<i64> steps;
  std::vector<double> val;
  for (i64 f : d_inner) {
    const i64 p = np::transformer_xl_search_layer_params(d, f);
    REQUIRE((p - base) % unit == 0);
    steps.push_back((p - base) / unit);
    val.push_back(np::transformer_xl_search_layer_score(d, f));
  }
  const i64 max_step = *std::max_element(steps.begin(), steps.end());
  const std::size_t W = std::size_t(L * max_step + 1);
  const double none = -std::numeric_limits<double>::infinity();
  std::vector<double> t(W, none), u(W);
  t[0] = 0;
  for (i64 l = 0; l < L; ++l) {
    std::fill(u.begin(), u.end(), none);
    for (std::size_t c = 0; c < W; ++c) {
      if (t[c] == none) continue;
      for (std::size_t j = 0; j < steps.size(); ++j) {
        const std::size_t n = c + std::size_t(steps[j]);
        if (n < W) u[n] = std::max(u[n], t[c] + val[j]);
      }
    }
    std::swap(t, u);
  }
  std::optional<double> best;
  for (std::size_t c = 0; c < W; ++c) {
    const i64 cost = L * base + i64(c) * unit;
    if (t[c] == none || cost < lo || cost > hi) continue;
    if (!best || *best < t[c]) best = t[c];
  }
  return best;
}

} // namespace

TEST_CASE("Transformer-XL: the paper's answer at 38.4M +- 5%", "[search][txl]") {
  const auto r = ns::search_transformer_xl();
  CHECK(r.band_lo == 36'480'000);
  CHECK(r.band_hi == 40'320'000);
  REQUIRE(r.best);
  CHECK(r.best->d_model == 512);
  CHECK(r.best->n_layer() == 18);
  CHECK(counts(r.best->d_inner) == std::map<i64, std::size_t>{{1152, 18}});
  CHECK(r.best->params == 40'211'712);
  CHECK(r.best->nsc == Approx(12391.756).margin(5e-4));
  CHECK(r.best->nsc == np::transformer_xl_search_nsc(r.best->arch()));
  // It beats the human baseline (d 410, L 16, d_inner 2100: 11184.19 at 38.40M).
  CHECK(r.best->nsc > np::transformer_xl_search_nsc(np::transformer_xl_human_baseline()) + 1000);
  CHECK(r.stats.outer_configs == 28);
  CHECK(r.stats.dp_runs + r.stats.skipped + r.stats.bounded == 28);
  CHECK(r.stats.bounded > 0); // branch and bound skips d = 256 once d = 512 is known
}

TEST_CASE("Transformer-XL: optimal against an independent DP per outer configuration",
          "[search][txl]") {
  const auto space = np::transformer_xl_reference_search_space();
  const auto r = ns::search_transformer_xl(space);
  std::optional<double> best;
  for (i64 d : space.d_model)
    for (i64 L : space.n_layer)
      if (const auto v = txl_reference_band(d, L, space.d_inner, r.band_lo, r.band_hi))
        if (!best || *best < *v) best = v;
  REQUIRE(best);
  REQUIRE(r.best);
  CHECK(rel_close(r.best->nsc, *best, 1e-12));
  CHECK(r.best->params >= r.band_lo);
  CHECK(r.best->params <= r.band_hi);
}

TEST_CASE("Transformer-XL: merged front and other bands", "[search][txl]") {
  auto space = np::transformer_xl_reference_search_space();
  const auto f = ns::search_transformer_xl(space, {.front = true, .mck = {}});
  REQUIRE(f.best);
  CHECK(f.best->nsc == ns::search_transformer_xl(space).best->nsc); // front mode: same answer
  REQUIRE(f.front.size() > 100);
  for (std::size_t i = 0; i < f.front.size(); ++i) {
    CHECK(f.front[i].params <= f.band_hi);
    CHECK(f.front[i].params == np::transformer_xl_search_params(f.front[i].arch()));
    if (i > 0) {
      CHECK(f.front[i - 1].params < f.front[i].params);
      CHECK(f.front[i - 1].nsc < f.front[i].nsc);
    }
  }
  // The front's best point under the band top is at least the band answer.
  CHECK(f.front.back().nsc >= f.best->nsc);

  // A band nothing reaches: a result, not an error.
  space.budget = 1000;
  const auto none = ns::search_transformer_xl(space);
  CHECK_FALSE(none.best);
  // Bad settings are errors naming the function.
  space.budget = 38.4e6;
  space.tolerance = 1.5;
  CHECK_THROWS_WITH(ns::search_transformer_xl(space),
                    Contains("nsc::search::search_transformer_xl") && Contains("tolerance"));
  space.tolerance = 0.05;
  space.d_inner.clear();
  CHECK_THROWS_WITH(ns::search_transformer_xl(space), Contains("d_inner"));
}

// =============================================================================================
// LoNAS
// =============================================================================================

TEST_CASE("LoNAS: the paper's answer at 5.7e9 params", "[search][lonas]") {
  const auto space = ns::lonas_llama7b_space();
  const auto r = ns::search_lonas(space, {.budget = 5.7e9, .cost = ns::lonas_cost::params, .mck = {}});
  REQUIRE(r.best);
  CHECK(counts(r.best->ranks) == std::map<i64, std::size_t>{{32, 32}});
  CHECK(counts(r.best->widths) == std::map<i64, std::size_t>{{8256, 30}, {9632, 2}});
  CHECK(r.best->params == 5'690'097'664);
  CHECK(r.best->nsc == Approx(881196.752).margin(5e-4));
  std::vector<np::lonas_option> opts;
  for (std::size_t i = 0; i < r.best->widths.size(); ++i)
    opts.push_back({r.best->ranks[i], r.best->widths[i]});
  CHECK(r.best->nsc == np::lonas_nsc(opts));
  CHECK(r.best->params == np::lonas_params(opts));
  CHECK(rel_close(r.best->tflops, np::lonas_tflops(opts), 1e-14));
  CHECK(r.unpruned.params == 6'738'411'520);
}

TEST_CASE("LoNAS: the one-pass front against every multiset of widths", "[search][lonas]") {
  const auto space = ns::lonas_llama7b_space();
  const auto r = ns::search_lonas(space);
  REQUIRE(r.front.size() == 129);
  CHECK(r.front.front().params == 4'574'150'656);
  CHECK(r.front.back().params == 6'738'411'520);
  CHECK(r.front.front().params / 1e9 == Approx(4.574).margin(5e-4));
  CHECK(r.front.back().params / 1e9 == Approx(6.738).margin(5e-4));
  REQUIRE(r.best);
  CHECK(counts(r.best->widths) == std::map<i64, std::size_t>{{11008, 32}}); // unconstrained
  for (std::size_t i = 1; i < r.front.size(); ++i) {
    CHECK(r.front[i].params - r.front[i - 1].params == 1376 * 3 * 4096); // one width step
    CHECK(r.front[i - 1].nsc < r.front[i].nsc);
    CHECK(r.front[i - 1].tflops < r.front[i].tflops);
  }
  // Rank 32 beats 28 at every width for the same cost, so the exact front is over widths only.
  for (i64 w : np::lonas_widths) CHECK(np::lonas_layer_score({28, w}) < np::lonas_layer_score({32, w}));
  std::map<i64, double> best_by_cost; // brute force over the C(36, 4) multisets
  const std::vector<i64> widths(np::lonas_widths.begin(), np::lonas_widths.end());
  for_each_multiset(widths.size(), 32, [&](const std::vector<std::size_t>& c) {
    i64 params = np::lonas_fixed_params();
    double v = 0;
    for (std::size_t j = 0; j < widths.size(); ++j) {
      params += i64(c[j]) * np::lonas_layer_params({32, widths[j]});
      v += double(c[j]) * np::lonas_layer_score({32, widths[j]});
    }
    auto [it, fresh] = best_by_cost.emplace(params, v);
    if (!fresh) it->second = std::max(it->second, v);
  });
  REQUIRE(best_by_cost.size() == 129);
  std::size_t k = 0;
  for (const auto& [cost, value] : best_by_cost) {
    CHECK(r.front[k].params == cost);
    CHECK(rel_close(r.front[k].nsc, value, 1e-12));
    CHECK(counts(r.front[k].ranks) == std::map<i64, std::size_t>{{32, 32}});
    ++k;
  }
  // Every budget's answer is the front's point below it.
  for (double b : {4.6e9, 5.0e9, 5.7e9, 6.0e9, 6.7e9}) {
    const auto rb = ns::search_lonas(space, {.budget = b, .cost = ns::lonas_cost::params, .mck = {}});
    REQUIRE(rb.best);
    const double bound = b;
    const auto it = std::find_if(best_by_cost.rbegin(), best_by_cost.rend(),
                                 [&](const auto& p) { return double(p.first) <= bound; });
    CHECK(rb.best->params == it->first);
  }
  // Below the smallest model: infeasible, a result.
  CHECK_FALSE(ns::search_lonas(space, {.budget = 4.5e9, .cost = ns::lonas_cost::params, .mck = {}}).best);
}

TEST_CASE("LoNAS: the identical-group path equals the one-pass DP", "[search][lonas][mmck]") {
  for (auto cost : {ns::lonas_cost::params, ns::lonas_cost::macs}) {
    const auto space = ns::lonas_llama7b_space();
    ns::lonas_search_settings fast{.budget = std::nullopt, .cost = cost, .mck = {}};
    ns::lonas_search_settings plain = fast;
    fast.identical_groups = true;
    CHECK_FALSE(plain.identical_groups);  // the default: one pass of solve_mck
    const auto a = ns::search_lonas(space, fast), b = ns::search_lonas(space, plain);
    REQUIRE(a.front.size() == 129);
    REQUIRE(a.front.size() == b.front.size());
    for (std::size_t i = 0; i < a.front.size(); ++i) {
      CHECK(a.front[i].params == b.front[i].params);
      CHECK(a.front[i].macs == b.front[i].macs);
      CHECK(counts(a.front[i].widths) == counts(b.front[i].widths));
      CHECK(counts(a.front[i].ranks) == counts(b.front[i].ranks));
      CHECK(rel_close(a.front[i].nsc, b.front[i].nsc, 1e-13));
    }
    for (double budget : {4.6e9, 5.7e9, 6.7e9, 1.2e12, 1.44e12}) {
      fast.budget = plain.budget = budget;
      const auto x = ns::search_lonas(space, fast), y = ns::search_lonas(space, plain);
      REQUIRE(x.best.has_value() == y.best.has_value());
      if (x.best) CHECK(x.best->params == y.best->params);
    }
  }
}

TEST_CASE("LoNAS: a TFLOPs budget gives the same subnets as the params front", "[search][lonas]") {
  const auto space = ns::lonas_llama7b_space();
  const auto byp = ns::search_lonas(space);
  const auto bym = ns::search_lonas(space, {.budget = 1.44e12, .cost = ns::lonas_cost::macs, .mck = {}});
  REQUIRE(bym.front.size() == byp.front.size());
  for (std::size_t i = 0; i < byp.front.size(); ++i)
    CHECK(counts(bym.front[i].widths) == counts(byp.front[i].widths));
  REQUIRE(bym.best);
  CHECK(bym.best->tflops <= 1.44);
  CHECK(bym.best->macs == i64(bym.best->macs));
}

TEST_CASE("LoNAS: the generic space of llama-7b.json equals the preset", "[search][lonas]") {
  const nsc::hf_model m = nsc::read_hf_config_file(source_file("examples/configs/llama-7b.json"));
  const auto g = ns::lonas_space_from_spec(m.spec);
  const auto p = ns::lonas_llama7b_space();
  CHECK(g.widths == std::vector<i64>{11008, 9632, 8256, 6880, 5504});
  CHECK(g.ranks == std::vector<i64>{32, 28});
  REQUIRE(g.options.size() == p.options.size());
  for (std::size_t j = 0; j < g.options.size(); ++j) {
    CHECK(g.options[j].rank == p.options[j].rank);
    CHECK(g.options[j].width == p.options[j].width);
    CHECK(g.options[j].params == p.options[j].params);
    CHECK(g.options[j].macs == p.options[j].macs);
    CHECK(rel_close(g.options[j].nsc, p.options[j].nsc, 1e-12));
  }
  CHECK(g.fixed_params == p.fixed_params);
  CHECK(g.fixed_macs == p.fixed_macs);
  CHECK(g.fixed_nsc == 0);
  const auto rg = ns::search_lonas(g, {.budget = 5.7e9, .cost = ns::lonas_cost::params, .mck = {}});
  const auto rp = ns::search_lonas(p, {.budget = 5.7e9, .cost = ns::lonas_cost::params, .mck = {}});
  REQUIRE(rg.best);
  REQUIRE(rp.best);
  CHECK(counts(rg.best->widths) == counts(rp.best->widths));
  CHECK(counts(rg.best->ranks) == counts(rp.best->ranks));
  CHECK(rg.best->params == rp.best->params);
  CHECK(rel_close(rg.best->nsc, rp.best->nsc, 1e-12));
  CHECK(rg.front.size() == 129);

  // The pruned spec reads back with Hugging Face's exact count (+ the final norm, 4096).
  const nsc::transformer_spec pruned = ns::lonas_apply(m.spec, *rg.best);
  CHECK(nsc::count(nsc::make_transformer(pruned, 256)).total() == rg.best->params + 4096);
  const nlohmann::json cfg = nsc::with_nsc_extensions(nlohmann::json::parse(R"({"model_type": "llama",
      "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
      "num_attention_heads": 32, "vocab_size": 32000})"), pruned);
  const nsc::transformer_spec back = nsc::expand(nsc::read_hf_config(cfg).spec); // runs -> one block per layer
  REQUIRE(back.blocks.size() == 32);
  for (std::size_t i = 0; i < back.blocks.size(); ++i) {
    CHECK(back.blocks[i].ffn.d_ff == rg.best->widths[i]);
    CHECK(back.blocks[i].attention.lora_q == rg.best->ranks[i]);
    CHECK(back.blocks[i].attention.lora_o == 32);
  }
  // With the final norm counted the budget check moves by 4096 params, nothing else.
  ns::lonas_space_settings s;
  s.count_final_norm = true;
  CHECK(ns::lonas_space_from_spec(m.spec, s).fixed_params == p.fixed_params + 4096);
}

TEST_CASE("LoNAS: widths of other models and errors", "[search][lonas]") {
  CHECK(ns::lonas_widths_for(14336, {8, 7, 6, 5, 4}) == std::vector<i64>{14336, 12544, 10752, 8960, 7168});
  CHECK(ns::lonas_widths_for(13824, {8, 7, 6, 5, 4}) == std::vector<i64>{13824, 12096, 10368, 8640, 6912});
  CHECK(ns::lonas_widths_for(4, {8, 7, 6, 5, 4}) == std::vector<i64>{4, 3, 2}); // duplicates dropped
  CHECK_THROWS_WITH(ns::lonas_widths_for(11008, {9}), Contains("j in [1, 8]"));
  const nsc::hf_model m = nsc::read_hf_config_file(source_file("examples/configs/mistral-7b.json"));
  const auto s = ns::lonas_space_from_spec(m.spec);
  CHECK(s.widths.front() == 14336);
  const auto r = ns::search_lonas(s, {.budget = 6e9, .cost = ns::lonas_cost::params, .mck = {}});
  REQUIRE(r.best);
  CHECK(r.best->params <= 6'000'000'000);
  CHECK(r.front.size() == 4 * 32 + 1);
  nsc::transformer_spec uneven = nsc::expand(m.spec); // the reader's one run -> 32 blocks
  uneven.blocks[3].ffn.d_ff = 1000;
  CHECK_THROWS_WITH(ns::lonas_space_from_spec(uneven), Contains("same shape") && Contains("got 3"));
  CHECK_THROWS_WITH(ns::lonas_space_from_spec(nsc::compress(uneven)), Contains("same shape") && Contains("got 3"));
}

TEST_CASE("LoNAS through the generic pruning machinery: the paper's answer and front", "[search][lonas][prune]") {
  // prune_lonas (nsc prune --space lonas) against the closed-form preset's search_lonas.
  const nsc::hf_model m = nsc::read_hf_config_file(source_file("examples/configs/llama-7b.json"));
  const auto p = ns::search_lonas(ns::lonas_llama7b_space());
  const auto g = ns::prune_lonas(m.spec, {}, {.budget = 5.7e9, .cost = ns::lonas_cost::params, .mck = {}});
  REQUIRE(g.lonas.best);
  REQUIRE(g.chosen);
  CHECK(counts(g.lonas.best->ranks) == std::map<i64, std::size_t>{{32, 32}});
  CHECK(counts(g.lonas.best->widths) == std::map<i64, std::size_t>{{8256, 30}, {9632, 2}});
  CHECK(g.lonas.best->params == 5'690'097'664);
  CHECK(g.lonas.best->nsc == Approx(881196.752).margin(5e-4));
  CHECK(g.chosen->totals.cost[0] == 5'690'097'664 + 4096); // Hugging Face's count: + the final norm
  CHECK(g.uncounted == 4096);
  CHECK(g.lonas.unpruned.params == 6'738'411'520);
  // The front: the same 129 points (params, MACs, value, width multisets) as the preset's one pass.
  REQUIRE(g.lonas.front.size() == 129);
  REQUIRE(p.front.size() == 129);
  for (std::size_t i = 0; i < p.front.size(); ++i) {
    CHECK(g.lonas.front[i].params == p.front[i].params);
    CHECK(g.lonas.front[i].macs == p.front[i].macs);
    CHECK(rel_close(g.lonas.front[i].nsc, p.front[i].nsc, 1e-12));
    CHECK(counts(g.lonas.front[i].widths) == counts(p.front[i].widths));
    CHECK(counts(g.lonas.front[i].ranks) == counts(p.front[i].ranks));
  }
  CHECK(g.lonas.front.front().params == 4'574'150'656);
  // Every budget's answer equals search_lonas's, by params and by MACs; below the smallest: none.
  for (double b : {4.6e9, 5.0e9, 5.7e9, 6.0e9, 6.7e9, 4.5e9}) {
    const auto x = ns::prune_lonas(m.spec, {}, {.budget = b, .cost = ns::lonas_cost::params, .mck = {}});
    const auto y = ns::search_lonas(ns::lonas_llama7b_space(), {.budget = b, .cost = ns::lonas_cost::params, .mck = {}});
    REQUIRE(x.lonas.best.has_value() == y.best.has_value());
    if (y.best) CHECK(x.lonas.best->params == y.best->params);
  }
  for (double b : {1.2e12, 1.3e12, 1.44e12, 1.1e12}) {
    const auto x = ns::prune_lonas(m.spec, {}, {.budget = b, .cost = ns::lonas_cost::macs, .mck = {}});
    const auto y = ns::search_lonas(ns::lonas_llama7b_space(), {.budget = b, .cost = ns::lonas_cost::macs, .mck = {}});
    REQUIRE(x.lonas.best.has_value() == y.best.has_value());
    if (y.best) CHECK(x.lonas.best->macs == y.best->macs);
    CHECK(x.lonas.front.size() == 129);
  }
  // The emitted nsc-format config (intermediate_sizes, lora_ranks) re-scores identically.
  const nlohmann::json raw = nlohmann::json::parse(R"({"model_type": "llama", "hidden_size": 4096,
      "intermediate_size": 11008, "num_hidden_layers": 32, "num_attention_heads": 32, "vocab_size": 32000})");
  CHECK_NOTHROW(nsc::prune_verify_config(nsc::prune_emit_config(raw, g.space, *g.chosen), g.space, *g.chosen));
  // count_final_norm: the reference params move by the final norm, nothing else.
  ns::lonas_space_settings fnorm;
  fnorm.count_final_norm = true;
  const auto h = ns::prune_lonas(m.spec, fnorm, {.budget = 5.7e9, .cost = ns::lonas_cost::params, .mck = {}});
  REQUIRE(h.lonas.best);
  CHECK(h.lonas.best->params == 5'690'097'664 + 4096);
  CHECK(h.uncounted == 0);
}

TEST_CASE("LoNAS through the generic machinery: layers of different widths against brute force", "[search][lonas][prune]") {
  // Two layers of different d_ff (lonas_space_from_spec refuses them; the generic preset does not):
  // each layer's widths come from its own d_ff. Brute force over the 10 x 10 (rank, width) pairs,
  // each model built whole and counted / scored from scratch.
  nsc::transformer_spec spec;
  spec.name = "two";
  spec.d_model = 256;
  spec.embeddings.vocab_size = 1000;
  nsc::block_spec b;
  b.attention.n_heads = 4;
  b.ffn.d_ff = 768;
  b.ffn.gated = true;
  b.n_norms = 2;
  spec.blocks = {b, b};
  spec.blocks[1].ffn.d_ff = 512;
  CHECK_THROWS_WITH(ns::lonas_space_from_spec(spec), Contains("same shape"));
  ns::lonas_space_settings ls;
  ls.seq_len = 32;
  const auto all = ns::prune_lonas(spec, ls);
  std::map<i64, double> best_by_params;
  for (i64 r0 : {32, 28})
    for (i64 j0 : {8, 7, 6, 5, 4})
      for (i64 r1 : {32, 28})
        for (i64 j1 : {8, 7, 6, 5, 4}) {
          const ns::lonas_candidate c{{768 * j0 / 8, 512 * j1 / 8}, {r0, r1}, 0, 0, 0, 0};
          const nsc::transformer_spec x = ns::lonas_apply(spec, c, ls);
          const nsc::network net = nsc::make_transformer(x, 32);
          const i64 params = nsc::count(net).total() - all.uncounted;
          nsc::scoring rule;
          const double v = nsc::score(net, rule).nsc;
          auto [it, fresh] = best_by_params.emplace(params, v);
          if (!fresh) it->second = std::max(it->second, v);
        }
  // The exact front: the non-dominated (params, best value) pairs.
  std::vector<std::pair<i64, double>> front;
  for (const auto& [c, v] : best_by_params)
    if (front.empty() || v > front.back().second) front.push_back({c, v});
  REQUIRE(all.lonas.front.size() == front.size());
  for (std::size_t i = 0; i < front.size(); ++i) {
    CHECK(all.lonas.front[i].params == front[i].first);
    CHECK(rel_close(all.lonas.front[i].nsc, front[i].second, 1e-12));
  }
  for (std::size_t k = 0; k < front.size(); ++k) {
    const auto r = ns::prune_lonas(spec, ls, {.budget = double(front[k].first), .cost = ns::lonas_cost::params, .mck = {}});
    REQUIRE(r.lonas.best);
    CHECK(r.lonas.best->params == front[k].first);
  }
  CHECK_THROWS_WITH(ns::prune_lonas(spec, ls, {.budget = -1.0, .cost = ns::lonas_cost::params, .mck = {}}),
                    Contains("nsc::search::prune_lonas") && Contains("budget must be finite"));
  ls.ranks = {0};
  CHECK_THROWS_WITH(ns::prune_lonas(spec, ls), Contains("nsc::search::prune_lonas: LoRA ranks must be >= 1"));
}

// =============================================================================================
// AutoFormer
// =============================================================================================

namespace {

struct af_brute {
  double nsc = -1;
  i64 params = 0;
};

/// The best subnet of a space under `limit` by enumerating every multiset of (r, h) per
/// (embed_dim, depth), scored with the presets (layer scores summed with multiplicities).
af_brute autoformer_brute_force(const np::autoformer_search_space& s, i64 limit) {
  af_brute best;
  for (i64 e : s.embed_dim) {
    std::vector<double> v;
    std::vector<i64> c;
    for (double r : s.mlp_ratio)
      for (i64 h : s.num_heads) {
        v.push_back(np::autoformer_search_layer_score(e, r, h));
        c.push_back(np::autoformer_search_layer_params(e, r, h));
      }
    for (i64 depth : s.depth) {
      for_each_multiset(v.size(), std::size_t(depth), [&](const std::vector<std::size_t>& n) {
        i64 p = np::autoformer_search_fixed_params(e);
        double x = np::autoformer_search_fixed_score(e);
        for (std::size_t j = 0; j < v.size(); ++j) {
          p += i64(n[j]) * c[j];
          x += double(n[j]) * v[j];
        }
        if (p <= limit && (x > best.nsc || (x == best.nsc && p < best.params))) best = {x, p};
      });
    }
  }
  return best;
}

} // namespace

TEST_CASE("AutoFormer: every space feasible, factored == joint", "[search][autoformer]") {
  for (const char* name : {"tiny", "small", "base"}) {
    INFO(name);
    const auto space = ns::autoformer_space(name);
    const auto f = ns::search_autoformer(space);
    const auto j = ns::search_autoformer(space, {.param_limit = {}, .front = false,
                                                 .method = ns::autoformer_method::joint, .mck = {}});
    REQUIRE(f.best);
    REQUIRE(j.best);
    CHECK(f.best->params <= i64(space.param_limit));
    CHECK(f.best->params == np::autoformer_search_params(f.best->arch));
    CHECK(f.best->nsc == np::autoformer_search_nsc(f.best->arch));
    CHECK(rel_close(f.best->nsc, j.best->nsc, 1e-12));
    CHECK(f.best->params == j.best->params);
    CHECK(f.best->arch.embed_dim == j.best->arch.embed_dim);
    CHECK(counts(f.best->arch.num_heads) == counts(j.best->arch.num_heads));
    CHECK(counts(f.best->arch.mlp_ratio) == counts(j.best->arch.mlp_ratio));
    CHECK(f.stats.cell_updates * 10 < j.stats.cell_updates);
  }
}

TEST_CASE("AutoFormer-Tiny: optimal against every multiset of layer choices",
          "[search][autoformer]") {
  const auto space = ns::autoformer_space("tiny");
  for (double limit : {5.9e6, 5.7e6, 5.5e6, 5.1e6}) {
    INFO(limit);
    const auto r = ns::search_autoformer(space, {.param_limit = limit, .front = false,
                                                 .method = ns::autoformer_method::factored, .mck = {}});
    const af_brute b = autoformer_brute_force(space, i64(limit));
    REQUIRE(r.best);
    CHECK(rel_close(r.best->nsc, b.nsc, 1e-12));
    CHECK(r.best->params == b.params);
    CHECK(r.best->params <= i64(limit));
  }
  const auto r = ns::search_autoformer(space);
  REQUIRE(r.best); // the paper's setting: deeper and narrow wins (depth 14, ratio 3.5, 3 heads)
  CHECK(r.best->arch.depth() == 14);
  CHECK(r.best->params == 5'896'704);
  CHECK_FALSE(ns::search_autoformer(space, {.param_limit = 1e6, .front = false,
                                            .method = ns::autoformer_method::factored, .mck = {}})
                  .best);
}

TEST_CASE("AutoFormer-Small: optimal against every multiset of layer choices",
          "[search][autoformer][slow]") {
  const auto space = ns::autoformer_space("small");
  const auto r = ns::search_autoformer(space);
  const af_brute b = autoformer_brute_force(space, i64(space.param_limit));
  REQUIRE(r.best);
  CHECK(rel_close(r.best->nsc, b.nsc, 1e-12));
  CHECK(r.best->params == b.params);
}

TEST_CASE("AutoFormer: the merged front", "[search][autoformer]") {
  const auto space = ns::autoformer_space("tiny");
  for (auto m : {ns::autoformer_method::factored, ns::autoformer_method::joint}) {
    const auto r = ns::search_autoformer(space, {.param_limit = {}, .front = true, .method = m, .mck = {}});
    REQUIRE(!r.front.empty());
    REQUIRE(r.best);
    CHECK(r.front.back().nsc == r.best->nsc);
    for (std::size_t i = 1; i < r.front.size(); ++i) {
      CHECK(r.front[i - 1].params < r.front[i].params);
      CHECK(r.front[i - 1].nsc < r.front[i].nsc);
    }
    // Spot-check front points against the brute force at their own budget.
    for (std::size_t i = 0; i < r.front.size(); i += std::max<std::size_t>(1, r.front.size() / 5)) {
      const af_brute b = autoformer_brute_force(space, r.front[i].params);
      CHECK(rel_close(r.front[i].nsc, b.nsc, 1e-12));
    }
  }
  CHECK_THROWS_WITH(ns::autoformer_space("huge"), Contains("tiny, small or base"));
}

// =============================================================================================
// NATS-Bench SSS
// =============================================================================================

TEST_CASE("NATS-SSS: exhaustive == chain DP for several budgets and protocols", "[search][nats]") {
  for (const char* protocol : {"xautodl", "reference-fr", "reference-1x1"}) {
    for (auto ds : {np::nats_dataset::cifar10, np::nats_dataset::cifar100}) {
      const auto opts = ns::nats_sss_protocol_options(protocol, ds);
      const np::nats_sss_table table(opts);
      const auto all = ns::nats_sss_score_all(table);
      // Bitwise the table's own sums.
      for (std::size_t i : {std::size_t(0), std::size_t(777), std::size_t(32767)}) {
        CHECK(all.nsc[i] == table.score(np::nats_sss_channels(i)));
        CHECK(all.params[i] == table.params(np::nats_sss_channels(i)));
      }
      const i64 smallest = *std::min_element(all.params.begin(), all.params.end());
      for (std::optional<i64> budget : {std::optional<i64>{}, std::optional<i64>{100'000},
                                        std::optional<i64>{200'000}, std::optional<i64>{350'000},
                                        std::optional<i64>{smallest}, std::optional<i64>{smallest - 1}}) {
        INFO(protocol << " " << np::to_string(ds) << " budget " << (budget ? *budget : -1));
        const auto ex = ns::nats_sss_exhaustive_best(all, budget);
        const auto dp = ns::nats_sss_chain_dp(table, budget);
        REQUIRE(bool(ex) == bool(dp.best));
        if (!ex) continue;
        CHECK(ex->index == dp.best->index);
        CHECK(ex->nsc == dp.best->nsc);
        CHECK(ex->params == dp.best->params);
        const auto front = ns::nats_sss_exhaustive_front(all, budget);
        REQUIRE(front.size() == dp.front.size());
        for (std::size_t k = 0; k < front.size(); ++k) {
          CHECK(front[k].index == dp.front[k].index);
          CHECK(front[k].nsc == dp.front[k].nsc);
          CHECK(front[k].params == dp.front[k].params);
        }
      }
    }
  }
}

TEST_CASE("NATS-SSS: search_nats_sss, top-k and the accuracy join", "[search][nats]") {
  const auto r = ns::search_nats_sss({.net = {}, .max_params = 3e5, .top_k = 10, .keep_scores = true,
                                      .rule = np::nats_sss_scoring()});
  REQUIRE(r.best);
  CHECK(r.agree);
  CHECK(r.best->params <= 300'000);
  REQUIRE(r.top.size() == 10);
  CHECK(r.top.front().index == r.best->index);
  for (std::size_t k = 1; k < r.top.size(); ++k) CHECK(r.top[k - 1].nsc >= r.top[k].nsc);
  // No architecture within the budget outside the list beats the 10th.
  std::size_t better = 0;
  for (std::size_t i = 0; i < r.all.nsc.size(); ++i)
    if (r.all.params[i] <= 300'000 && r.all.nsc[i] > r.top.back().nsc) ++better;
  CHECK(better == 9);

  const std::string csv = std::string(NSC_SHARED_DATA_DIR) + "/nats-bench-sss/nats_sss_32768.csv";
  if (!std::filesystem::exists(csv)) {
    WARN("NATS-SSS data not found: " << csv);
    return;
  }
  const auto records = nsc::io::read_nats_sss(csv);
  REQUIRE(records.size() == 32768);
  // xautodl params are the CSV's params_computed_cifar10.
  for (const auto& rec : records) {
    if (rec.index % 97 != 0) continue;
    CHECK(r.all.params[std::size_t(rec.index)] == rec.params_cifar10);
  }
  const auto acc = ns::nats_sss_join_accuracy(r, records, np::nats_dataset::cifar10);
  CHECK(acc.chosen == records[r.best->index].cifar10_acc);
  CHECK(acc.best_of_top_accuracy >= acc.chosen);
  CHECK(acc.oracle_accuracy >= acc.best_of_top_accuracy);
  CHECK(acc.oracle.params <= 300'000);
  CHECK(acc.best_of_top_rank >= 1);
  CHECK(acc.best_of_top_rank <= 10);
  // Unconstrained: the oracle is the best of the whole space (64:64:64:64:64 at 90.71).
  const auto u = ns::search_nats_sss();
  const auto accu = ns::nats_sss_join_accuracy(u, records, np::nats_dataset::cifar10);
  CHECK(accu.oracle.arch() == "64:64:64:64:64");
  CHECK(accu.oracle_accuracy == Approx(90.71).margin(0.01));
  auto broken = records;
  broken.pop_back();
  CHECK_THROWS_WITH(ns::nats_sss_join_accuracy(u, broken, np::nats_dataset::cifar10),
                    Contains("missing nats_index"));
}

TEST_CASE("NATS-SSS: protocols and errors", "[search][nats]") {
  CHECK(ns::nats_sss_protocol_options("reference-fr", np::nats_dataset::cifar10).skip ==
        nsc::nats_skip::factorized_reduce);
  CHECK_THROWS_WITH(ns::nats_sss_protocol_options("paper", np::nats_dataset::cifar10),
                    Contains("xautodl, reference-fr or reference-1x1"));
  CHECK_THROWS_WITH(ns::search_nats_sss({.net = {}, .max_params = -1.0, .top_k = 10,
                                         .keep_scores = false, .rule = np::nats_sss_scoring()}),
                    Contains("nsc::search::search_nats_sss"));
  const auto none = ns::search_nats_sss({.net = {}, .max_params = 10.0, .top_k = 10,
                                         .keep_scores = false, .rule = np::nats_sss_scoring()});
  CHECK_FALSE(none.best);
  CHECK(none.agree);
  CHECK(none.top.empty());
}

// =============================================================================================
// Generic: per-layer Transformer choices, named groups
// =============================================================================================

TEST_CASE("transformer_space: optimal against brute force on a small instance",
          "[search][transformer_space]") {
  ns::transformer_space s;
  s.d_model = 64;
  s.layers = {{{256, 4}, {128, 4}, {256, 2, 1}},
              {{64, 8}, {192, 4, 2}},
              {{256, 4}, {96, 2}, {160, 8, 4}, {128, 1}}};
  s.base.norm = nsc::norm_kind::layernorm;
  s.base.ffn.gated = true;
  for (auto cost : {ns::transformer_cost::params, ns::transformer_cost::flops}) {
    s.cost = cost;
    const auto tables = ns::transformer_space_tables(s);
    // Each option is what make_block / score / count give.
    const nsc::layer l = nsc::make_block(ns::transformer_space_block(s, s.layers[1][1]), 256.0);
    CHECK(tables[1][1].nsc == nsc::score(l).nsc);
    CHECK(tables[1][1].params == nsc::count(l).total());
    CHECK(tables[1][1].flops == std::llround(2 * nsc::count(l).macs));
    std::vector<std::pair<i64, double>> all; // every combination
    for (std::size_t a = 0; a < 3; ++a)
      for (std::size_t b = 0; b < 2; ++b)
        for (std::size_t c = 0; c < 4; ++c) {
          const i64 k = cost == ns::transformer_cost::params
                            ? tables[0][a].params + tables[1][b].params + tables[2][c].params
                            : tables[0][a].flops + tables[1][b].flops + tables[2][c].flops;
          double v = 0;
          v += tables[0][a].nsc;
          v += tables[1][b].nsc;
          v += tables[2][c].nsc;
          all.push_back({k, v});
        }
    i64 lo = all[0].first, hi = all[0].first;
    for (const auto& [k, v] : all) {
      lo = std::min(lo, k);
      hi = std::max(hi, k);
    }
    for (int step = 0; step <= 8; ++step) {
      const i64 budget = lo + (hi - lo) * step / 8;
      std::optional<double> best;
      for (const auto& [k, v] : all)
        if (k <= budget && (!best || *best < v)) best = v;
      const auto r = ns::search_transformer_space(s, {.budget = double(budget), .front = true, .mck = {}});
      REQUIRE(r.best);
      CHECK(r.best->nsc == *best);
      CHECK((cost == ns::transformer_cost::params ? r.best->params : r.best->flops) <= budget);
    }
    CHECK_FALSE(ns::search_transformer_space(s, {.budget = double(lo - 1), .front = false, .mck = {}}).best);
  }
  s.layers[2].push_back({100, 3}); // 3 heads do not divide 64
  CHECK_THROWS_WITH(ns::search_transformer_space(s), Contains("layer 2, option 4") && Contains("n_heads"));
}

TEST_CASE("search_groups: brute force, real costs and errors", "[search][groups]") {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<ns::named_group> g(std::size_t(2 + trial % 3));
    for (auto& grp : g) {
      const int n = 1 + int(rng() % 4);
      for (int j = 0; j < n; ++j)
        grp.options.push_back({"o", double(rng() % 1000) / 7.0, double(rng() % 20)});
    }
    const double budget = double(rng() % 40);
    std::optional<double> best;
    std::vector<std::size_t> c(g.size(), 0);
    while (true) {
      double v = 0, k = 0;
      for (std::size_t i = 0; i < g.size(); ++i) {
        v = v + g[i].options[c[i]].value;
        k += g[i].options[c[i]].cost;
      }
      if (k <= budget && (!best || *best < v)) best = v;
      std::size_t i = 0;
      while (i < g.size() && ++c[i] == g[i].options.size()) c[i++] = 0;
      if (i == g.size()) break;
    }
    const auto r = ns::search_groups(g, {.budget = budget, .resolution = 1, .front = false, .mck = {}});
    REQUIRE(bool(r.best) == bool(best));
    if (best) {
      CHECK(r.best->value == *best);
      CHECK(r.best->cost <= budget);
    }
  }
  // Real costs on a grid of 0.5: exact for multiples of the grid.
  std::vector<ns::named_group> g{{"a", {{"x", 1, 0.5}, {"y", 2, 1.5}}}, {"b", {{"x", 1, 1.0}, {"y", 3, 2.5}}}};
  auto r = ns::search_groups(g, {.budget = 3.0, .resolution = 0.5, .front = true, .mck = {}});
  REQUIRE(r.best);
  CHECK(r.best->value == 4);
  CHECK(r.best->cost == 3.0);
  CHECK(r.front.size() == 3);
  g[1].options.clear();
  CHECK_THROWS_WITH(ns::search_groups(g), Contains("group 1 'b'") && Contains("at least one option"));
  g[1].options.push_back({"z", std::nan(""), 1});
  CHECK_THROWS_WITH(ns::search_groups(g), Contains("option 0 'z'") && Contains("value must be finite"));
}

// =============================================================================================
// SPACE.json
// =============================================================================================

namespace {
std::string read_error(const std::string& text) {
  try {
    (void)nsc::io::read_search_space(nsc::io::parse_json(text, "nsc::read_search_space", "space.json"), "space.json");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}
} // namespace

TEST_CASE("SPACE.json: groups and transformer spaces", "[search][io]") {
  const auto g = nsc::io::read_search_space_file(source_file("examples/spaces/ffn_widths_groups.json"));
  CHECK(g.type == nsc::io::search_space_file::kind::groups);
  CHECK(g.name == "ffn-widths");
  REQUIRE(g.budget);
  CHECK(g.groups.size() == 6);
  const auto rg = ns::search_groups(g.groups, {.budget = g.budget, .resolution = g.resolution, .front = false, .mck = {}});
  REQUIRE(rg.best);
  CHECK(rg.best->cost <= *g.budget);

  const auto t = nsc::io::read_search_space_file(source_file("examples/spaces/gqa_transformer.json"));
  CHECK(t.type == nsc::io::search_space_file::kind::transformer);
  CHECK(t.transformer.d_model == 1024);
  CHECK(t.transformer.layers.size() == 8);
  CHECK(t.transformer.base.ffn.gated);
  CHECK(t.transformer.base.norm == nsc::norm_kind::rmsnorm);
  const auto rt = ns::search_transformer_space(t.transformer, {.budget = t.budget, .front = false, .mck = {}});
  REQUIRE(rt.best);
  CHECK(rt.best->params <= i64(*t.budget));

  const auto per_layer = nsc::io::read_search_space(nlohmann::json::parse(R"({"transformer": {
      "d_model": 64, "layers": [[{"d_ff": 128, "n_heads": 4}], [{"d_ff": 64, "n_heads": 2}, {"d_ff": 256, "n_heads": 8}]],
      "scoring": {"init": "normal", "std": 0.02, "estimator": "fs", "variance_source": "tensor"},
      "cost": "flops", "seq_len": 128}})"));
  CHECK(per_layer.transformer.layers.size() == 2);
  CHECK(per_layer.transformer.layers[1].size() == 2);
  CHECK(per_layer.transformer.cost == ns::transformer_cost::flops);
  CHECK(per_layer.transformer.seq_len == 128);
  CHECK(per_layer.transformer.rule.est == nsc::estimator::fs);
  CHECK(per_layer.transformer.rule.source == nsc::variance_source::tensor);
}

TEST_CASE("SPACE.json: errors name the field and the value", "[search][io]") {
  CHECK_THAT(read_error(R"({"groups": [{"options": [{"value": 1, "cost": 2}, {"value": 3}]}]})"),
             Contains("nsc::read_search_space: space.json: /groups/0/options/1: missing field 'cost'"));
  CHECK_THAT(read_error(R"({"groups": [{"options": [{"value": "abc", "cost": 2}]}]})"),
             Contains("/groups/0/options/0/value: must be a finite number (got \"abc\")"));
  CHECK_THAT(read_error(R"({"groups": [{"options": [{"value": 1, "cost": -2}]}]})"),
             Contains("/groups/0/options/0/cost: must be a finite number >= 0 (got -2)"));
  CHECK_THAT(read_error(R"({"groups": [{"options": [{"value": 1, "cost": 2}]}, {"name": "g1", "options": []}]})"),
             Contains("/groups/1/options: a group needs at least one option (got [])"));
  // Python's json literals parse; a field that needs a finite number refuses them by name (issue 18).
  CHECK_THAT(read_error(R"({"groups": [{"options": [{"value": NaN, "cost": 2}]}]})"),
             Contains("/groups/0/options/0/value: must be a finite number (got NaN)"));
  CHECK_THAT(read_error(R"({"groups": [{"options": [{"value": 1, "cost": Infinity}]}]})"),
             Contains("/groups/0/options/0/cost: must be a finite number >= 0 (got Infinity)"));
  CHECK_THAT(read_error(R"({"transformer": {"d_model": 512, "n_layers": 2, "choices": [{"d_ff": 64, "n_heads": 8}], "scoring": {"init": "truncated_normal", "std": 0.02, "truncation": [-Infinity, Infinity]}}})"),
             Contains("/transformer/scoring/truncation: must be [a, b] with finite a < b (units of std)"));
  CHECK_THAT(read_error(R"({"groups": [{"optons": []}]})"),
             Contains("/groups/0/optons: unknown field (expected one of name, options)"));
  CHECK_THAT(read_error(R"({"groups": []})"), Contains("/groups: needs at least one group"));
  CHECK_THAT(read_error(R"({"groups": {}})"), Contains("/groups: must be a list of groups (got {})"));
  CHECK_THAT(read_error(R"({})"), Contains("space.json: /: needs exactly one of 'groups' or 'transformer'"));
  CHECK_THAT(read_error(R"([1, 2])"), Contains("/: must be an object"));
  CHECK_THAT(read_error(R"({"transformer": {"d_model": 512, "n_layers": 2, "choices": [{"d_ff": "abc", "n_heads": 8}]}})"),
             Contains("/transformer/choices/0/d_ff: must be a positive integer (got \"abc\")"));
  CHECK_THAT(read_error(R"({"transformer": {"n_layers": 2, "choices": [{"d_ff": 1, "n_heads": 8}]}})"),
             Contains("/transformer: missing field 'd_model'"));
  CHECK_THAT(read_error(R"({"transformer": {"d_model": 512, "n_layers": 2, "choices": [{"d_ff": 64, "n_heads": 8}, {"d_ff": 64, "n_heads": 7}]}})"),
             Contains("/transformer/choices/1: attention.n_heads must divide d_model = 512"));
  CHECK_THAT(read_error(R"({"transformer": {"d_model": 512, "n_layers": 3, "layers": [[{"d_ff": 64, "n_heads": 8}]]}})"),
             Contains("/transformer/n_layers: must equal the number of entries of 'layers' (1) (got 3)"));
  CHECK_THAT(read_error(R"({"transformer": {"d_model": 512, "n_layers": 2, "choices": [{"d_ff": 64, "n_heads": 8}], "cost": "bytes"}})"),
             Contains("/transformer/cost: unknown cost; expected one of params, flops (got \"bytes\")"));
  CHECK_THAT(read_error(R"({"transformer": {"d_model": 512, "n_layers": 2, "choices": [{"d_ff": 64, "n_heads": 8}], "scoring": {"init": "glorot"}}})"),
             Contains("/transformer/scoring/init: unknown initialisation"));
  CHECK_THAT(read_error(R"({"transformer": {"d_model": 512, "n_layers": 2, "choices": [{"d_ff": 64, "n_heads": 8}], "scoring": {"init": "normal"}}})"),
             Contains("/transformer/scoring: init normal / truncated_normal needs 'std'"));
  CHECK_THAT(read_error(R"({"transformer": {"d_model": 512, "n_layers": 2, "choices": [], "layers": []}})"),
             Contains("/transformer: needs exactly one of 'choices'"));
  CHECK_THAT(read_error(R"({"budget": -1, "groups": [{"options": [{"value": 1, "cost": 2}]}]})"),
             Contains("/budget: must be a finite number >= 0 or an object of named budgets (got -1)"));
  CHECK_THROWS_WITH(nsc::io::read_search_space_file("no/such/space.json"),
                    Contains("nsc::read_search_space: no/such/space.json: cannot open file (no such file)"));
  // named costs and budgets
  CHECK_THAT(read_error(R"({"groups": [{"options": [{"value": 1, "cost": {"params": 1}}, {"value": 2, "cost": 3}]}]})"),
             Contains("/groups/0/options/1/cost: the first option's cost names its costs"));
  CHECK_THAT(read_error(R"({"groups": [{"options": [{"value": 1, "cost": 1}, {"value": 2, "cost": {"params": 3}}]}]})"),
             Contains("/groups/0/options/1/cost: the first option's cost is a number"));
  CHECK_THAT(read_error(R"({"groups": [{"options": [{"value": 1, "cost": {"a": 1, "b": 2}}, {"value": 2, "cost": {"a": 3, "c": 1}}]}]})"),
             Contains("/groups/0/options/1/cost/c: unknown cost name (the first option names a, b)"));
  CHECK_THAT(read_error(R"({"groups": [{"options": [{"value": 1, "cost": {"a": 1, "b": 2}}, {"value": 2, "cost": {"a": 3}}]}]})"),
             Contains("/groups/0/options/1/cost: missing cost 'b'"));
  CHECK_THAT(read_error(R"({"groups": [{"options": [{"value": 1, "cost": {"a": -1}}]}]})"),
             Contains("/groups/0/options/0/cost/a: must be a finite number >= 0 (got -1)"));
  CHECK_THAT(read_error(R"({"groups": [{"options": [{"value": 1, "cost": {}}]}]})"),
             Contains("a cost object needs at least one named cost"));
  CHECK_THAT(read_error(R"({"groups": [{"options": [{"value": 1, "cost": {"a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1,"h":1,"i":1}}]}]})"),
             Contains("at most 8 named costs"));
  CHECK_THAT(read_error(R"({"budget": {"z": 1}, "groups": [{"options": [{"value": 1, "cost": {"a": 1}}]}]})"),
             Contains("/budget/z: unknown budget name (the costs are a)"));
  CHECK_THAT(read_error(R"({"budget": 5, "groups": [{"options": [{"value": 1, "cost": {"a": 1, "b": 1}}]}]})"),
             Contains("/budget: a bare number needs a single cost; name the budgets (a, b)"));
  CHECK_THAT(read_error(R"({"transformer": {"d_model": 64, "n_layers": 1, "choices": [{"d_ff": 64, "n_heads": 4}], "cost": ["params", "params"]}})"),
             Contains("/transformer/cost/1: duplicate cost name"));
  CHECK_THAT(read_error(R"({"transformer": {"d_model": 64, "n_layers": 1, "choices": [{"d_ff": 64, "n_heads": 4}], "cost": []}})"),
             Contains("/transformer/cost: a list of 1 to 8 cost names"));
  // hostile values are quoted truncated, never dumped whole
  std::string big = R"({"groups": [{"options": [{"value": 1, "cost": 2, "extra": [)";
  for (int i = 0; i < 10000; ++i) big += "1,";
  big += "1]}]}]}";
  const std::string e = read_error(big);
  CHECK_THAT(e, Contains("unknown field"));
  CHECK(e.size() < 400);
}

TEST_CASE("SPACE.json: named costs, budgets per name, transformer cost lists", "[search][io][budgets]") {
  const auto f = nsc::io::read_search_space_file(source_file("examples/spaces/kv_ffn_groups.json"));
  CHECK(f.cost_names == std::vector<std::string>{"kv_bytes", "params"});
  REQUIRE(f.budgets.size() == 2);
  CHECK(*f.budgets[0] == 3072);
  CHECK(*f.budgets[1] == 6000000);
  CHECK(!f.budget);
  REQUIRE(f.groups[0].options[0].costs == std::vector<double>{256, 1114112});
  ns::groups_budgets_settings s;
  s.cost_names = f.cost_names;
  s.budgets = f.budgets;
  const auto r = ns::search_groups_budgets(f.groups, s);
  REQUIRE(r.best);
  // brute force over the 8^4 selections
  double best = -1;
  for (int x = 0; x < 4096; ++x) {
    double v = 0, kv = 0, p = 0;
    for (int g = 0, y = x; g < 4; ++g, y /= 8) {
      const auto& o = f.groups[std::size_t(g)].options[std::size_t(y % 8)];
      v += o.value;
      kv += o.costs[0];
      p += o.costs[1];
    }
    if (kv <= 3072 && p <= 6e6) best = std::max(best, v);
  }
  CHECK(r.best->value == Approx(best).epsilon(1e-14));
  CHECK(r.best->costs[0] <= 3072);
  CHECK(r.best->costs[1] <= 6e6);

  const auto t = nsc::io::read_search_space_file(source_file("examples/spaces/gqa_transformer_params_flops.json"));
  CHECK(t.cost_names == std::vector<std::string>{"params", "flops"});
  const auto rt = ns::search_transformer_space_budgets(t.transformer, t.budgets);
  REQUIRE(rt.best);
  CHECK(rt.best->params <= 90000000);
  CHECK(rt.best->flops <= 230000000);
  CHECK(rt.best->costs == std::vector<i64>{rt.best->params, rt.best->flops});
  // brute force over the multisets (identical layers): 5 options, 8 layers
  const auto tables = ns::transformer_space_tables(t.transformer);
  double tb = -1;
  std::vector<std::size_t> c(8, 0);
  while (true) {
    double v = 0;
    i64 p = 0, fl = 0;
    for (std::size_t i = 0; i < 8; ++i) {
      v += tables[i][c[i]].nsc;
      p += tables[i][c[i]].params;
      fl += tables[i][c[i]].flops;
    }
    if (p <= 90000000 && fl <= 230000000) tb = std::max(tb, v);
    std::size_t i = 0;
    while (i < 8 && ++c[i] == 5) c[i++] = 0;
    if (i == 8) break;
  }
  CHECK(rt.best->nsc == Approx(tb).epsilon(1e-13));
  // a single cost through the multi path equals search_transformer_space
  const auto one = nsc::io::read_search_space_file(source_file("examples/spaces/gqa_transformer.json"));
  const auto a = ns::search_transformer_space(one.transformer, {.budget = 9e7, .front = true, .mck = {}});
  const auto b = ns::search_transformer_space_budgets(one.transformer, {9e7}, {.front = true, .top = 0, .min_distance = 0, .mmck = {}});
  REQUIRE(a.best);
  REQUIRE(b.best);
  CHECK(a.best->nsc == Approx(b.best->nsc).epsilon(1e-14)); // layer order of the sum differs
  CHECK(a.best->params == b.best->params);
  REQUIRE(a.front.size() == b.front.size());
  for (std::size_t i = 0; i < a.front.size(); ++i) CHECK(a.front[i].params == b.front[i].params);
  CHECK_THROWS_WITH(ns::search_transformer_space_budgets(one.transformer, {1.0, 2.0}),
                    Contains("more budgets than cost names"));
  CHECK_THROWS_WITH(ns::search_transformer_space_budgets(one.transformer, {-1.0}),
                    Contains("budget 'params' must be finite and >= 0 (got -1)"));
}

TEST_CASE("issue 13: budgets never round up, huge budgets end, value sums stay finite", "[search][budgets]") {
  // budget_floor's old 1e-12 guard turned 4,398,046,511,119 into 4,398,046,511,123
  CHECK(ns::budget_floor(4398046511119.0, "t") == 4398046511119);
  CHECK(ns::budget_floor(5.7e9, "t") == 5700000000);
  CHECK(ns::budget_floor(0x1p62 - 1024, "t") == (i64(1) << 62) - 1024);
  // a budget of 2^53 or more once hung mck_quantize_budget: now clamped (groups) or an error
  std::vector<ns::named_group> g{{"a", {{"x", 1.0, 3.0}}}};
  const auto r = ns::search_groups(g, {.budget = 9007199254740992.0, .resolution = 1, .front = false, .mck = {}});
  REQUIRE(r.best);
  CHECK(r.best->cost == 3);
  CHECK(ns::search_groups(g, {.budget = 1e300, .resolution = 1, .front = false, .mck = {}}).best);
  ns::groups_budgets_settings s;
  s.budgets = {9007199254740992.0};
  CHECK(ns::search_groups_budgets(g, s).best->grid_costs[0] == 3);
  // values of 1e308 sum to inf: a clear error, never "nsc": null
  std::vector<ns::named_group> h{{"a", {{"x", 1e308, 1.0}}}, {"b", {{"y", 1e308, 1.0}}}};
  CHECK_THROWS_WITH(ns::search_groups(h, {}), Contains("the sum over groups of the largest |value| must be finite"));
  CHECK_THROWS_WITH(ns::search_groups_budgets(h, {}), Contains("must be finite"));
}

TEST_CASE("LoNAS: the lazy identical-group front equals the one-pass front, candidates on request",
          "[search][lonas][mmck]") {
  const auto space = ns::lonas_llama7b_space();
  for (auto cost : {ns::lonas_cost::params, ns::lonas_cost::macs}) {
    ns::lonas_search_settings lazy{.budget = std::nullopt, .cost = cost, .mck = {}};
    ns::lonas_search_settings plain = lazy;
    lazy.identical_groups = true;
    lazy.lazy_front = true;
    const auto a = ns::search_lonas(space, lazy), b = ns::search_lonas(space, plain);
    CHECK(a.front.empty());
    REQUIRE(a.front_points.size() == b.front.size());
    for (std::size_t i = 0; i < b.front.size(); ++i) {
      CHECK(a.front_points[i].cost == (cost == ns::lonas_cost::params ? b.front[i].params : b.front[i].macs));
      CHECK(rel_close(a.front_points[i].value, b.front[i].nsc, 1e-13));
      const auto c = ns::lonas_front_candidate(space, a, i);
      CHECK(c.params == b.front[i].params);
      CHECK(c.macs == b.front[i].macs);
      CHECK(counts(c.widths) == counts(b.front[i].widths));
      CHECK(counts(c.ranks) == counts(b.front[i].ranks));
    }
    for (double budget : {4.6e9, 5.7e9, 6.7e9, 1.2e12, 1.44e12, 1e3}) {
      lazy.budget = plain.budget = budget;
      const auto x = ns::search_lonas(space, lazy), y = ns::search_lonas(space, plain);
      REQUIRE(x.best.has_value() == y.best.has_value());
      if (x.best) {
        CHECK(x.best->params == y.best->params);
        CHECK(counts(x.best->widths) == counts(y.best->widths));
      }
    }
  }
  const auto plain = ns::search_lonas(space);
  REQUIRE_THROWS_WITH(ns::lonas_front_candidate(space, plain, 0),
                      Catch::Contains("nsc::search::lonas_front_candidate: the result has no engine"));
  ns::lonas_search_settings lazy{.budget = std::nullopt, .cost = ns::lonas_cost::params, .mck = {}};
  lazy.identical_groups = lazy.lazy_front = true;
  const auto a = ns::search_lonas(space, lazy);
  REQUIRE_THROWS_WITH(ns::lonas_front_candidate(space, a, 129), Catch::Contains("front index out of range"));
}
