/// \file nsc/io/rank_table.hpp
/// A table of architectures with a measured quality -> the generic ranking's rows
/// (nsc::eval::ranking_input, ranked by nsc/eval/rank_scores.hpp). The engine of
/// `nsc rank --table FILE`. Needs nlohmann-json (an optional part like every nsc/io header).
///
/// Synopsis
///
///     table_rank_options  arch_column ("arch"), target (required), lower_is_better, id_column,
///                         estimator / init overrides, seq_len, baselines, params_source
///     rank_table_rows(table, base_dir, options)  -> rank_table_data {input, kinds, skipped}
///     read_rank_table(path, options)             read_table_file + rank_table_rows
///     classify_architecture(cell)                -> architecture_kind
///     score_architecture(cell, base_dir, ...)    -> table_architecture {nsc, params, flops, ...}
///
/// The architecture cell of a row is one of (classify_architecture; blanks trimmed):
///   1. a path, when the cell does not start with '{': a JSON file, relative to the table's
///      directory unless absolute. A file with "model_type" is a Hugging Face config.json
///      (nsc::read_hf_config_file: llama, mistral, qwen2, gpt2, bert, opt, ... whatever
///      nsc/io/hf_config.hpp reads); otherwise it is read as nsc's architecture JSON (3.).
///      Files are read once per distinct path.
///   2. an inline Hugging Face config: a JSON object with "model_type" (nsc::read_hf_config).
///   3. nsc's architecture JSON: the `transformer` object of a SPACE.json
///      (nsc/io/search_space.hpp, read by nsc::io::read_search_space) with exactly one option
///      per layer, e.g. {"d_model": 512, "layers": [[{"d_ff": 2048, "n_heads": 8}], ...],
///      "block": {...}, "scoring": {...}}, or a whole SPACE.json {"transformer": {...}}.
///      ("choices" with n_layers and one choice is the homogeneous form.)
/// JSON cells are parsed with nsc::io::parse_json (depth limit) naming "row R, column C".
///
/// What each row contributes (NSC is order_free_score: rows with the same multiset of blocks
/// tie exactly, whatever the order of their layers):
///   Hugging Face   network hf_network(config, seq_len) (embeddings and LM head counted, not
///                  scored); scoring by default the paper's (Xavier-normal of each block,
///                  psi_MP), as `nsc score`; params total(), params_non_embedding
///                  non_embedding(), flops per token at seq_len (--seq-len, default 256).
///   nsc JSON       the layers only (no embeddings): each make_block of the space's base block
///                  with the row's option; scoring the JSON's "scoring" (default Xavier-normal
///                  of each block, psi_MP); params = params_non_embedding = the layers' total;
///                  flops per token at the JSON's seq_len (default 256), as nsc search does.
/// Overrides for every row: `est` (psi_MP | psi_FS) and `init`: a torch.nn.init name
/// (parse_init_kind: variance of each block, as `nsc score --init NAME`; normal and
/// truncated_normal take the config's initializer_range as std, 0.02 for nsc JSON) or "hf"
/// (Hugging Face configs only: normal(initializer_range) with the variance of the tensor).
///
/// Columns: the target must be a finite number (blank: the row is skipped and counted); with
/// lower_is_better the truth is its negative. Baselines: "params", "params_non_embedding",
/// "flops" (computed as above) or the name of a numeric column of the table (a blank cell is an
/// error; higher is taken to predict better). #Params and #FLOPs are also the controls of the
/// 10%-PW and partial tau. params_source "computed" (default) uses nsc's count; "data" uses the
/// table's `params_column` (default "params") instead, as #Params baseline and control.
///
/// Limits: at most `max_layers` (4096) layers per architecture, checked before the network is
/// built; the table's own limits (nsc/io/table.hpp) and the JSON depth limit of parse_json.
///
/// Errors: std::invalid_argument "nsc::io::rank_table_rows: <source>: row R, column C: <rule>"
/// (missing columns, non-numeric values, an architecture that cannot be read: the reader's own
/// message follows), and those of the readers.
#ifndef NSC_IO_RANK_TABLE_HPP
#define NSC_IO_RANK_TABLE_HPP

