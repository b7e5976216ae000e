// nsc score: NSC, #Params and FLOPs of a model from its Hugging Face config.json.
//
//   nsc score CONFIG.json [--estimator mp|fs] [--init NAME|hf] [--seq-len T]
//             [--format table|json|csv] [--json] [--qkv per_head|merged|separate]
//             [--o-proj whole|per_head] [--variance-source block|tensor]
//             [--score-embeddings] [--count-lora]
//
// Defaults reproduce the paper's convention: Xavier-normal of every scored block
// (variance_source::block), per-head Q/K/V blocks, whole o_proj, psi_MP, embeddings and LM head
// not scored. `--init hf` is the framework-faithful alternative: normal(initializer_range) with
// the variance of the whole tensor (what Hugging Face draws). Other --init names are
// torch.nn.init's (nsc::parse_init_kind); normal and truncated_normal use the config's
// initializer_range as their std.
//
// --seq-len T (default 256, the sequence length of the paper's LoNAS TFLOPs) only enters the
// attention-score MACs, 2 T n_heads head_dim per token and layer (~1% of LLaMA-7B's FLOPs at
// T = 256, ~8% at 2048). FLOPs = 2 MACs, per token; embedding lookups are free, a tied LM head
// costs its MACs.
//
// Output: a summary and a per-layer table (default), one JSON object (--json / --format json:
// nsc, params_total, params_non_embedding, params_active, flops_per_token, macs_per_token,
// seq_len, model, model_type, estimator, init, variance_source, and layers: [{name, nsc,
// attention, ffn, router, other, params, params_active, flops_per_token}]), or CSV (one row per
// layer and a final "total" row).
#include "cli.hpp"

#include <nsc/io/checkpoint_psi.hpp> // --weights
#include <nsc/io/hf_config.hpp>
#include <nsc/model/resources.hpp>
#include <nsc/model/score.hpp>
#include <nsc/model/transformer.hpp>

#include <array>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

