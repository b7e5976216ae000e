/// \file nsc/io/search_space.hpp
/// SPACE.json -> a generic NSC-DP instance (optional part: needs nlohmann-json; the core and
/// nsc/search/ never include this header).
///
/// Synopsis
///
///     search_space_file read_search_space(const nlohmann::json&, source = "<json>")
///     search_space_file read_search_space_file(const std::filesystem::path&)
///     -> .kind == groups:      .groups (search::named_group), .resolution -> search::search_groups
///     -> .kind == transformer: .transformer (search::transformer_space) -> search::search_transformer_space
///
/// Format: one JSON object with exactly one of "groups" or "transformer", and optionally
/// "name" (string), "description" (string, ignored) and "budget" (number >= 0 for a single cost,
/// or an object {"<cost name>": number >= 0, ...} naming some of the costs; the CLI's --budget
/// wins per name).
///
///     {"groups": [{"name": "layer0",                        name optional ("group<i>")
///                  "options": [{"name": "narrow",           name optional ("option<j>")
///                               "value": 1.5,               finite number (the score)
///                               "cost": 10}, ...]}, ...],   number >= 0, or named costs
///                                                           {"params": 1048576, "kv_bytes": 4096}
///                                                           (every option the same names; names
///                                                           sorted alphabetically; at most 8)
///      "resolution": 1}                                     cost grid > 0 (optional, default 1)
///
///     {"transformer": {"d_model": 512,                      positive integer
///                      "n_layers": 6,                       with "choices"; optional with "layers"
///                      "choices": [{"d_ff": 2048, "n_heads": 8,           the same in every layer
///                                   "n_kv_heads": 2, "head_dim": 64}],    (last two optional)
///                      "layers": [[{...}, ...], ...],       or per layer (exactly one of the two)
///                      "block": {"gated": false, "bias": false, "norm": "layernorm"|"rmsnorm"|"none",
///                                "qkv": "per_head"|"merged"|"separate", "o_proj": "whole"|"per_head"},
///                      "scoring": {"init": "xavier_normal", "gain": 1, "std": 0.02, "mode": "fan_in",
///                                  "truncation": [-2, 2], "estimator": "mp"|"fs",
///                                  "variance_source": "block"|"tensor"},
///                      "cost": "params"|"flops"|["params", "flops"],   default params (flops: per
///                                                           token at seq_len); a list: several
///                                                           budgets (names: transformer_cost_registry)
///                      "seq_len": 256}}                     positive integer, default 256
///
/// Every field is checked; unknown fields are refused (a typo would otherwise be ignored).
/// Errors: std::invalid_argument "nsc::read_search_space: <source>: <path>: <rule> (got <value>)"
/// with a JSON-pointer path, e.g. "nsc::read_search_space: space.json: /transformer/choices/2/d_ff:
/// must be a positive integer (got \"abc\")", "...: /groups/1/options: a group needs at least one
/// option (got [])", "...: /groups/0: missing field 'options'". Invalid JSON or an unreadable file
/// names the file.
#ifndef NSC_IO_SEARCH_SPACE_HPP
#define NSC_IO_SEARCH_SPACE_HPP

#include <nsc/error_handling.hpp>
#include <nsc/io/input_file.hpp>
#include <nsc/model/score.hpp>
#include <nsc/model/transformer.hpp>
#include <nsc/search/groups.hpp>
#include <nsc/search/transformer_space.hpp>
#include <nsc/spectral/init.hpp>
#include <nsc/spectral/psi.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace nsc::io {

/// A parsed SPACE.json.
struct search_space_file {
  enum class kind { groups, transformer };
  kind type = kind::groups;
  std::string name;                          ///< "name", or the file stem
  std::optional<double> budget;              ///< "budget" if a number (the single cost)
  /// The cost names: groups: {"cost"} for numeric costs, else the names of the cost objects
  /// (alphabetical); transformer: transformer.cost_names().
  std::vector<std::string> cost_names{"cost"};
  /// The file's budgets, one per cost name (nullopt: none given).
  std::vector<std::optional<double>> budgets{};
  std::vector<search::named_group> groups;   ///< kind::groups
  double resolution = 1;                     ///< kind::groups: the cost grid
  search::transformer_space transformer;     ///< kind::transformer
};