#include <nsc/error_handling.hpp>
#include <nsc/eval/order_free.hpp>
#include <nsc/eval/rank_scores.hpp>
#include <nsc/io/hf_config.hpp>
#include <nsc/io/input_file.hpp>
#include <nsc/io/search_space.hpp>
#include <nsc/io/table.hpp>
#include <nsc/model/network.hpp>
#include <nsc/model/resources.hpp>
#include <nsc/model/score.hpp>
#include <nsc/model/transformer.hpp>
#include <nsc/spectral/init.hpp>
#include <nsc/spectral/psi.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nsc::io {

/// What an architecture cell is (see the file comment).
enum class architecture_kind { config_path, hf_config, nsc_architecture };

/// "path", "hf_config", "nsc_architecture".
constexpr std::string_view to_string(architecture_kind k) noexcept {
  return k == architecture_kind::config_path ? "path"
         : k == architecture_kind::hf_config ? "hf_config"
                                             : "nsc_architecture";
}

/// Settings of rank_table_rows (see the file comment).
struct table_rank_options {
  std::string arch_column = "arch";
  std::string target;
  bool lower_is_better = false;
  std::string id_column;            ///< "" = "row R"
  std::optional<estimator> est;     ///< overrides every row's estimator
  std::string init;                 ///< "" = each kind's default; a parse_init_kind name or "hf"
  double seq_len = 256;             ///< T of Hugging Face configs' FLOPs
  std::vector<std::string> baselines{"params", "flops"};
  std::string params_source = "computed"; ///< or "data": the column params_column
  std::string params_column = "params";
  /// Layers per architecture (checked before the network is built; nsc JSON: before the space
  /// is read): far above any real model (Llama-3-405B has 126), far below what exhausts memory.
  std::size_t max_layers = 4096;
};

/// One scored architecture.
struct table_architecture {
  architecture_kind kind = architecture_kind::nsc_architecture;
  double nsc = 0;
  std::int64_t params = 0;
  std::int64_t params_non_embedding = 0;
  double flops = 0; ///< per token
};

/// The rows of a table ready for nsc::eval::rank_scores.
struct rank_table_data {
  std::string source;
  eval::ranking_input input;
  std::vector<architecture_kind> kinds; ///< per ranked row
  std::size_t skipped = 0;              ///< rows whose target is blank
  std::size_t count(architecture_kind k) const {
    std::size_t c = 0;
    for (architecture_kind x : kinds) c += x == k;
    return c;
  }
};

/// The kind of an architecture cell: a path unless it starts with '{' (after blanks); a JSON
/// object with "model_type" is a Hugging Face config, any other object nsc's architecture JSON.
/// Only the text is inspected for the path / JSON decision; `parsed` (when given) decides
/// between the two JSON kinds.
inline architecture_kind classify_architecture(std::string_view cell,
                                               const nlohmann::json* parsed = nullptr) {
  cell = trim_blanks(cell);
  if (cell.empty() || cell.front() != '{') return architecture_kind::config_path;
  if (parsed && parsed->is_object() && parsed->contains("model_type"))
    return architecture_kind::hf_config;
  return architecture_kind::nsc_architecture;
}

