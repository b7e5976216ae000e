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
/// "name" (string), "description" (string, ignored) and "budget" (number >= 0, the default
/// budget; the CLI's --budget wins).
///
///     {"groups": [{"name": "layer0",                        name optional ("group<i>")
///                  "options": [{"name": "narrow",           name optional ("option<j>")
///                               "value": 1.5,               finite number (the score)
///                               "cost": 10}, ...]}, ...],   number >= 0
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
///                      "cost": "params"|"flops",            default params (flops: per token at seq_len)
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
  std::optional<double> budget;              ///< "budget" if given
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
    throw_invalid_argument(fn, msg, v.dump());
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
        o.cost = number(required(opts[j], q, "cost"), q + "/cost", 0, false,
                        "must be a finite number >= 0");
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
          !(t[0].get<double>() < t[1].get<double>()))
        fail(p + "/truncation", "must be [a, b] with a < b (units of std)", t);
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
    if (t.contains("cost"))
      s.cost = parsed(t["cost"], p + "/cost", search::parse_transformer_cost);
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
  const detail::space::reader r{source};
  r.object(j, "");
  r.known(j, "", {"name", "description", "budget", "groups", "resolution", "transformer"});
  if (j.contains("description")) (void)r.string(j["description"], "/description");
  const bool g = j.contains("groups"), t = j.contains("transformer");
  if (g == t) r.fail("", "needs exactly one of 'groups' or 'transformer'");
  search_space_file out;
  if (j.contains("name")) out.name = r.string(j["name"], "/name");
  if (j.contains("budget"))
    out.budget = r.number(j["budget"], "/budget", 0, false, "must be a finite number >= 0");
  if (g) {
    out.type = search_space_file::kind::groups;
    out.groups = r.groups(j["groups"], "/groups");
    if (j.contains("resolution"))
      out.resolution = r.number(j["resolution"], "/resolution", 0, true, "must be a finite number > 0");
  } else {
    if (j.contains("resolution"))
      r.fail("/resolution", "only applies to 'groups' spaces", j["resolution"]);
    out.type = search_space_file::kind::transformer;
    out.transformer = r.transformer(j["transformer"], "/transformer");
  }
  return out;
}

/// Reads a SPACE.json file. The name defaults to the file's stem. Errors: "nsc::read_search_space:
/// cannot open file (got <path>)", "...: <path>: invalid JSON: <parser message>", and those of
/// read_search_space with the path as the source.
inline search_space_file read_search_space_file(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw_invalid_argument(detail::space::fn, "cannot open file", file.string());
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw_invalid_argument(detail::space::fn, file.string() + ": invalid JSON: " + e.what());
  }
  search_space_file out = read_search_space(j, file.string());
  if (out.name.empty()) out.name = file.stem().string();
  return out;
}

} // namespace nsc::io

#endif // NSC_IO_SEARCH_SPACE_HPP
