/// \file nsc/eval/families.hpp
/// The paper's ranking experiment per architecture family (math.md section 7): turn the
/// ground-truth table of a family into four aligned vectors
///
///     score   NSC of every architecture under an estimator (psi_MP | psi_FS) and a convention
///     params  #Params (the data's own column where it has one)
///     flops   #FLOPs
///     truth   measured quality, higher is better (GLUE, accuracy, minus perplexity)
///
/// and rank them (`rank_family`: tau-b, rho, 10%-PW tau and partial tau of NSC, #Params and
/// #FLOPs against the truth). Needs nlohmann-json through the nsc/io readers it calls (files are
/// read with nsc/io/input_file.hpp); `nsc rank` is the command line.
///
/// Synopsis
///
///     family                 flexibert | gpt2 | txl | nats_sss | autoformer_tiny
///     family_table, traits(f)  one row per family: its name, data file, conventions, baselines,
///                            targets and loader (every function below reads it)
///     parse_family(s)        "flexibert", "gpt2", "txl", "nats-sss", "autoformer-tiny"
///     family_conventions(f)  the conventions it offers; the first, "reference", is the default
///     family_baselines(f)    its #Params / #FLOPs definitions: "data" (default), flexibert "paper"
///     family_targets(f)      the ground-truth columns it knows; default_target(f)
///     default_data_file(f)   its file under shared/data
///     family_options         estimator, convention, baselines, dataset / protocol, target,
///                            params_source (data | computed)
///     make_*_data(records, options), load_family(f, path, options)  -> family_data
///     ranking_input_of(data) -> ranking_input (the generic rows, nsc/eval/rank_scores.hpp)
///     rank_family(data)      -> family_ranking { nsc, params, flops } (rank_summary each)
///     rank_family_report(data[, bootstrap_settings]) -> ranking_report (with the bootstrap)
///     order_free_score(net, scoring)  NSC summed in a canonical order (nsc/eval/order_free.hpp)
///
/// Conventions (NSC only; #Params, #FLOPs and the truth never depend on the convention, so the
/// baselines are the same in every row of a report):
///
///   flexibert        reference   presets::flexibert, reading `reference` (spec-faithful H and
///                                D_FF), psi_X of each block (Xavier-normal of the block itself)
///                    original    reading `original` (H = 256, D_FF = 1024 everywhere), psi_X
///                    as_trained  reading `as_trained` (SOURCE.md reading B), psi_X
///                    nominal     reading `nominal` (SOURCE.md reading A), psi_X
///                    framework   the reference matrices with normal(0.02) (FlexiBERT's PyTorch
///                                ELECTRA _init_weights, initializer_range 0.02), variance per
///                                tensor
///   gpt2             reference   presets::gpt2_flex: per-head Q/K/V, psi_.02 (std 0.02)
///                    framework   the same matrices with Hugging Face GPT-2's init, variance per
///                                tensor: normal(0.02), except both c_proj weights (attention and
///                                MLP) at normal(0.02 / sqrt(2 n_layer)), the "special scaled
///                                initialisation" of GPT2PreTrainedModel._init_weights in the
///                                transformers 4.x releases, which archai's GPT2LMHeadModelFlex
///                                inherits
///   txl              reference   presets::transformer_xl_lts, merged Q/K/V (the search
///                                convention), r_net not scored, psi_.02
///                    per_head    the same with per-head Q, K, V blocks
///                    framework   merged, normal(0.02) per tensor: Transformer-XL's init_std 0.02
///                                for every Linear, so the scores equal `reference`
///   nats-sss         reference   the paper's scripts: wiring reference_code (channels shifted by
///                                one, presets/nats_sss.hpp), psi_X of every conv as one
///                                (c_out, c_in k^2) matrix, classifier psi_X(classes, c4) scored
///                    xautodl     the same scoring on the networks NATS-Bench trained (xautodl)
///                    framework   xautodl wiring, PyTorch's default Conv2d / Linear init
///                                (torch_default: U(+-1/sqrt(fan_in)), kappa -1.2; xautodl applies
///                                no init of its own), variance per tensor, classifier scored
///   autoformer-tiny  reference   presets::autoformer_ranking: head dim e/h, per-head Q/K/V, psi_X
///                    official    presets::autoformer_official: head dim 64, merged qkv
///                                (3 * 64 h, e), plus the patch embedding psi_X(e, 768) (the
///                                search convention)
///                    framework   the network that produced the target (official for
///                                imagenet_super_acc, AutoFormerSub = the ranking network for the
///                                *_base / *_kd targets), timm's trunc_normal_(std=0.02) whose
///                                absolute bounds +-2 are +-100 std (untruncated in effect),
///                                variance per tensor; the patch conv (scored in the official
///                                network) keeps PyTorch's default init. AutoFormerSub's init is
///                                assumed to be AutoFormer's (Auto-Prox does not document it).
///
/// nats-sss also takes a dataset (cifar10 | cifar100 | imagenet16-120; default cifar10: the
/// truth column <dataset>_acc, the classifier's classes and the #Params column) and a protocol,
/// the skip edge of a cell whose c_in != c_out in every convention: factorized-reduce (default;
/// two 1x1 convs to floor(c_out/2) and c_out - floor(c_out/2), the paper's all-32,768 CIFAR-10
/// script) or figure-1x1 (one 1x1 conv, the paper's figure protocol, and what xautodl actually
/// builds: its stride-1 FactorizedReduce is a single 1x1 conv).
///
/// #Params, #FLOPs and truth per family (FLOPs = 2 x multiply-accumulates; MACs are integers,
/// so these sums are exact and never split ties):
///
///   flexibert        #Params  params_encoder_as_trained (the CSV column: encoder weights, biases
///                             and LayerNorms of the as-trained network, SOURCE.md reading B)
///                    #FLOPs   presets::flexibert_flops(as_trained): per token at T = 128
///                    truth    glue (or one GLUE task column)
///   gpt2             #Params  params_nonembedding (the CSV column, LTS's decoder parameters)
///                    #FLOPs   per token: every layer weight once + attention QK^T and AV,
///                             2 T d per layer at T = 192 (tgt_len)
///                    truth    -valid_ppl (or -test_ppl)
///   txl              #Params  params_nonembedding (the CSV column; r_net and its biases included)
///                    #FLOPs   per token: every layer weight once (r_net included) + relative
///                             attention AC, BD and AV, 3 T d per layer at T = 384 keys
///                             (tgt_len + mem_len)
///                    truth    -valid_ppl (or -test_ppl)
///   nats-sss         #Params  params_computed_<dataset> (the CSV column)
///                    #FLOPs   per image of the xautodl network (the one trained, 1x1 skip) at
///                             32 x 32 (16 x 16 for ImageNet16-120)
///                    truth    <dataset>_acc
///   autoformer-tiny  #Params  the network that produced the target (no column in the data):
///                             presets::autoformer_official (1000-way head) for
///                             imagenet_super_acc, else AutoFormerSub (presets::autoformer_ranking)
///                             with the target's classes (c100 100, flower 102, chaoyang 4; no
///                             distillation token or head)
///                    #FLOPs   per image (197 tokens) of the same network
///                    truth    the target column (default c100_kd_acc)
///
/// flexibert alone offers a second definition of both baselines, `baselines = "paper"`: the
/// paper's reference implementation counts #Params as every parameter of the FlexiBERT PyTorch
/// ElectraModel built from the nominal spec (reading A plus the ELECTRA-small embeddings,
/// flexibert_paper_params) and computes #FLOPs with its own analytic formula
/// (flexibert_paper_flops). With them the paper's FlexiBERT row is reproduced: #Params tau 0.485
/// (10%-PW 0.082), #FLOPs 0.552 (0.329 -> 0.332 here), NSC partial tau 0.477 (0.476) and 10%-PW
/// tau 0.505 (0.502 here). The default, `data`, is the trained networks' count (reading B).
///
/// Where the data has a parameter column it is used, and it must equal the family's own count
/// (which reproduces it on every row of the shared data): a mismatch means the file is not the
/// family's (e.g. a Transformer-XL table read as GPT-2) and throws. A blank column falls back to
/// the count. autoformer-tiny's default target is c100_kd_acc because (SOURCE.md) it exists for
/// all 200 rows and comes from standalone training of exactly the reference convention's
/// network, while imagenet_super_acc comes from a supernet checkpoint of undocumented provenance
/// (and a different network, head dim 64); every target column can be chosen. Rows whose target
/// is blank are skipped (counted in family_data::skipped).
///
/// Exact ties: every score here is `order_free_score` (nsc/eval/order_free.hpp): equal multisets
/// of scored blocks give bitwise-equal scores whatever the order of layers, so rank statistics
/// count them as ties. The families are thin adapters: each make_*_data produces the vectors,
/// `ranking_input_of` turns them into the generic ranking's rows and `rank_family` /
/// `rank_family_report` rank them with nsc/eval/rank_scores.hpp (optionally bootstrapped).
/// `family_options::params_source` = "computed" replaces the data's parameter column by the
/// family's count instead of refusing a file whose column disagrees.
///
/// Errors: std::invalid_argument "nsc::eval::make_<family>_data: <rule> (got <value>)" (load_family
/// calls make_*_data; parse_family and the other parsers name themselves) for an unknown family,
/// convention, baselines, target, dataset or protocol, an option the family does not take, a
/// parameter column that disagrees with the family's count, or fewer than 2 architectures with a
/// target; the readers' and presets' own errors for malformed rows pass through.
#ifndef NSC_EVAL_FAMILIES_HPP
#define NSC_EVAL_FAMILIES_HPP