namespace detail::rank_table {

inline constexpr std::string_view fn = "nsc::io::rank_table_rows";

/// A scoring from an init name (as nsc score --init NAME, variance of each block).
inline init named_init(std::string_view name, double std_dev) {
  switch (parse_init_kind(name)) {
  case init_kind::xavier_normal: return init::xavier_normal();
  case init_kind::xavier_uniform: return init::xavier_uniform();
  case init_kind::kaiming_normal: return init::kaiming_normal();
  case init_kind::kaiming_uniform: return init::kaiming_uniform();
  case init_kind::torch_default: return init::torch_default();
  case init_kind::normal: return init::normal(std_dev);
  case init_kind::truncated_normal: return init::truncated_normal(std_dev);
  case init_kind::orthogonal: return init::orthogonal();
  }
  return init::xavier_normal();
}

/// Scores and costs a network (NSC order-free).
inline table_architecture measure(const network& net, const scoring& s, psi_cache& cache,
                                  architecture_kind k, bool layers_only) {
  table_architecture a;
  a.kind = k;
  a.nsc = eval::order_free_score(net, s, &cache);
  const resources r = count(net);
  a.params = r.total();
  a.params_non_embedding = layers_only ? r.total() : r.non_embedding();
  a.flops = r.flops();
  // a safety net until every count is checked arithmetic: a wrapped count is never ranked
  if (a.params < 0 || a.params_non_embedding < 0 || !(a.flops >= 0) || !std::isfinite(a.flops) ||
      !std::isfinite(a.nsc))
    throw std::invalid_argument("the architecture's counts overflow (params " +
                                std::to_string(a.params) + ", FLOPs " + std::to_string(a.flops) + ")");
  return a;
}

/// Scorer with the caches of one table.
class scorer {
public:
  scorer(std::filesystem::path base_dir, const table_rank_options& o)
      : base_(std::move(base_dir)), o_(o) {}

  table_architecture hf(const hf_model& m, architecture_kind k, const std::string& where) {
    scoring s;
    if (o_.init == "hf") {
      s = hf_scoring(m, o_.est.value_or(estimator::mp));
    } else {
      s.source = variance_source::block;
      s.initialisation =
          o_.init.empty() ? init::xavier_normal() : named_init(o_.init, m.initializer_range);
      if (o_.est) s.est = *o_.est;
    }
    const std::int64_t layers = total_layers(m.spec); // runs of identical layers count repeat times
    if (layers > std::int64_t(o_.max_layers))
      throw_invalid_argument(fn, where + ": a Hugging Face config with " + std::to_string(layers) +
                                     " layers exceeds the limit of " + std::to_string(o_.max_layers));
    try {
      return measure(hf_network(m, o_.seq_len), s, cache_, k, false);
    } catch (const std::invalid_argument& e) {
      throw_invalid_argument(fn, where + ": " + e.what());
    }
  }

  table_architecture nsc_json(const nlohmann::json& j, const std::string& where,
                              architecture_kind k) {
    const nlohmann::json& tj = j.is_object() && j.contains("transformer") ? j["transformer"] : j;
    if (tj.is_object()) {
      const auto nl = tj.find("n_layers");
      const auto ls = tj.find("layers");
      const bool counted = nl != tj.end() && nl->is_number();
      const bool listed = ls != tj.end() && ls->is_array();
      const double layers = counted ? nl->get<double>() : listed ? double(ls->size()) : 0.0;
      if (layers > double(o_.max_layers))
        throw_invalid_argument(fn, where + ": an architecture of " +
                                       (counted ? json_excerpt(*nl) : std::to_string(ls->size())) +
                                       " layers exceeds the limit of " + std::to_string(o_.max_layers));
    }
    nlohmann::json space;
    if (j.is_object() && j.contains("transformer"))
      space = j;
    else
      space = nlohmann::json{{"transformer", j}};
    const search_space_file f = read_search_space(space, where);
    if (f.type != search_space_file::kind::transformer)
      throw_invalid_argument(fn, where + ": an architecture must be a transformer object");
    const search::transformer_space& sp = f.transformer;
    network net;
    net.layers.reserve(sp.layers.size());
    for (std::size_t i = 0; i < sp.layers.size(); ++i) {
      if (sp.layers[i].size() != 1)
        throw_invalid_argument(fn, where + ": an architecture needs exactly one option per layer "
                                           "(layer " + std::to_string(i) + " has " +
                                       std::to_string(sp.layers[i].size()) + ")");
      net.layers.push_back(make_block(search::transformer_space_block(sp, sp.layers[i][0]),
                                      double(sp.seq_len), "layers." + std::to_string(i)));
    }
    scoring s = sp.rule;
    if (o_.init == "hf")
      throw_invalid_argument(fn, where + ": --init hf needs a Hugging Face config (it reads "
                                         "initializer_range); this is nsc's architecture JSON");
    if (!o_.init.empty()) {
      s.initialisation = named_init(o_.init, 0.02);
      s.source = variance_source::block;
    }
    if (o_.est) s.est = *o_.est;
    try {
      return measure(net, s, cache_, k, true);
    } catch (const std::invalid_argument& e) {
      throw_invalid_argument(fn, where + ": " + e.what());
    }
  }

