/// \file nsc/io/ground_truth.hpp
/// Readers for the ground-truth tables of the Transformer families (files read through
/// nsc/io/input_file.hpp, the CSV layer is nsc/io/table.hpp's csv_record_reader):
///
///     read_lts_csv(path)             LTS random_{GPT2,TransXL}_wt103*.csv  -> lts_record
///                                    (.gpt2() / .transformer_xl() give the preset architectures;
///                                    ground truth: valid_ppl / test_ppl, lower is better)
///     read_flexibert_csv(path)       flexibert_500_glue.csv                -> flexibert_record
///                                    (.arch for nsc::presets::flexibert; glue and the 8 tasks)
///     read_autoformer_tiny_csv(path) autoformer_tiny_200.csv               -> autoformer_record
///                                    (.arch for nsc::presets::autoformer_*; every non-spec
///                                    column is a target, blank = missing)
///     parse_*_csv(text)              the same from text in memory
///     parse_csv(text)                the CSV layer itself (RFC 4180: quoted fields with commas,
///                                    doubled quotes and line breaks; LF or CRLF; UTF-8 BOM)
///
/// Errors throw std::invalid_argument naming the reader, the row and the column, e.g.
///   nsc::read_lts_csv: row 17: column 'd_model' is not an integer (got "x")
///   nsc::read_flexibert_csv: missing column 'hidden_size'
///   nsc::read_lts_csv: row 3: expected 72 fields, got 71
/// Rows are numbered from 1 over the data records (the header is not counted), so in a file
/// without line breaks inside quoted fields row N is on line N + 1. Blank lines are skipped.
/// Integers may be written as "906375.0" (pandas' float output); anything else non-integral is
/// an error. Numbers must be finite. Limits (table_limits): 65,536 columns, 16 MiB per field,
/// 10,000,000 rows, 64 MiB per file; quoted values in messages are truncated to 120 characters.
#ifndef NSC_IO_GROUND_TRUTH_HPP
#define NSC_IO_GROUND_TRUTH_HPP

#include <nsc/presets/autoformer.hpp>
#include <nsc/presets/flexibert.hpp>
#include <nsc/presets/gpt2.hpp>
#include <nsc/presets/transformer_xl.hpp>
#include <nsc/io/input_file.hpp>
#include <nsc/io/table.hpp>

#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace nsc::io {

// =============================================================================================
// CSV layer
// =============================================================================================

/// A parsed CSV file: the header and the data records (blank lines dropped).
struct csv_table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

namespace detail {

[[noreturn]] inline void fail(std::string_view fn, const std::string& what) {
  std::string msg(fn);
  msg += ": ";
  msg += what;
  throw std::invalid_argument(msg);
}

[[noreturn]] inline void fail_row(std::string_view fn, std::size_t row, const std::string& what) {
  fail(fn, "row " + std::to_string(row) + ": " + what);
}

} // namespace detail

/// Parses CSV text (see the file comment) with nsc::io::csv_record_reader (nsc/io/table.hpp):
/// linear time, at most `limits.max_columns` columns (65,536), `limits.max_field_bytes` per field
/// and `limits.max_rows` data rows, each checked before the memory is allocated. `fn` prefixes
/// error messages. The first record is the header (names unique: a hash set, linear); every
/// other non-blank record must have as many fields.
inline csv_table parse_csv(std::string_view text, std::string_view fn = "nsc::parse_csv",
                           const table_limits& limits = {}) {
  csv_table t;
  detail::table_io::read_csv_records(text, std::string(fn), limits, t.header, t.rows);
  return t;
}

/// Reads a whole file through nsc::io::read_input_file (size limit 64 MiB, a directory or an
/// unreadable file refused with the path named); a missing file gives
/// std::invalid_argument "<fn>: cannot open '<path>'".
inline std::string read_text_file(const std::string& path, std::string_view fn = "nsc::read_text_file",
                                  const input_limits& limits = {}) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) detail::fail(fn, "cannot open '" + path + "'");
  return read_input_file(path, fn, limits);
}

/// Typed, column-named access to one data row of a csv_table, with error messages
/// "<fn>: row <N>: column '<name>' ...".
class csv_row {
public:
  csv_row(const csv_table& t, const std::map<std::string, std::size_t, std::less<>>& columns,
          std::size_t index, std::string_view fn)
      : t_(&t), columns_(&columns), index_(index), fn_(fn) {}

