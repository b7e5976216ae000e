/// \file nsc/search/k_best.hpp
/// The k best selections of the K-budget knapsack (k_best: the optimum, then best_far_from), now
/// nsc/search/knapsack/k_best.hpp; this path keeps every user compiling.
#ifndef NSC_SEARCH_K_BEST_HPP
#define NSC_SEARCH_K_BEST_HPP

#include <nsc/search/knapsack/k_best.hpp>

#endif // NSC_SEARCH_K_BEST_HPP
