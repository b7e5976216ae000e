/// \file nsc/search/knapsack/sparse.hpp
/// The sparse Pareto-state DP (mmck_sparse_solver): identical groups doubled, the bounded single
/// query (Lagrangian bound, completion bound, beam incumbent, equal-cost table), the in-DP
/// epsilon trimming, the work and memory caps of every merge.
/// Part of the K-budget knapsack engine (nsc/search/multi_knapsack.hpp: the file comment there
/// describes every algorithm, the choice rule, ties, accuracy and memory).
#ifndef NSC_SEARCH_KNAPSACK_SPARSE_HPP
#define NSC_SEARCH_KNAPSACK_SPARSE_HPP

#include <nsc/search/knapsack/state_sets.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <queue>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace nsc::search {

namespace detail {

/// The sparse engine (see the file comment).
template <class Value>
class mmck_sparse_solver {
public:
  mmck_sparse_solver(const mmck_groups<Value>& groups, const std::vector<std::int64_t>& budget,
                     const mmck_settings& s, mmck_info& info)
      : g_(groups), B_(budget), s_(s), info_(info), K_(budget.size()) {}

  mmck_sparse<Value> run() {
    mmck_sparse<Value> out;
    out.K = K_;
    classify(out);
    rep_for(out);
    info_.classes = out.class_groups.size();
    // minima per class and in total
    cls_min_.assign(out.class_groups.size(), std::vector<std::int64_t>(K_, 0));
    total_min_.assign(K_, 0);
    for (std::size_t c = 0; c < out.class_groups.size(); ++c) {
      const auto& opts = g_[out.class_groups[c][0]];
      for (std::size_t k = 0; k < K_; ++k) {
        std::int64_t m = opts[0].cost[k];
        for (const auto& o : opts) m = std::min(m, o.cost[k]);
        cls_min_[c][k] = m;
        // minima of feasible instances never overflow: m * count <= B (checked by caller)
        std::int64_t t = 0;
        if (__builtin_mul_overflow(m, std::int64_t(out.class_groups[c].size()), &t) ||
            !mmck_add(total_min_[k], t, total_min_[k]))
          total_min_[k] = std::numeric_limits<std::int64_t>::max();
      }
    }
    if (s_.single_budget && s_.bound) setup_bound(out);
    if (!s_.single_budget && s_.epsilon > 0) setup_trim(out);
    if (bounded_ && gap_ > 2 * slack_ && s_.bound_beam != 0) {
      // Sharpen the incumbent first: the same DP keeping at most `beam` states per merge (those
      // of the largest completion bound; a heuristic: it may miss the optimum) gives a feasible
      // selection, often optimal, which shrinks the exact run's gap.
      const double wide = gap_ - slack_;
      double incumbent = ub_ - wide;
      mmck_sparse<Value> trial;
      trial.K = out.K;
      trial.group_class = out.group_class;
      trial.class_groups = out.class_groups;
      beam_ = s_.bound_beam;
      try {
        build(trial);
        const auto& root = trial.nodes[trial.root];
        for (std::size_t i = 0; i < root.count(); ++i)
          incumbent = std::max(incumbent, double((long double)root.value[i]));
      } catch (const std::invalid_argument&) {
        // the heuristic run needed more than a cap: keep the incumbent
      }
      beam_ = 0;
      reset_nodes();
      gap_ = std::max(0.0, ub_ - incumbent) + slack_;
      info_.incumbent = incumbent;
    }
    build(out);
    return out;
  }

private:
  void reset_nodes() {
    key_.clear();
    node_cls_min_.clear();
    node_phi_.clear();
    node_maxc_.clear();
    bytes_ = 0;
  }

  /// One node per class (doubling), then the chain in class order; out.root set.
  void build(mmck_sparse<Value>& out) {
    nodes_ = &out.nodes;
    // the merges to come; the last one is the root's (single_budget: only its best pair is kept)
    merges_left_ = out.class_groups.empty() ? 0 : out.class_groups.size() - 1;
    for (const auto& cg : out.class_groups) {
      const std::size_t m = cg.size();
      if (m == 1 || !s_.identical_groups) merges_left_ += m - 1;
      else merges_left_ += std::size_t(std::popcount(m)) - 1 + std::size_t(std::bit_width(m)) - 1;
    }
    std::optional<std::size_t> root;
    for (std::size_t c = 0; c < out.class_groups.size(); ++c) {
      const std::size_t m = out.class_groups[c].size();
      const std::size_t leaf = make_leaf(c);
      std::size_t node;
      if (m == 1 || !s_.identical_groups) {
        node = leaf;
        for (std::size_t t = 1; t < m; ++t) node = combine(node, leaf, false);
      } else {
        info_.identical = true;
        std::optional<std::size_t> acc;
        std::size_t power = leaf;
        std::size_t rest = m;
        while (true) {
          if (rest & 1) acc = acc ? combine(*acc, power, false) : power;
          rest >>= 1;
          if (!rest) break;
          power = combine(power, power, true);
        }
        node = *acc;
      }
      root = root ? combine(*root, node, false) : node;
      if (!s_.single_budget && s_.max_table_bytes != 0 && c + 1 < out.class_groups.size()) {
        // a chain's states are all kept and its nodes rarely shrink: refuse early when the
        // merges still to come, each as large as this one, would pass the cap
        const std::size_t per = K_ * 8 + sizeof(Value) + 12;
        const long double ahead = (long double)(out.class_groups.size() - 1 - c) * (long double)(*nodes_)[*root].count() * per;
        if ((long double)bytes_ + ahead > (long double)s_.max_table_bytes)
          mmck_fail("the sparse Pareto-state DP needs about ", (unsigned long long)((long double)bytes_ + ahead),
                    " bytes (", bytes_, " held after ", c + 1, " of ", out.class_groups.size(), " classes, and ",
                    out.class_groups.size() - 1 - c, " merges to come of ", (*nodes_)[*root].count(),
                    " states each), more than max_table_bytes (got ", s_.max_table_bytes, ")");
      }
    }
    out.root = *root;
  }

