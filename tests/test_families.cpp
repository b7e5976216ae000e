// Tests for nsc/eval/families.hpp: the paper's ranking figures on the real shared data
// (FlexiBERT, GPT-2), sizes and parameter columns of every family, option errors, exact ties
// (order-free NSC), the framework conventions against hand-built sums, and the adapters on small
// fixture files written to a temporary directory, malformed rows included.
//
// Paper figures (reference-conventions.md, "Ranking statistics used by the paper") are printed
// with 3 digits, so a reproduced value must round to them: |ours - paper| <= 0.0005 (plus a few
// ulp). Where ours does not round to the paper's figure, the test says by how much and
// docs/ranking-report.md explains why.
#include <nsc/eval/families.hpp>
#include <nsc/eval/ranking.hpp>
#include <nsc/io/ground_truth.hpp>
#include <nsc/io/nats_sss.hpp>
#include <nsc/model/score.hpp>
#include <nsc/presets/autoformer.hpp>
#include <nsc/presets/flexibert.hpp>
#include <nsc/presets/gpt2.hpp>
#include <nsc/presets/nats_sss.hpp>
#include <nsc/presets/transformer_xl.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace ev = nsc::eval;
namespace p = nsc::presets;
namespace io = nsc::io;
using Catch::Contains;

namespace {

const std::string shared_dir = NSC_SHARED_DATA_DIR;

std::string shared(ev::family f) {
  return shared_dir + "/" + std::string(ev::default_data_file(f));
}

/// The paper prints 3 digits: a reproduced statistic rounds to the printed value.
bool rounds_to(double ours, double printed) { return std::abs(ours - printed) <= 0.0005 + 1e-12; }

/// A CSV written to a fresh temporary file, removed at scope exit.
class fixture {
public:
  fixture(const std::string& name, const std::string& text) {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() /
            ("nsc_test_families_" + name + "_" + std::to_string(rd()) + ".csv");
    std::ofstream out(path_, std::ios::binary);
    out << text;
  }
  ~fixture() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  fixture(const fixture&) = delete;
  fixture& operator=(const fixture&) = delete;
  std::string path() const { return path_.string(); }

private:
  std::filesystem::path path_;
};

ev::family_options with_convention(const std::string& c) {
  ev::family_options o;
  o.convention = c;
  return o;
}

double rel(double a, double b) { return std::abs(a - b) / std::abs(b); }

} // namespace

// =============================================================================================
// The paper's figures on the real data
// =============================================================================================

TEST_CASE("FlexiBERT reference convention reproduces the paper's tau 0.695 and rho 0.884",
          "[families][flexibert][paper]") {
  const ev::family_data d = ev::load_family(ev::family::flexibert, shared(ev::family::flexibert));
  REQUIRE(d.size() == 500);
  CHECK(d.skipped == 0);
  const ev::family_ranking r = ev::rank_family(d);
  CHECK(rounds_to(*r.nsc.tau_b, 0.695));
  CHECK(rounds_to(*r.nsc.rho, 0.884));
  CHECK(std::abs(*r.nsc.tau_b - 0.695) <= 0.0015);
  CHECK(std::abs(*r.nsc.rho - 0.884) <= 0.0015);
  // Regression values of this implementation (exact ties; pair counts are exact).
  CHECK(*r.nsc.tau_b == Approx(0.695089).margin(2e-6));
  CHECK(*r.nsc.rho == Approx(0.884293).margin(2e-6));
}

TEST_CASE("FlexiBERT with the paper's baselines reproduces its #Params and #FLOPs figures",
          "[families][flexibert][paper]") {
  ev::family_options o;
  o.baselines = "paper";
  const ev::family_data d =
      ev::load_family(ev::family::flexibert, shared(ev::family::flexibert), o);
  const ev::family_ranking r = ev::rank_family(d);
  // Paper: NSC tau 0.695 (10%-PW 0.505), partial 0.477; #Params 0.485 (0.082); #FLOPs 0.552
  // (0.329).
  CHECK(rounds_to(*r.nsc.tau_b, 0.695));
  CHECK(rounds_to(*r.params.tau_b, 0.485));
  CHECK(rounds_to(*r.params.rho, 0.676)); // the paper's "rho = 0.676 for #Params"
  CHECK(rounds_to(*r.params.pw10_tau, 0.082));
  CHECK(rounds_to(*r.flops.tau_b, 0.552));
  // Not exactly reproduced (the reference does not implement these statistics; see the report):
  CHECK(std::abs(*r.nsc.partial_tau - 0.477) <= 0.0015); // 0.4762
  CHECK(std::abs(*r.nsc.pw10_tau - 0.505) <= 0.005);     // 0.5022
  CHECK(std::abs(*r.flops.pw10_tau - 0.329) <= 0.005);   // 0.3318
  // The paper's count is the nominal encoder plus the ELECTRA-small embeddings, which equal the
  // CSV's params_disc_total_as_trained - params_encoder_as_trained.
  for (const io::flexibert_record& rec : io::read_flexibert_csv(shared(ev::family::flexibert)))
    REQUIRE(ev::flexibert_embedding_params(rec.arch.hidden) ==
            *rec.params_disc_total_as_trained - *rec.params_encoder_as_trained);
}