#include <nsc/error_handling.hpp>
#include <nsc/eval/order_free.hpp>
#include <nsc/eval/rank_scores.hpp>
#include <nsc/eval/ranking.hpp>
#include <nsc/io/ground_truth.hpp>
#include <nsc/io/nats_sss.hpp>
#include <nsc/model/cnn.hpp>
#include <nsc/model/network.hpp>
#include <nsc/model/resources.hpp>
#include <nsc/model/score.hpp>
#include <nsc/presets/autoformer.hpp>
#include <nsc/presets/flexibert.hpp>
#include <nsc/presets/gpt2.hpp>
#include <nsc/presets/nats_sss.hpp>
#include <nsc/presets/preset.hpp>
#include <nsc/presets/transformer_xl.hpp>
#include <nsc/spectral/init.hpp>
#include <nsc/spectral/psi.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nsc::eval {

// =============================================================================================
// Families, options and the data they give
// =============================================================================================

/// The architecture families of the paper's ranking table that have public ground truth here.
enum class family { flexibert, gpt2, txl, nats_sss, autoformer_tiny };

struct family_options;
struct family_data;

namespace detail {
// Each family's reader + builder (defined under "Loading and ranking"), named in family_traits.
inline family_data load_flexibert(const std::string& path, const family_options& o);
inline family_data load_gpt2(const std::string& path, const family_options& o);
inline family_data load_txl(const std::string& path, const family_options& o);
inline family_data load_nats_sss(const std::string& path, const family_options& o);
inline family_data load_autoformer_tiny(const std::string& path, const family_options& o);
// The lists of family_traits below (default first).
inline constexpr std::string_view flexibert_conventions[] = {"reference", "framework", "original", "as_trained", "nominal"};
inline constexpr std::string_view flexibert_baselines[] = {"data", "paper"};
inline constexpr std::string_view flexibert_targets[] = {"glue", "cola", "mnli", "mrpc", "qnli", "qqp", "rte", "sst", "sts"};
inline constexpr std::string_view lts_targets[] = {"valid_ppl", "test_ppl"};
inline constexpr std::string_view gpt2_conventions[] = {"reference", "framework"};
inline constexpr std::string_view txl_conventions[] = {"reference", "framework", "per_head"};
inline constexpr std::string_view nats_conventions[] = {"reference", "framework", "xautodl"};
inline constexpr std::string_view autoformer_conventions[] = {"reference", "framework", "official"};
inline constexpr std::string_view autoformer_targets[] = {"c100_kd_acc",       "c100_base_acc",   "flower_base_acc",
                                                          "flower_kd_acc",     "chaoyang_base_acc", "chaoyang_kd_acc",
                                                          "imagenet_super_acc"};
inline constexpr std::string_view data_baselines[] = {"data"};
} // namespace detail