  table_architecture cell(std::string_view text, const std::string& where) {
    text = trim_blanks(text);
    if (text.empty()) throw_invalid_argument(fn, where + ": the architecture cell is blank");
    if (classify_architecture(text) == architecture_kind::config_path) return path(text, where);
    const nlohmann::json j = parse_json(text, fn, where);
    if (!j.is_object())
      throw_invalid_argument(fn, where + ": an inline architecture must be a JSON object (got " +
                                     json_excerpt(j) + ")");
    if (classify_architecture(text, &j) == architecture_kind::hf_config)
      return hf(read_hf_config(j), architecture_kind::hf_config, where);
    return nsc_json(j, where, architecture_kind::nsc_architecture);
  }

private:
  table_architecture path(std::string_view text, const std::string& where) {
    std::filesystem::path p{std::string(text)};
    if (p.is_relative()) p = base_ / p;
    const std::string key = p.lexically_normal().string();
    auto it = files_.find(key);
    if (it != files_.end()) return it->second;
    const nlohmann::json j = read_json_file(p, fn);
    table_architecture a;
    if (j.is_object() && j.contains("model_type"))
      a = hf(read_hf_config_file(p), architecture_kind::config_path, where + " (" + p.string() + ")");
    else
      a = nsc_json(j, where + " (" + p.string() + ")", architecture_kind::config_path);
    files_.emplace(key, a);
    return a;
  }

  std::filesystem::path base_;
  const table_rank_options& o_;
  psi_cache cache_;
  std::map<std::string, table_architecture> files_;
};

} // namespace detail::rank_table

/// Scores one architecture cell (see the file comment); `where` names it in errors,
/// `base_dir` resolves relative paths.
inline table_architecture score_architecture(std::string_view cell,
                                             const std::filesystem::path& base_dir,
                                             const table_rank_options& o = {},
                                             const std::string& where = "<cell>") {
  detail::rank_table::scorer s(base_dir, o);
  return s.cell(cell, where);
}

