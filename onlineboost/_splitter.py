r"""River's Gaussian splitter for Hoeffding trees, faster, with the same splits.

The default trees of `BoOCOClassifier` and of both OnlineMABoost boosters use it: a boosted
Hoeffding tree sees example weights above 1 and tries to split often, and river's split search
and its generic `clone` were most of those trees' learning time. The trees it grows are river's
own, split for split (tests pin the search against river's on random states and whole models
against river's splitter).
"""

from __future__ import annotations

import math

from river.tree import splitter

__all__ = ["GaussianSplitter"]


class GaussianSplitter(splitter.GaussianSplitter):
    """River's `GaussianSplitter`, faster, with the same splits: a direct `clone` (a Hoeffding
    tree clones its splitter for every feature of every new leaf, and river's generic `clone`
    reads the signature with `inspect` each time, a tenth of the default trees' learning time
    on Phishing) and the split search in one loop (at `rate` 12 the trees try to split often,
    and the search was half their learning time)."""

    def clone(self, new_params=None, include_attributes=False):
        if new_params or include_attributes:
            return super().clone(new_params, include_attributes)
        return type(self)(self.n_splits)

    def best_evaluated_split_suggestion(self, criterion, pre_split_dist, att_idx, binary_only):
        """River's search (`n_splits` thresholds, the information gain of each, the best kept)
        in one loop: the same arithmetic in the same order, so the same split, without the
        criterion's per-threshold dispatch and the pre-split entropy computed once."""
        from river.tree.split_criterion import InfoGainSplitCriterion
        from river.tree.utils import BranchFactory

        if type(criterion) is not InfoGainSplitCriterion or not isinstance(pre_split_dist,
                                                                            dict):
            return super().best_evaluated_split_suggestion(criterion, pre_split_dist, att_idx,
                                                           binary_only)
        log2, inf = math.log2, math.inf
        min_frac = criterion.min_branch_fraction
        pre = criterion._compute_entropy_dict(pre_split_dist)
        best = BranchFactory()
        best_merit = best.merit
        for split_value in self._split_point_suggestions():
            lhs, rhs = self._class_dists_from_binary_split(split_value)
            w_l, w_r = sum(lhs.values()), sum(rhs.values())
            total = w_l + w_r
            if total <= 0 or (w_l / total > min_frac) + (w_r / total > min_frac) < 2:
                merit = -inf
            else:
                post = 0.0
                for w_i, dist in ((w_l, lhs), (w_r, rhs)):
                    h = s = 0.0
                    for d in dist.values():
                        if d > 0.0:
                            h -= d * log2(d)
                            s += d
                    post += w_i * ((h + s * log2(s)) / s if s > 0.0 else 0.0)
                merit = pre - post / total
            if merit > best_merit:
                best = BranchFactory(merit, att_idx, split_value, [lhs, rhs])
                best_merit = merit
        return best