/// Everything the ranking experiment knows of one family, in one row of family_table (the
/// conventions themselves are documented in the file comment; the builders are make_*_data).
struct family_traits {
  family id;
  std::string_view name;      ///< the CLI's name: "flexibert", "gpt2", "txl", "nats-sss", "autoformer-tiny"
  std::string_view data_file; ///< its table relative to shared/data
  std::string_view maker;     ///< the function its error messages name (its make_*_data)
  std::span<const std::string_view> conventions; ///< NSC conventions; the first ("reference", the paper's) is the default
  /// #Params / #FLOPs definitions; the first ("data": the data's own parameter column and the
  /// FLOPs of the trained networks) is the default; flexibert also offers "paper" (the reference
  /// implementation's, flexibert_paper_params / flexibert_paper_flops).
  std::span<const std::string_view> baselines;
  /// Ground-truth columns, default first (nats-sss: none, its dataset decides; autoformer-tiny:
  /// the Auto-Prox file's columns, though any target column of the file given is accepted).
  std::span<const std::string_view> targets;
  family_data (*load)(const std::string& path, const family_options& o); ///< read + build (load_family)
};

/// The families, one row each, in enum order.
inline constexpr family_traits family_table[] = {
    {family::flexibert, "flexibert", "flexibert-nas-bench-bert/flexibert_500_glue.csv", "nsc::eval::make_flexibert_data",
     detail::flexibert_conventions, detail::flexibert_baselines, detail::flexibert_targets, &detail::load_flexibert},
    {family::gpt2, "gpt2", "lts-archai/random_GPT2_wt103.csv", "nsc::eval::make_gpt2_data", detail::gpt2_conventions,
     detail::data_baselines, detail::lts_targets, &detail::load_gpt2},
    {family::txl, "txl", "lts-archai/random_TransXL_wt103.csv", "nsc::eval::make_txl_data", detail::txl_conventions,
     detail::data_baselines, detail::lts_targets, &detail::load_txl},
    {family::nats_sss, "nats-sss", "nats-bench-sss/nats_sss_32768.csv", "nsc::eval::make_nats_sss_data",
     detail::nats_conventions, detail::data_baselines, {}, &detail::load_nats_sss},
    {family::autoformer_tiny, "autoformer-tiny", "autoformer-tiny-autoprox/autoformer_tiny_200.csv",
     "nsc::eval::make_autoformer_tiny_data", detail::autoformer_conventions, detail::data_baselines,
     detail::autoformer_targets, &detail::load_autoformer_tiny},
};

inline constexpr std::array<family, 5> all_families{family::flexibert, family::gpt2, family::txl,
                                                    family::nats_sss, family::autoformer_tiny};

/// The row of `f` (std::invalid_argument for a value outside the enum).
inline const family_traits& traits(family f) {
  for (const family_traits& t : family_table)
    if (t.id == f) return t;
  throw_invalid_argument("nsc::eval::traits", "unknown family", static_cast<int>(f));
}

/// "flexibert", "gpt2", "txl", "nats-sss", "autoformer-tiny" (the CLI's names).
constexpr std::string_view to_string(family f) noexcept {
  for (const family_traits& t : family_table)
    if (t.id == f) return t.name;
  return "?";
}

/// Parses a name produced by to_string (std::invalid_argument listing the names otherwise).
inline family parse_family(std::string_view name) {
  std::string names;
  for (const family_traits& t : family_table) {
    if (t.name == name) return t.id;
    names += (names.empty() ? "" : t.id == family_table[std::size(family_table) - 1].id ? " or " : ", ") +
             std::string(t.name);
  }
  throw_invalid_argument("nsc::eval::parse_family", "unknown family; expected " + names, std::string(name));
}

/// The conventions `f` offers; the first ("reference", the paper's) is the default.
inline std::vector<std::string_view> family_conventions(family f) {
  const auto c = traits(f).conventions;
  return {c.begin(), c.end()};
}

/// The #Params / #FLOPs definitions `f` offers (family_traits::baselines).
inline std::vector<std::string_view> family_baselines(family f) {
  const auto b = traits(f).baselines;
  return {b.begin(), b.end()};
}

/// The ground-truth columns `f` knows, default first (family_traits::targets).
inline std::vector<std::string_view> family_targets(family f) {
  const auto t = traits(f).targets;
  return {t.begin(), t.end()};
}

/// The default target ("" for nats-sss).
inline std::string_view default_target(family f) {
  const auto t = traits(f).targets;
  return t.empty() ? std::string_view() : t.front();
}

/// The family's table relative to shared/data.
constexpr std::string_view default_data_file(family f) noexcept {
  for (const family_traits& t : family_table)
    if (t.id == f) return t.data_file;
  return "";
}

/// NATS-SSS datasets by their CLI names: "cifar10", "cifar100", "imagenet16-120" (also
/// "imagenet16_120" and "ImageNet16-120").
inline presets::nats_dataset parse_nats_dataset_name(std::string_view name) {
  if (name == "cifar10") return presets::nats_dataset::cifar10;
  if (name == "cifar100") return presets::nats_dataset::cifar100;
  if (name == "imagenet16-120" || name == "imagenet16_120" || name == "ImageNet16-120")
    return presets::nats_dataset::imagenet16_120;
  throw_invalid_argument("nsc::eval::parse_nats_dataset_name",
                         "unknown dataset; expected cifar10, cifar100 or imagenet16-120",
                         std::string(name));
}