TEST_CASE("GPT-2 reference convention reproduces the paper's tau 0.849 and rho 0.968",
          "[families][gpt2][paper]") {
  const ev::family_data d = ev::load_family(ev::family::gpt2, shared(ev::family::gpt2));
  REQUIRE(d.size() == 200);
  const ev::family_ranking r = ev::rank_family(d);
  CHECK(rounds_to(*r.nsc.tau_b, 0.849));
  CHECK(rounds_to(*r.nsc.rho, 0.968));
  CHECK(*r.nsc.tau_b == Approx(0.848844).margin(2e-6));
  // psi_FS changes the scores but not this ranking's statistics by more than the printed digit.
  ev::family_options fs;
  fs.est = nsc::estimator::fs;
  const ev::family_ranking rf =
      ev::rank_family(ev::load_family(ev::family::gpt2, shared(ev::family::gpt2), fs));
  CHECK(std::abs(*rf.nsc.tau_b - *r.nsc.tau_b) <= 0.005);
}

// =============================================================================================
// Sizes, parameter columns, targets
// =============================================================================================

TEST_CASE("every family's default data: n, parameter columns, truth", "[families][data]") {
  SECTION("flexibert: params_encoder_as_trained and glue") {
    const auto rows = io::read_flexibert_csv(shared(ev::family::flexibert));
    const auto d = ev::make_flexibert_data(rows);
    REQUIRE(d.size() == rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      REQUIRE(d.ids[i] == rows[i].arch_id);
      REQUIRE(d.params[i] == double(*rows[i].params_encoder_as_trained));
      REQUIRE(d.truth[i] == *rows[i].glue);
      REQUIRE(d.flops[i] == p::flexibert_flops(rows[i].arch, p::flexibert_reading::as_trained));
    }
    ev::family_options o;
    o.target = "mnli";
    const auto m = ev::make_flexibert_data(rows, o);
    CHECK(m.truth[0] == *rows[0].task("mnli"));
  }
  SECTION("gpt2 and txl: params_nonembedding and minus perplexity") {
    for (ev::family f : {ev::family::gpt2, ev::family::txl}) {
      const auto rows = io::read_lts_csv(shared(f));
      const auto d = ev::load_family(f, shared(f));
      REQUIRE(d.size() == 200);
      for (std::size_t i = 0; i < rows.size(); ++i) {
        REQUIRE(d.params[i] == double(*rows[i].params_nonembedding));
        REQUIRE(d.truth[i] == -*rows[i].valid_ppl);
      }
      ev::family_options o;
      o.target = "test_ppl";
      const auto t = ev::load_family(f, shared(f), o);
      CHECK(t.truth[7] == -*rows[7].test_ppl);
    }
    // The homogeneous Transformer-XL table: 99 rows, one without perplexity.
    const auto h = ev::load_family(ev::family::txl,
                                   shared_dir + "/lts-archai/random_TransXL_wt103_homogeneous.csv");
    CHECK(h.size() == 98);
    CHECK(h.skipped == 1);
  }
  SECTION("nats-sss: 32,768 rows, params_computed_<dataset>, <dataset>_acc") {
    const auto rows = io::read_nats_sss(shared(ev::family::nats_sss));
    for (const char* ds : {"cifar10", "cifar100", "imagenet16-120"}) {
      ev::family_options o;
      o.dataset = ds;
      const auto d = ev::make_nats_sss_data(rows, o);
      REQUIRE(d.size() == 32768);
      CHECK(d.protocol == "factorized-reduce");
      for (std::size_t i = 0; i < rows.size(); ++i) {
        const bool c10 = d.dataset == "cifar10", c100 = d.dataset == "cifar100";
        REQUIRE(d.params[i] == double(c10    ? rows[i].params_cifar10
                                      : c100 ? rows[i].params_cifar100
                                             : rows[i].params_imagenet16_120));
        REQUIRE(d.truth[i] == (c10    ? rows[i].cifar10_acc
                               : c100 ? rows[i].cifar100_acc
                                      : rows[i].imagenet16_120_acc));
      }
      CHECK(d.target == (std::string(ds) == "imagenet16-120" ? "imagenet16_120_acc"
                                                             : std::string(ds) + "_acc"));
    }
  }
  SECTION("autoformer-tiny: 200 rows by default, 100 for c100_base_acc") {
    const auto d =
        ev::load_family(ev::family::autoformer_tiny, shared(ev::family::autoformer_tiny));
    CHECK(d.size() == 200);
    CHECK(d.target == "c100_kd_acc");
    ev::family_options o;
    o.target = "c100_base_acc";
    const auto b =
        ev::load_family(ev::family::autoformer_tiny, shared(ev::family::autoformer_tiny), o);
    CHECK(b.size() == 100);
    CHECK(b.skipped == 100);
    o.target = "imagenet_super_acc";
    const auto im =
        ev::load_family(ev::family::autoformer_tiny, shared(ev::family::autoformer_tiny), o);
    REQUIRE(im.size() == 200);
    const auto rows = io::read_autoformer_tiny_csv(shared(ev::family::autoformer_tiny));
    CHECK(im.params[0] == double(p::autoformer_official_params(rows[0].arch)));
  }
}