namespace {

using nsc_cli::grouped;

struct score_args {
  std::string config;
  std::string estimator = "mp";
  std::string init_name = "xavier_normal";
  double seq_len = 256;
  std::string format = "table";
  bool json = false;
  std::string qkv = "per_head";
  std::string o_proj = "whole";
  std::string source; // empty: block, or tensor for --init hf
  bool score_embeddings = false;
  bool count_lora = false;
  std::string weights; // --weights: psi_W of a safetensors checkpoint in place of psi at init
};

/// 6738415616 -> "6,738,415,616".
nsc::scoring make_scoring(const score_args& a, const nsc::hf_model& m) {
  const nsc::estimator est = nsc::parse_estimator(a.estimator);
  nsc::scoring s;
  if (a.init_name == "hf") {
    s = nsc::hf_scoring(m, est);
  } else {
    s.est = est;
    s.source = nsc::variance_source::block;
    switch (nsc::parse_init_kind(a.init_name)) {
    case nsc::init_kind::xavier_normal: s.initialisation = nsc::init::xavier_normal(); break;
    case nsc::init_kind::xavier_uniform: s.initialisation = nsc::init::xavier_uniform(); break;
    case nsc::init_kind::kaiming_normal: s.initialisation = nsc::init::kaiming_normal(); break;
    case nsc::init_kind::kaiming_uniform: s.initialisation = nsc::init::kaiming_uniform(); break;
    case nsc::init_kind::torch_default: s.initialisation = nsc::init::torch_default(); break;
    case nsc::init_kind::normal: s.initialisation = nsc::init::normal(m.initializer_range); break;
    case nsc::init_kind::truncated_normal:
      s.initialisation = nsc::init::truncated_normal(m.initializer_range);
      break;
    case nsc::init_kind::orthogonal: s.initialisation = nsc::init::orthogonal(); break;
    }
  }
  if (a.source == "block") s.source = nsc::variance_source::block;
  if (a.source == "tensor") s.source = nsc::variance_source::tensor;
  s.score_embeddings = a.score_embeddings;
  return s;
}

int run_score(const score_args& a) {
  nsc::hf_model m = nsc::read_hf_config_file(a.config);
  const nsc::qkv_layout qkv = nsc::parse_qkv_layout(a.qkv);
  const nsc::out_layout out = nsc::parse_out_layout(a.o_proj);
  for (nsc::block_spec& b : m.spec.blocks) {
    b.attention.qkv = qkv;
    b.attention.out = out;
  }
  m.spec.lora.count_params = m.spec.lora.count_macs = a.count_lora;
  const nsc::scoring sc = make_scoring(a, m);
  const nsc::network net = nsc::hf_network(m, a.seq_len);
  nsc::psi_cache cache;
  const nsc::network_score ns =
      a.weights.empty() ? nsc::score(net, sc, &cache)
                        : nsc::io::score_with_checkpoint(net, sc, a.config, a.weights);
  const nsc::resources total = nsc::count(net);
  const std::string format = a.json ? "json" : a.format;

  auto part = [](const nsc::layer_score& l, nsc::part p) {
    return l.by_part[static_cast<std::size_t>(p)];
  };
  // Everything but attention, ffn and router (embeddings / head when scored, pooler, projections).
  auto rest = [](const std::array<double, nsc::part_count>& by_part) {
    double r = 0;
    for (nsc::part p : {nsc::part::conv, nsc::part::embedding, nsc::part::head, nsc::part::other})
      r += by_part[static_cast<std::size_t>(p)];
    return r;
  };
  const std::string init_label =
      a.init_name == "hf" ? "hf: normal(" + nsc_cli::fmt(m.initializer_range, 6) + ")" : a.init_name;

  if (format == "json") {
    nlohmann::json j;
    j["model"] = m.spec.name;
    j["model_type"] = m.model_type;
    j["estimator"] = std::string(nsc::to_string(sc.est));
    j["init"] = init_label;
    j["variance_source"] = std::string(nsc::to_string(sc.source));
    j["seq_len"] = a.seq_len;
    j["nsc"] = ns.nsc;
    if (!a.weights.empty()) j["weights"] = a.weights;
    j["params_total"] = total.total();
    j["params_non_embedding"] = total.non_embedding();
    j["params_active"] = total.active();
    j["flops_per_token"] = total.flops();
    j["macs_per_token"] = total.macs;
    nlohmann::json layers = nlohmann::json::array();
    for (std::size_t i = 0; i < net.layers.size(); ++i) {
      const nsc::layer_score& ls = ns.layers[i];
      const nsc::resources r = nsc::count(net.layers[i]);
      layers.push_back({{"name", ls.name},
                        {"nsc", ls.nsc},
                        {"attention", part(ls, nsc::part::attention)},
                        {"ffn", part(ls, nsc::part::ffn)},
                        {"router", part(ls, nsc::part::router)},
                        {"other", rest(ls.by_part)},
                        {"params", r.total()},
                        {"params_active", r.active()},
                        {"flops_per_token", r.flops()}});
    }
    j["layers"] = std::move(layers);
    nsc_cli::print_json(j);
    return 0;
  }

  if (format == "csv") {
    std::printf("layer,nsc,attention,ffn,router,other,params,params_active,flops_per_token\n");
    auto row = [&](const std::string& name, double v,
                   const std::array<double, nsc::part_count>& by_part, const nsc::resources& r) {
      auto at = [&](nsc::part p) { return by_part[static_cast<std::size_t>(p)]; };
      std::printf("%s,%.17g,%.17g,%.17g,%.17g,%.17g,%lld,%lld,%.17g\n", name.c_str(), v,
                  at(nsc::part::attention), at(nsc::part::ffn), at(nsc::part::router),
                  rest(by_part), static_cast<long long>(r.total()),
                  static_cast<long long>(r.active()), r.flops());
    };
    for (std::size_t i = 0; i < net.layers.size(); ++i)
      row(ns.layers[i].name, ns.layers[i].nsc, ns.layers[i].by_part, nsc::count(net.layers[i]));
    row("total", ns.nsc, ns.by_part, total);
    return 0;
  }

  // table
  std::printf("model          %s (%s), %zu layers\n", m.spec.name.c_str(), m.model_type.c_str(),
              m.spec.blocks.size());
  std::printf("scoring        init %s, variance per %s, psi_%s, embeddings %s\n",
              init_label.c_str(), std::string(nsc::to_string(sc.source)).c_str(),
              std::string(nsc::to_string(sc.est)).c_str(),
              sc.score_embeddings ? "scored" : "not scored");
  std::printf("NSC            %.10g  (attention %.10g, ffn %.10g%s)\n", ns.nsc,
              ns.part_total(nsc::part::attention), ns.part_total(nsc::part::ffn),
              ns.part_total(nsc::part::router) > 0
                  ? (", router " + nsc_cli::fmt(ns.part_total(nsc::part::router))).c_str()
                  : "");
  std::printf("params total   %s\n", grouped(total.total()).c_str());
  std::printf("params non-emb %s\n", grouped(total.non_embedding()).c_str());
  std::printf("params active  %s\n", grouped(total.active()).c_str());
  std::printf("FLOPs/token    %.6g at seq_len %g (MACs/token %.6g)\n\n", total.flops(), a.seq_len,
              total.macs);
  std::printf("%-14s %16s %16s %16s %16s %16s\n", "layer", "nsc", "attention", "ffn", "params",
              "flops/token");
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    const nsc::layer_score& ls = ns.layers[i];
    const nsc::resources r = nsc::count(net.layers[i]);
    std::printf("%-14s %16.10g %16.10g %16.10g %16s %16.6g\n", ls.name.c_str(), ls.nsc,
                part(ls, nsc::part::attention), part(ls, nsc::part::ffn),
                grouped(r.total()).c_str(), r.flops());
  }
  return 0;
}