  /// 1-based data row number.
  std::size_t number() const noexcept { return index_ + 1; }

  bool has_column(std::string_view name) const { return columns_->find(name) != columns_->end(); }

  /// The raw text of a column (the column must exist: readers check the header first).
  std::string_view text(std::string_view name) const {
    const auto it = columns_->find(name);
    if (it == columns_->end()) detail::fail(fn_, "missing column '" + excerpt(name) + "'");
    return t_->rows[index_][it->second];
  }

  /// Absent column or only blanks.
  bool blank(std::string_view name) const {
    return !has_column(name) || detail::trim(text(name)).empty();
  }

  /// Fails with "missing column" if absent, "is blank" if blank.
  void require_value(std::string_view name) const {
    if (!has_column(name)) fail("missing column '" + excerpt(name) + "'");
    if (blank(name)) fail(name, "is blank");
  }

  [[noreturn]] void fail(const std::string& what) const { detail::fail_row(fn_, number(), what); }
  [[noreturn]] void fail(std::string_view name, const std::string& what) const {
    fail("column '" + std::string(name) + "' " + what);
  }

  std::string string(std::string_view name) const {
    require_value(name);
    return std::string(detail::trim(text(name)));
  }

  std::int64_t integer(std::string_view name) const {
    require_value(name);
    const auto v = detail::parse_integer(text(name));
    if (!v) fail(name, "is not an integer (got \"" + excerpt(text(name)) + "\")");
    return *v;
  }

  /// Blank or absent -> nullopt.
  std::optional<std::int64_t> optional_integer(std::string_view name) const {
    if (blank(name)) return std::nullopt;
    return integer(name);
  }

  double number(std::string_view name) const {
    require_value(name);
    const auto v = detail::parse_number(text(name));
    if (!v) fail(name, "is not a finite number (got \"" + excerpt(text(name)) + "\")");
    return *v;
  }

  /// Blank or absent -> nullopt.
  std::optional<double> optional_number(std::string_view name) const {
    if (blank(name)) return std::nullopt;
    return number(name);
  }

  /// Whitespace-separated integers ("2 4 4 8").
  std::vector<std::int64_t> integer_list(std::string_view name) const {
    require_value(name);
    const std::string_view s = text(name);
    std::vector<std::int64_t> out;
    std::size_t i = 0;
    while (i < s.size()) {
      while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
      std::size_t j = i;
      while (j < s.size() && s[j] != ' ' && s[j] != '\t') ++j;
      if (j > i) {
        const auto v = detail::parse_integer(s.substr(i, j - i));
        if (!v) fail(name, "is not a list of integers (got \"" + excerpt(s) + "\")");
        out.push_back(*v);
      }
      i = j;
    }
    return out;
  }

  /// An integer >= lo.
  std::int64_t integer_at_least(std::string_view name, std::int64_t lo) const {
    const std::int64_t v = integer(name);
    if (v < lo) fail(name, "must be >= " + std::to_string(lo) + " (got " + std::to_string(v) + ")");
    return v;
  }

private:
  const csv_table* t_;
  const std::map<std::string, std::size_t, std::less<>>* columns_;
  std::size_t index_;
  std::string_view fn_;
};

namespace detail {

inline std::map<std::string, std::size_t, std::less<>> column_map(const csv_table& t) {
  std::map<std::string, std::size_t, std::less<>> m;
  for (std::size_t i = 0; i < t.header.size(); ++i) m.emplace(detail::trim(t.header[i]), i);
  return m;
}

inline void require_columns(const std::map<std::string, std::size_t, std::less<>>& m,
                            std::initializer_list<std::string_view> names, std::string_view fn) {
  for (std::string_view c : names)
    if (m.find(c) == m.end()) fail(fn, "missing column '" + std::string(c) + "'");
}

/// Calls f(row) for every data row.
template <class F>
void for_each_row(const csv_table& t, std::string_view fn, F f) {
  const auto columns = column_map(t);
  for (std::size_t i = 0; i < t.rows.size(); ++i) f(csv_row(t, columns, i, fn), columns);
}

} // namespace detail

// =============================================================================================
// LTS (LiteTransformerSearch) GPT-2 and Transformer-XL tables
// =============================================================================================