/// The ranking rows of table `t` (see the file comment); relative paths resolve against
/// `base_dir`.
inline rank_table_data rank_table_rows(const table& t, const std::filesystem::path& base_dir,
                                       const table_rank_options& o) {
  namespace rt = detail::rank_table;
  const std::string pre = t.source;
  auto fail = [&](const std::string& what) { throw_invalid_argument(rt::fn, pre + ": " + what); };
  auto need = [&](const std::string& name, const char* role) {
    const auto c = t.column(name);
    if (!c) {
      std::string have;
      for (std::size_t i = 0; i < t.columns.size() && i < 20; ++i)
        have.append(i ? ", " : "").append(excerpt(t.columns[i], 40));
      if (t.columns.size() > 20) have += ", ...";
      fail(std::string("no ") + role + " column '" + excerpt(name) + "' (the columns are " + have + ")");
    }
    return *c;
  };
  if (o.target.empty()) fail("a target column is required");
  if (o.params_source != "computed" && o.params_source != "data")
    fail("params source must be data or computed (got " + excerpt(o.params_source) + ")");
  if (!(o.seq_len >= 1 && std::isfinite(o.seq_len)))
    fail("seq_len must be finite and >= 1 (got " + std::to_string(o.seq_len) + ")");
  const std::size_t arch_col = need(o.arch_column, "architecture");
  const std::size_t target_col = need(o.target, "target");
  constexpr std::size_t none = std::size_t(-1);
  const std::size_t id_col = o.id_column.empty() ? none : need(o.id_column, "id");
  const std::size_t params_col = o.params_source == "data" ? need(o.params_column, "params") : none;
  enum class src { params, params_ne, flops, column };
  struct base_spec {
    std::string name;
    src from;
    std::size_t col = 0;
  };
  std::vector<base_spec> bases;
  for (const std::string& b : o.baselines) {
    for (const base_spec& x : bases)
      if (x.name == b) fail("baseline '" + excerpt(b) + "' is given twice");
    if (b == "params") bases.push_back({b, src::params});
    else if (b == "params_non_embedding") bases.push_back({b, src::params_ne});
    else if (b == "flops") bases.push_back({b, src::flops});
    else bases.push_back({b, src::column, need(b, "baseline")});
  }

  rank_table_data d;
  d.source = t.source;
  eval::ranking_input& in = d.input;
  in.baselines.resize(bases.size());
  for (std::size_t k = 0; k < bases.size(); ++k) in.baselines[k].name = bases[k].name;
  rt::scorer sc(base_dir, o);
  auto number = [&](std::size_t row, std::size_t col) {
    const std::string& text = t.cell(row, col);
    const auto v = detail::parse_number(text);
    if (!v)
      fail("row " + std::to_string(row + 1) + ", column " + t.columns[col] +
           ": must be a finite number (got \"" + excerpt(text) + "\")");
    return *v;
  };
  for (std::size_t row = 0; row < t.size(); ++row) {
    if (detail::trim(t.cell(row, target_col)).empty()) {
      ++d.skipped;
      continue;
    }
    const double target = number(row, target_col);
    const std::string where = pre + ": row " + std::to_string(row + 1) + ", column " + t.columns[arch_col];
    table_architecture a;
    try {
      a = sc.cell(t.cell(row, arch_col), where);
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      if (what.find(where) != std::string::npos) throw;
      throw std::invalid_argument(std::string(rt::fn) + ": " + where + ": " + what);
    } catch (const std::domain_error& e) {
      throw std::domain_error(std::string(rt::fn) + ": " + where + ": " + e.what());
    }
    const double params = params_col != none ? number(row, params_col) : double(a.params);
    in.ids.push_back(id_col != none ? t.cell(row, id_col) : "row " + std::to_string(row + 1));
    in.score.push_back(a.nsc);
    in.truth.push_back(o.lower_is_better ? -target : target);
    in.params.push_back(params);
    in.flops.push_back(a.flops);
    for (std::size_t k = 0; k < bases.size(); ++k) {
      double v = 0;
      switch (bases[k].from) {
      case src::params: v = params; break;
      case src::params_ne: v = double(a.params_non_embedding); break;
      case src::flops: v = a.flops; break;
      case src::column: v = number(row, bases[k].col); break;
      }
      in.baselines[k].values.push_back(v);
    }
    d.kinds.push_back(a.kind);
  }
  if (in.size() < 2)
    fail("fewer than 2 rows have a value of target '" + excerpt(o.target) + "' (got " +
         std::to_string(in.size()) + ")");
  return d;
}

/// read_table_file(path) + rank_table_rows with the table's directory as base.
inline rank_table_data read_rank_table(const std::filesystem::path& path,
                                       const table_rank_options& o,
                                       table_format format = table_format::automatic,
                                       const table_limits& limits = {}) {
  const table t = read_table_file(path, format, limits);
  return rank_table_rows(t, path.parent_path(), o);
}

} // namespace nsc::io

#endif // NSC_IO_RANK_TABLE_HPP
