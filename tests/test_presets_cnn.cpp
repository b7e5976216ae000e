// Tests for nsc/presets/nats_sss.hpp, nsc/presets/mobilenetv3.hpp and nsc/io/nats_sss.hpp.
// Ground truth: the params_computed_* columns of shared/data/nats-bench-sss/nats_sss_32768.csv
// (all 32,768 rows), and tests/data/cnn_reference.csv written by
// tests/reference/gen_cnn_reference.py (50-digit mpmath, networks written out independently).
#include <nsc/io/nats_sss.hpp>
#include <nsc/model/resources.hpp>
#include <nsc/model/score.hpp>
#include <nsc/presets/mobilenetv3.hpp>
#include <nsc/presets/nats_sss.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using Catch::Contains;
using nsc::presets::nats_channels;
using nsc::presets::nats_dataset;
using nsc::presets::nats_sss_options;
using nsc::presets::nats_wiring;

namespace {

using i64 = std::int64_t;

const std::string nats_csv =
    std::string(NSC_SHARED_DATA_DIR) + "/nats-bench-sss/nats_sss_32768.csv";

const std::vector<nsc::io::nats_sss_record>& nats_rows() {
  static const std::vector<nsc::io::nats_sss_record> rows = nsc::io::read_nats_sss(nats_csv);
  return rows;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream is(s);
  while (std::getline(is, cur, sep)) out.push_back(cur);
  return out;
}

std::vector<i64> ints(const std::string& s, char sep) {
  std::vector<i64> out;
  for (const auto& t : split(s, sep)) out.push_back(std::stoll(t));
  return out;
}

struct reference_row {
  std::string family, arch, option1, option2;
  i64 resolution = 0, classes = 0;
  double nsc = 0;
  i64 params = 0;
  double macs = 0;
};

std::vector<reference_row> reference_rows() {
  std::ifstream f(std::string(NSC_TEST_DATA_DIR) + "/cnn_reference.csv");
  REQUIRE(f);
  std::string line;
  std::getline(f, line);
  REQUIRE(line == "family,arch,option1,option2,resolution,classes,nsc,params,macs");
  std::vector<reference_row> rows;
  while (std::getline(f, line)) {
    if (line.empty()) continue;
    const auto c = split(line, ',');
    REQUIRE(c.size() == 9);
    rows.push_back({c[0], c[1], c[2], c[3], std::stoll(c[4]), std::stoll(c[5]), std::stod(c[6]),
                    std::stoll(c[7]), std::stod(c[8])});
  }
  return rows;
}

nsc::presets::ofa_mbv3_arch parse_mbv3(const std::string& s) {
  const auto parts = split(s, '/');
  REQUIRE(parts.size() == 3);
  const auto d = ints(parts[0], '-'), k = ints(parts[1], '-'), e = ints(parts[2], '-');
  REQUIRE(d.size() == 5);
  REQUIRE(k.size() == 20);
  REQUIRE(e.size() == 20);
  nsc::presets::ofa_mbv3_arch a;
  for (std::size_t i = 0; i < 5; ++i) a.depths[i] = d[i];
  for (std::size_t i = 0; i < 20; ++i) {
    a.kernels[i] = k[i];
    a.expand_ratios[i] = e[i];
  }
  return a;
}

nats_dataset dataset_of(i64 classes) {
  return classes == 10    ? nats_dataset::cifar10
         : classes == 100 ? nats_dataset::cifar100
                          : nats_dataset::imagenet16_120;
}

double psi_x(double rows, double cols) { return nsc::psi(rows, cols, nsc::init::xavier_normal()); }

} // namespace