const nsc_cli::command score_command{"score", [](CLI::App& app) -> std::function<int()> {
  auto args = std::make_shared<score_args>();
  auto* sub = app.add_subcommand(
      "score", "NSC, #Params (total, non-embedding, active) and FLOPs per token of a model from "
               "its Hugging Face config.json (llama, mistral, mixtral, qwen2, gpt2, bert, opt), "
               "with a per-layer breakdown");
  sub->add_option("config", args->config, "path to a Hugging Face config.json")->required();
  sub->add_option("--estimator", args->estimator, "psi estimator: mp (paper) or fs (finite-size)")
      ->check(CLI::IsMember({"mp", "fs"}));
  sub->add_option("--init", args->init_name,
                  "initialisation: xavier_normal (default; Xavier of each block, the paper's), "
                  "xavier_uniform, kaiming_normal, kaiming_uniform, torch_default, normal, "
                  "truncated_normal (std = initializer_range), orthogonal, or hf "
                  "(normal(initializer_range), variance of the whole tensor)");
  sub->add_option("--seq-len", args->seq_len,
                  "sequence length T for the attention MACs 2 T n_heads head_dim (default 256, "
                  "as the paper's LoNAS TFLOPs)")
      ->check(CLI::Range(1.0, 1e12));
  sub->add_option("--format", args->format, "output: table (default), json or csv")
      ->check(CLI::IsMember({"table", "json", "csv"}));
  sub->add_flag("--json", args->json, "same as --format json");
  sub->add_option("--qkv", args->qkv, "Q/K/V scoring: per_head (default), merged or separate")
      ->check(CLI::IsMember({"per_head", "merged", "separate"}));
  sub->add_option("--o-proj", args->o_proj, "output projection scoring: whole (default) or per_head")
      ->check(CLI::IsMember({"whole", "per_head"}));
  sub->add_option("--variance-source", args->source,
                  "where a block's variance comes from: block (default) or tensor (default with "
                  "--init hf)")
      ->check(CLI::IsMember({"block", "tensor"}));
  sub->add_flag("--score-embeddings", args->score_embeddings,
                "also score the embedding tables and the LM head");
  sub->add_option("--weights", args->weights,
                  "score with psi_W of this safetensors checkpoint (file, index or directory) in "
                  "place of psi at initialisation (per-head Q/K/V, whole o_proj; see nsc weights)");
  sub->add_flag("--count-lora", args->count_lora,
                "count LoRA adapters (config field lora_ranks) in #Params and FLOPs");
  return [args] { return run_score(*args); };
}};

} // namespace