/// "cifar10", "cifar100", "imagenet16-120".
constexpr std::string_view nats_dataset_name(presets::nats_dataset d) noexcept {
  switch (d) {
  case presets::nats_dataset::cifar10: return "cifar10";
  case presets::nats_dataset::cifar100: return "cifar100";
  case presets::nats_dataset::imagenet16_120: return "imagenet16-120";
  }
  return "?";
}

/// The skip protocol by its CLI name: "factorized-reduce" or "figure-1x1".
inline nats_skip parse_nats_protocol(std::string_view name) {
  if (name == "factorized-reduce") return nats_skip::factorized_reduce;
  if (name == "figure-1x1") return nats_skip::conv1x1;
  throw_invalid_argument("nsc::eval::parse_nats_protocol",
                         "unknown protocol; expected factorized-reduce or figure-1x1",
                         std::string(name));
}

constexpr std::string_view nats_protocol_name(nats_skip s) noexcept {
  return s == nats_skip::factorized_reduce ? "factorized-reduce" : "figure-1x1";
}

/// What to compute. Empty strings mean the family's default; `dataset` and `protocol` are for
/// nats-sss only, `target` for every family but nats-sss.
struct family_options {
  estimator est = estimator::mp;
  std::string convention; ///< "" = "reference"
  std::string
      baselines;        ///< "" = "data"; "paper" (flexibert only): the reference's #Params / #FLOPs
  std::string dataset;  ///< nats-sss: cifar10 (default) | cifar100 | imagenet16-120
  std::string protocol; ///< nats-sss: factorized-reduce (default) | figure-1x1
  std::string target;   ///< "" = default_target(family)
  /// "" = "data": the data's parameter column, which must equal the family's count (a mismatch
  /// throws: wrong file?); "computed": the family's own count, whatever the column says.
  std::string params_source;
};

/// Aligned per-architecture vectors of one family plus the settings that produced them.
struct family_data {
  family fam = family::flexibert;
  estimator est = estimator::mp;
  std::string convention; ///< resolved (never empty)
  std::string baselines;  ///< resolved: "data" or "paper"
  std::string dataset;    ///< nats-sss only
  std::string protocol;   ///< nats-sss only
  std::string target;     ///< the ground-truth column
  std::string params_source; ///< resolved: "data" or "computed"
  std::string score_definition, params_definition, flops_definition, truth_definition;
  std::vector<std::string> ids; ///< arch_id (nats-sss: the channels string)
  std::vector<double> score, params, flops, truth;
  std::size_t skipped = 0; ///< rows without a value of the target
  std::size_t size() const noexcept { return score.size(); }
};

/// NSC, #Params and #FLOPs against the truth. `nsc` as `summarize` (partial tau controlling
/// for #Params and #FLOPs); `params`: the 10%-PW tau windows on #Params itself and the partial
/// tau controls for #FLOPs only; `flops`: the partial tau controls for #Params only. (A score
/// controlled for itself has no residual: that is why each baseline drops its own control. An
/// empty partial tau means the two are rank-equivalent, e.g. GPT-2's #Params and #FLOPs.)
struct family_ranking {
  rank_summary nsc;
  rank_summary params;
  rank_summary flops;
};

namespace detail {

/// The function named in a family's error messages: its make_*_data.
constexpr std::string_view fn_name(family f) noexcept {
  for (const family_traits& t : family_table)
    if (t.id == f) return t.maker;
  return "nsc::eval::load_family";
}

inline std::string join(const std::vector<std::string_view>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += i + 1 == v.size() ? " or " : ", ";
    s += v[i];
  }
  return s;
}

/// std::invalid_argument from the family's maker unless `value` is one of `allowed` ("unknown
/// convention for gpt2; expected reference or framework").
inline void require_one_of(family f, std::string_view what, const std::vector<std::string_view>& allowed,
                           const std::string& value) {
  if (std::find(allowed.begin(), allowed.end(), value) == allowed.end())
    throw_invalid_argument(fn_name(f),
                           "unknown " + std::string(what) + " for " + std::string(to_string(f)) + "; expected " +
                               join(allowed),
                           value);
}

/// Resolves and checks the options common to every family.
inline family_data start(family f, const family_options& o) {
  family_data d;
  d.fam = f;
  d.est = o.est;
  d.convention = o.convention.empty() ? "reference" : o.convention;
  require_one_of(f, "convention", family_conventions(f), d.convention);
  d.baselines = o.baselines.empty() ? "data" : o.baselines;
  require_one_of(f, "baselines", family_baselines(f), d.baselines);
  if (f != family::nats_sss) {
    if (!o.dataset.empty())
      throw_invalid_argument(fn_name(f), "the dataset option applies to nats-sss only", o.dataset);
    if (!o.protocol.empty())
      throw_invalid_argument(fn_name(f), "the protocol option applies to nats-sss only",
                             o.protocol);
    d.target = o.target.empty() ? std::string(default_target(f)) : o.target;
  } else if (!o.target.empty()) {
    throw_invalid_argument(fn_name(f),
                           "nats-sss takes its target from the dataset option "
                           "(cifar10 -> cifar10_acc, ...), not from target",
                           o.target);
  }
  d.params_source = o.params_source.empty() ? "data" : o.params_source;
  if (d.params_source != "data" && d.params_source != "computed")
    throw_invalid_argument(fn_name(f), "unknown params source; expected data or computed",
                           d.params_source);
  return d;
}

inline void require_known_target(family f, const std::string& target) {
  require_one_of(f, "target", family_targets(f), target);
}

inline void require_enough(const family_data& d) {
  if (d.size() < 2)
    throw_invalid_argument(fn_name(d.fam),
                           "fewer than 2 architectures have a value of target '" + d.target + "'",
                           d.size());
}