TEST_CASE("read_nats_sss reads all 32,768 rows", "[io][nats]") {
  const auto& rows = nats_rows();
  REQUIRE(rows.size() == 32768);
  CHECK(rows[0].channels == "8:8:8:8:8");
  CHECK(rows[0].index == 0);
  CHECK(rows[0].cifar10_acc == 76.888);
  CHECK(rows[0].params_cifar10 == 11714);
  CHECK(rows[0].params_cifar100 == 12524);
  CHECK(rows[0].params_imagenet16_120 == 12704);
  CHECK(rows[1].channels == "8:8:8:8:16");
  CHECK(rows[32767].channels == "64:64:64:64:64");
  CHECK(rows[32767].params_cifar10 == 713674);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    REQUIRE(rows[i].index == i64(i));
    REQUIRE(rows[i].c == nsc::presets::nats_sss_channels(i));
  }
}

TEST_CASE("read_nats_sss: malformed input names line, row, column and value",
          "[io][nats][errors]") {
  const std::string header =
      "nats_index,channels,c0,c1,c2,c3,c4,cifar10_acc,cifar100_acc,imagenet16_120_acc,"
      "params_computed_cifar10,params_computed_cifar100,params_computed_imagenet16_120\n";
  const std::string good = "0,8:8:8:8:8,8,8,8,8,8,76.888,32.24,16.6,11714,12524,12704\n";
  auto read = [](const std::string& text) {
    std::istringstream is(text);
    return nsc::io::read_nats_sss(is, "t.csv");
  };
  CHECK(read(header + good).size() == 1);
  CHECK(read(header + good + "\n" + good).size() == 2); // blank line skipped
  { // CRLF and reordered / extra columns, no nats_index
    const auto r =
        read("c4,c3,c2,c1,c0,channels,extra,cifar10_acc,cifar100_acc,imagenet16_120_acc,"
             "params_computed_cifar10,params_computed_cifar100,params_computed_imagenet16_120\r\n"
             "16,8,8,8,8,8:8:8:8:16,x,80,42.96,20.5,18386,19916,20256\r\n");
    REQUIRE(r.size() == 1);
    CHECK(r[0].index == 0);
    CHECK(r[0].c == nats_channels{8, 8, 8, 8, 16});
    CHECK(r[0].imagenet16_120_acc == 20.5);
  }
  CHECK_THROWS_AS(read(header + "0,8:8:8:8:8,8,8,8,8x,8,76.888,32.24,16.6,11714,12524,12704\n"),
                  std::invalid_argument);
  CHECK_THROWS_WITH(
      read(header + good + "1,8:8:8:8:8,8,8,8,8x,8,76.888,32.24,16.6,11714,12524,12704\n"),
      Contains("nsc::io::read_nats_sss: t.csv line 3 (row 2), column 'c3': expected an "
               "integer >= 1 (got '8x')"));
  CHECK_THROWS_WITH(read(header + "0,8:8:8:8:8,8,8,8,8,8,76.888,32.24,16.6,11714,12524\n"),
                    Contains("line 2 (row 1): expected 13 fields, got 12"));
  CHECK_THROWS_WITH(
      read(header + "0,8:8:8:8:16,8,8,8,8,8,76.888,32.24,16.6,11714,12524,12704\n"),
      Contains("column 'channels': expected c0:c1:c2:c3:c4 = 8:8:8:8:8 (got '8:8:8:8:16')"));
  CHECK_THROWS_WITH(
      read(header + "0,8:8:8:8:8,8,8,8,8,8,176.9,32.24,16.6,11714,12524,12704\n"),
      Contains("column 'cifar10_acc': expected an accuracy in [0, 100] (got '176.9')"));
  CHECK_THROWS_WITH(read(header + "0,8:8:8:8:8,8,8,8,8,8,76.888,nan,16.6,11714,12524,12704\n"),
                    Contains("column 'cifar100_acc'"));
  CHECK_THROWS_WITH(
      read(header + "0,8:8:8:8:8,8,8,8,8,8,76.888,32.24,,11714,12524,12704\n"),
      Contains("column 'imagenet16_120_acc': expected an accuracy in [0, 100] (got '')"));
  CHECK_THROWS_WITH(
      read(header + "0,8:8:8:8:8,8,8,8,8,8,76.888,32.24,16.6,0,12524,12704\n"),
      Contains("column 'params_computed_cifar10': expected an integer >= 1 (got '0')"));
  CHECK_THROWS_WITH(read(header + "-1,8:8:8:8:8,8,8,8,8,8,76.888,32.24,16.6,1,12524,12704\n"),
                    Contains("column 'nats_index': expected an integer >= 0 (got '-1')"));
  CHECK_THROWS_WITH(read("channels,c0,c1,c2,c3,cifar10_acc\n"),
                    Contains("line 1, column 'c4': missing column"));
  CHECK_THROWS_WITH(read("c0,c0\n"), Contains("column 'c0': duplicate column"));
  CHECK_THROWS_WITH(read("\n\n"), Contains("empty input"));
  CHECK_THROWS_WITH(nsc::io::read_nats_sss(std::string("/nonexistent/nats.csv")),
                    Contains("nsc::io::read_nats_sss: /nonexistent/nats.csv: cannot open file"));
}