  void classify(mmck_sparse<Value>& out) {
    const std::size_t G = g_.size();
    out.group_class.assign(G, 0);
    if (!s_.identical_groups) {
      for (std::size_t i = 0; i < G; ++i) {
        out.group_class[i] = i;
        out.class_groups.push_back({i});
      }
      return;
    }
    const std::vector<std::size_t> order = mmck_group_order(g_);
    auto same = [&](std::size_t x, std::size_t y) { return mmck_same_group(g_[x], g_[y]); };
    std::vector<std::size_t> rep(G);  // class representative = smallest index
    for (std::size_t i = 0; i < G;) {
      std::size_t j = i + 1;
      while (j < G && same(order[i], order[j])) ++j;
      for (std::size_t t = i; t < j; ++t) rep[order[t]] = order[i];
      i = j;
    }
    std::vector<std::size_t> cls_of_rep(G, SIZE_MAX);
    for (std::size_t i = 0; i < G; ++i) {
      const std::size_t r = rep[i];
      if (cls_of_rep[r] == SIZE_MAX) {
        cls_of_rep[r] = out.class_groups.size();
        out.class_groups.emplace_back();
      }
      out.group_class[i] = cls_of_rep[r];
      out.class_groups[cls_of_rep[r]].push_back(i);
    }
  }

  /// Per-dimension cap of a node covering `min` of the minima: B_k - (total_min_k - min_k).
  void caps(const std::vector<std::int64_t>& covered_min, std::vector<std::int64_t>& cap) const {
    cap.resize(K_);
    for (std::size_t k = 0; k < K_; ++k) cap[k] = B_[k] - (total_min_[k] - covered_min[k]);
  }

  /// Counts n units of work (candidates, candidate pairs) against settings.max_work.
  void tick(std::uint64_t n) {
    work_ += n;
    if (s_.max_work != 0 && work_ > s_.max_work)
      mmck_fail("the sparse Pareto-state DP examined ", work_, " candidates, more than max_work (got ",
                s_.max_work, ")");
  }

  void account(std::size_t n) {
    const std::size_t per = K_ * 8 + sizeof(Value) + 12 + (s_.single_budget ? 8 : 0);  // + a, b, key
    bytes_ += n * per;
    info_.peak_bytes = std::max(info_.peak_bytes, bytes_);
  }
  void check_room(std::uint64_t states, std::string_view what) const {
    const std::size_t per = K_ * 8 + sizeof(Value) + 12 + (s_.single_budget ? 8 : 0);  // + a, b, key
    const long double need = (long double)bytes_ + (long double)states * (long double)per;
    if (need > (long double)s_.max_table_bytes)
      mmck_fail("the sparse Pareto-state DP needs ", (unsigned long long)need,
                " bytes (", what, ": up to ", states, " states of ", per,
                " bytes on top of ", bytes_, " held), more than max_table_bytes (got ",
                s_.max_table_bytes, ")");
  }

  std::size_t make_leaf(std::size_t c) {
    const auto& opts = g_[cls_groups_rep(c)];
    mmck_node<Value> n;
    n.leaf = true;
    n.cls = c;
    n.size = 1;
    std::vector<std::int64_t> cap;
    caps(cls_min_[c], cap);
    std::vector<std::size_t> order;
    for (std::size_t j = 0; j < opts.size(); ++j) {
      bool fits = true;
      for (std::size_t k = 0; k < K_ && fits; ++k) fits = opts[j].cost[k] <= cap[k];
      if (fits && (!bounded_ || option_loss(c, j) <= gap_)) order.push_back(j);
    }
    mmck_sort_options(opts, K_, order);
    check_room(order.size(), "one group");
    mmck_filter<Value> f(K_, n);
    tick(order.size());
    for (std::size_t j : order) {
      info_.candidates++;
      f.offer(opts[j].cost.data(), opts[j].value, std::uint32_t(j), 0);
    }
    if (bounded_) {
      for (std::size_t i = 0; i < n.count(); ++i) n.loss.push_back(option_loss(c, n.a[i]));
    }
    trim(n);
    key_.push_back(std::vector<std::uint32_t>(n.a.begin(), n.a.end()));
    node_cls_min_.push_back(cls_min_[c]);
    if (!lams_.empty()) {
      const std::size_t P = lams_.size();
      node_phi_.emplace_back(cls_phi_.begin() + std::ptrdiff_t(c * P), cls_phi_.begin() + std::ptrdiff_t((c + 1) * P));
      node_maxc_.emplace_back(cls_maxc_.begin() + std::ptrdiff_t(c * K_), cls_maxc_.begin() + std::ptrdiff_t((c + 1) * K_));
    }
    account(n.count());
    info_.states += n.count();
    nodes_->push_back(std::move(n));
    return nodes_->size() - 1;
  }

  std::size_t cls_groups_rep(std::size_t c) const { return rep_of_class_[c]; }

