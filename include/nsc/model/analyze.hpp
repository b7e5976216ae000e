/// \file nsc/model/analyze.hpp
/// One entry point for everything nsc computes about a Transformer: its NSC, its parameters
/// and MACs, and what serving it costs at a workload (KV cache, weight bytes, FLOPs), per
/// decoder layer and in total, from one call on the spec.
///
///     model_options            the settings, with every default stated in one place
///     analyze(spec, options)   model_report { nsc, params, deployment totals,
///                                             layers[i] = decoder layer i, parts (embeddings,
///                                             final_norm, lm_head, ...) by name }
///
/// This is a view over the lower-level calls, which stay available and give the same numbers:
/// make_transformer(spec, T) builds the network, score(net, s) and count(net) sum over its
/// entries, deploy(spec, w) adds the workload's figures. Their results are indexed by *network
/// entry*: entry 0 is the embeddings, a run of identical layers (block_spec::repeat) is one
/// entry, and the final norm and LM head come last, so score(net).layers[i] is not decoder layer
/// i. model_report::layers is: one element per decoder layer, runs expanded, in order.
#ifndef NSC_MODEL_ANALYZE_HPP
#define NSC_MODEL_ANALYZE_HPP

#include <nsc/error_handling.hpp>
#include <nsc/model/deployment.hpp>
#include <nsc/model/network.hpp>
#include <nsc/model/resources.hpp>
#include <nsc/model/score.hpp>
#include <nsc/model/transformer.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace nsc {

/// The settings of analyze(), each default stated here (change any field; designated
/// initialisers work: `analyze(spec, {.load = {.seq_len = 4096, .batch = 8}})`).
struct model_options {
  /// How psi is computed. Default: the paper's main convention - Xavier-normal variance of
  /// each scored block, the Marchenko-Pastur closed form psi_MP, embeddings and LM head not
  /// scored. A Hugging Face checkpoint's own init: scoring_for_init("hf", initializer_range).
  ::nsc::scoring scoring{};
  /// The workload. Its seq_len T (default 256) is also the sequence length of the MACs per token
  /// (attention products over T keys, the paper's full-attention convention); context C
  /// (default 0: C = T) sets the KV cache and the decode cost; batch B (default 1); KV cache and
  /// weights bf16 by default (workload::stored, e.g. hf_model::stored, for a quantised checkpoint).
  workload load{};
  /// At most this many decoder layers are expanded into model_report::layers (runs of
  /// block_spec::repeat count each layer); a larger spec is refused (the totals of score(),
  /// count() and deploy() handle any repeat without expanding).
  std::int64_t max_layers = std::int64_t(1) << 16;
};

/// One decoder layer (or one non-layer part: the embeddings, the final norm, the LM head, ...).
/// Every figure is that of this one layer.
struct layer_report {
  std::string name;        ///< "layers.7" for decoder layer 7; "embeddings", "final_norm", "lm_head", ...
  std::int64_t index = -1; ///< decoder layer index (-1 for a non-layer part)
  double nsc = 0;          ///< the sum of psi over the layer's scored blocks
  std::array<double, part_count> nsc_by_part{}; ///< nsc split by part (attention, ffn, ...)
  resources counts;        ///< parameters (counts.total(), counts.active()) and MACs per token (counts.macs)
  layer_deployment deployment; ///< KV bytes per token and at the workload, weight bytes, prefill / decode MACs

  double part_nsc(part p) const { return nsc_by_part[static_cast<std::size_t>(p)]; }
  std::int64_t params() const { return counts.total(); }
};

/// Everything about one model: totals, decoder layers by index, the other parts by name.
struct model_report {
  double nsc = 0;                               ///< NSC = sum of the layers' (and parts') nsc
  std::array<double, part_count> nsc_by_part{}; ///< NSC split by part
  resources counts;                             ///< parameters and MACs per token, whole model
  ::nsc::deployment deployment;                 ///< KV cache, weight and memory bytes, FLOPs at options.load
  std::vector<layer_report> layers;             ///< layers[i] = decoder layer i (runs expanded)
  std::vector<layer_report> parts;              ///< the non-layer entries in network order