TEST_CASE("rank_family: each baseline's partial tau drops its own control", "[families][rank]") {
  const auto d = ev::load_family(ev::family::gpt2, shared(ev::family::gpt2));
  const auto r = ev::rank_family(d);
  const std::span<const double> P(d.params), F(d.flops);
  CHECK(r.nsc.partial_tau == ev::partial_kendall_tau(d.score, d.truth, {P, F}));
  CHECK(r.params.partial_tau == ev::partial_kendall_tau(d.params, d.truth, {F}));
  CHECK(r.flops.partial_tau == ev::partial_kendall_tau(d.flops, d.truth, {P}));
  CHECK(r.params.pw10_tau == ev::windowed_kendall_tau(d.params, d.truth, d.params));
  CHECK(r.nsc.n == 200);
  // AutoFormer-Tiny's #Params and #FLOPs are rank-equivalent: their partial taus are undefined.
  const auto a = ev::rank_family(
      ev::load_family(ev::family::autoformer_tiny, shared(ev::family::autoformer_tiny)));
  CHECK_FALSE(a.params.partial_tau.has_value());
  CHECK_FALSE(a.flops.partial_tau.has_value());
  CHECK(a.nsc.partial_tau.has_value());
}

// =============================================================================================
// Names and option errors
// =============================================================================================

TEST_CASE("family names, conventions, files", "[families][names]") {
  for (ev::family f : ev::all_families) {
    CHECK(ev::parse_family(ev::to_string(f)) == f);
    const auto conv = ev::family_conventions(f);
    REQUIRE_FALSE(conv.empty());
    CHECK(conv.front() == "reference");
    CHECK(std::find(conv.begin(), conv.end(), "framework") != conv.end());
    CHECK(std::filesystem::exists(shared(f)));
  }
  CHECK(ev::default_target(ev::family::nats_sss).empty());
  CHECK(ev::default_target(ev::family::autoformer_tiny) == "c100_kd_acc");
  CHECK_THROWS_WITH(ev::parse_family("bert"),
                    "nsc::eval::parse_family: unknown family; expected flexibert, gpt2, txl, "
                    "nats-sss or autoformer-tiny (got bert)");
  CHECK_THROWS_AS(ev::parse_family("NATS-SSS"), std::invalid_argument);
  CHECK_THROWS_AS(ev::parse_family(""), std::invalid_argument);
}

TEST_CASE("unknown conventions, targets, datasets, protocols and misplaced options throw",
          "[families][errors]") {
  const auto gpt2_rows = io::read_lts_csv(shared(ev::family::gpt2));
  const auto af_rows = io::read_autoformer_tiny_csv(shared(ev::family::autoformer_tiny));
  ev::family_options o;
  o.convention = "per_head"; // a txl reading, not gpt2's
  CHECK_THROWS_WITH(ev::make_gpt2_data(gpt2_rows, o),
                    "nsc::eval::make_gpt2_data: unknown convention for gpt2; expected reference or "
                    "framework (got per_head)");
  o = {};
  o.target = "perplexity";
  CHECK_THROWS_WITH(
      ev::make_gpt2_data(gpt2_rows, o),
      Contains("unknown target for gpt2; expected valid_ppl or test_ppl (got perplexity)"));
  o = {};
  o.dataset = "cifar10";
  CHECK_THROWS_WITH(ev::make_gpt2_data(gpt2_rows, o), Contains("applies to nats-sss only"));
  o = {};
  o.protocol = "figure-1x1";
  CHECK_THROWS_WITH(ev::make_gpt2_data(gpt2_rows, o), Contains("applies to nats-sss only"));
  o = {};
  o.baselines = "paper";
  CHECK_THROWS_WITH(ev::make_gpt2_data(gpt2_rows, o),
                    Contains("unknown baselines for gpt2; expected data (got paper)"));
  o = {};
  o.target = "top1";
  CHECK_THROWS_WITH(ev::make_autoformer_tiny_data(af_rows, o),
                    Contains("the file's target columns are c100_base_acc, c100_kd_acc"));
  o = {};
  o.convention = "official";
  CHECK_NOTHROW(ev::make_autoformer_tiny_data(af_rows, o));

  std::vector<io::nats_sss_record> nats(2);
  nats[0].channels = "8:8:8:8:8";
  nats[0].c = {8, 8, 8, 8, 8};
  nats[1].channels = "64:64:64:64:64";
  nats[1].c = {64, 64, 64, 64, 64};
  for (auto& r : nats) {
    p::nats_sss_options co;
    const p::nats_sss_table t(co);
    r.params_cifar10 = t.params(r.c);
    r.cifar10_acc = r.c[0] == 8 ? 70 : 90;
  }
  nats[0].params_cifar100 = nats[1].params_cifar100 = 1; // not used for cifar10
  CHECK(ev::make_nats_sss_data(nats).size() == 2);
  o = {};
  o.dataset = "imagenet";
  CHECK_THROWS_WITH(ev::make_nats_sss_data(nats, o),
                    "nsc::eval::parse_nats_dataset_name: unknown dataset; expected cifar10, "
                    "cifar100 or imagenet16-120 (got imagenet)");
  o = {};
  o.protocol = "fr";
  CHECK_THROWS_WITH(ev::make_nats_sss_data(nats, o),
                    Contains("expected factorized-reduce or figure-1x1"));
  o = {};
  o.target = "cifar10_acc";
  CHECK_THROWS_WITH(ev::make_nats_sss_data(nats, o), Contains("takes its target from the dataset"));
  o = {};
  o.dataset = "cifar100"; // its params_computed_cifar100 column is wrong
  CHECK_THROWS_WITH(ev::make_nats_sss_data(nats, o),
                    Contains("architecture 8:8:8:8:8: params_computed_cifar100 disagrees with the "
                             "nats-sss parameter count"));
  o = {};
  o.convention = "official";
  CHECK_THROWS_WITH(ev::make_nats_sss_data(nats, o),
                    Contains("expected reference, framework or xautodl (got official)"));
  nats.pop_back();
  CHECK_THROWS_WITH(ev::make_nats_sss_data(nats), Contains("fewer than 2 architectures"));
}