/// The data's parameter column, checked against the family's own count; with params_source
/// "computed" the count itself (no check).
inline double checked_params(std::optional<std::int64_t> column, std::int64_t counted,
                             std::string_view column_name, const std::string& id, family f,
                             std::string_view params_source = "data") {
  if (!column || params_source == "computed") return double(counted);
  if (*column != counted)
    throw_invalid_argument(fn_name(f),
                           "architecture " + id + ": " + std::string(column_name) +
                               " disagrees with the " + std::string(to_string(f)) +
                               " parameter count " + std::to_string(counted) +
                               " (is this the family's file? --params computed ranks with the count)",
                           *column);
  return double(*column);
}

inline scoring with_estimator(scoring s, estimator e) {
  s.est = e;
  return s;
}

/// normal(std) with the variance of the whole tensor (framework-faithful Transformers).
inline scoring framework_normal(double std_dev, estimator e) {
  scoring s;
  s.initialisation = init::normal(std_dev);
  s.source = variance_source::tensor;
  s.est = e;
  return s;
}

} // namespace detail

// =============================================================================================
// FlexiBERT
// =============================================================================================

/// Embedding parameters of the ELECTRA-small discriminator the FlexiBERT models share: word
/// (30522 x 128), position (512 x 128) and token-type (2 x 128) tables, the embedding LayerNorm
/// (2 x 128), and a 128 -> H projection with bias when H != 128 (SOURCE.md; equals
/// params_disc_total_as_trained - params_encoder_as_trained on every row).
inline std::int64_t flexibert_embedding_params(std::int64_t hidden) {
  constexpr std::int64_t e = 128;
  return 30522 * e + 512 * e + 2 * e + 2 * e + (hidden != e ? e * hidden + hidden : 0);
}

/// #Params as the paper's reference counts it (ranking/eval_flexibert.py: every parameter of the
/// FlexiBERT PyTorch ElectraModel built from the nominal spec): the nominal encoder
/// (presets::flexibert_params_nominal, SOURCE.md reading A) plus flexibert_embedding_params.
inline std::int64_t flexibert_paper_params(const presets::flexibert_arch& a) {
  return presets::flexibert_params_nominal(a) + flexibert_embedding_params(a.hidden);
}

/// #FLOPs as the paper's reference computes them (ranking/compute_flops_all.py, analytic), times
/// 2: per layer at sequence length S = 128, SA: S H 3H (QKV) + 2 S^2 H (scores, values) + S H^2
/// (output); LT: 2 S H^2; DSC: S H^2; FFN: nff branches of w = floor(D / nff), 2 S H w each, with
/// D the layer's feed_forward_dimension, else 1024; plus the pooler S H^2 + 2 H.
inline double flexibert_paper_flops(const presets::flexibert_arch& a) {
  const double S = double(presets::flexibert_default_seq_len), H = double(a.hidden);
  double macs = 0;
  for (const presets::flexibert_layer& l : a.layers) {
    switch (l.op) {
    case presets::flexibert_op::sa: macs += S * H * 3 * H + 2 * S * S * H + S * H * H; break;
    case presets::flexibert_op::lt: macs += 2 * S * H * H; break;
    case presets::flexibert_op::dsc: macs += S * H * H; break;
    }
    const std::int64_t D = l.ffn_dim ? *l.ffn_dim : presets::flexibert_default_ffn_dim;
    const double w = double(D / l.n_ffn);
    macs += double(l.n_ffn) * 2 * S * H * w;
  }
  macs += S * H * H + 2 * H;
  return 2 * macs;
}

/// FlexiBERT rows (flexibert_500_glue.csv) -> family_data (see the file comment).
inline family_data make_flexibert_data(const std::vector<io::flexibert_record>& rows,
                                       const family_options& o = {}) {
  family_data d = detail::start(family::flexibert, o);
  detail::require_known_target(family::flexibert, d.target);
  presets::flexibert_reading reading = presets::flexibert_reading::reference;
  scoring s = detail::with_estimator(presets::xavier_block_scoring(), o.est);
  if (d.convention == "framework") {
    s = detail::framework_normal(0.02, o.est);
    d.score_definition = "reference matrices (merged QKV, FFN branches), normal(0.02) per tensor";
  } else {
    if (d.convention == "original") reading = presets::flexibert_reading::original;
    if (d.convention == "as_trained") reading = presets::flexibert_reading::as_trained;
    if (d.convention == "nominal") reading = presets::flexibert_reading::nominal;
    d.score_definition =
        "presets::flexibert reading " + std::string(to_string(reading)) + ", psi_X of each block";
  }
  const bool paper = d.baselines == "paper";
  d.params_definition =
      paper ? "the reference's count: nominal encoder (reading A) + ELECTRA-small embeddings"
            : "params_encoder_as_trained (encoder weights, biases and LayerNorms, reading B)";
  d.flops_definition = paper
                           ? "the reference's analytic FLOPs at sequence length 128"
                           : "2 x MACs per token of the as_trained encoder at sequence length 128";
  d.truth_definition = d.target + " (GLUE dev score, higher is better)";
  psi_cache cache;
  for (const io::flexibert_record& r : rows) {
    const std::optional<double> t = d.target == "glue" ? r.glue : r.task(d.target);
    if (!t) {
      ++d.skipped;
      continue;
    }
    const presets::preset p = presets::flexibert(r.arch, reading);
    d.ids.push_back(r.arch_id);
    d.score.push_back(order_free_score(p.net, s, &cache));
    const double params = detail::checked_params(
        r.params_encoder_as_trained, presets::flexibert_params_as_trained(r.arch),
        "params_encoder_as_trained", r.arch_id, family::flexibert, d.params_source);
    d.params.push_back(paper ? double(flexibert_paper_params(r.arch)) : params);
    d.flops.push_back(
        paper ? flexibert_paper_flops(r.arch)
              : presets::flexibert_flops(r.arch, presets::flexibert_reading::as_trained));
    d.truth.push_back(*t);
  }
  detail::require_enough(d);
  return d;
}

// =============================================================================================
// LTS GPT-2 and Transformer-XL
// =============================================================================================

