// The CLI's calls into the Eigen backend, as plain functions. They are defined in cmd_weights.cpp,
// the one translation unit of the tool that includes Eigen (nsc/io/checkpoint_psi.hpp,
// nsc/spectral/eigen_backend.hpp): each translation unit that includes it instantiates BDCSVD,
// the eigensolvers and Cholesky again (about 50 CPU-s of compile time each), so nsc score and
// nsc psi call these instead.
#ifndef NSC_CLI_EIGEN_CALLS_HPP
#define NSC_CLI_EIGEN_CALLS_HPP

#include <nsc/model/network.hpp>
#include <nsc/model/score.hpp>
#include <nsc/spectral/init.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

namespace nsc::io {
struct checkpoint;
struct channel_orders;
} // namespace nsc::io
namespace nsc::search {
struct prune_space;
} // namespace nsc::search

namespace nsc_cli {

/// nsc::io::score_with_checkpoint (nsc/io/checkpoint_psi.hpp): the score of `net` with psi_W of
/// the checkpoint at `checkpoint_path` mapped by the config at `config_path`. Errors as there.
nsc::network_score score_with_checkpoint(const nsc::network& net, const nsc::scoring& s,
                                         const std::filesystem::path& config_path,
                                         const std::filesystem::path& checkpoint_path);

/// What nsc psi --mc prints of nsc::psi_w_monte_carlo_result.
struct monte_carlo_summary {
  double mean;           ///< sample mean of psi_W
  double standard_error; ///< standard deviation / sqrt(trials)
  std::size_t trials;
};

/// nsc::psi_w_monte_carlo<double>(rows, cols, ini, trials, seed, dist) with dist "" (as the
/// init draws: entry_distribution::from_init), "uniform" or "normal". Errors as there.
monte_carlo_summary psi_w_monte_carlo(std::int64_t rows, std::int64_t cols, const nsc::init& ini,
                                      std::int64_t trials, std::uint64_t seed,
                                      const std::string& dist);

/// nsc prune --score weights / --criterion spectral (nsc/io/prune_weights.hpp): the criterion's
/// orders from the checkpoint `in`, and with `values` every option of `space` valued by psi_W of
/// what it keeps (apply_weight_scores). Errors as there.
struct prune_weights_outcome {
  std::shared_ptr<const nsc::io::channel_orders> orders;
  std::size_t matrices = 0, float_matrices = 0; ///< Grams factored (float32 ones)
  double seconds = 0;
};
prune_weights_outcome prune_weights(const nsc::io::checkpoint& in, const std::string& model_type,
                                    nsc::search::prune_space& space, const std::string& criterion, bool values);

} // namespace nsc_cli

#endif