// =============================================================================================
// Exact ties: order-free NSC
// =============================================================================================

TEST_CASE("order_free_score: the NSC of score() up to rounding, bitwise equal for permuted layers",
          "[families][ties]") {
  const p::gpt2_flex_arch a{256, {2, 4, 8, 4}, {1000, 1200, 700, 1500}};
  p::gpt2_flex_arch b = a;
  std::reverse(b.n_head.begin(), b.n_head.end());
  std::reverse(b.d_inner.begin(), b.d_inner.end());
  const auto pa = p::gpt2_flex(a), pb = p::gpt2_flex(b);
  const double sa = ev::order_free_score(pa.net, pa.rule),
               sb = ev::order_free_score(pb.net, pb.rule);
  CHECK(sa == sb); // bitwise
  CHECK(rel(sa, pa.nsc_score()) < 1e-14);
  CHECK(rel(sa, p::gpt2_flex_nsc(a)) < 1e-14);

  // FlexiBERT: swapping the attention halves of two layers keeps the multiset of blocks.
  p::flexibert_arch f;
  f.hidden = 256;
  f.layers = {{p::flexibert_op::sa, "SDP", 4, 512, 1}, {p::flexibert_op::lt, "DFT", 2, 1024, 3}};
  p::flexibert_arch g = f;
  std::swap(g.layers[0].ffn_dim, g.layers[1].ffn_dim);
  std::swap(g.layers[0].n_ffn, g.layers[1].n_ffn);
  const auto pf = p::flexibert(f), pg = p::flexibert(g);
  CHECK(ev::order_free_score(pf.net, pf.rule) == ev::order_free_score(pg.net, pg.rule));
  CHECK(rel(ev::order_free_score(pf.net, pf.rule), p::flexibert_nsc(f)) < 1e-14);

  // term_sum merges equal values: (v, 2) == (v, 1) + (v, 1).
  ev::term_sum s1, s2;
  s1.add(0.1, 2);
  s1.add(3.7);
  s2.add(3.7);
  s2.add(0.1);
  s2.add(0.1);
  CHECK(s1.total() == s2.total());

  // On the real FlexiBERT data the order-free scores add exact ties that layer-order sums split.
  const auto rows = io::read_flexibert_csv(shared(ev::family::flexibert));
  const auto d = ev::make_flexibert_data(rows);
  std::size_t exact_ties = 0, layer_order_ties = 0;
  std::vector<double> layer_order;
  for (const auto& r : rows) layer_order.push_back(p::flexibert_nsc(r.arch));
  double worst = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    worst = std::max(worst, rel(d.score[i], layer_order[i]));
    for (std::size_t j = i + 1; j < rows.size(); ++j) {
      exact_ties += d.score[i] == d.score[j];
      layer_order_ties += layer_order[i] == layer_order[j];
    }
  }
  CHECK(worst < 1e-14);
  CHECK(exact_ties > layer_order_ties);
}