/// Sequence lengths of the LTS WikiText-103 runs (lts-archai/SOURCE.md): tgt_len = mem_len = 192.
inline constexpr std::int64_t lts_tgt_len = 192;
inline constexpr std::int64_t lts_mem_len = 192;

namespace detail {
inline std::optional<double> lts_truth(const io::lts_record& r, const std::string& target) {
  const std::optional<double> ppl = target == "valid_ppl" ? r.valid_ppl : r.test_ppl;
  if (!ppl) return std::nullopt;
  return -*ppl;
}
} // namespace detail

/// GPT-2 rows (random_GPT2_wt103.csv) -> family_data (see the file comment).
inline family_data make_gpt2_data(const std::vector<io::lts_record>& rows,
                                  const family_options& o = {}) {
  family_data d = detail::start(family::gpt2, o);
  detail::require_known_target(family::gpt2, d.target);
  const bool framework = d.convention == "framework";
  const scoring s =
      framework ? detail::framework_normal(presets::gpt2_init_std, o.est)
                : detail::with_estimator(presets::normal_scoring(presets::gpt2_init_std), o.est);
  d.score_definition = framework
                           ? "per-head Q/K/V, normal(0.02) per tensor, both c_proj normal(0.02 / "
                             "sqrt(2 n_layer)) (Hugging Face GPT-2 init)"
                           : "presets::gpt2_flex: per-head Q/K/V, psi_.02";
  d.params_definition = "params_nonembedding (LTS decoder parameters)";
  d.flops_definition = "2 x MACs per token: layer weights + attention 2 T d per layer, T = 192";
  d.truth_definition = "-" + d.target + " (minus WikiText-103 perplexity)";
  psi_cache cache;
  for (const io::lts_record& r : rows) {
    const std::optional<double> t = detail::lts_truth(r, d.target);
    if (!t) {
      ++d.skipped;
      continue;
    }
    presets::preset p = presets::gpt2_flex(r.gpt2());
    if (framework) {
      const double scaled = presets::gpt2_init_std / std::sqrt(2.0 * double(r.n_layer));
      for (layer& l : p.net.layers)
        for (weight& w : l.weights)
          if (w.name == "attn.c_proj" || w.name == "mlp.c_proj")
            w.initialisation = init::normal(scaled);
    }
    d.ids.push_back(r.arch_id);
    d.score.push_back(order_free_score(p.net, s, &cache));
    d.params.push_back(detail::checked_params(r.params_nonembedding,
                                              presets::gpt2_flex_params(r.gpt2()),
                                              "params_nonembedding", r.arch_id, family::gpt2, d.params_source));
    const double attention_macs = 2.0 * double(lts_tgt_len) * double(r.d_model) * double(r.n_layer);
    d.flops.push_back(::nsc::count(p.net).flops() + 2 * attention_macs);
    d.truth.push_back(*t);
  }
  detail::require_enough(d);
  return d;
}

/// Transformer-XL rows (random_TransXL_wt103*.csv) -> family_data (see the file comment).
inline family_data make_txl_data(const std::vector<io::lts_record>& rows,
                                 const family_options& o = {}) {
  family_data d = detail::start(family::txl, o);
  detail::require_known_target(family::txl, d.target);
  const auto attention = d.convention == "per_head"
                             ? presets::transformer_xl_lts_attention::per_head
                             : presets::transformer_xl_lts_attention::merged;
  const scoring s = d.convention == "framework"
                        ? detail::framework_normal(presets::transformer_xl_init_std, o.est)
                        : detail::with_estimator(
                              presets::normal_scoring(presets::transformer_xl_init_std), o.est);
  d.score_definition = "presets::transformer_xl_lts (" + std::string(to_string(attention)) +
                       " Q/K/V, r_net not scored), " +
                       (d.convention == "framework" ? "normal(0.02) per tensor" : "psi_.02");
  d.params_definition = "params_nonembedding (LTS decoder parameters, r_net included)";
  d.flops_definition =
      "2 x MACs per token: layer weights + relative attention 3 T d per layer, T = 384";
  d.truth_definition = "-" + d.target + " (minus WikiText-103 perplexity)";
  psi_cache cache;
  for (const io::lts_record& r : rows) {
    const std::optional<double> t = detail::lts_truth(r, d.target);
    if (!t) {
      ++d.skipped;
      continue;
    }
    const presets::preset p = presets::transformer_xl_lts(r.transformer_xl(), attention);
    d.ids.push_back(r.arch_id);
    d.score.push_back(order_free_score(p.net, s, &cache));
    d.params.push_back(detail::checked_params(
        r.params_nonembedding, presets::transformer_xl_lts_params(r.transformer_xl()),
        "params_nonembedding", r.arch_id, family::txl, d.params_source));
    double attention_macs = 0;
    for (std::size_t i = 0; i < r.n_head.size(); ++i)
      attention_macs +=
          3.0 * double(lts_tgt_len + lts_mem_len) * double(r.n_head[i] * (r.d_model / r.n_head[i]));
    d.flops.push_back(::nsc::count(p.net).flops() + 2 * attention_macs);
    d.truth.push_back(*t);
  }
  detail::require_enough(d);
  return d;
}

// =============================================================================================
// NATS-Bench SSS
// =============================================================================================