  std::size_t combine(std::size_t L, std::size_t R, bool self) {
    const bool final_merge = --merges_left_ == 0;
    const bool last = final_merge && s_.single_budget;
    // an exact front's root: refused once its kept states (never dropped) pass max_root_states
    const std::size_t root_limit = final_merge && !s_.single_budget && !(s_.epsilon > 0) ? s_.max_root_states : 0;
    // an epsilon-front's root: refused once its kept states pass max_root_boxes cover boxes
    const std::size_t box_limit = final_merge && !s_.single_budget && trimming_ ? s_.max_root_boxes : 0;
    std::optional<mmck_box_set> root_boxes;
    if (box_limit != 0) root_boxes.emplace(K_);
    std::array<std::int64_t, mmck_max_dims> cover_key{};
    auto note_box = [&](const mmck_node<Value>& n) {  // the state just kept
      const std::int64_t* c = n.cost.data() + (n.count() - 1) * K_;
      for (std::size_t k = 0; k < K_; ++k) cover_key[k] = mmck_cover_box(c[k], width_, trim_depth_);
      if (root_boxes->insert(cover_key.data()) && root_boxes->size() > box_limit)
        mmck_fail("the root merge of the epsilon-trimmed Pareto-state DP (", (*nodes_)[L].count(), " x ",
                  (*nodes_)[R].count(), " states) stopped after ", info_.candidates, " candidates with ", n.count(),
                  " states kept in ", root_boxes->size(), " cover boxes, more than max_root_boxes (got ", box_limit,
                  "): its cover would list at least that many points");
    };
    const mmck_node<Value>& A = (*nodes_)[L];
    const mmck_node<Value>& Bn = (*nodes_)[R];
    std::vector<std::int64_t> covered(K_);
    for (std::size_t k = 0; k < K_; ++k) covered[k] = node_cls_min_[L][k] + node_cls_min_[R][k];
    std::vector<std::int64_t> cap;
    caps(covered, cap);
    // the completion bound of the groups outside this node under each multiplier of lams_
    std::vector<long double> cov_phi, rest_phi;
    std::vector<mmck_i128> cov_maxc;
    std::array<bool, mmck_max_dims> rest_free{};  // the rest costs nothing in this dimension
    if (!lams_.empty()) {
      const std::size_t P = lams_.size();
      cov_phi.resize(P);
      rest_phi.resize(P);
      for (std::size_t p = 0; p < P; ++p) {
        cov_phi[p] = node_phi_[L][p] + node_phi_[R][p];
        rest_phi[p] = total_phi_[p] - cov_phi[p];
      }
      cov_maxc.resize(K_);
      for (std::size_t k = 0; k < K_; ++k) {
        cov_maxc[k] = node_maxc_[L][k] + node_maxc_[R][k];
        rest_free[k] = cov_maxc[k] == total_maxc_[k];
      }
    }
    mmck_node<Value> n;
    n.leaf = false;
    n.left = L;
    n.right = R;
    n.size = A.size + Bn.size;
    const std::size_t na = A.count(), nb = Bn.count();
    const auto& keyA = key_[L];
    const auto& keyB = key_[R];
    mmck_filter<Value> f(K_, n);
    mmck_cost sum{};
    auto make = [&](std::size_t a, std::size_t b) {
      for (std::size_t k = 0; k < K_; ++k) {
        if (!mmck_add(A.cost[a * K_ + k], Bn.cost[b * K_ + k], sum[k]) || sum[k] > cap[k])
          return false;
      }
      return true;
    };
    // can a candidate (cost `sum`, value v) be part of a selection worth the incumbent? Each
    // multiplier l >= 0 bounds the rest's best completion within B - sum by
    // rest_phi(l) + l . (B - sum) / scale; a dimension the rest costs nothing in takes l_k = 0
    const long double threshold = (long double)ub_ - (long double)gap_;  // the incumbent less the slack
    auto bound_of = [&](const Value& v, const std::int64_t* c) {
      long double out = std::numeric_limits<long double>::infinity();
      for (std::size_t p = 0; p < lams_.size(); ++p) {
        long double bnd = (long double)v + rest_phi[p];
        for (std::size_t k = 0; k < K_; ++k)
          if (!rest_free[k]) bnd += (long double)lams_[p][k] * (long double)(B_[k] - c[k]) / (long double)scale_[k];
        out = std::min(out, bnd);
        if (out < threshold) break;
      }
      return out;
    };
    std::int64_t unit = 0, lo = 0, hi = 0;
    bool bucket = false;
    if (!bounded_ && K_ == 1 && na > 0 && nb > 0) {
      // one dimension on a small lattice: a bucket per reachable total (exact, O(na nb + span))
      lo = A.cost[0] + Bn.cost[0];
      hi = std::min(cap[0], A.cost[na - 1] > cap[0] - Bn.cost[nb - 1] ? cap[0] : A.cost[na - 1] + Bn.cost[nb - 1]);
      for (std::size_t a = 0; a < na; ++a) unit = std::gcd(unit, A.cost[a] - A.cost[0]);
      for (std::size_t b = 0; b < nb; ++b) unit = std::gcd(unit, Bn.cost[b] - Bn.cost[0]);
      if (unit == 0) unit = 1;
      bucket = lo <= hi && (hi - lo) / unit <= std::int64_t(4 * na * nb + 1024);
    }
    if (last) {
      // the root of a single_budget solve: only the best pair is asked for, no Pareto set. The
      // filter's answer exactly: the largest value, then the lexicographically smallest cost
      // vector, then the smallest (key B, key A); bounded: the pairs within the gap (any
      // selection worth the incumbent is among them)
      std::vector<std::size_t> ob(nb);
      std::iota(ob.begin(), ob.end(), std::size_t{0});
      if (bounded_)
        std::sort(ob.begin(), ob.end(), [&](std::size_t x, std::size_t y) { return Bn.loss[x] < Bn.loss[y]; });
      std::optional<std::pair<std::size_t, std::size_t>> best;
      Value bv{};
      mmck_cost bc{};
      for (std::size_t a = 0; a < na; ++a) {
        const double room = bounded_ ? gap_ - A.loss[a] : 0;
        std::size_t t = 0;
        for (; t < nb && (!bounded_ || Bn.loss[ob[t]] <= room); ++t) {
          const std::size_t b = ob[t];
          if (self && a < b) continue;
          if (!make(a, b)) continue;
          Value v = A.value[a] + Bn.value[b];
          bool take = !best || bv < v;
          if (!take && !(v < bv)) {
            const int r = mmck_cmp(sum.data(), bc.data(), K_);
            take = r < 0 || (r == 0 && (keyB[b] < keyB[best->second] ||
                                        (keyB[b] == keyB[best->second] && keyA[a] < keyA[best->first])));
          }
          if (take) {
            best = {a, b};
            bv = std::move(v);
            bc = sum;
          }
        }
        info_.candidates += t;
        tick(t + 1);
      }
      if (best) {
        f.offer(bc.data(), bv, std::uint32_t(best->first), std::uint32_t(best->second));
        if (bounded_) n.loss.push_back(A.loss[best->first] + Bn.loss[best->second]);
      }
    } else if (bucket) {
      const std::size_t span = std::size_t((hi - lo) / unit) + 1;
      check_room(span, "a merge");
      struct slot {
        std::uint32_t a = 0, b = 0;
        bool has = false;
      };
      std::vector<slot> at(span);
      std::vector<Value> val(span);
      for (std::size_t b = 0; b < nb; ++b) {
        const std::int64_t cb = Bn.cost[b];
        for (std::size_t a = self ? b : 0; a < na; ++a) {
          std::int64_t c;
          if (!mmck_add(A.cost[a], cb, c) || c > hi) break;
          info_.candidates++;
          if ((info_.candidates & 4095) == 0) tick(4096);
          const std::size_t i = std::size_t((c - lo) / unit);
          Value v = A.value[a] + Bn.value[b];
          slot& x = at[i];
          bool take = !x.has || val[i] < v;
          if (!take && !(v < val[i]))
            take = keyB[b] < keyB[x.b] || (keyB[b] == keyB[x.b] && keyA[a] < keyA[x.a]);
          if (take) {
            val[i] = std::move(v);
            x = {std::uint32_t(a), std::uint32_t(b), true};
          }
        }
      }
      for (std::size_t i = 0; i < span; ++i) {
        if (!at[i].has) continue;
        sum[0] = lo + std::int64_t(i) * unit;
        if (f.offer(sum.data(), val[i], at[i].a, at[i].b) && root_boxes) note_box(n);
      }
    } else if (!bounded_) {
      // heap merge of the shifted copies A + B[b] (each sorted by cost)
      // streaming: memory grows only with the kept states, checked as they are kept
      if (s_.max_work != 0) {
        // the work before it starts: the pairs within the first cap (A is sorted by it) bound
        // the candidates; a merge past max_work is refused before any is examined
        std::uint64_t pairs = 0;
        for (std::size_t b = 0; b < nb; ++b) {
          const std::int64_t room0 = cap[0] - Bn.cost[b * K_];
          std::size_t from = self ? b : 0, to = na;
          const std::size_t first = from;
          while (from < to) {
            const std::size_t mid = from + (to - from) / 2;
            if (A.cost[mid * K_] <= room0) from = mid + 1;
            else to = mid;
          }
          pairs += from - first;
        }
        if (work_ + pairs > s_.max_work)
          mmck_fail("the sparse Pareto-state DP needs up to ", work_ + pairs, " candidates (a merge of ", na, " x ", nb,
                    " states has ", pairs, " pairs within the first budget, after ", work_,
                    " examined), more than max_work (got ", s_.max_work, ")");
      }
      const std::size_t per = K_ * 8 + sizeof(Value) + 12;
      const std::size_t room = (s_.max_table_bytes > bytes_ ? s_.max_table_bytes - bytes_ : 0) / per;
      struct cursor {  // the pair and its sum's first two costs and value (cached for the heap)
        std::int64_t c0, c1;
        Value v;
        std::size_t a, b;
      };
      auto worse = [&](const cursor& x, const cursor& y) {  // heap: true if x after y
        if (x.c0 != y.c0) return x.c0 > y.c0;
        if (x.c1 != y.c1) return x.c1 > y.c1;
        for (std::size_t k = 2; k < K_; ++k) {
          const std::int64_t cx = A.cost[x.a * K_ + k] + Bn.cost[x.b * K_ + k];
          const std::int64_t cy = A.cost[y.a * K_ + k] + Bn.cost[y.b * K_ + k];
          if (cx != cy) return cx > cy;
        }
        if (x.v < y.v) return true;
        if (y.v < x.v) return false;
        if (keyB[x.b] != keyB[y.b]) return keyB[x.b] > keyB[y.b];
        return keyA[x.a] > keyA[y.a];
      };
      std::priority_queue<cursor, std::vector<cursor>, decltype(worse)> heap(worse);
      auto push_valid = [&](cursor c) {
        // skip a-positions that overflow or exceed the caps; costs ascend along a in dim 0,
        // so a first-dimension excess ends the list
        while (c.a < na) {
          if (make(c.a, c.b)) {
            c.c0 = sum[0];
            c.c1 = K_ > 1 ? sum[1] : 0;
            c.v = A.value[c.a] + Bn.value[c.b];
            heap.push(c);
            return;
          }
          std::int64_t s0;
          if (!mmck_add(A.cost[c.a * K_], Bn.cost[c.b * K_], s0) || s0 > cap[0]) return;
          ++c.a;
        }
      };
      for (std::size_t b = 0; b < nb; ++b) push_valid({0, 0, Value{}, self ? b : 0, b});
      while (!heap.empty()) {
        const cursor c = heap.top();
        heap.pop();
        info_.candidates++;
        if ((info_.candidates & 4095) == 0) tick(4096);
        make(c.a, c.b);
        if (f.offer(sum.data(), c.v, std::uint32_t(c.a), std::uint32_t(c.b))) {
          if (n.count() > room)
            check_room(n.count(), "a merge of " + std::to_string(na) + " x " + std::to_string(nb) +
                                      " states, refused when its kept states pass the cap");
          if (root_boxes) note_box(n);
        }
        if (root_limit != 0 && n.count() > root_limit) root_refusal(na, nb, n.count());
        push_valid({0, 0, Value{}, c.a + 1, c.b});
      }
    } else {
      // pairs in ascending loss, within the gap
      std::vector<std::size_t> ob(nb);
      std::iota(ob.begin(), ob.end(), std::size_t{0});
      std::sort(ob.begin(), ob.end(), [&](std::size_t x, std::size_t y) { return Bn.loss[x] < Bn.loss[y]; });
      // the completion bound split per state: bound_p(a, b) = base_p + part_p(a) + part_p(b) with
      // part_p(x) = v_x - sum_k l_pk c_xk / scale_k (k outside rest_free) and base_p =
      // rest_phi_p + sum_k l_pk B_k / scale_k, bound_of's sum regrouped. Each part is rounded to
      // double once (base_p folded into A's): a pair is dropped only when its double sum is
      // below the threshold by more than 4 ulps of the largest magnitude involved (two roundings
      // of the parts and one of the sum, each at most half an ulp), so it drops only pairs whose
      // exact bound is below the threshold (P additions per pair instead of P x K products).
      const std::size_t P = lams_.size();
      std::vector<double> partA(na * P), partB(nb * P);
      double margin = 0;
      if (P != 0) {
        std::vector<long double> base(P);
        for (std::size_t p = 0; p < P; ++p) {
          base[p] = rest_phi[p];
          for (std::size_t k = 0; k < K_; ++k)
            if (!rest_free[k]) base[p] += (long double)lams_[p][k] * (long double)B_[k] / (long double)scale_[k];
        }
        double big = std::fabs(double(threshold));
        auto part = [&](const mmck_node<Value>& N, std::size_t x, const long double* add, double* to) {
          for (std::size_t p = 0; p < P; ++p) {
            long double r = (long double)N.value[x] + (add ? add[p] : 0.0L);
            for (std::size_t k = 0; k < K_; ++k)
              if (!rest_free[k]) r -= (long double)lams_[p][k] * (long double)N.cost[x * K_ + k] / (long double)scale_[k];
            to[p] = double(r);
            big = std::max(big, std::fabs(to[p]));
          }
        };
        double bigA = 0;
        for (std::size_t a = 0; a < na; ++a) part(A, a, base.data(), partA.data() + a * P);
        bigA = big;
        big = 0;
        for (std::size_t b = 0; b < nb; ++b) part(Bn, b, nullptr, partB.data() + b * P);
        margin = 4 * std::numeric_limits<double>::epsilon() * (bigA + big + std::fabs(double(threshold)));
      }
      const double bound_cut = double(threshold) - margin;
      // Pairs of one cost vector (a self-merge of identical groups makes many: the multisets
      // of 2m copies reached by many splits into m + m) meet in an open-addressing table keyed
      // by the cost vector, which keeps the filter's first of them (the largest value, then the
      // smallest key B, then key A); the filter ignores the others (same cost: the first wins),
      // so offering the table's pairs in cost order keeps the same states.
      struct pair_rep {
        std::uint32_t a, b;
      };
      std::vector<pair_rep> reps;
      std::vector<std::int64_t> rep_cost;
      std::vector<std::uint32_t> slots(1024, std::uint32_t(-1));
      const std::size_t per_rep = sizeof(pair_rep) + K_ * 8 + 8;  // a rep, its costs, two slots
      const std::size_t rep_cap = (s_.max_table_bytes > bytes_ ? s_.max_table_bytes - bytes_ : 0) / per_rep;
      auto hash_of = [&](const std::int64_t* c) {
        std::uint64_t h = 0x9e3779b97f4a7c15ull;
        for (std::size_t k = 0; k < K_; ++k) h = (h ^ std::uint64_t(c[k])) * 0xff51afd7ed558ccdull, h ^= h >> 32;
        return h;
      };
      auto better = [&](std::uint32_t a, std::uint32_t b, const pair_rep& r) {  // at equal cost
        const Value v = A.value[a] + Bn.value[b];
        const Value w = A.value[r.a] + Bn.value[r.b];
        if (w < v) return true;
        if (v < w) return false;
        if (keyB[b] != keyB[r.b]) return keyB[b] < keyB[r.b];
        return keyA[a] < keyA[r.a];
      };
      auto place = [&](std::uint32_t i) {
        const std::size_t mask = slots.size() - 1;
        std::size_t h = std::size_t(hash_of(rep_cost.data() + std::size_t(i) * K_)) & mask;
        while (slots[h] != std::uint32_t(-1)) h = (h + 1) & mask;
        slots[h] = i;
      };
      std::uint64_t passed = 0;
      for (std::size_t a = 0; a < na; ++a) {
        const double room = gap_ - A.loss[a];
        const double* pa = partA.data() + a * P;
        std::size_t t = 0;
        for (; t < nb && Bn.loss[ob[t]] <= room; ++t) {
          const std::size_t b = ob[t];
          if (self && a < b) continue;
          if (!make(a, b)) continue;
          if (P != 0) {
            const double* pb = partB.data() + b * P;
            bool below = false;
            for (std::size_t p = 0; p < P && !below; ++p) below = pa[p] + pb[p] < bound_cut;
            if (below) continue;
          }
          ++passed;
          const std::size_t mask = slots.size() - 1;
          std::size_t h = std::size_t(hash_of(sum.data())) & mask;
          for (;; h = (h + 1) & mask) {
            const std::uint32_t i = slots[h];
            if (i == std::uint32_t(-1)) {
              if (reps.size() >= rep_cap)  // refused before growing past the cap
                mmck_fail("the bounded Pareto-state DP needs more than ", s_.max_table_bytes, " bytes (a merge of ", na,
                          " x ", nb, " states has more than ", rep_cap, " candidate cost vectors within the bound's gap ",
                          gap_, "), more than max_table_bytes (got ", s_.max_table_bytes, ")");
              slots[h] = std::uint32_t(reps.size());
              reps.push_back({std::uint32_t(a), std::uint32_t(b)});
              rep_cost.insert(rep_cost.end(), sum.begin(), sum.begin() + std::ptrdiff_t(K_));
              if (2 * reps.size() > slots.size()) {
                slots.assign(2 * slots.size(), std::uint32_t(-1));
                for (std::uint32_t r = 0; r < reps.size(); ++r) place(r);
              }
              break;
            }
            if (mmck_cmp(rep_cost.data() + std::size_t(i) * K_, sum.data(), K_) == 0) {
              if (better(std::uint32_t(a), std::uint32_t(b), reps[i])) reps[i] = {std::uint32_t(a), std::uint32_t(b)};
              break;
            }
          }
        }
        tick(t + 1);
      }
      info_.candidates += passed;
      check_room(reps.size(), "a merge");
      std::vector<std::uint32_t> order(reps.size());
      std::iota(order.begin(), order.end(), std::uint32_t{0});
      std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
        return mmck_cmp(rep_cost.data() + std::size_t(x) * K_, rep_cost.data() + std::size_t(y) * K_, K_) < 0;
      });
      for (std::uint32_t i : order) {
        const auto [a, b] = reps[i];
        if (f.offer(rep_cost.data() + std::size_t(i) * K_, A.value[a] + Bn.value[b], a, b))
          n.loss.push_back(A.loss[a] + Bn.loss[b]);
      }
      if (beam_ != 0 && !lams_.empty() && n.count() > beam_) {
        // the heuristic run: the beam_ states of the largest completion bound, in their order
        std::vector<long double> bnd(n.count());
        for (std::size_t i = 0; i < n.count(); ++i) bnd[i] = bound_of(n.value[i], n.cost.data() + i * K_);
        std::vector<long double> sorted = bnd;
        std::nth_element(sorted.begin(), sorted.begin() + std::ptrdiff_t(beam_ - 1), sorted.end(), std::greater<>());
        const long double cut = sorted[beam_ - 1];
        std::size_t w = 0;
        for (std::size_t i = 0; i < n.count() && w < beam_; ++i) {
          if (bnd[i] < cut) continue;
          std::copy(n.cost.begin() + std::ptrdiff_t(i * K_), n.cost.begin() + std::ptrdiff_t((i + 1) * K_),
                    n.cost.begin() + std::ptrdiff_t(w * K_));
          n.value[w] = n.value[i];
          n.a[w] = n.a[i];
          n.b[w] = n.b[i];
          n.loss[w] = n.loss[i];
          ++w;
        }
        n.cost.resize(w * K_);
        n.value.resize(w);
        n.a.resize(w);
        n.b.resize(w);
        n.loss.resize(w);
      }
    }
    if (root_limit != 0 && n.count() > root_limit) root_refusal(na, nb, n.count());
    trim(n);
    // held until the end (reconstruction): no growth slack beyond what account() counts
    n.cost.shrink_to_fit();
    n.value.shrink_to_fit();
    n.a.shrink_to_fit();
    n.b.shrink_to_fit();
    n.loss.shrink_to_fit();
    std::vector<std::uint32_t> keys(n.count());
    std::iota(keys.begin(), keys.end(), std::uint32_t{0});
    key_.push_back(std::move(keys));
    node_cls_min_.push_back(covered);
    if (!lams_.empty()) {
      node_phi_.push_back(std::move(cov_phi));
      node_maxc_.push_back(std::move(cov_maxc));
    }
    account(n.count());
    info_.states += n.count();
    nodes_->push_back(std::move(n));
    return nodes_->size() - 1;
  }

  [[noreturn]] void root_refusal(std::size_t na, std::size_t nb, std::size_t kept) const {
    mmck_fail("the root merge of the exact Pareto-state DP (", na, " x ", nb, " states) stopped after ",
              info_.candidates, " candidates with ", kept, " states kept, more than max_root_states (got ",
              s_.max_root_states, ")");
  }

  // ---- epsilon trimming -------------------------------------------------------------------

  /// The trims on the longest leaf-to-root path of build()'s tree (a leaf counts one), and from
  /// it each trim's factor: (1 + delta)^depth <= 1 + epsilon.
  void setup_trim(const mmck_sparse<Value>& out) {
    std::size_t root = 0;
    for (std::size_t c = 0; c < out.class_groups.size(); ++c) {
      const std::size_t m = out.class_groups[c].size();
      std::size_t node = 1;
      if (m == 1 || !s_.identical_groups) {
        node = m;  // the leaf, then m - 1 combines in a chain
      } else {
        std::size_t acc = 0, power = 1, rest = m;
        while (true) {
          if (rest & 1) acc = acc ? std::max(acc, power) + 1 : power;
          rest >>= 1;
          if (!rest) break;
          power += 1;
        }
        node = acc;
      }
      root = root ? std::max(root, node) + 1 : node;
    }
    trim_depth_ = std::max<std::size_t>(root, 1);
    const long double delta = std::expm1(std::log1p((long double)s_.epsilon) / (long double)trim_depth_);
    // bucket width in log space, 1e-6 narrower than log(1 + delta): rounding in log() cannot put
    // two costs further apart than 1 + delta into one bucket
    width_ = double(std::log1p(delta) * (1.0L - 1e-6L));
    trimming_ = width_ > 0;
    info_.epsilon = s_.epsilon;
    info_.trim_depth = trim_depth_;
    info_.trim_factor = double(1.0L + delta);
    info_.trim_width = width_;
  }

  /// Keeps one state per box {floor(log c_k / width)} (cost 0 its own box per dimension): the
  /// largest value (then the first in cost order). A kept state's costs are within (1 + delta)
  /// of every state of its box, its value >= theirs; the node stays sorted and non-dominated.
  void trim(mmck_node<Value>& n) {
    if (!trimming_ || n.count() < 2) return;
    const std::size_t cnt = n.count();
    std::vector<std::int64_t> box(cnt * K_);
    for (std::size_t i = 0; i < cnt; ++i)
      for (std::size_t k = 0; k < K_; ++k) {
        const std::int64_t c = n.cost[i * K_ + k];
        box[i * K_ + k] = mmck_trim_box(c, width_);
      }
    std::vector<std::uint32_t> order(cnt);
    std::iota(order.begin(), order.end(), std::uint32_t{0});
    std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
      const int r = mmck_cmp(box.data() + std::size_t(x) * K_, box.data() + std::size_t(y) * K_, K_);
      return r != 0 ? r < 0 : x < y;
    });
    std::vector<unsigned char> keep(cnt, 0);
    for (std::size_t i = 0; i < cnt;) {
      std::size_t j = i + 1, best = order[i];
      while (j < cnt && mmck_cmp(box.data() + std::size_t(order[i]) * K_, box.data() + std::size_t(order[j]) * K_, K_) == 0) {
        if (n.value[best] < n.value[order[j]]) best = order[j];
        ++j;
      }
      keep[best] = 1;
      i = j;
    }
    std::size_t w = 0;
    for (std::size_t i = 0; i < cnt; ++i) {
      if (!keep[i]) continue;
      if (w != i) {
        std::copy(n.cost.begin() + std::ptrdiff_t(i * K_), n.cost.begin() + std::ptrdiff_t((i + 1) * K_),
                  n.cost.begin() + std::ptrdiff_t(w * K_));
        n.value[w] = n.value[i];
        n.a[w] = n.a[i];
        n.b[w] = n.b[i];
        if (!n.loss.empty()) n.loss[w] = n.loss[i];
      }
      ++w;
    }
    info_.trimmed += cnt - w;
    n.cost.resize(w * K_);
    n.value.resize(w);
    n.a.resize(w);
    n.b.resize(w);
    if (!n.loss.empty()) n.loss.resize(w);
    n.cost.shrink_to_fit();
    n.value.shrink_to_fit();
    n.b.shrink_to_fit();
  }

  // ---- the Lagrangian bound --------------------------------------------------------------

  double option_loss(std::size_t c, std::size_t j) const {
    return phi_[c] - reduced(g_[rep_of_class_[c]][j], lambda_);
  }
  double reduced(const mmck_option<Value>& o, const std::vector<double>& lam) const {
    long double r = (long double)(o.value);
    for (std::size_t k = 0; k < K_; ++k) r -= (long double)lam[k] * (long double)o.cost[k] / scale_[k];
    return double(r);
  }

  /// A feasible selection's value, or nullopt: every group starts at its cheapest option by the
  /// priced cost sum_k prices_k c_k / B_k, then moves up the upper concave envelope of its
  /// (priced cost, value) points, best value-per-price step first (a heap over the groups),
  /// skipping steps that break a budget; finally each group takes the best option that still
  /// fits. The classic near-LP greedy of the multiple-choice knapsack (its gap is at most one
  /// group's value range); O(G J log J + steps log G).
  std::optional<Value> greedy_incumbent(const std::vector<double>& prices) const {
    const std::size_t G = g_.size();
    if (G == 0) return Value{};
    std::vector<std::vector<std::size_t>> hull(rep_of_class_.size());
    std::vector<std::vector<long double>> wcost(rep_of_class_.size());
    for (std::size_t c = 0; c < rep_of_class_.size(); ++c) {
      const auto& opts = g_[rep_of_class_[c]];
      auto& w = wcost[c];
      w.resize(opts.size());
      for (std::size_t j = 0; j < opts.size(); ++j) {
        long double t = 0;
        for (std::size_t k = 0; k < K_; ++k) t += (long double)prices[k] * (long double)opts[j].cost[k] / scale_[k];
        w[j] = t;
      }
      std::vector<std::size_t> order(opts.size());
      std::iota(order.begin(), order.end(), std::size_t{0});
      std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
        if (w[x] != w[y]) return w[x] < w[y];
        return (long double)opts[y].value < (long double)opts[x].value;
      });
      auto& h = hull[c];
      for (std::size_t j : order) {
        const long double v = (long double)opts[j].value;
        if (!h.empty() && !((long double)opts[h.back()].value < v)) continue;  // not higher
        while (h.size() >= 2) {  // keep the envelope concave
          const std::size_t p = h[h.size() - 2], q = h.back();
          const long double s1 = ((long double)opts[q].value - (long double)opts[p].value) * (w[j] - w[q]);
          const long double s2 = (v - (long double)opts[q].value) * (w[q] - w[p]);
          if (s2 >= s1) h.pop_back();
          else break;
        }
        h.push_back(j);
      }
    }
    std::vector<std::size_t> pos(G, 0), pick(G);
    std::vector<std::int64_t> used(K_, 0);
    for (std::size_t g = 0; g < G; ++g) {
      const std::size_t c = cls_of_group_[g];
      pick[g] = hull[c][0];
      for (std::size_t k = 0; k < K_; ++k)
        if (!mmck_add(used[k], g_[g][pick[g]].cost[k], used[k])) return std::nullopt;
    }
    for (std::size_t k = 0; k < K_; ++k)
      if (used[k] > B_[k]) return std::nullopt;
    using step = std::pair<long double, std::size_t>;  // (value per priced cost, group)
    std::priority_queue<step> heap;
    auto push = [&](std::size_t g) {
      const std::size_t c = cls_of_group_[g];
      if (pos[g] + 1 >= hull[c].size()) return;
      const std::size_t a = hull[c][pos[g]], b = hull[c][pos[g] + 1];
      const auto& opts = g_[g];
      const long double dw = wcost[c][b] - wcost[c][a];
      const long double dv = (long double)opts[b].value - (long double)opts[a].value;
      heap.push({dw > 0 ? dv / dw : std::numeric_limits<long double>::infinity(), g});
    };
    for (std::size_t g = 0; g < G; ++g) push(g);
    auto fits_swap = [&](std::size_t g, std::size_t j) {
      for (std::size_t k = 0; k < K_; ++k) {
        const std::int64_t x = used[k] - g_[g][pick[g]].cost[k];
        std::int64_t y;
        if (!mmck_add(x, g_[g][j].cost[k], y) || y > B_[k]) return false;
      }
      return true;
    };
    auto swap = [&](std::size_t g, std::size_t j) {
      for (std::size_t k = 0; k < K_; ++k) used[k] += g_[g][j].cost[k] - g_[g][pick[g]].cost[k];
      pick[g] = j;
    };
    while (!heap.empty()) {
      const std::size_t g = heap.top().second;
      heap.pop();
      const std::size_t c = cls_of_group_[g];
      const std::size_t next = hull[c][pos[g] + 1];
      if (!fits_swap(g, next)) continue;  // this group stops here
      swap(g, next);
      ++pos[g];
      push(g);
    }
    for (std::size_t g = 0; g < G; ++g) {
      std::size_t best = pick[g];
      for (std::size_t j = 0; j < g_[g].size(); ++j)
        if (g_[g][best].value < g_[g][j].value && fits_swap(g, j)) best = j;
      if (best != pick[g]) swap(g, best);
    }
    Value inc{};
    for (std::size_t g = 0; g < G; ++g) inc = inc + g_[g][pick[g]].value;
    return inc;
  }

  void setup_bound(const mmck_sparse<Value>& out) {
    if constexpr (!std::is_convertible_v<Value, long double> && !std::is_arithmetic_v<Value>) {
      return;
    } else {
      const std::size_t C = out.class_groups.size();
      scale_.assign(K_, 1);
      for (std::size_t k = 0; k < K_; ++k) scale_[k] = double(std::max<std::int64_t>(B_[k], 1));
      // incumbent: the greedy of greedy_incumbent with uniform prices, improved below with the
      // Lagrangian prices
      std::optional<Value> inc_v = greedy_incumbent(std::vector<double>(K_, 1.0));
      if (!inc_v) return;  // no incumbent found: no pruning (the DP decides feasibility)
      double incumbent = double((long double)*inc_v);
      // value scale for the rounding slack
      long double vscale = 0;
      for (std::size_t g = 0; g < g_.size(); ++g) {
        long double m = 0;
        for (const auto& o : g_[g]) m = std::max(m, std::fabs((long double)o.value));
        vscale += m;
      }
      // multipliers: projected subgradient on UB(lambda)
      std::vector<double> lam(K_, 0), best_lam(K_, 0);
      double best_ub = std::numeric_limits<double>::infinity();
      std::vector<double> phi(C);
      auto evaluate = [&](const std::vector<double>& l, std::vector<double>& grad) {
        long double ub = 0;
        grad.assign(K_, 1.0);  // d/dlambda_k of lambda . B / scale = B_k / scale_k
        for (std::size_t k = 0; k < K_; ++k) {
          grad[k] = double(B_[k]) / scale_[k];
          ub += (long double)l[k] * grad[k];
        }
        for (std::size_t c = 0; c < C; ++c) {
          const auto& opts = g_[rep_of_class_[c]];
          std::size_t arg = 0;
          double m = -std::numeric_limits<double>::infinity();
          for (std::size_t j = 0; j < opts.size(); ++j) {
            const double r = reduced(opts[j], l);
            if (r > m) m = r, arg = j;
          }
          phi[c] = m;
          const double mult = double(out.class_groups[c].size());
          ub += (long double)m * mult;
          for (std::size_t k = 0; k < K_; ++k) grad[k] -= mult * double(opts[arg].cost[k]) / scale_[k];
        }
        return double(ub);
      };
      std::vector<double> grad;
      // Polyak steps towards the incumbent, the factor halved after 25 steps without progress
      double factor = 1.0;
      int stall = 0;
      for (int it = 0; it < 3000 && factor > 1e-7; ++it) {
        const double ub = evaluate(lam, grad);
        if (!(best_ub < std::numeric_limits<double>::infinity()) || ub < best_ub - 1e-12 * std::fabs(best_ub)) {
          best_ub = ub, best_lam = lam, stall = 0;
        } else if (++stall >= 25) {
          factor *= 0.5, stall = 0, lam = best_lam;
          continue;
        }
        double norm = 0;
        for (std::size_t k = 0; k < K_; ++k) {
          if (lam[k] <= 0 && grad[k] > 0) grad[k] = 0;  // projection
          norm += grad[k] * grad[k];
        }
        if (norm == 0 || best_ub - incumbent <= 0) break;
        const double step = factor * (ub - incumbent) / norm;
        for (std::size_t k = 0; k < K_; ++k) lam[k] = std::max(0.0, lam[k] - step * grad[k]);
      }
      lambda_ = best_lam;
      {
        std::vector<double> prices = lambda_;
        bool any = false;
        for (double x : prices) any = any || x > 0;
        if (any) {
          for (double& x : prices) x = std::max(x, 1e-9 * *std::max_element(lambda_.begin(), lambda_.end()));
          if (auto v = greedy_incumbent(prices)) incumbent = std::max(incumbent, double((long double)*v));
        }
      }
      const double ub = evaluate(lambda_, grad);
      phi_ = phi;
      long double lscale = 0;
      for (std::size_t k = 0; k < K_; ++k) lscale += (long double)lambda_[k] * (1.0L + (long double)g_.size());
      const double slack = double(1e-9L * (vscale + lscale + 1e-300L) + 1e-12L);
      gap_ = ub - incumbent + slack;
      ub_ = ub;
      slack_ = slack;
      bounded_ = true;
      info_.bounded = true;
      info_.upper_bound = ub;
      info_.incumbent = incumbent;
      setup_multipliers(out);
    }
  }

  /// The multipliers of the per-merge completion bound: lambda and its variants with one
  /// dimension zeroed, halved or doubled (any l >= 0 gives a valid bound; the smallest over them
  /// is used, so lambda's own rule, loss <= gap, is the weakest case); per class and multiplier
  /// the largest reduced value, per class and dimension the largest cost.
  void setup_multipliers(const mmck_sparse<Value>& out) {
    lams_.assign(1, lambda_);
    for (std::size_t k = 0; k < K_; ++k) {
      if (!(lambda_[k] > 0)) continue;
      for (double f : {0.0, 0.5, 2.0}) {
        lams_.push_back(lambda_);
        lams_.back()[k] = lambda_[k] * f;
      }
    }
    const std::size_t C = out.class_groups.size(), P = lams_.size();
    cls_phi_.assign(C * P, 0);
    total_phi_.assign(P, 0);
    cls_maxc_.assign(C * K_, 0);
    total_maxc_.assign(K_, 0);
    for (std::size_t c = 0; c < C; ++c) {
      const auto& opts = g_[rep_of_class_[c]];
      const long double m = (long double)out.class_groups[c].size();
      for (std::size_t p = 0; p < P; ++p) {
        long double best = -std::numeric_limits<long double>::infinity();
        for (const auto& o : opts) {
          long double r = (long double)o.value;
          for (std::size_t k = 0; k < K_; ++k) r -= (long double)lams_[p][k] * (long double)o.cost[k] / (long double)scale_[k];
          best = std::max(best, r);
        }
        cls_phi_[c * P + p] = best;
        total_phi_[p] += m * best;
      }
      for (std::size_t k = 0; k < K_; ++k) {
        std::int64_t mx = 0;
        for (const auto& o : opts) mx = std::max(mx, o.cost[k]);
        cls_maxc_[c * K_ + k] = mx;
        total_maxc_[k] += mmck_i128(mx) * mmck_i128(out.class_groups[c].size());
      }
    }
  }

  void rep_for(const mmck_sparse<Value>& out) {
    rep_of_class_.clear();
    for (const auto& cg : out.class_groups) rep_of_class_.push_back(cg[0]);
    cls_of_group_ = out.group_class;
  }

  const mmck_groups<Value>& g_;
  const std::vector<std::int64_t>& B_;
  const mmck_settings& s_;
  mmck_info& info_;
  std::size_t K_;
  std::vector<std::vector<std::int64_t>> cls_min_;
  std::vector<std::int64_t> total_min_;
  std::vector<std::size_t> rep_of_class_;
  std::vector<std::size_t> cls_of_group_;
  std::vector<std::vector<std::uint32_t>> key_;
  std::vector<std::vector<std::int64_t>> node_cls_min_;
  // the completion bound (bounded path): multipliers, per class its largest reduced value under
  // each (classes x multipliers) and its largest cost per dimension (classes x K); per node the
  // sums over the groups it covers
  std::vector<std::vector<double>> lams_;
  std::size_t beam_ = 0;  ///< > 0: the heuristic run (at most beam_ states per merge)
  std::vector<long double> cls_phi_, total_phi_;
  std::vector<mmck_i128> cls_maxc_, total_maxc_;
  std::vector<std::vector<long double>> node_phi_;
  std::vector<std::vector<mmck_i128>> node_maxc_;
  std::vector<mmck_node<Value>>* nodes_ = nullptr;
  std::size_t bytes_ = 0;
  std::uint64_t work_ = 0;
  std::size_t merges_left_ = 0;
  // epsilon trimming
  bool trimming_ = false;
  std::size_t trim_depth_ = 0;
  double width_ = 0;
  // bound
  bool bounded_ = false;
  std::vector<double> lambda_, phi_, scale_;
  double gap_ = 0, ub_ = 0, slack_ = 0;
};

} // namespace detail

} // namespace nsc::search

#endif // NSC_SEARCH_KNAPSACK_SPARSE_HPP