TEST_CASE("nats-sss fast path equals the order-free score of the whole network",
          "[families][nats]") {
  std::vector<io::nats_sss_record> rows;
  for (std::size_t idx : {std::size_t(0), std::size_t(1), std::size_t(4681), std::size_t(9999),
                          std::size_t(20000), std::size_t(32767)}) {
    io::nats_sss_record r;
    r.c = p::nats_sss_channels(idx);
    r.channels = p::nats_sss_arch_string(r.c);
    r.cifar100_acc = double(idx % 97);
    r.params_cifar100 =
        p::nats_sss_table(p::nats_sss_options{p::nats_dataset::cifar100}).params(r.c);
    rows.push_back(r);
  }
  for (const char* conv : {"reference", "xautodl", "framework"}) {
    for (const char* protocol : {"factorized-reduce", "figure-1x1"}) {
      for (nsc::estimator e : {nsc::estimator::mp, nsc::estimator::fs}) {
        ev::family_options o;
        o.convention = conv;
        o.protocol = protocol;
        o.dataset = "cifar100";
        o.est = e;
        const auto d = ev::make_nats_sss_data(rows, o);
        p::nats_sss_options so;
        so.dataset = p::nats_dataset::cifar100;
        so.skip = std::string(protocol) == "figure-1x1" ? nsc::nats_skip::conv1x1
                                                        : nsc::nats_skip::factorized_reduce;
        so.wiring = std::string(conv) == "reference" ? p::nats_wiring::reference_code
                                                     : p::nats_wiring::xautodl;
        nsc::scoring s = p::nats_sss_scoring();
        s.est = e;
        if (std::string(conv) == "framework") {
          s.initialisation = nsc::init::torch_default();
          s.source = nsc::variance_source::tensor;
        }
        for (std::size_t i = 0; i < rows.size(); ++i) {
          const nsc::network net = p::nats_sss_network(rows[i].c, so);
          INFO(conv << " " << protocol << " " << rows[i].channels);
          REQUIRE(d.score[i] == ev::order_free_score(net, s));
          REQUIRE(rel(d.score[i], nsc::score(net, s).nsc) < 1e-14);
          REQUIRE(d.flops[i] ==
                  2 * nsc::count(p::nats_sss_network(rows[i].c, {p::nats_dataset::cifar100})).macs);
        }
      }
    }
  }
}

// =============================================================================================
// Framework conventions against hand-built sums
// =============================================================================================