namespace detail {

/// Every scored block of every tabulated NATS layer: terms[slot][i][j] lists (psi of one block,
/// blocks) for layer `slot` mapping width i -> width j (fixed in/out channels use index 0).
class nats_terms {
public:
  nats_terms(const presets::nats_sss_options& o, const scoring& s)
      : wiring_(presets::nats_sss_wiring(o.wiring)) {
    psi_cache cache;
    const std::int64_t r0 = o.input_resolution();
    const std::int64_t r1 = conv_output_size(r0, 3, 2);
    const std::int64_t r2 = conv_output_size(r1, 3, 2);
    const std::array<std::int64_t, presets::nats_sss_slots> res{r0, r0, r0, r1, r1, r2, r2};
    for (std::size_t slot = 0; slot < presets::nats_sss_slots; ++slot) {
      const bool fixed_in = wiring_[slot].in < 0, fixed_out = wiring_[slot].out < 0;
      for (std::size_t i = 0; i < (fixed_in ? 1 : 8); ++i) {
        for (std::size_t j = 0; j < (fixed_out ? 1 : 8); ++j) {
          const std::int64_t c_in = fixed_in ? 3 : presets::nats_sss_widths[i];
          const std::int64_t c_out = fixed_out ? o.num_classes() : presets::nats_sss_widths[j];
          const layer l = presets::nats_sss_layer(slot, c_in, c_out, res[slot], o);
          auto& t = terms_[slot][i][j];
          for (const weight& w : l.weights)
            if (is_scored(w, s)) t.emplace_back(block_psi(w, s, &cache), w.blocks());
        }
      }
    }
  }

  /// Order-free NSC of channels `c` (`sum` is scratch space).
  double score(const presets::nats_channels& c, term_sum& sum) const {
    std::array<std::size_t, 5> ix{};
    for (std::size_t k = 0; k < 5; ++k) {
      const int w = presets::nats_sss_width_index(c[k]);
      if (w < 0)
        throw_invalid_argument(fn_name(family::nats_sss),
                               "NATS-SSS channels must be one of 8, 16, ..., 64",
                               presets::nats_sss_arch_string(c));
      ix[k] = std::size_t(w);
    }
    sum.clear();
    for (std::size_t slot = 0; slot < presets::nats_sss_slots; ++slot) {
      const std::size_t i = wiring_[slot].in < 0 ? 0 : ix[std::size_t(wiring_[slot].in)];
      const std::size_t j = wiring_[slot].out < 0 ? 0 : ix[std::size_t(wiring_[slot].out)];
      for (const auto& [value, count] : terms_[slot][i][j]) sum.add(value, count);
    }
    return sum.total();
  }

private:
  std::array<presets::nats_slot_channels, presets::nats_sss_slots> wiring_;
  std::array<std::array<std::array<std::vector<std::pair<double, double>>, 8>, 8>,
             presets::nats_sss_slots>
      terms_{};
};

inline std::int64_t nats_params_column(const io::nats_sss_record& r, presets::nats_dataset ds) {
  switch (ds) {
  case presets::nats_dataset::cifar10: return r.params_cifar10;
  case presets::nats_dataset::cifar100: return r.params_cifar100;
  case presets::nats_dataset::imagenet16_120: return r.params_imagenet16_120;
  }
  return 0;
}

inline double nats_accuracy(const io::nats_sss_record& r, presets::nats_dataset ds) {
  switch (ds) {
  case presets::nats_dataset::cifar10: return r.cifar10_acc;
  case presets::nats_dataset::cifar100: return r.cifar100_acc;
  case presets::nats_dataset::imagenet16_120: return r.imagenet16_120_acc;
  }
  return 0;
}

} // namespace detail

/// NATS-SSS rows (nats_sss_32768.csv) -> family_data (see the file comment). All 32,768 rows
/// take a few milliseconds: every layer's blocks are tabulated once per (c_in, c_out).
inline family_data make_nats_sss_data(const std::vector<io::nats_sss_record>& rows,
                                      const family_options& o = {}) {
  family_data d = detail::start(family::nats_sss, o);
  const presets::nats_dataset ds =
      parse_nats_dataset_name(o.dataset.empty() ? std::string_view("cifar10") : o.dataset);
  const nats_skip skip =
      parse_nats_protocol(o.protocol.empty() ? std::string_view("factorized-reduce") : o.protocol);
  d.dataset = std::string(nats_dataset_name(ds));
  d.protocol = std::string(nats_protocol_name(skip));
  d.target = std::string(presets::to_string(ds)) + "_acc";

  presets::nats_sss_options so;
  so.dataset = ds;
  so.skip = skip;
  scoring s = detail::with_estimator(presets::nats_sss_scoring(), o.est);
  if (d.convention == "reference") {
    so.wiring = presets::nats_wiring::reference_code;
    d.score_definition = "reference_code wiring, " + d.protocol +
                         " skip, psi_X of each conv matrix and the classifier";
  } else if (d.convention == "xautodl") {
    so.wiring = presets::nats_wiring::xautodl;
    d.score_definition =
        "xautodl wiring, " + d.protocol + " skip, psi_X of each conv matrix and the classifier";
  } else {
    so.wiring = presets::nats_wiring::xautodl;
    s.initialisation = init::torch_default();
    s.source = variance_source::tensor;
    d.score_definition = "xautodl wiring, " + d.protocol +
                         " skip, PyTorch default init per tensor, classifier scored";
  }
  d.params_definition = "params_computed_" + std::string(presets::to_string(ds)) +
                        " (xautodl network: convs, BN, classifier)";
  d.flops_definition = "2 x MACs per image of the xautodl network";
  d.truth_definition = d.target + " (top-1 %)";

  const detail::nats_terms terms(so, s);
  presets::nats_sss_options cost_options; // the trained networks: xautodl wiring, 1x1 skip
  cost_options.dataset = ds;
  const presets::nats_sss_table cost(cost_options);
  term_sum scratch;
  d.ids.reserve(rows.size());
  d.score.reserve(rows.size());
  d.params.reserve(rows.size());
  d.flops.reserve(rows.size());
  d.truth.reserve(rows.size());
  for (const io::nats_sss_record& r : rows) {
    d.ids.push_back(r.channels);
    d.score.push_back(terms.score(r.c, scratch));
    d.params.push_back(detail::checked_params(
        detail::nats_params_column(r, ds), cost.params(r.c),
        "params_computed_" + std::string(presets::to_string(ds)), r.channels, family::nats_sss,
        d.params_source));
    d.flops.push_back(2 * cost.macs(r.c));
    d.truth.push_back(detail::nats_accuracy(r, ds));
  }
  detail::require_enough(d);
  return d;
}