/// One row of an LTS tabular CSV (lts-archai/SOURCE.md). Ground truth: perplexity, lower is
/// better.
struct lts_record {
  std::string arch_id;
  std::int64_t n_layer = 0;
  std::int64_t d_model = 0;
  std::vector<std::int64_t> n_head;  ///< per layer (n_head_list)
  std::vector<std::int64_t> d_inner; ///< per layer (d_inner_list)
  std::optional<std::int64_t> d_embed, div_val, n_token;
  std::optional<double> valid_ppl, test_ppl;
  std::optional<std::int64_t> params_adaemb, params_attn, params_ffn, params_nonembedding,
      params_total;

  /// The architecture for nsc::presets::gpt2_flex (random_GPT2_wt103.csv).
  presets::gpt2_flex_arch gpt2() const { return {d_model, n_head, d_inner}; }
  /// The architecture for nsc::presets::transformer_xl_lts (random_TransXL_wt103*.csv).
  presets::transformer_xl_lts_arch transformer_xl() const { return {d_model, n_head, d_inner}; }
};

/// Parses an LTS CSV from text. Required columns: arch_id, n_layer, d_model, n_head_list,
/// d_inner_list; the others are read when present (blank = missing). Checks: n_layer >= 1, both
/// lists have n_layer values, d_model >= 1, 1 <= n_head <= d_model, d_inner >= 1, and the
/// per-layer columns n_head_<i> / d_inner_<i>, when present and not blank, agree with the lists.
inline std::vector<lts_record> parse_lts_csv(std::string_view text,
                                             std::string_view fn = "nsc::read_lts_csv") {
  const csv_table t = parse_csv(text, fn);
  detail::require_columns(detail::column_map(t),
                          {"arch_id", "n_layer", "d_model", "n_head_list", "d_inner_list"}, fn);
  std::vector<lts_record> out;
  out.reserve(t.rows.size());
  detail::for_each_row(t, fn, [&](const csv_row& r, const auto&) {
    lts_record x;
    x.arch_id = r.string("arch_id");
    x.n_layer = r.integer_at_least("n_layer", 1);
    x.d_model = r.integer_at_least("d_model", 1);
    x.n_head = r.integer_list("n_head_list");
    x.d_inner = r.integer_list("d_inner_list");
    for (const char* list : {"n_head_list", "d_inner_list"}) {
      const auto& v = std::string_view(list) == "n_head_list" ? x.n_head : x.d_inner;
      if (std::int64_t(v.size()) != x.n_layer)
        r.fail(list, "has " + std::to_string(v.size()) + " values but n_layer is " +
                         std::to_string(x.n_layer));
    }
    for (std::size_t i = 0; i < x.n_head.size(); ++i) {
      if (x.n_head[i] < 1 || x.n_head[i] > x.d_model)
        r.fail("n_head_list", "has a head count outside [1, d_model] (got " +
                                  std::to_string(x.n_head[i]) + ")");
      if (x.d_inner[i] < 1)
        r.fail("d_inner_list", "has a value < 1 (got " + std::to_string(x.d_inner[i]) + ")");
      const std::string hc = "n_head_" + std::to_string(i), dc = "d_inner_" + std::to_string(i);
      if (!r.blank(hc) && r.integer(hc) != x.n_head[i])
        r.fail(hc, "disagrees with n_head_list (got " + std::to_string(r.integer(hc)) +
                       ", the list has " + std::to_string(x.n_head[i]) + ")");
      if (!r.blank(dc) && r.integer(dc) != x.d_inner[i])
        r.fail(dc, "disagrees with d_inner_list (got " + std::to_string(r.integer(dc)) +
                       ", the list has " + std::to_string(x.d_inner[i]) + ")");
    }
    x.d_embed = r.optional_integer("d_embed");
    x.div_val = r.optional_integer("div_val");
    x.n_token = r.optional_integer("n_token");
    x.valid_ppl = r.optional_number("valid_ppl");
    x.test_ppl = r.optional_number("test_ppl");
    x.params_adaemb = r.optional_integer("params_AdaEmb");
    x.params_attn = r.optional_integer("params_Attn");
    x.params_ffn = r.optional_integer("params_FFN");
    x.params_nonembedding = r.optional_integer("params_nonembedding");
    x.params_total = r.optional_integer("params_total");
    out.push_back(std::move(x));
  });
  return out;
}

/// Reads an LTS CSV file (random_GPT2_wt103.csv, random_TransXL_wt103.csv,
/// random_TransXL_wt103_homogeneous.csv).
inline std::vector<lts_record> read_lts_csv(const std::string& path) {
  return parse_lts_csv(read_text_file(path, "nsc::read_lts_csv"), "nsc::read_lts_csv");
}