TEST_CASE("framework conventions score the model's own initialisation", "[families][framework]") {
  const auto psi02 = [](double m, double n, double sd = 0.02) { return p::psi_normal(m, n, sd); };

  SECTION("gpt2: normal(0.02), both c_proj normal(0.02 / sqrt(2 L))") {
    io::lts_record r;
    r.arch_id = "x";
    r.n_layer = 2;
    r.d_model = 64;
    r.n_head = {2, 4};
    r.d_inner = {100, 200};
    r.valid_ppl = 40;
    io::lts_record r2 = r;
    r2.arch_id = "y";
    r2.valid_ppl = 41;
    const auto d = ev::make_gpt2_data({r, r2}, with_convention("framework"));
    const double sc = 0.02 / 2; // sqrt(2 * 2)
    double want = 0;
    for (int l = 0; l < 2; ++l) {
      const double h = double(r.n_head[std::size_t(l)]), f = double(r.d_inner[std::size_t(l)]);
      want += 3 * h * psi02(64 / h, 64) + psi02(64, 64, sc) + psi02(f, 64) + psi02(64, f, sc);
    }
    CHECK(rel(d.score[0], want) < 1e-13);
    const auto ref = ev::make_gpt2_data({r, r2});
    CHECK(rel(ref.score[0], p::gpt2_flex_nsc(r.gpt2())) < 1e-14);
    CHECK(d.params[0] == double(p::gpt2_flex_params(r.gpt2()))); // blank column: the count
    // FLOPs: weights once per token + attention 2 T d per layer at T = 192.
    CHECK(d.flops[0] == 2 * (nsc::count(p::gpt2_flex(r.gpt2()).net).macs + 2.0 * 192 * 64 * 2));
  }
  SECTION("txl: framework equals reference (psi_.02 is Transformer-XL's init)") {
    const auto rows = io::read_lts_csv(shared(ev::family::txl));
    const auto ref = ev::make_txl_data(rows),
               fw = ev::make_txl_data(rows, with_convention("framework"));
    CHECK(ref.score == fw.score);
    const auto ph = ev::make_txl_data(rows, with_convention("per_head"));
    CHECK(
        rel(ph.score[3], nsc::score(p::transformer_xl_lts(rows[3].transformer_xl(),
                                                          p::transformer_xl_lts_attention::per_head)
                                        .net,
                                    p::normal_scoring(0.02))
                             .nsc) < 1e-14);
  }
  SECTION("flexibert: normal(0.02) on the reference matrices") {
    io::flexibert_record r;
    r.arch_id = "a";
    r.arch.hidden = 128;
    r.arch.layers = {{p::flexibert_op::sa, "SDP", 2, 512, 1},
                     {p::flexibert_op::lt, "DFT", 2, 1024, 3}};
    r.glue = 60;
    io::flexibert_record r2 = r;
    r2.arch_id = "b";
    r2.glue = 61;
    const auto d = ev::make_flexibert_data({r, r2}, with_convention("framework"));
    const double want = psi02(384, 128) + psi02(128, 128) + psi02(512, 128) + psi02(128, 512) +
                        2 * psi02(128, 128) + 3 * (psi02(341, 128) + psi02(128, 341));
    CHECK(rel(d.score[0], want) < 1e-13);
    for (const char* reading : {"original", "as_trained", "nominal"}) {
      const auto dr = ev::make_flexibert_data({r, r2}, with_convention(reading));
      const auto rd = std::string(reading) == "original"     ? p::flexibert_reading::original
                      : std::string(reading) == "as_trained" ? p::flexibert_reading::as_trained
                                                             : p::flexibert_reading::nominal;
      CHECK(rel(dr.score[0], p::flexibert_nsc(r.arch, rd)) < 1e-14);
    }
  }
  SECTION("autoformer-tiny: trunc_normal(0.02) with timm's absolute bounds is normal(0.02)") {
    const auto rows = io::read_autoformer_tiny_csv(shared(ev::family::autoformer_tiny));
    const std::vector<io::autoformer_record> two(rows.begin(), rows.begin() + 2);
    const auto d = ev::make_autoformer_tiny_data(two, with_convention("framework"));
    nsc::scoring s;
    s.initialisation = nsc::init::normal(0.02);
    s.source = nsc::variance_source::tensor;
    CHECK(rel(d.score[0], nsc::score(p::autoformer_ranking(rows[0].arch, 100).net, s).nsc) < 1e-12);
    // imagenet_super_acc: the official network, its patch conv at PyTorch's default init.
    ev::family_options o = with_convention("framework");
    o.target = "imagenet_super_acc";
    const auto di = ev::make_autoformer_tiny_data(two, o);
    nsc::network net = p::autoformer_official(rows[0].arch).net;
    const double patch = nsc::score(net.layers.front(),
                                    [] {
                                      nsc::scoring t;
                                      t.initialisation = nsc::init::torch_default();
                                      t.source = nsc::variance_source::tensor;
                                      return t;
                                    }())
                             .nsc;
    net.layers.erase(net.layers.begin());
    CHECK(patch > 0);
    CHECK(rel(di.score[0], patch + nsc::score(net, s).nsc) < 1e-12);
    const auto off = ev::make_autoformer_tiny_data(two, with_convention("official"));
    CHECK(rel(off.score[0], p::autoformer_search_nsc(rows[0].arch)) < 1e-14);
    const auto ref = ev::make_autoformer_tiny_data(two);
    CHECK(rel(ref.score[0], p::autoformer_ranking_nsc(rows[0].arch)) < 1e-14);
  }
}

// =============================================================================================
// Readers and adapters on fixture files
// =============================================================================================

TEST_CASE("flexibert fixture: blank target skipped, permuted layers tie, bad rows",
          "[families][fixture]") {
  const std::string header =
      "arch_id,hidden_size,num_layers,l0_op_type,l0_op_param,l0_heads,l0_ffn_dim,l0_n_ffn,"
      "l1_op_type,l1_op_param,l1_heads,l1_ffn_dim,l1_n_ffn,params_encoder_as_trained,glue,cola\n";
  p::flexibert_arch a;
  a.hidden = 128;
  a.layers = {{p::flexibert_op::sa, "SDP", 2, 512, 1}, {p::flexibert_op::lt, "DFT", 2, 1024, 3}};
  const std::string pa = std::to_string(p::flexibert_params_as_trained(a));
  const fixture good("flexibert", header + "a,128,2,SA,SDP,2,512,1,LT,DFT,2,1024,3," + pa +
                                      ",60,30\n" +
                                      "b,128,2,LT,DFT,2,1024,3,SA,SDP,2,512,1,,61,31\n" +
                                      "c,256,2,DSC,5,4,512,1,SA,WMA,4,512,1,,70,40\n" +
                                      "d,256,1,SA,SDP,4,1024,1,,,,,,,,50\n");
  const auto d = ev::load_family(ev::family::flexibert, good.path());
  REQUIRE(d.size() == 3);
  CHECK(d.skipped == 1);
  CHECK(d.ids == std::vector<std::string>{"a", "b", "c"});
  CHECK(d.score[0] == d.score[1]);   // same layers in another order: an exact tie
  CHECK(d.params[0] == d.params[1]); // column and count agree
  ev::family_options o;
  o.target = "cola";
  CHECK(ev::load_family(ev::family::flexibert, good.path(), o).size() == 4);
  CHECK(ev::rank_family(d).nsc.n == 3);

  const fixture bad_op("flexibert_bad", header + "a,128,2,SA,SDP,2,512,1,XX,DFT,2,1024,3,,60,30\n");
  CHECK_THROWS_WITH(
      ev::load_family(ev::family::flexibert, bad_op.path()),
      Contains("nsc::read_flexibert_csv: row 1: column 'l1_op_type' is not SA, LT or DSC"));
  const fixture bad_params("flexibert_params",
                           header + "a,128,2,SA,SDP,2,512,1,LT,DFT,2,1024,3,12,60,30\n" +
                               "b,128,2,SA,SDP,2,512,1,LT,DFT,2,1024,3,,61,30\n");
  CHECK_THROWS_WITH(
      ev::load_family(ev::family::flexibert, bad_params.path()),
      Contains("architecture a: params_encoder_as_trained disagrees with the flexibert "
               "parameter count " +
               pa));
  const fixture short_row("flexibert_short", header + "a,128,2,SA,SDP\n");
  CHECK_THROWS_WITH(ev::load_family(ev::family::flexibert, short_row.path()),
                    Contains("row 1: expected 16 fields, got 5"));
  CHECK_THROWS_WITH(ev::load_family(ev::family::flexibert, "/nonexistent/flexibert.csv"),
                    Contains("cannot open"));
}

