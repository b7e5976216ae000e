/// \file nsc/search/diverse_pool.hpp
/// One member of a diverse pool of the K-budget knapsack (best_far_from, canonical_choice,
/// count_orderings), now nsc/search/knapsack/diverse_pool.hpp; this path keeps every user compiling.
#ifndef NSC_SEARCH_DIVERSE_POOL_HPP
#define NSC_SEARCH_DIVERSE_POOL_HPP

#include <nsc/search/knapsack/diverse_pool.hpp>

#endif // NSC_SEARCH_DIVERSE_POOL_HPP