// =============================================================================================
// FlexiBERT (NAS-Bench-BERT) table
// =============================================================================================

/// One row of flexibert_500_glue.csv.
struct flexibert_record {
  /// The eight GLUE tasks in the CSV's order (the index of `tasks`).
  static constexpr std::array<std::string_view, 8> task_names{"cola", "mnli", "mrpc", "qnli",
                                                               "qqp",  "rte",  "sst",  "sts"};
  std::string arch_id;
  presets::flexibert_arch arch;                   ///< spec for nsc::presets::flexibert
  std::vector<std::string> ffn_path_as_trained;   ///< l{i}_ffn_path_as_trained ("" if absent)
  std::optional<std::int64_t> params_encoder_as_trained;
  std::optional<std::int64_t> params_disc_total_as_trained;
  std::optional<double> glue;                     ///< mean of the 8 tasks (higher is better)
  std::array<std::optional<double>, 8> tasks{};   ///< per task_names
  std::optional<double> time_to_train_s;

  /// The score of a task by name (std::invalid_argument for an unknown name).
  std::optional<double> task(std::string_view name) const {
    for (std::size_t i = 0; i < task_names.size(); ++i)
      if (task_names[i] == name) return tasks[i];
    ::nsc::throw_invalid_argument("nsc::io::flexibert_record::task", "unknown GLUE task",
                                  std::string(name));
  }
};

/// Parses flexibert_500_glue.csv from text. Required: arch_id, hidden_size, num_layers, and for
/// every layer i < num_layers l{i}_op_type (SA / LT / DSC), l{i}_op_param (SDP / WMA for SA,
/// DFT / DCT for LT, a kernel size >= 1 for DSC), l{i}_heads, l{i}_n_ffn; l{i}_ffn_dim may be
/// blank (then the reference's D_FF fallback applies). Targets blank = missing.
inline std::vector<flexibert_record> parse_flexibert_csv(
    std::string_view text, std::string_view fn = "nsc::read_flexibert_csv") {
  const csv_table t = parse_csv(text, fn);
  detail::require_columns(detail::column_map(t), {"arch_id", "hidden_size", "num_layers"}, fn);
  std::vector<flexibert_record> out;
  out.reserve(t.rows.size());
  detail::for_each_row(t, fn, [&](const csv_row& r, const auto&) {
    flexibert_record x;
    x.arch_id = r.string("arch_id");
    x.arch.hidden = r.integer_at_least("hidden_size", 1);
    const std::int64_t L = r.integer_at_least("num_layers", 1);
    for (std::int64_t i = 0; i < L; ++i) {
      std::string p(1, 'l');
      p += std::to_string(i);
      p += '_';
      presets::flexibert_layer l;
      const std::string op = r.string(p + "op_type");
      if (op == "SA") l.op = presets::flexibert_op::sa;
      else if (op == "LT") l.op = presets::flexibert_op::lt;
      else if (op == "DSC") l.op = presets::flexibert_op::dsc;
      else r.fail(p + "op_type", "is not SA, LT or DSC (got \"" + excerpt(op) + "\")");
      l.op_param = r.string(p + "op_param");
      const bool ok = l.op == presets::flexibert_op::sa   ? l.op_param == "SDP" || l.op_param == "WMA"
                      : l.op == presets::flexibert_op::lt ? l.op_param == "DFT" || l.op_param == "DCT"
                                                          : detail::parse_integer(l.op_param).value_or(0) >= 1;
      if (!ok)
        r.fail(p + "op_param", "is not valid for " + op + " (got \"" + excerpt(l.op_param) + "\")");
      l.heads = r.integer_at_least(p + "heads", 1);
      if (!r.blank(p + "ffn_dim")) l.ffn_dim = r.integer_at_least(p + "ffn_dim", 1);
      l.n_ffn = r.integer_at_least(p + "n_ffn", 1);
      x.arch.layers.push_back(std::move(l));
      const std::string path = p + "ffn_path_as_trained";
      x.ffn_path_as_trained.push_back(r.blank(path) ? std::string() : r.string(path));
    }
    x.params_encoder_as_trained = r.optional_integer("params_encoder_as_trained");
    x.params_disc_total_as_trained = r.optional_integer("params_disc_total_as_trained");
    x.glue = r.optional_number("glue");
    for (std::size_t k = 0; k < flexibert_record::task_names.size(); ++k)
      x.tasks[k] = r.optional_number(flexibert_record::task_names[k]);
    x.time_to_train_s = r.optional_number("time_to_train_s");
    out.push_back(std::move(x));
  });
  return out;
}