// =============================================================================================
// AutoFormer-Tiny (Auto-Prox)
// =============================================================================================

namespace detail {
/// Classes of the standalone AutoFormerSub head for an Auto-Prox target (0: no head).
inline std::int64_t autoformer_target_classes(std::string_view target) {
  if (target.substr(0, 5) == "c100_") return 100;
  if (target.substr(0, 7) == "flower_") return 102;
  if (target.substr(0, 9) == "chaoyang_") return 4;
  return 0;
}
} // namespace detail

/// AutoFormer-Tiny rows (autoformer_tiny_200.csv) -> family_data (see the file comment). Any
/// target column of the file may be chosen; rows where it is blank are skipped.
inline family_data make_autoformer_tiny_data(const std::vector<io::autoformer_record>& rows,
                                             const family_options& o = {}) {
  family_data d = detail::start(family::autoformer_tiny, o);
  if (!rows.empty() && rows.front().targets.find(d.target) == rows.front().targets.end()) {
    std::vector<std::string_view> have;
    for (const auto& [name, value] : rows.front().targets) have.push_back(name);
    throw_invalid_argument(detail::fn_name(family::autoformer_tiny),
                           "unknown target for autoformer-tiny; the file's target columns are " +
                               detail::join(have),
                           d.target);
  }
  const bool imagenet = d.target == "imagenet_super_acc";
  const std::int64_t classes =
      imagenet ? presets::autoformer_imagenet_classes : detail::autoformer_target_classes(d.target);
  scoring s = detail::with_estimator(presets::xavier_block_scoring(), o.est);
  if (d.convention == "reference") {
    d.score_definition = "presets::autoformer_ranking: head dim e/h, per-head Q/K/V, psi_X";
  } else if (d.convention == "official") {
    d.score_definition =
        "presets::autoformer_official: head dim 64, merged qkv, patch embedding, psi_X";
  } else {
    // timm's trunc_normal_(std=.02) truncates at +-2 in absolute value: +-100 std.
    s.initialisation = init::truncated_normal(0.02, -2 / 0.02, 2 / 0.02);
    s.source = variance_source::tensor;
    d.score_definition = std::string(imagenet ? "official network" : "AutoFormerSub network") +
                         ", trunc_normal(0.02) per tensor, patch conv PyTorch default";
  }
  d.params_definition = imagenet ? "official AutoFormer count (relative positions, 1000-way head)"
                                 : "AutoFormerSub count (" + std::to_string(classes) +
                                       "-way head, no distillation token)";
  d.flops_definition = "2 x MACs per image (197 tokens) of the same network";
  d.truth_definition = d.target + " (top-1 %)";
  psi_cache cache;
  for (const io::autoformer_record& r : rows) {
    const std::optional<double> t = r.target(d.target);
    if (!t) {
      ++d.skipped;
      continue;
    }
    // The network that produced the target, for #Params and #FLOPs.
    const presets::preset evaluated = imagenet ? presets::autoformer_official(r.arch, classes)
                                               : presets::autoformer_ranking(r.arch, classes);
    double nsc = 0;
    if (d.convention == "reference") {
      nsc = order_free_score(presets::autoformer_ranking(r.arch, 0).net, s, &cache);
    } else if (d.convention == "official") {
      nsc = order_free_score(presets::autoformer_official(r.arch, 0).net, s, &cache);
    } else {
      network net = evaluated.net;
      for (layer& l : net.layers)
        for (weight& w : l.weights)
          if (w.name == "patch_embed.proj") w.initialisation = init::torch_default();
      nsc = order_free_score(net, s, &cache);
    }
    const resources cost = ::nsc::count(evaluated.net);
    d.ids.push_back(r.arch_id);
    d.score.push_back(nsc);
    d.params.push_back(double(cost.total()));
    d.flops.push_back(cost.flops());
    d.truth.push_back(*t);
  }
  detail::require_enough(d);
  return d;
}

// =============================================================================================
// Loading and ranking
// =============================================================================================

namespace detail {
inline family_data load_flexibert(const std::string& path, const family_options& o) {
  return make_flexibert_data(io::read_flexibert_csv(path), o);
}
inline family_data load_gpt2(const std::string& path, const family_options& o) { return make_gpt2_data(io::read_lts_csv(path), o); }
inline family_data load_txl(const std::string& path, const family_options& o) { return make_txl_data(io::read_lts_csv(path), o); }
inline family_data load_nats_sss(const std::string& path, const family_options& o) {
  return make_nats_sss_data(io::read_nats_sss(path), o);
}
inline family_data load_autoformer_tiny(const std::string& path, const family_options& o) {
  return make_autoformer_tiny_data(io::read_autoformer_tiny_csv(path), o);
}
} // namespace detail

/// Reads `path` with the family's reader and builds its data (see make_*_data).
inline family_data load_family(family f, const std::string& path, const family_options& o = {}) {
  return traits(f).load(path, o);
}

/// The family's vectors as the generic ranking's input: NSC against the truth, baselines
/// "params" and "flops" (which are also the controls).
inline ranking_input ranking_input_of(const family_data& d) {
  ranking_input in;
  in.ids = d.ids;
  in.score = d.score;
  in.truth = d.truth;
  in.params = d.params;
  in.flops = d.flops;
  in.baselines = {{"params", d.params}, {"flops", d.flops}};
  return in;
}

/// rank_scores(ranking_input_of(d), boot): the generic path, with an optional paired bootstrap.
inline ranking_report rank_family_report(const family_data& d,
                                         const std::optional<bootstrap_settings>& boot = std::nullopt) {
  return rank_scores(ranking_input_of(d), boot);
}

/// All statistics of `d` (see family_ranking), through the generic path (rank_scores).
inline family_ranking rank_family(const family_data& d) {
  const ranking_report rep = rank_family_report(d);
  return {rep.nsc, rep.baselines[0].summary, rep.baselines[1].summary};
}

} // namespace nsc::eval

#endif // NSC_EVAL_FAMILIES_HPP