TEST_CASE("LTS fixture: gpt2 and txl, skipped rows, wrong family, malformed rows",
          "[families][fixture]") {
  const std::string header =
      "arch_id,n_layer,d_model,n_head_list,d_inner_list,valid_ppl,test_ppl,params_nonembedding\n";
  const auto gp = [](std::int64_t d, std::vector<std::int64_t> h, std::vector<std::int64_t> f) {
    return std::to_string(p::gpt2_flex_params({d, std::move(h), std::move(f)}));
  };
  const fixture good("lts", header + "g0,2,64,2 4,100 200,50,51," + gp(64, {2, 4}, {100, 200}) +
                                ".0\n" + "g1,2,64,4 2,200 100,49,50," + gp(64, {4, 2}, {200, 100}) +
                                "\n" + "g2,3,128,2 2 8,300 400 500,30,31," +
                                gp(128, {2, 2, 8}, {300, 400, 500}) + "\n" +
                                "g3,2,64,2 2,300 300,,45,\n");
  const auto d = ev::load_family(ev::family::gpt2, good.path());
  REQUIRE(d.size() == 3);
  CHECK(d.skipped == 1);
  CHECK(d.score[0] == d.score[1]);
  CHECK(d.truth == std::vector<double>{-50, -49, -30});
  ev::family_options o;
  o.target = "test_ppl";
  const auto t = ev::load_family(ev::family::gpt2, good.path(), o);
  CHECK(t.size() == 4);
  CHECK(t.params[3] == double(p::gpt2_flex_params({64, {2, 2}, {300, 300}})));
  // The same rows read as Transformer-XL: the GPT-2 parameter column gives the mix-up away.
  CHECK_THROWS_WITH(
      ev::load_family(ev::family::txl, good.path()),
      Contains("architecture g0: params_nonembedding disagrees with the txl parameter "
               "count"));
  // --params computed: ranks with the family's own count instead of refusing
  ev::family_options computed;
  computed.params_source = "computed";
  const auto c = ev::load_family(ev::family::txl, good.path(), computed);
  CHECK(c.params_source == "computed");
  CHECK(c.params[0] == double(p::transformer_xl_lts_params({64, {2, 4}, {100, 200}})));
  CHECK(c.params[0] != d.params[0]);
  ev::family_options guess;
  guess.params_source = "guess";
  CHECK_THROWS_WITH(ev::load_family(ev::family::gpt2, good.path(), guess),
                    Contains("unknown params source; expected data or computed (got guess)"));
  // the generic path: rank_family is rank_scores of the family's rows (baselines params, flops)
  const ev::ranking_input in = ev::ranking_input_of(d);
  REQUIRE(in.baselines.size() == 2);
  CHECK(in.baselines[0].name == "params");
  CHECK(in.baselines[1].values == d.flops);
  const ev::family_ranking fr = ev::rank_family(d);
  const ev::ranking_report rr = ev::rank_scores(in);
  CHECK(fr.nsc.tau_b == rr.nsc.tau_b);
  CHECK(fr.params.partial_tau == rr.baselines[0].summary.partial_tau);
  const fixture bad("lts_bad", header + "g0,2,x,2 4,100 200,50,51,\n");
  CHECK_THROWS_WITH(
      ev::load_family(ev::family::gpt2, bad.path()),
      Contains("nsc::read_lts_csv: row 1: column 'd_model' is not an integer (got \"x\")"));
  const fixture bad_list("lts_list", header + "g0,3,64,2 4,100 200 300,50,51,\n");
  CHECK_THROWS_WITH(ev::load_family(ev::family::gpt2, bad_list.path()),
                    Contains("column 'n_head_list' has 2 values but n_layer is 3"));
  const fixture heads("lts_heads",
                      header + "g0,2,64,2 128,100 200,50,51,\n" + "g1,2,64,2 4,100 200,50,51,\n");
  CHECK_THROWS_WITH(ev::load_family(ev::family::gpt2, heads.path()),
                    Contains("n_head_list' has a head count outside [1, d_model]"));
  const fixture one("lts_one",
                    header + "g0,2,64,2 4,100 200,50,51,\n" + "g1,2,64,2 4,100 200,,51,\n");
  CHECK_THROWS_WITH(
      ev::load_family(ev::family::gpt2, one.path()),
      Contains("fewer than 2 architectures have a value of target 'valid_ppl' (got 1)"));
}