namespace detail::space {

using json = nlohmann::json;
inline constexpr std::string_view fn = "nsc::read_search_space";

struct reader {
  std::string source;

  [[noreturn]] void fail(const std::string& path, std::string_view rule) const {
    std::string msg;
    msg.append(source).append(": ").append(path.empty() ? "/" : path).append(": ").append(rule);
    throw_invalid_argument(fn, msg);
  }
  [[noreturn]] void fail(const std::string& path, std::string_view rule, const json& v) const {
    std::string msg;
    msg.append(source).append(": ").append(path.empty() ? "/" : path).append(": ").append(rule);
    throw_invalid_argument(fn, msg, json_excerpt(v));
  }

  void object(const json& v, const std::string& path) const {
    if (!v.is_object()) fail(path, "must be an object", v);
  }
  /// Refuses keys outside `allowed`.
  void known(const json& v, const std::string& path, std::initializer_list<std::string_view> allowed) const {
    for (const auto& [key, val] : v.items()) {
      bool ok = false;
      for (std::string_view a : allowed) ok = ok || key == a;
      if (!ok) {
        std::string list;
        for (std::string_view a : allowed) list.append(list.empty() ? "" : ", ").append(a);
        fail(path + "/" + key, "unknown field (expected one of " + list + ")", val);
      }
    }
  }
  const json& required(const json& v, const std::string& path, const char* key) const {
    if (!v.contains(key)) fail(path, std::string("missing field '") + key + "'");
    return v[key];
  }
  std::int64_t positive_int(const json& v, const std::string& path, std::int64_t min = 1) const {
    std::optional<std::int64_t> i;
    if (v.is_number_unsigned()) {
      if (v.get<std::uint64_t>() <= std::uint64_t(INT64_MAX)) i = std::int64_t(v.get<std::uint64_t>());
    } else if (v.is_number_integer()) {
      i = v.get<std::int64_t>();
    } else if (v.is_number_float()) {
      const double d = v.get<double>();
      if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) <= 9007199254740992.0)
        i = std::int64_t(d);
    }
    if (!i || *i < min)
      fail(path, min >= 1 ? "must be a positive integer" : "must be a non-negative integer", v);
    return *i;
  }
  double number(const json& v, const std::string& path, double min, bool strict,
                std::string_view rule) const {
    if (!v.is_number()) fail(path, rule, v);
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < min || (strict && d == min)) fail(path, rule, v);
    return d;
  }
  double finite(const json& v, const std::string& path) const {
    if (!v.is_number() || !std::isfinite(v.get<double>())) fail(path, "must be a finite number", v);
    return v.get<double>();
  }
  std::string string(const json& v, const std::string& path) const {
    if (!v.is_string()) fail(path, "must be a string", v);
    return v.get<std::string>();
  }
  bool boolean(const json& v, const std::string& path) const {
    if (!v.is_boolean()) fail(path, "must be true or false", v);
    return v.get<bool>();
  }
  template <class F>
  auto parsed(const json& v, const std::string& path, F parse) const {
    const std::string s = string(v, path);
    try {
      return parse(s);
    } catch (const std::invalid_argument& e) {
      std::string what = e.what();
      // keep the rule of the parser's message ("unknown ...; expected ...") without its name
      const auto colon = what.find(": ");
      if (colon != std::string::npos) what = what.substr(colon + 2);
      const auto got = what.rfind(" (got ");
      if (got != std::string::npos) what = what.substr(0, got);
      fail(path, what, v);
    }
  }

  /// Numeric costs ({"cost"}) or named ones (the first option's object keys), fixed by the first
  /// option; every later option must use the same form and the same names.
  mutable std::vector<std::string> names;
  mutable bool named = false, decided = false;

  void costs_of(const json& c, const std::string& q, search::named_option& o) const {
    if (!decided) {
      decided = true;
      named = c.is_object();
      if (named) {
        if (c.empty()) fail(q + "/cost", "a cost object needs at least one named cost", c);
        if (c.size() > search::mmck_max_dims)
          fail(q + "/cost", "at most " + std::to_string(search::mmck_max_dims) + " named costs", c);
        names.clear();
        for (const auto& [k, v] : c.items()) names.push_back(k);
      } else {
        names = {"cost"};
      }
    }
    if (!named) {
      if (c.is_object()) fail(q + "/cost", "the first option's cost is a number: every cost must be a number", c);
      o.cost = number(c, q + "/cost", 0, false, "must be a finite number >= 0");
      return;
    }
    if (!c.is_object())
      fail(q + "/cost", "the first option's cost names its costs: every cost must be an object of " +
                            std::to_string(names.size()) + " named costs", c);
    for (const auto& [k, v] : c.items()) {
      bool ok = false;
      for (const auto& n : names) ok = ok || n == k;
      if (!ok) fail(q + "/cost/" + k, "unknown cost name (the first option names " + list(names) + ")", v);
    }
    o.costs.clear();
    for (const auto& n : names) {
      if (!c.contains(n)) fail(q + "/cost", "missing cost '" + n + "'");
      o.costs.push_back(number(c[n], q + "/cost/" + n, 0, false, "must be a finite number >= 0"));
    }
    o.cost = o.costs[0];
  }
  static std::string list(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& x : v) out.append(out.empty() ? "" : ", ").append(x);
    return out;
  }

  /// "budget": a number (one cost) or an object {name: number} over `cost_names`.
  std::vector<std::optional<double>> budgets_of(const json& b, const std::string& p,
                                                const std::vector<std::string>& cost_names,
                                                std::optional<double>& single) const {
    std::vector<std::optional<double>> out(cost_names.size());
    if (b.is_object()) {
      for (const auto& [k, v] : b.items()) {
        std::size_t at = cost_names.size();
        for (std::size_t i = 0; i < cost_names.size(); ++i)
          if (cost_names[i] == k) at = i;
        if (at == cost_names.size())
          fail(p + "/" + k, "unknown budget name (the costs are " + list(cost_names) + ")", v);
        out[at] = number(v, p + "/" + k, 0, false, "must be a finite number >= 0");
      }
      return out;
    }
    const double x = number(b, p, 0, false, "must be a finite number >= 0 or an object of named budgets");
    if (cost_names.size() != 1)
      fail(p, "a bare number needs a single cost; name the budgets (" + list(cost_names) + ")", b);
    single = x;
    out[0] = x;
    return out;
  }

  std::vector<search::named_group> groups(const json& g, const std::string& path) const {
    if (!g.is_array()) fail(path, "must be a list of groups", g);
    if (g.empty()) fail(path, "needs at least one group", g);
    std::vector<search::named_group> out;
    for (std::size_t i = 0; i < g.size(); ++i) {
      const std::string p = path + "/" + std::to_string(i);
      object(g[i], p);
      known(g[i], p, {"name", "options"});
      search::named_group grp;
      grp.name = g[i].contains("name") ? string(g[i]["name"], p + "/name") : "group" + std::to_string(i);
      const json& opts = required(g[i], p, "options");
      if (!opts.is_array()) fail(p + "/options", "must be a list of options", opts);
      if (opts.empty()) fail(p + "/options", "a group needs at least one option", opts);
      for (std::size_t j = 0; j < opts.size(); ++j) {
        const std::string q = p + "/options/" + std::to_string(j);
        object(opts[j], q);
        known(opts[j], q, {"name", "value", "cost"});
        search::named_option o;
        o.name = opts[j].contains("name") ? string(opts[j]["name"], q + "/name")
                                          : "option" + std::to_string(j);
        o.value = finite(required(opts[j], q, "value"), q + "/value");
        costs_of(required(opts[j], q, "cost"), q, o);
        grp.options.push_back(std::move(o));
      }
      out.push_back(std::move(grp));
    }
    return out;
  }

  search::transformer_layer_choice choice(const json& c, const std::string& p) const {
    object(c, p);
    known(c, p, {"d_ff", "n_heads", "n_kv_heads", "head_dim"});
    search::transformer_layer_choice x;
    x.d_ff = positive_int(required(c, p, "d_ff"), p + "/d_ff");
    x.n_heads = positive_int(required(c, p, "n_heads"), p + "/n_heads");
    if (c.contains("n_kv_heads")) x.n_kv_heads = positive_int(c["n_kv_heads"], p + "/n_kv_heads");
    if (c.contains("head_dim")) x.head_dim = positive_int(c["head_dim"], p + "/head_dim");
    return x;
  }

  std::vector<search::transformer_layer_choice> choices(const json& v, const std::string& p) const {
    if (!v.is_array()) fail(p, "must be a list of layer options", v);
    if (v.empty()) fail(p, "a layer needs at least one option", v);
    std::vector<search::transformer_layer_choice> out;
    for (std::size_t j = 0; j < v.size(); ++j) out.push_back(choice(v[j], p + "/" + std::to_string(j)));
    return out;
  }

  scoring scoring_of(const json& s, const std::string& p) const {
    object(s, p);
    known(s, p, {"init", "gain", "std", "mode", "truncation", "estimator", "variance_source"});
    scoring out;
    const init_kind kind = s.contains("init") ? parsed(s["init"], p + "/init", parse_init_kind)
                                              : init_kind::xavier_normal;
    std::optional<double> gain, std_dev;
    if (s.contains("gain")) gain = number(s["gain"], p + "/gain", 0, true, "must be a number > 0");
    if (s.contains("std")) std_dev = number(s["std"], p + "/std", 0, true, "must be a number > 0");
    fan_mode mode = fan_mode::fan_in;
    if (s.contains("mode")) {
      const std::string m = string(s["mode"], p + "/mode");
      if (m == "fan_out") mode = fan_mode::fan_out;
      else if (m != "fan_in") fail(p + "/mode", "must be fan_in or fan_out", s["mode"]);
    }
    double ta = -2, tb = 2;
    if (s.contains("truncation")) {
      const json& t = s["truncation"];
      if (!t.is_array() || t.size() != 2 || !t[0].is_number() || !t[1].is_number() ||
          !std::isfinite(t[0].get<double>()) || !std::isfinite(t[1].get<double>()) ||
          !(t[0].get<double>() < t[1].get<double>()))
        fail(p + "/truncation", "must be [a, b] with finite a < b (units of std)", t);
      ta = t[0].get<double>();
      tb = t[1].get<double>();
    }
    auto need_std = [&]() {
      if (!std_dev) fail(p, "init normal / truncated_normal needs 'std'");
      return *std_dev;
    };
    switch (kind) {
    case init_kind::xavier_normal: out.initialisation = init::xavier_normal(gain.value_or(1)); break;
    case init_kind::xavier_uniform: out.initialisation = init::xavier_uniform(gain.value_or(1)); break;
    case init_kind::kaiming_normal:
      out.initialisation = init::kaiming_normal(gain.value_or(std::sqrt(2.0)), mode);
      break;
    case init_kind::kaiming_uniform:
      out.initialisation = init::kaiming_uniform(gain.value_or(std::sqrt(2.0)), mode);
      break;
    case init_kind::torch_default: out.initialisation = init::torch_default(); break;
    case init_kind::normal: out.initialisation = init::normal(need_std()); break;
    case init_kind::truncated_normal:
      out.initialisation = init::truncated_normal(need_std(), ta, tb);
      break;
    case init_kind::orthogonal: out.initialisation = init::orthogonal(gain.value_or(1)); break;
    }
    if (s.contains("estimator")) out.est = parsed(s["estimator"], p + "/estimator", parse_estimator);
    if (s.contains("variance_source")) {
      const std::string v = string(s["variance_source"], p + "/variance_source");
      if (v == "tensor") out.source = variance_source::tensor;
      else if (v != "block")
        fail(p + "/variance_source", "must be block or tensor", s["variance_source"]);
    }
    return out;
  }

  block_spec block_of(const json& b, const std::string& p) const {
    block_spec out;
    out.norm = norm_kind::layernorm;
    if (b.is_null()) return out;
    object(b, p);
    known(b, p, {"gated", "bias", "norm", "qkv", "o_proj"});
    if (b.contains("gated")) out.ffn.gated = boolean(b["gated"], p + "/gated");
    if (b.contains("bias")) {
      const bool bias = boolean(b["bias"], p + "/bias");
      out.attention.qkv_bias = out.attention.out_bias = out.ffn.bias = bias;
    }
    if (b.contains("norm")) {
      const std::string n = string(b["norm"], p + "/norm");
      if (n == "layernorm") out.norm = norm_kind::layernorm;
      else if (n == "rmsnorm") out.norm = norm_kind::rmsnorm;
      else if (n == "none") out.norm = norm_kind::none;
      else fail(p + "/norm", "must be layernorm, rmsnorm or none", b["norm"]);
    }
    if (b.contains("qkv")) out.attention.qkv = parsed(b["qkv"], p + "/qkv", parse_qkv_layout);
    if (b.contains("o_proj")) out.attention.out = parsed(b["o_proj"], p + "/o_proj", parse_out_layout);
    return out;
  }

  search::transformer_space transformer(const json& t, const std::string& p) const {
    object(t, p);
    known(t, p, {"d_model", "n_layers", "choices", "layers", "block", "scoring", "cost", "seq_len"});
    search::transformer_space s;
    s.d_model = positive_int(required(t, p, "d_model"), p + "/d_model");
    const bool has_choices = t.contains("choices"), has_layers = t.contains("layers");
    if (has_choices == has_layers) fail(p, "needs exactly one of 'choices' (every layer) or 'layers' (per layer)");
    if (has_choices) {
      const std::int64_t n = positive_int(required(t, p, "n_layers"), p + "/n_layers");
      s.layers.assign(std::size_t(n), choices(t["choices"], p + "/choices"));
    } else {
      const json& l = t["layers"];
      if (!l.is_array() || l.empty()) fail(p + "/layers", "must be a non-empty list of per-layer option lists", l);
      for (std::size_t i = 0; i < l.size(); ++i)
        s.layers.push_back(choices(l[i], p + "/layers/" + std::to_string(i)));
      if (t.contains("n_layers")) {
        const std::int64_t n = positive_int(t["n_layers"], p + "/n_layers");
        if (std::size_t(n) != s.layers.size())
          fail(p + "/n_layers", "must equal the number of entries of 'layers' (" +
                                    std::to_string(s.layers.size()) + ")", t["n_layers"]);
      }
    }
    s.base = block_of(t.contains("block") ? t["block"] : json(), p + "/block");
    if (t.contains("scoring")) s.rule = scoring_of(t["scoring"], p + "/scoring");
    if (t.contains("cost")) {
      const json& c = t["cost"];
      if (c.is_array()) {
        if (c.empty() || c.size() > search::mmck_max_dims)
          fail(p + "/cost", "a list of 1 to " + std::to_string(search::mmck_max_dims) + " cost names", c);
        for (std::size_t i = 0; i < c.size(); ++i) {
          const std::string q = p + "/cost/" + std::to_string(i);
          const std::string n = parsed(c[i], q, [](const std::string& x) {
            return std::string(search::find_transformer_cost(x).name);
          });
          for (const auto& m : s.costs)
            if (m == n) fail(q, "duplicate cost name", c[i]);
          s.costs.push_back(n);
        }
        s.cost = s.costs[0] == "flops" ? search::transformer_cost::flops : search::transformer_cost::params;
      } else {
        const std::string n = parsed(c, p + "/cost", [](const std::string& x) {
          return std::string(search::find_transformer_cost(x).name);
        });
        if (n == "params" || n == "flops") s.cost = search::parse_transformer_cost(n);
        else s.costs = {n};
      }
    }
    if (t.contains("seq_len")) s.seq_len = positive_int(t["seq_len"], p + "/seq_len");
    // Shape rules (heads dividing d_model, ...) are checked here so the path names the option.
    for (std::size_t i = 0; i < s.layers.size(); ++i) {
      for (std::size_t j = 0; j < s.layers[i].size(); ++j) {
        try {
          (void)make_block(search::transformer_space_block(s, s.layers[i][j]), double(s.seq_len));
        } catch (const std::invalid_argument& e) {
          std::string what = e.what();
          const auto colon = what.find(": ");
          if (colon != std::string::npos) what = what.substr(colon + 2);
          const std::string where = has_choices ? p + "/choices/" + std::to_string(j)
                                                : p + "/layers/" + std::to_string(i) + "/" + std::to_string(j);
          fail(where, what);
        }
      }
      if (has_choices) break; // the same options in every layer
    }
    return s;
  }
};

} // namespace detail::space

