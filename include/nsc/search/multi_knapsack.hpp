/// \file nsc/search/multi_knapsack.hpp
/// Exact multiple-choice knapsack under K budgets at once (K = 1..mmck_max_dims), generic over
/// the value type: the Pareto set of (cost vector, value) selections, the optimum under every
/// budget vector up to the solved one, infeasibility as a status.
///
/// Synopsis
/// --------
///     groups[g][j] = {value v_gj, integer costs c_gj = (c_gj1, ..., c_gjK), every c >= 0}
///     maximise sum_g v_{g,j_g}  subject to  sum_g c_{g,j_g,k} <= B_k for every k
///
///     auto r = nsc::search::solve_mmck(groups, {B_1, ..., B_K});
///     r.status(b), r.best(b), r.best_cost(b), r.choice(b)   // any b <= B componentwise
///     r.front(), r.front_choice(i)                          // the Pareto set, reconstructible
///     r.info().path, r.info().describe()                    // which algorithm ran
///
/// Algorithms (all exact; the one used is reported in info()):
///  * dense_1d (K = 1): solve_mck itself (min shift, gcd, same-cost pruning, one table); every
///    answer of solve_mck is kept, at its speed.
///  * dense (K >= 2): one table over the reduced cost lattice: per dimension the group minima
///    are subtracted and the shifted costs divided by their gcd, W_k = min(floor((B_k - M_k) /
///    d_k), sum_g max shifted / d_k) + 1 cells per dimension, prod_k W_k cells. One pass per group
///    with back-pointers; then a K-dimensional prefix maximum answers every budget vector and
///    gives the Pareto set (a reachable cell whose value exceeds the best strictly below it).
///  * sparse: Pareto-state DP. States are non-dominated (cost vector, value) partial selections,
///    kept sorted by cost (lexicographic); adding a group merges the |options| shifted copies of
///    the state list (a heap merge, streaming) and keeps a candidate only if no kept state has
///    cost <= and value >= (dominance pruning) and its costs leave room for the cheapest
///    completion (cost_k + sum of the remaining groups' minima <= B_k).
///    Identical groups (same options, same order: e.g. every layer of an LLM) are combined
///    without repeating work: the group's own Pareto set P_1 is doubled (P_2m = Pareto(P_m +
///    P_m)) and the powers of two of the multiplicity are merged, O(log m) merges instead of m.
///  * bounded (settings.single_budget, sparse only): for a query of the solved budget vector
///    alone, a Lagrangian upper bound (multipliers lambda >= 0 of the LP relaxation, found by
///    projected subgradient steps) and a greedy incumbent drop every state whose bound cannot
///    reach the incumbent: with reduced values r_gj = v_gj - lambda . c_gj / B, a state's loss
///    sum over its groups of (max_j r_gj - r_chosen) is at most UB - v(x) for every feasible
///    completion x, so states with loss > UB - incumbent (plus a rounding slack of 1e-9 of the
///    value scale) cannot be part of any selection worth the incumbent. Candidate pairs are
///    enumerated in ascending loss, so the work is proportional to what survives. A merge also
///    drops a pair whose completion bound v + min over l in L of (phi_rest(l) + l . (B - c) / B)
///    (the groups outside the merge, L = lambda and its variants with one dimension zeroed,
///    halved or doubled, l_k = 0 where the rest costs nothing) is below the incumbent: the same
///    rule with several multipliers, monotone in (cost, value), so the kept states are the
///    unpruned DP's with bound >= the incumbent and the choice is the same. The incumbent comes
///    from a heuristic run of the same DP keeping settings.bound_beam states per merge (those of
///    the largest completion bound). The root merge keeps only its best pair (no Pareto set).
///    The pairs that pass are met per cost vector in a hash table (a self-merge of identical
///    groups reaches one multiset sum by many splits: 278k pairs, 1,379 cost vectors on the
///    70B per-layer query), keeping the one the filter would take first; only those are sorted.
///  * lattice (classes of identical groups as multisets): product groups (options = every pair
///    (i, j) of two smaller lists, row-major, with cost A_i + F_j and value a_i + f_j exactly in
///    Value arithmetic) are split into their factors (settings.split_products), identical
///    factors merged. Per class of m groups: an integer basis of the lattice of its option cost
///    differences (Euclid's row reduction; shears y_i -= s y_l that shrink the coordinate box),
///    then the exact-cost table of its m-option multiset sums over the box (prod_i (m max y_i +
///    1) cells, one back-pointer per copy and cell, or per max-plus doubling op when the box
///    estimate says doubling is cheaper). Classes are combined by Pareto merges (sorted
///    candidate pairs, or a dense grid over the sums' per-dimension lattice when smaller). A
///    single_budget solve keeps the class with the most points last and answers, for every point
///    a of the others (best value first, stopping when it cannot reach the incumbent), the
///    dominance range maximum max {v_f : c_f <= B - c_a} with a K-D tree (subtree best values and
///    bounding boxes, pruned against the incumbent). Every class table is checked against
///    max_table_bytes before it is allocated.
/// Choice rule (settings.method == automatic): the lattice path when settings.identical_groups,
/// some class has >= 2 identical groups (single_budget) or >= settings.lattice_min_multiplicity
/// (Pareto-set solves), and every class table fits max_table_bytes; otherwise K = 1 without
/// identical groups: dense_1d; K >= 2 without identical groups whose dense table fits
/// max_table_bytes: dense; otherwise sparse (identical groups combined when
/// settings.identical_groups; bounded when single_budget). method = lattice forces it (also
/// without identical groups) and refuses, with the bytes, what does not fit.
/// Cost model (automatic, single_budget, lattice eligible): the class tables are sized first;
/// up to settings.lattice_direct_bytes they are built; above, the sparse bounded DP runs first
/// with settings.max_work set to a quarter of the lattice's estimated table updates (cells x
/// copies x options per class; a sparse candidate costs several array updates), and the lattice
/// runs only when that attempt passes it (or the memory cap). info().reason states the choice.
/// settings.max_work (0: none) caps the sparse path's candidates everywhere (a refusal).
///
/// Tie-breaking (deterministic, stated): best(b) is the largest value over selections with cost
/// <= b; among selections of that value, the one whose cost vector is lexicographically
/// smallest (for K = 1: the smallest cost, as solve_mck); at equal cost vectors the one chosen
/// by the per-cell rule of solve_mck: the last group's lowest original option index achieving
/// the value, then recursively the earlier groups. dense, dense_1d and sparse without identical
/// groups give identical choices (tested). With identical groups combined, the options chosen
/// in a class of identical groups are reported in ascending option index over that class's
/// positions (a canonical member of the multiset; the layers are interchangeable), and values
/// are summed as a balanced tree instead of in group order (bitwise equal for integers).
/// The lattice path keeps the first two rules (largest value, then lexicographically smallest cost
/// vector); among selections equal in both it takes the first in its own enumeration order, and
/// it reports each class's multiset (each factor of a split product on its own) in ascending
/// option index over the class's groups; values are summed per class table, then across
/// classes (bitwise equal to group order for integers).
///
/// Accuracy: exact in Value arithmetic (floating additions are monotone, so dominance pruning
/// never drops a state an optimal selection needs). Costs are summed in std::int64_t with
/// overflow checks (a sum that overflows exceeds every budget and is dropped).
///
/// Memory: the dense table is checked against settings.max_table_bytes before allocating; the
/// sparse DP checks every stage before allocating it; a refusal is std::invalid_argument
/// "nsc::solve_mmck: ... need N bytes ... more than max_table_bytes (got M)".
#ifndef NSC_SEARCH_MULTI_KNAPSACK_HPP
#define NSC_SEARCH_MULTI_KNAPSACK_HPP

// The engine, one header per part (nsc/search/knapsack/): problem, result, state_sets, sparse,
// lattice, dense, solve (the cost model), front, classes.
#include <nsc/search/knapsack/problem.hpp>
#include <nsc/search/knapsack/result.hpp>
#include <nsc/search/knapsack/state_sets.hpp>
#include <nsc/search/knapsack/sparse.hpp>
#include <nsc/search/knapsack/lattice.hpp>
#include <nsc/search/knapsack/dense.hpp>
#include <nsc/search/knapsack/solve.hpp>
#include <nsc/search/knapsack/front.hpp>
#include <nsc/search/knapsack/classes.hpp>

#endif // NSC_SEARCH_MULTI_KNAPSACK_HPP