  double part_nsc(part p) const { return nsc_by_part[static_cast<std::size_t>(p)]; }
  std::int64_t params() const { return counts.total(); }
  std::int64_t active_params() const { return counts.active(); }
  std::uint64_t kv_cache_bytes() const { return deployment.kv_cache_bytes; }
  std::uint64_t memory_bytes() const { return deployment.memory_bytes; }
  /// The non-layer part called `name` ("embeddings", "final_norm", "lm_head", "per_layer_proj",
  /// "project_in", "project_out", "pooler"); std::invalid_argument naming the parts present when
  /// there is none.
  const layer_report& part_named(std::string_view name) const {
    std::string have;
    for (const layer_report& p : parts) {
      if (p.name == name) return p;
      have += (have.empty() ? "" : ", ") + p.name;
    }
    throw_invalid_argument("nsc::model_report::part_named", "no part of that name (parts: " + have + ")",
                           std::string(name));
  }
};

/// Scores, counts and deploys `spec` in one pass (see the file comment). Throws
/// std::invalid_argument "nsc::analyze: ..." for a malformed spec or options (the messages of
/// make_transformer / deploy name the layer and field), std::length_error when the spec has
/// more than options.max_layers decoder layers, std::domain_error on overflow.
inline model_report analyze(const transformer_spec& spec, const model_options& options = {}) {
  constexpr std::string_view fn = "nsc::analyze";
  if (options.max_layers < 0) throw_invalid_argument(fn, "options.max_layers must be >= 0", options.max_layers);
  validate(spec, fn);
  if (options.load.seq_len < 1) throw_invalid_argument(fn, "options.load.seq_len must be >= 1", options.load.seq_len);
  std::int64_t n_layers = 0;
  for (const block_spec& b : spec.blocks) {
    if (b.repeat > options.max_layers - n_layers)
      throw std::length_error(std::string(fn) + ": the spec has more than options.max_layers = " +
                              std::to_string(options.max_layers) +
                              " decoder layers to list one by one; raise max_layers, or use score(), count() "
                              "and deploy(), which total runs of repeated layers without expanding them");
    n_layers += b.repeat;
  }
  const network net = make_transformer(spec, double(options.load.seq_len));
  model_report r;
  r.deployment = deploy(spec, options.load);
  psi_cache cache; // the totals below re-add the same blocks' psi: computed once
  r.layers.reserve(std::size_t(n_layers));
  std::size_t block = 0;    // spec.blocks index of the next decoder entry
  std::int64_t first = 0;   // its first layer's index
  for (std::size_t e = 0; e < net.layers.size(); ++e) {
    const layer& l = net.layers[e];
    const layer_score ls = score(l, options.scoring, &cache);
    layer_report one;
    one.nsc = ls.nsc;
    one.nsc_by_part = ls.by_part;
    one.counts = count(l);
    one.deployment = r.deployment.layers[e];
    one.deployment.repeat = 1;
    // make_transformer names decoder entries "layers.<first>[-<last>]" and nothing else so.
    const bool decoder = l.name.rfind("layers.", 0) == 0 && block < spec.blocks.size();
    if (!decoder) {
      one.name = l.name;
      r.parts.push_back(std::move(one));
    } else {
      for (std::int64_t k = 0; k < l.repeat; ++k) {
        layer_report li = one;
        li.index = first + k;
        li.name = "layers." + std::to_string(li.index);
        li.deployment.name = li.name;
        r.layers.push_back(std::move(li));
      }
      first += l.repeat;
      ++block;
    }
  }
  // Totals exactly as score() and count() give them (same order of additions).
  const network_score ns = score(net, options.scoring, &cache);
  r.nsc = ns.nsc;
  r.nsc_by_part = ns.by_part;
  r.counts = count(net);
  return r;
}

} // namespace nsc

#endif // NSC_MODEL_ANALYZE_HPP