/// Reads flexibert_500_glue.csv.
inline std::vector<flexibert_record> read_flexibert_csv(const std::string& path) {
  return parse_flexibert_csv(read_text_file(path, "nsc::read_flexibert_csv"),
                             "nsc::read_flexibert_csv");
}

// =============================================================================================
// AutoFormer-Tiny (Auto-Prox) table
// =============================================================================================

/// One row of autoformer_tiny_200.csv.
struct autoformer_record {
  std::string arch_id;
  std::string source_file;
  std::optional<std::int64_t> index_in_file;
  presets::autoformer_arch arch; ///< for nsc::presets::autoformer_ranking / _search / _official
  /// Every column that is not part of the spec (c100_base_acc, ..., imagenet_super_acc):
  /// blank = missing. Higher is better for all of the released targets.
  std::map<std::string, std::optional<double>, std::less<>> targets;

  /// A target by column name (std::invalid_argument if the file has no such column).
  std::optional<double> target(std::string_view name) const {
    const auto it = targets.find(name);
    if (it == targets.end())
      ::nsc::throw_invalid_argument("nsc::io::autoformer_record::target", "no such target column",
                                    std::string(name));
    return it->second;
  }
};

/// Parses autoformer_tiny_200.csv from text. Required: arch_id, embed_dim, depth, and
/// mlp_ratio_<i>, num_heads_<i> for i < depth; those columns must be blank for i >= depth.
inline std::vector<autoformer_record> parse_autoformer_tiny_csv(
    std::string_view text, std::string_view fn = "nsc::read_autoformer_tiny_csv") {
  const csv_table t = parse_csv(text, fn);
  detail::require_columns(detail::column_map(t), {"arch_id", "embed_dim", "depth"}, fn);
  auto is_spec = [](std::string_view c) {
    return c == "arch_id" || c == "source_file" || c == "index_in_file" || c == "embed_dim" ||
           c == "depth" || c.substr(0, 10) == "mlp_ratio_" || c.substr(0, 10) == "num_heads_";
  };
  std::vector<autoformer_record> out;
  out.reserve(t.rows.size());
  detail::for_each_row(t, fn, [&](const csv_row& r, const auto& columns) {
    autoformer_record x;
    x.arch_id = r.string("arch_id");
    if (!r.blank("source_file")) x.source_file = r.string("source_file");
    x.index_in_file = r.optional_integer("index_in_file");
    x.arch.embed_dim = r.integer_at_least("embed_dim", 1);
    const std::int64_t depth = r.integer_at_least("depth", 1);
    for (std::int64_t i = 0; i < depth; ++i) {
      const std::string rc = "mlp_ratio_" + std::to_string(i), hc = "num_heads_" + std::to_string(i);
      const double ratio = r.number(rc);
      if (!(ratio > 0)) r.fail(rc, "must be > 0 (got \"" + excerpt(r.text(rc)) + "\")");
      x.arch.mlp_ratio.push_back(ratio);
      x.arch.num_heads.push_back(r.integer_at_least(hc, 1));
    }
    for (const auto& [name, idx] : columns) {
      (void)idx;
      for (std::string_view pre : {std::string_view("mlp_ratio_"), std::string_view("num_heads_")}) {
        if (name.substr(0, pre.size()) != pre) continue;
        const auto layer_index = detail::parse_integer(std::string_view(name).substr(pre.size()));
        if (layer_index && *layer_index >= depth && !r.blank(name))
          r.fail(name, "must be blank past depth " + std::to_string(depth) + " (got \"" +
                           excerpt(r.text(name)) + "\")");
      }
      if (!is_spec(name)) x.targets.emplace(name, r.optional_number(name));
    }
    out.push_back(std::move(x));
  });
  return out;
}

/// Reads autoformer_tiny_200.csv.
inline std::vector<autoformer_record> read_autoformer_tiny_csv(const std::string& path) {
  return parse_autoformer_tiny_csv(read_text_file(path, "nsc::read_autoformer_tiny_csv"),
                                   "nsc::read_autoformer_tiny_csv");
}

} // namespace nsc::io

#endif // NSC_IO_GROUND_TRUTH_HPP