/// Reads a parsed SPACE.json (format in the file comment); `source` names it in errors.
inline search_space_file read_search_space(const nlohmann::json& j,
                                           const std::string& source = "<json>") {
  detail::space::reader r;
  r.source = source;
  r.object(j, "");
  r.known(j, "", {"name", "description", "budget", "groups", "resolution", "transformer"});
  if (j.contains("description")) (void)r.string(j["description"], "/description");
  const bool g = j.contains("groups"), t = j.contains("transformer");
  if (g == t) r.fail("", "needs exactly one of 'groups' or 'transformer'");
  search_space_file out;
  if (j.contains("name")) out.name = r.string(j["name"], "/name");
  if (g) {
    out.type = search_space_file::kind::groups;
    out.groups = r.groups(j["groups"], "/groups");
    out.cost_names = r.names;
    if (j.contains("resolution"))
      out.resolution = r.number(j["resolution"], "/resolution", 0, true, "must be a finite number > 0");
  } else {
    if (j.contains("resolution"))
      r.fail("/resolution", "only applies to 'groups' spaces", j["resolution"]);
    out.type = search_space_file::kind::transformer;
    out.transformer = r.transformer(j["transformer"], "/transformer");
    out.cost_names = out.transformer.cost_names();
  }
  out.budgets.assign(out.cost_names.size(), std::nullopt);
  if (j.contains("budget")) out.budgets = r.budgets_of(j["budget"], "/budget", out.cost_names, out.budget);
  return out;
}

/// Reads a SPACE.json file through nsc/io/input_file.hpp (size limit 64 MiB, JSON depth limit 64,
/// the path in every message: missing, a directory, too large, too deep, invalid JSON or a number
/// out of range such as 1e400). The name defaults to the file's stem. Errors:
/// "nsc::read_search_space: <path>: cannot open file (no such file)", "...: <path>: is a directory,
/// not a file", "...: <path>: invalid JSON: <parser message>", and those of read_search_space
/// with the path as the source.
inline search_space_file read_search_space_file(const std::filesystem::path& file,
                                                 const input_limits& limits = {}) {
  const nlohmann::json j = read_json_file(file, detail::space::fn, limits);
  search_space_file out = read_search_space(j, file.string());
  if (out.name.empty()) out.name = file.stem().string();
  return out;
}

} // namespace nsc::io

#endif // NSC_IO_SEARCH_SPACE_HPP
