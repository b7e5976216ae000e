/// \file nsc/search/multiple_choice_knapsack.hpp
/// The one-budget multiple-choice knapsack (solve_mck, solve_mck_classes): the K = 1 algorithm of
/// the knapsack engine (dense_1d of solve_mmck), now nsc/search/knapsack/dense_1d.hpp; this path
/// keeps every user compiling.
#ifndef NSC_SEARCH_MULTIPLE_CHOICE_KNAPSACK_HPP
#define NSC_SEARCH_MULTIPLE_CHOICE_KNAPSACK_HPP

#include <nsc/search/knapsack/dense_1d.hpp>

#endif // NSC_SEARCH_MULTIPLE_CHOICE_KNAPSACK_HPP