TEST_CASE("read_nats_sss: hostile input is bounded and quoted truncated (issue 13)",
          "[io][nats][errors][hostile]") {
  using Catch::Contains;
  const std::string header =
      "nats_index,channels,c0,c1,c2,c3,c4,cifar10_acc,cifar100_acc,imagenet16_120_acc,"
      "params_computed_cifar10,params_computed_cifar100,params_computed_imagenet16_120\n";
  const std::string good = "0,8:8:8:8:8,8,8,8,8,8,76.888,32.24,16.6,11714,12524,12704\n";
  auto read = [](const std::string& text, nsc::io::nats_sss_limits lim = {}) {
    std::istringstream is(text);
    return nsc::io::read_nats_sss(is, "t.csv", lim);
  };
  auto message = [&](const std::string& text, nsc::io::nats_sss_limits lim = {}) {
    try {
      read(text, lim);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // a 10 MB line is refused at the line limit (1 MiB) and quoted truncated, not echoed whole
  const std::string huge = message(header + "0," + std::string(10u << 20, '8') + "\n");
  CHECK_THAT(huge, Contains("t.csv line 2") && Contains("line longer than the limit of 1048576 bytes"));
  CHECK(huge.size() < 400);
  // a row of 900,000 commas is not split into 900,000 fields; the count is still reported
  const std::string commas = message(header + std::string(900000, ',') + "\n");
  CHECK_THAT(commas, Contains("expected 13 fields, got 900001"));
  CHECK(commas.size() < 400);
  // a wide header is refused at the column limit
  std::string wide;
  for (int i = 0; i < 2000; ++i) wide += "col" + std::to_string(i) + ",";
  CHECK_THAT(message(wide + "\n"), Contains("header of 2001 columns exceeds the limit of 1024"));
  // the row limit
  nsc::io::nats_sss_limits two;
  two.max_rows = 2;
  CHECK(read(header + good + good, two).size() == 2);
  CHECK_THAT(message(header + good + good + good, two),
             Contains("line 4 (row 3): more data rows than the limit of 2"));
  // an out-of-range integer and number are errors naming the column, not wrapped values
  CHECK_THAT(message(header + "0,8:8:8:8:8,99999999999999999999,8,8,8,8,76.888,32.24,16.6,1,1,1\n"),
             Contains("column 'c0': expected an integer >= 1 (got '99999999999999999999')"));
  CHECK_THAT(message(header + "0,8:8:8:8:8,8,8,8,8,8,1e400,32.24,16.6,1,1,1\n"),
             Contains("column 'cifar10_acc'"));
  // the path overload names the path: a directory, a missing file
  CHECK_THROWS_WITH(nsc::io::read_nats_sss(std::string(NSC_SOURCE_DIR) + "/tests"),
                    Contains("nsc::io::read_nats_sss: ") && Contains("/tests: is a directory"));
}

TEST_CASE("NATS-SSS indexing and arch strings", "[nats]") {
  using namespace nsc::presets;
  CHECK(nats_sss_channels(0) == nats_channels{8, 8, 8, 8, 8});
  CHECK(nats_sss_channels(1) == nats_channels{8, 8, 8, 8, 16});
  CHECK(nats_sss_channels(8) == nats_channels{8, 8, 8, 16, 8});
  CHECK(nats_sss_channels(32767) == nats_channels{64, 64, 64, 64, 64});
  for (std::size_t i = 0; i < nats_sss_size; i += 97)
    CHECK(nats_sss_index(nats_sss_channels(i)) == i);
  CHECK(nats_sss_arch_string({8, 16, 24, 32, 64}) == "8:16:24:32:64");
  CHECK(parse_nats_sss_arch("8:16:24:32:64") == nats_channels{8, 16, 24, 32, 64});
  CHECK_THROWS_WITH(parse_nats_sss_arch("8:16:24:32"), Contains("five positive integers"));
  CHECK_THROWS_WITH(parse_nats_sss_arch("8:16:24:32:64:8"), Contains("five positive integers"));
  CHECK_THROWS_WITH(parse_nats_sss_arch("8:16:x:32:64"), Contains("five positive integers"));
  CHECK_THROWS_WITH(parse_nats_sss_arch("8:0:8:8:8"), Contains("channels must be >= 1"));
  CHECK_THROWS_WITH(nats_sss_index({8, 8, 12, 8, 8}),
                    Contains("c2 must be one of 8, 16, ..., 64 (got 12)"));
  CHECK_THROWS_WITH(nats_sss_channels(32768), Contains("index must be < 32768"));
  CHECK(parse_nats_dataset("ImageNet16-120") == nats_dataset::imagenet16_120);
  CHECK(parse_nats_wiring("reference_code") == nats_wiring::reference_code);
  CHECK_THROWS_WITH(parse_nats_dataset("svhn"), Contains("unknown dataset"));
  CHECK(nats_classes(nats_dataset::cifar100) == 100);
  CHECK(nats_resolution(nats_dataset::imagenet16_120) == 16);
}

TEST_CASE("NATS-SSS network layout: 64:64:64:64:64 on CIFAR-10", "[nats]") {
  using namespace nsc::presets;
  const nsc::network net = nats_sss_network({64, 64, 64, 64, 64});
  REQUIRE(net.layers.size() == 7);
  for (std::size_t i = 0; i < 7; ++i)
    CHECK(net.layers[i].name == std::string(nats_sss_slot_names[i]));
  CHECK(net.per == "image");
  const nsc::resources r = nsc::count(net);
  CHECK(r.total() == 713674);
  // MACs: stem and cell0 at 32x32, resblock1 and cell2 at 16x16, resblock3 and cell4 at 8x8.
  const double expect = 27.0 * 64 * 1024 + 5 * 36864.0 * 1024 + (2 * 36864.0 + 4096) * 256 +
                        5 * 36864.0 * 256 + (2 * 36864.0 + 4096) * 64 + 5 * 36864.0 * 64 + 640;
  CHECK(r.macs == expect);
  CHECK(r.macs == 274399872.0);
  // ImageNet16-120 at 16x16: a quarter of the conv MACs.
  const nsc::resources q =
      nsc::count(nats_sss_network({64, 64, 64, 64, 64}, {nats_dataset::imagenet16_120}));
  CHECK(q.macs == (expect - 640) / 4 + 64 * 120);
  // The reference scoring: convs as (c_out, c_in k^2), classifier psi_X(10, 64).
  const nsc::network_score ns = nsc::score(net, nats_sss_scoring());
  const double cell = 5 * psi_x(64, 576);
  const double block = 2 * psi_x(64, 576) + psi_x(64, 64);
  CHECK(ns.nsc == Approx(psi_x(64, 27) + 3 * cell + 2 * block + psi_x(10, 64)).epsilon(1e-13));
  CHECK(ns.part_total(nsc::part::head) == Approx(psi_x(10, 64)).epsilon(1e-14));
  // The preset bundles the network and the reference scoring.
  const preset p = nats_sss({64, 64, 64, 64, 64});
  CHECK(p.nsc_score() == ns.nsc);
  CHECK(p.cost().total() == 713674);
  // Without score_embeddings the classifier drops out.
  nsc::scoring no_head = nats_sss_scoring();
  no_head.score_embeddings = false;
  CHECK(nsc::score(net, no_head).nsc == Approx(ns.nsc - psi_x(10, 64)).epsilon(1e-13));
}

TEST_CASE("NATS-SSS params: all 32,768 rows x 3 datasets, both skip protocols", "[nats][params]") {
  using namespace nsc::presets;
  const auto& rows = nats_rows();
  REQUIRE(rows.size() == 32768);
  for (nsc::nats_skip skip : {nsc::nats_skip::conv1x1, nsc::nats_skip::factorized_reduce}) {
    for (nats_dataset d :
         {nats_dataset::cifar10, nats_dataset::cifar100, nats_dataset::imagenet16_120}) {
      nats_sss_options o;
      o.dataset = d;
      o.skip = skip;
      std::size_t mismatches = 0;
      for (const auto& row : rows) {
        const i64 expect = d == nats_dataset::cifar10    ? row.params_cifar10
                           : d == nats_dataset::cifar100 ? row.params_cifar100
                                                         : row.params_imagenet16_120;
        if (nsc::count(nats_sss_network(row.c, o)).total() != expect) ++mismatches;
      }
      INFO("skip " << nsc::to_string(skip) << ", dataset " << to_string(d));
      CHECK(mismatches == 0);
    }
  }
}

TEST_CASE("NATS-SSS fast path equals the full network for all 32,768 architectures",
          "[nats][fast]") {
  using namespace nsc::presets;
  struct setting {
    nats_dataset d;
    nsc::nats_skip skip;
    nats_wiring w;
  };
  for (const setting& st :
       {setting{nats_dataset::cifar10, nsc::nats_skip::conv1x1, nats_wiring::xautodl},
        setting{nats_dataset::cifar10, nsc::nats_skip::factorized_reduce, nats_wiring::xautodl},
        setting{nats_dataset::imagenet16_120, nsc::nats_skip::factorized_reduce,
                nats_wiring::reference_code}}) {
    nats_sss_options o;
    o.dataset = st.d;
    o.skip = st.skip;
    o.wiring = st.w;
    const nsc::scoring s = nats_sss_scoring();
    const nats_sss_table table(o, s);
    const std::vector<double> all = table.score_all();
    REQUIRE(all.size() == nats_sss_size);
    std::size_t score_diff = 0, params_diff = 0, macs_diff = 0, all_diff = 0, layer_diff = 0;
    for (std::size_t i = 0; i < nats_sss_size; ++i) {
      const nats_channels c = nats_sss_channels(i);
      const nsc::network net = nats_sss_network(c, o);
      const nsc::network_score ns = nsc::score(net, s); // uncached
      const nsc::resources r = nsc::count(net);
      if (ns.nsc != table.score(c)) ++score_diff; // bit for bit
      if (all[i] != ns.nsc) ++all_diff;
      if (r.total() != table.params(c)) ++params_diff;
      if (r.macs != table.macs(c)) ++macs_diff;
      const auto wiring = nats_sss_wiring(o.wiring);
      for (std::size_t slot = 0; slot < nats_sss_slots; ++slot) {
        const i64 ci = wiring[slot].in < 0 ? 3 : c[std::size_t(wiring[slot].in)];
        const i64 co = wiring[slot].out < 0 ? o.num_classes() : c[std::size_t(wiring[slot].out)];
        if (table.layer_score(slot, ci, co) != ns.layers[slot].nsc) ++layer_diff;
      }
    }
    INFO("dataset " << to_string(st.d) << ", skip " << nsc::to_string(st.skip) << ", wiring "
                    << to_string(st.w));
    CHECK(score_diff == 0);
    CHECK(all_diff == 0);
    CHECK(params_diff == 0);
    CHECK(macs_diff == 0);
    CHECK(layer_diff == 0);
  }
  // A shared cache changes nothing.
  nsc::psi_cache cache;
  const nats_sss_table cached({}, nats_sss_scoring(), &cache);
  CHECK(cache.size() > 0);
  CHECK(cached.score({8, 64, 16, 56, 24}) == nats_sss_table().score({8, 64, 16, 56, 24}));
  CHECK_THROWS_WITH(cached.score({8, 64, 16, 56, 20}),
                    Contains("c4 must be one of 8, 16, ..., 64"));
  CHECK_THROWS_WITH(cached.layer_score(7, 8, 8), Contains("slot must be < 7"));
}

TEST_CASE("NATS-SSS wirings and protocols", "[nats]") {
  using namespace nsc::presets;
  // Uniform channels: the two wirings build the same network.
  nats_sss_options ref;
  ref.wiring = nats_wiring::reference_code;
  for (i64 w : {8, 32, 64}) {
    const nats_channels c{w, w, w, w, w};
    CHECK(nsc::score(nats_sss_network(c), nats_sss_scoring()).nsc ==
          nsc::score(nats_sss_network(c, ref), nats_sss_scoring()).nsc);
  }
  // Otherwise they differ; the reference wiring's cells are (c0, c1), (c2, c3), (c4, c4).
  const nsc::network a = nats_sss_network({8, 16, 24, 32, 40}, ref);
  CHECK(a.layers[1].weights[0].in == 8);
  CHECK(a.layers[1].weights[0].out == 16);
  CHECK(a.layers[5].weights[0].in == 40);
  const nsc::network b = nats_sss_network({8, 16, 24, 32, 40});
  CHECK(b.layers[1].weights[0].out == 8);
  CHECK(b.layers[5].weights[0].in == 32);
  // Options validation.
  nats_sss_options bad;
  bad.resolution = 30;
  CHECK_THROWS_WITH(nats_sss_network({8, 8, 8, 8, 8}, bad), Contains("divisible by 4"));
  CHECK_THROWS_WITH(nats_sss_table(bad), Contains("divisible by 4"));
  bad.resolution = 0;
  bad.classes = -2;
  CHECK_THROWS_WITH(nats_sss_network({8, 8, 8, 8, 8}, bad), Contains("classes must be >= 0"));
  CHECK_THROWS_WITH(nats_sss_network({8, 0, 8, 8, 8}), Contains("c1 must be >= 1"));
  CHECK_THROWS_WITH(nats_sss_layer(0, 4, 8, 32), Contains("the stem's c_in must be 3"));
  // Non-space channels still build (the full builder is general).
  CHECK(nsc::count(nats_sss_network({3, 5, 7, 9, 11})).total() > 0);
}

TEST_CASE("CNN presets match the independent Python reference", "[nats][mbv3][reference]") {
  const auto rows = reference_rows();
  REQUIRE(rows.size() >= 100);
  std::size_t n_nats = 0, n_mbv3 = 0;
  for (const auto& r : rows) {
    INFO(r.family << " " << r.arch << " " << r.option1 << " " << r.option2 << " res "
                  << r.resolution << " classes " << r.classes);
    if (r.family == "nats") {
      ++n_nats;
      nats_sss_options o;
      o.dataset = dataset_of(r.classes);
      o.skip = nsc::parse_nats_skip(r.option1);
      o.wiring = nsc::presets::parse_nats_wiring(r.option2);
      REQUIRE(o.input_resolution() == r.resolution);
      const nats_channels c = nsc::presets::parse_nats_sss_arch(r.arch);
      const nsc::network net = nsc::presets::nats_sss_network(c, o);
      const double got = nsc::score(net, nsc::presets::nats_sss_scoring()).nsc;
      CHECK(std::abs(got - r.nsc) <= 1e-12 * r.nsc);
      CHECK(nsc::count(net).total() == r.params);
      CHECK(nsc::count(net).macs == r.macs);
      const nsc::presets::nats_sss_table table(o);
      CHECK(std::abs(table.score(c) - r.nsc) <= 1e-12 * r.nsc);
    } else {
      REQUIRE(r.family == "mbv3");
      ++n_mbv3;
      nsc::presets::mobilenetv3_options o;
      o.indexing = nsc::presets::parse_mbv3_indexing(r.option1);
      o.variant = nsc::presets::parse_mbv3_variant(r.option2);
      o.resolution = r.resolution;
      o.classes = r.classes;
      const nsc::network net = nsc::presets::mobilenetv3_network(parse_mbv3(r.arch), o);
      const nsc::scoring s = o.variant == nsc::presets::mbv3_variant::reference
                                 ? nsc::presets::mobilenetv3_reference_scoring()
                                 : nsc::presets::mobilenetv3_faithful_scoring();
      const double got = nsc::score(net, s).nsc;
      CHECK(std::abs(got - r.nsc) <= 1e-12 * r.nsc);
      CHECK(nsc::count(net).total() == r.params);
      CHECK(nsc::count(net).macs == r.macs);
    }
  }
  CHECK(n_nats >= 100);
  CHECK(n_mbv3 >= 32);
}

TEST_CASE("MobileNetV3: reference layout, running vs OFA-slot indexing", "[mbv3]") {
  using namespace nsc::presets;
  ofa_mbv3_arch a = ofa_mbv3_arch::uniform(4, 5, 4);
  const nsc::network ref = mobilenetv3_network(a);
  // stem + 20 blocks + final_expand + feature_mix + classifier
  REQUIRE(ref.layers.size() == 24);
  CHECK(ref.layers[0].name == "stem");
  CHECK(ref.layers[1].name == "stage0.block0");
  CHECK(ref.layers[20].name == "stage4.block3");
  CHECK(ref.layers[23].name == "classifier");
  // The reference formula, term by term.
  const nsc::scoring s = mobilenetv3_reference_scoring();
  double expect = psi_x(16, 27);
  i64 in = 16;
  for (i64 out : {24, 40, 80, 112, 160}) {
    for (int j = 0; j < 4; ++j) {
      const i64 bin = j == 0 ? in : out, mid = bin * 4;
      expect += psi_x(double(mid), double(bin)) + double(mid) * psi_x(1, 25) +
                psi_x(double(out), double(mid));
    }
    in = out;
  }
  expect += psi_x(960, 160) + psi_x(1280, 960) + psi_x(1000, 1280);
  CHECK(nsc::score(ref, s).nsc == Approx(expect).epsilon(1e-13));
  CHECK(mobilenetv3(a).nsc_score() == nsc::score(ref, s).nsc);
  mobilenetv3_options f;
  f.variant = mbv3_variant::ofa_faithful;
  CHECK(mobilenetv3(a, f).rule.source == nsc::variance_source::tensor);
  for (const auto& l : ref.layers)
    for (const auto& w : l.weights) CHECK(w.name.find("se.") == std::string::npos);

  // All depths 4: both indexings agree.
  for (std::size_t i = 0; i < 20; ++i) {
    a.kernels[i] = 3 + 2 * i64(i % 3);
    a.expand_ratios[i] = i % 2 ? 6 : 3;
  }
  mobilenetv3_options slot;
  slot.indexing = mbv3_indexing::ofa_slot;
  CHECK(nsc::score(mobilenetv3_network(a), s).nsc ==
        nsc::score(mobilenetv3_network(a, slot), s).nsc);
  // Depth 2 in stage 0: stage 1 block 0 reads entry 2 (running) vs 4 (OFA slot).
  a.depths = {2, 3, 4, 2, 3};
  CHECK(mobilenetv3_block_slot(a, 1, 0, mbv3_indexing::running) == 2);
  CHECK(mobilenetv3_block_slot(a, 1, 0, mbv3_indexing::ofa_slot) == 4);
  CHECK(mobilenetv3_block_slot(a, 4, 2, mbv3_indexing::running) == 2 + 3 + 4 + 2 + 2);
  CHECK(mobilenetv3_block_slot(a, 4, 2, mbv3_indexing::ofa_slot) == 18);
  const nsc::network run_net = mobilenetv3_network(a);
  const nsc::network slot_net = mobilenetv3_network(a, slot);
  CHECK(run_net.layers.size() == 1 + 14 + 3);
  // stage1.block0 is layer 3: kernel from entry 2 (7) vs entry 4 (5).
  CHECK(run_net.layers[3].name == "stage1.block0");
  CHECK(run_net.layers[3].weights[1].kernel_h == a.kernels[2]);
  CHECK(slot_net.layers[3].weights[1].kernel_h == a.kernels[4]);
  CHECK(nsc::score(run_net, s).nsc != nsc::score(slot_net, s).nsc);
}

TEST_CASE("MobileNetV3: OFA-faithful variant has SE where OFA has it", "[mbv3]") {
  using namespace nsc::presets;
  mobilenetv3_options o;
  o.variant = mbv3_variant::ofa_faithful;
  o.indexing = mbv3_indexing::ofa_slot;
  const nsc::network net = mobilenetv3_network(ofa_mbv3_arch::uniform(2, 3, 3), o);
  REQUIRE(net.layers.size() == 1 + 1 + 10 + 3);
  CHECK(net.layers[1].name == "first_block");
  CHECK(net.layers[1].weights.size() == 2); // depthwise + project, no expand
  for (const auto& l : net.layers) {
    if (l.name.rfind("stage", 0) != 0) continue;
    const int stage = l.name[5] - '0';
    bool se = false;
    for (const auto& w : l.weights) se = se || w.name == "se.reduce";
    INFO(l.name);
    CHECK(se == ofa_mbv3_se_stages[std::size_t(stage)]);
  }
  // stage1.block0: in 24, e 3 -> mid 72, SE hidden make_divisible(18, 8) = 24, at 28 -> 14 (k3 s2).
  const nsc::layer& b = net.layers[4];
  REQUIRE(b.name == "stage1.block0");
  CHECK(nsc::count(b).total() ==
        24 * 72 + 144 + 72 * 9 + 144 + (72 * 24 + 24 + 24 * 72 + 72) + 72 * 40 + 80);
  // Resolution arithmetic: 224 -> 112 (stem) -> 56 -> 28 -> 14 -> 14 -> 7.
  CHECK(net.layers[net.layers.size() - 3].weights[0].applications == 49);
  // Validation.
  ofa_mbv3_arch bad = ofa_mbv3_arch::uniform(4, 3, 3);
  bad.depths[2] = 5;
  CHECK_THROWS_WITH(mobilenetv3_network(bad), Contains("stage 2: depth must be in 1..4 (got 5)"));
  bad = ofa_mbv3_arch::uniform(4, 3, 3);
  bad.kernels[6] = 4;
  CHECK_THROWS_WITH(mobilenetv3_network(bad),
                    Contains("stage 1 block 2 (entry 6): kernel must be odd"));
  bad = ofa_mbv3_arch::uniform(4, 3, 3);
  bad.expand_ratios[19] = 0;
  CHECK_THROWS_WITH(mobilenetv3_network(bad),
                    Contains("stage 4 block 3 (entry 19): expand ratio must be >= 1"));
  mobilenetv3_options r0;
  r0.resolution = 0;
  CHECK_THROWS_WITH(mobilenetv3_network(ofa_mbv3_arch{}, r0), Contains("resolution must be >= 1"));
  CHECK(parse_mbv3_indexing("ofa_slot") == mbv3_indexing::ofa_slot);
  CHECK_THROWS_WITH(parse_mbv3_variant("torchvision"), Contains("unknown variant"));
}