TEST_CASE("nats-sss fixture: rows, malformed accuracy, channels outside the space",
          "[families][fixture]") {
  const std::string header =
      "nats_index,channels,c0,c1,c2,c3,c4,cifar10_acc,cifar100_acc,imagenet16_120_acc,"
      "params_computed_cifar10,params_computed_cifar100,params_computed_imagenet16_120\n";
  const auto line = [](std::size_t idx, const char* acc) {
    const p::nats_channels c = p::nats_sss_channels(idx);
    std::string s = std::to_string(idx);
    s += ',';
    s += p::nats_sss_arch_string(c);
    for (auto v : c) {
      s += ',';
      s += std::to_string(v);
    }
    s += ',';
    s += acc;
    s += ",50,20";
    for (auto ds :
         {p::nats_dataset::cifar10, p::nats_dataset::cifar100, p::nats_dataset::imagenet16_120}) {
      s += ',';
      s += std::to_string(p::nats_sss_table(p::nats_sss_options{ds}).params(c));
    }
    s += '\n';
    return s;
  };
  const fixture good("nats", header + line(0, "70") + line(100, "80") + line(32767, "90"));
  const auto d = ev::load_family(ev::family::nats_sss, good.path());
  REQUIRE(d.size() == 3);
  CHECK(d.ids[2] == "64:64:64:64:64");
  CHECK(d.params[2] == 713674); // SOURCE.md
  CHECK(*ev::rank_family(d).params.tau_b == 1.0);
  const fixture bad_acc("nats_acc", header + line(0, "70") + line(1, "101"));
  CHECK_THROWS_WITH(
      ev::load_family(ev::family::nats_sss, bad_acc.path()),
      Contains(
          "line 3 (row 2), column 'cifar10_acc': expected an accuracy in [0, 100] (got '101')"));
  const fixture odd("nats_odd",
                    header + line(0, "70") + "1,8:8:8:8:12,8,8,8,8,12,70,50,20,1,1,1\n");
  CHECK_THROWS_WITH(ev::load_family(ev::family::nats_sss, odd.path()),
                    Contains("must be one of 8, 16, ..., 64"));
  CHECK_THROWS_WITH(ev::load_family(ev::family::nats_sss, "/nonexistent/nats.csv"),
                    Contains("/nonexistent/nats.csv: cannot open file"));
}

TEST_CASE("autoformer-tiny fixture: targets, blanks, permuted layers", "[families][fixture]") {
  const std::string header =
      "arch_id,embed_dim,depth,mlp_ratio_0,mlp_ratio_1,mlp_ratio_2,num_heads_0,num_heads_1,"
      "num_heads_2,c100_kd_acc,imagenet_super_acc\n";
  const fixture good("autoformer", header + "a,192,3,3.5,4.0,3.5,3,4,4,70,74\n" +
                                       "b,192,3,4.0,3.5,3.5,4,3,4,71,73\n" +
                                       "c,240,2,4.0,4.0,,4,4,,,72\n");
  const auto d = ev::load_family(ev::family::autoformer_tiny, good.path());
  REQUIRE(d.size() == 2);
  CHECK(d.skipped == 1);
  CHECK(d.score[0] == d.score[1]); // the same (ratio, heads) layers in another order
  ev::family_options o;
  o.target = "imagenet_super_acc";
  for (const char* conv : {"reference", "official", "framework"}) {
    o.convention = conv;
    const auto im = ev::load_family(ev::family::autoformer_tiny, good.path(), o);
    CHECK(im.size() == 3);
    CHECK(im.score[0] == im.score[1]);
  }
  o = {};
  o.target = "flower_kd_acc";
  CHECK_THROWS_WITH(ev::load_family(ev::family::autoformer_tiny, good.path(), o),
                    Contains("the file's target columns are c100_kd_acc or imagenet_super_acc (got "
                             "flower_kd_acc)"));
  const fixture bad("autoformer_bad", header + "a,192,3,3.5,4.0,3.5,3,4,4,70,74\n" +
                                          "b,192,2,4.0,3.5,3.5,4,3,4,71,73\n");
  CHECK_THROWS_WITH(ev::load_family(ev::family::autoformer_tiny, bad.path()),
                    Contains("row 2: column 'mlp_ratio_2' must be blank past depth 2"));
}
