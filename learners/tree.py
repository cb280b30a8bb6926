r"""Stacked online regression trees: $n$ quantile-binned greedy trees served by one array op.

river's `HoeffdingTreeRegressor` grows one tree of Python node objects, each leaf with one
attribute observer per feature; boosting $N$ of them through an adapter costs $N$ trees' worth of
dict walks per sample (issue 11 measured 25x one tree at $N = 10$). Here the $n$ copies a booster
needs differ only in their targets, so everything that depends on the features alone (the
feature index, the per-feature candidate thresholds, the binning of a sample) is computed once
per sample and shared, and everything per copy (tree structure, leaf sums, split histograms) is
a stacked array indexed by copy, so one numpy operation serves all $n$ copies.
"""

from __future__ import annotations

import numpy as np
from river import base
from scipy import special

from onlineboost import sets
from onlineboost._checks import check_int, check_real

from ._features import FeatureIndex, check_max_features, check_stack, check_targets
from ._single import OneCopyRegressor
from .linear_ogd import check_decision_set
from .stump import warmup_thresholds

__all__ = ["OnlineTree", "OnlineTreeRegressor", "TreeRegressorStack", "TreeStack"]

_MIN_SIDE = 5  # a candidate split leaves at least this many samples on each side
# largest target magnitude learnt: sums of squares over any stream stay finite below it
_MAX_TARGET = 1e100
# largest squared feature norm a linear leaf learns from (W x and its errors stay finite)
_MAX_NORM2 = 1e100


def _check_magnitude(Y: np.ndarray, what: str) -> None:
    if np.abs(Y).max(initial=0.0) > _MAX_TARGET:
        raise ValueError(f"{what} must stay within +-{_MAX_TARGET:g} (the leaf sums must stay "
                         "finite)")


class _TreeCore:
    r"""$n$ online regression trees on one feature stream, fitting $n$ target columns of
    dimension $d$ (shape `(n, d)` a sample).

    **Binning** (shared by the copies). A feature's candidate thresholds are fixed once, from
    its first `warmup` values (0 when missing from a dict), by `stump.warmup_thresholds`: at
    most `n_bins - 1` quantile midpoints. A sample's bin for feature $j$ is the number of
    thresholds below $x_j$, so $x_j \le \theta_k \iff \text{bin}_j \le k$; a feature still
    warming up lands in a trash bin that no split reads.

    **Growth** (per copy). Nodes live in a complete binary tree of depth `max_depth` (node
    $v$ has children $2v + 1$, $2v + 2$). A leaf above the maximum depth keeps a histogram
    (count and target sum per feature and bin) of the samples it received since it was
    created. Every `grace_period` of them it takes the split $(j, k)$ of largest squared-error
    reduction
    $$\Delta = \frac{\|S_L\|^2}{n_L} + \frac{\|S_R\|^2}{n_R} - \frac{\|S\|^2}{n}$$
    (with at least 5 samples a side) and splits when $\Delta$ beats what the best of $m$
    candidate splits gains on pure noise: $\Delta > \hat\sigma^2 \, \chi^2_{d}(1 -
    \delta / m)$, with $\hat\sigma^2$ the leaf's residual variance a coordinate after the
    split and $\delta$ = `split_confidence` (a Bonferroni bound over the $m$ candidates).
    River's Hoeffding trees wait for a Hoeffding bound on the best-to-second-best merit ratio
    instead; this test splits as soon as the best split is real, which a weak learner that is
    boosted (and whose residual targets shrink) needs. The children start with the parent's
    side count and sum (known exactly from the histogram) and fresh histograms. Known limits:
    the test says that a split is real, not that its place is the best one (an early split
    may land one candidate off), and the candidate thresholds never move (a feature that
    drifts out of its warm-up range falls in its end bins).

    **Leaves.** A leaf predicts the mean target $m$ of its samples (`origin` before any),
    and, unless `leaf_model="mean"`, also keeps a linear correction $m + W^\top x$ whose
    weights take one normalised LMS step a sample on its residual $e = y - m - W^\top x$,
    $W \leftarrow W + \frac{\text{leaf\_lr}}{1 + \|x\|^2}\, x\, e^\top$ (Widrow-Hoff:
    stable for `leaf_lr` < 2 whatever the feature scale). `"adaptive"` plays whichever of the
    two has the smaller squared error on the samples the leaf received (river's Hoeffding
    trees' `leaf_prediction="adaptive"`), `"linear"` always the corrected one. Children start
    from their parent's weights.

    Only leaves above the maximum depth hold histograms, at most $2^{D-1}$ of them a copy:
    the state is `n * (2^(D-1) + 1) * p * (n_bins + 1) * (d + 1)` floats for $p$ features,
    plus `n * (2^(D+1) - 1) * p * d` linear weights.
    """

    def __init__(self, n: int, dim: int, origin, max_depth: int, n_bins: int, warmup: int,
                 grace_period: int, split_confidence: float, max_features: int,
                 leaf_model: str = "adaptive", leaf_lr: float = 0.1):
        self.n = n
        self.dim = dim
        self.origin = np.asarray(origin, dtype=np.float64).reshape(dim)
        self.max_depth = max_depth
        self.n_bins = n_bins
        self.warmup = warmup
        self.grace_period = grace_period
        self.split_confidence = split_confidence
        self.leaf_model = leaf_model
        self.leaf_lr = leaf_lr
        self._linear = leaf_model != "mean"
        self._index = FeatureIndex(max_features)
        D, B = max_depth, n_bins
        self._M = M = 2 ** (D + 1) - 1  # node slots of the complete tree
        self._S = 2 ** (D - 1)  # histogram slots (leaves that may still split); slot S: trash
        self._depth = np.floor(np.log2(np.arange(M) + 1)).astype(np.intp)  # (M,)
        self._rows = np.arange(n)
        self._row_nodes = self._rows * M  # flat offset of each copy's nodes
        self._row_slots = self._rows * (self._S + 1)  # flat offset of each copy's slots
        self._cap = 0  # feature columns allocated
        self._n_ready = 0  # features whose thresholds are fixed
        self._thr = np.full((0, B - 1), np.inf)  # (cap, B - 1) thresholds, +inf padded
        self._ready = np.zeros(0, dtype=bool)  # (cap,) thresholds fixed
        self._warm = np.zeros((0, warmup))  # (cap, warmup) warm-up values
        self._warm_n = np.zeros(0, dtype=np.intp)  # (cap,)
        self._hist_n = np.zeros((n, self._S + 1, 0, B + 1))  # (n, S + 1, cap, B + 1) counts
        self._hist_s = np.zeros((n, self._S + 1, 0, B + 1, dim))  # target sums
        self._feat = np.full((n, M), -1, dtype=np.intp)  # split feature, -1: leaf
        self._split = np.zeros((n, M), dtype=np.intp)  # split bin k: left iff bin <= k
        self._slot = np.full((n, M), self._S, dtype=np.intp)  # histogram slot of a leaf
        self._slot[:, 0] = 0
        self._n_slots = np.ones(n, dtype=np.intp)  # slots handed out
        self._leaf_n = np.zeros((n, M))  # count behind the leaf mean (with the parent's side)
        self._leaf_s = np.zeros((n, M, dim))  # target sum behind the leaf mean
        self._seen = np.zeros((n, M), dtype=np.intp)  # samples since the leaf was created
        self._seen_s = np.zeros((n, M, dim))
        self._seen_q = np.zeros((n, M))  # sum of squared target norms since created
        self._W = np.zeros((n, M, 0, dim))  # (n, M, cap, d) linear leaf weights
        self._err = np.zeros((n, M, 2))  # squared errors of the mean / linear leaf, since created
        self._cache = None  # (x, vector, bins, flat leaves) of the last predict, until a learn

    def __getstate__(self):  # the routing cache is derived, not state
        state = self.__dict__.copy()
        state["_cache"] = None
        return state

    # -- shared: features and bins ------------------------------------------------------------

    def _grow(self, p: int) -> None:
        """Room for `p` feature columns (capacity doubles, up to the index's cap)."""
        if p <= self._cap:
            return
        cap = min(max(p, 2 * self._cap, 8), self._index.max_features)
        m = cap - self._cap
        B = self.n_bins
        self._thr = np.vstack([self._thr, np.full((m, B - 1), np.inf)])
        self._ready = np.concatenate([self._ready, np.zeros(m, dtype=bool)])
        self._warm = np.vstack([self._warm, np.zeros((m, self.warmup))])
        self._warm_n = np.concatenate([self._warm_n, np.zeros(m, dtype=np.intp)])
        pad = np.zeros(self._hist_n.shape[:2] + (m, B + 1))
        self._hist_n = np.concatenate([self._hist_n, pad], axis=2)
        self._hist_s = np.concatenate([self._hist_s, np.zeros(pad.shape + (self.dim,))], axis=2)
        if self._linear:
            self._W = np.concatenate([self._W, np.zeros((self.n, self._M, m, self.dim))],
                                     axis=2)
        self._cap = cap

    def _bins(self, v: np.ndarray) -> np.ndarray:
        p = len(v)
        if not self._n_ready:
            return np.full(p, self.n_bins)
        b = np.count_nonzero(self._thr[:p] < v[:, None], axis=1)
        if self._n_ready == p:
            return b
        return np.where(self._ready[:p], b, self.n_bins)  # warming features: the trash bin

    def _route(self, b: np.ndarray) -> np.ndarray:
        """Each copy's leaf for a sample with bins `b`, as flat node indices `(n,)`."""
        at = self._row_nodes.copy()  # every copy at its root
        if not self._n_ready:
            return at
        feat, split = self._feat.reshape(-1), self._split.reshape(-1)
        for _ in range(self.max_depth):
            f = feat[at]
            inner = f >= 0
            if not inner.any():
                break
            right = b[np.maximum(f, 0)] > split[at]
            node = at - self._row_nodes
            at = np.where(inner, at + node + 1 + right, at)  # child 2v + 1 (+ 1 on the right)
        return at

    def _read(self, x: dict):
        """(vector, bins, flat leaves) of `x` over the known features; validates `x`."""
        cache = self._cache
        if cache is not None and cache[0] == x:
            return cache[1:]
        v, _ = self._index.read(x, grow=False)
        b = self._bins(v)
        at = self._route(b)
        self._cache = (dict(x), v, b, at)
        return v, b, at

    # -- per copy -----------------------------------------------------------------------------

    def _means(self, at: np.ndarray) -> np.ndarray:
        count = self._leaf_n.reshape(-1)[at]
        total = self._leaf_s.reshape(-1, self.dim)[at]
        if count.all():
            return total / count[:, None]
        return np.where(count[:, None] > 0, total / np.maximum(count, 1.0)[:, None],
                        self.origin)

    def _linear_part(self, at: np.ndarray, v: np.ndarray) -> np.ndarray:
        """W x for each copy's leaf, clipped to the target range +-1e100 (0 where a huge x
        makes it overflow)."""
        p = len(v)
        W = self._W.reshape(-1, self._cap, self.dim)[at, :p]  # (n, p, d)
        with np.errstate(over="ignore", invalid="ignore"):
            part = np.einsum("npd,p->nd", W, v)
        if not np.isfinite(part).all():
            part = np.where(np.isfinite(part), part, 0.0)
        return np.minimum(np.maximum(part, -_MAX_TARGET), _MAX_TARGET)

    def values(self, x: dict) -> np.ndarray:
        """Each copy's leaf value for `x`, shape `(n, d)`."""
        v, _, at = self._read(x)
        mean = self._means(at)
        if not self._linear or not len(v):
            return mean
        linear = mean + self._linear_part(at, v)
        if self.leaf_model == "linear":
            return linear
        err = self._err.reshape(-1, 2)[at]
        return np.where((err[:, 1] < err[:, 0])[:, None], linear, mean)

    def update(self, x: dict, Y: np.ndarray, new: list, v: np.ndarray) -> None:
        """Learn the targets `Y` (n, d) of a validated sample (`new`, `v` from `read`)."""
        cache, self._cache = self._cache, None
        if new:
            self._index.add(new)
            self._grow(len(self._index))
        if not new and cache is not None and cache[0] == x:  # right after a predict on x
            b, at = cache[2], cache[3]
        else:
            b = self._bins(v)
            at = self._route(b)
        p, d = len(v), self.dim
        # linear leaves: errors of both leaf predictions, then one normalised LMS step on the
        # residual of the linear one (Widrow-Hoff, step leaf_lr / (1 + |v|^2): stable for
        # leaf_lr < 2 whatever the feature scale); a sample with |v|^2 beyond _MAX_NORM2 (up
        # to 1e308 per feature is accepted) leaves the linear parts alone
        with np.errstate(over="ignore"):
            vv = float(v @ v) if p else 0.0
        if self._linear and p and vv <= _MAX_NORM2:
            mean = self._means(at)
            W_flat = self._W.reshape(-1, self._cap, d)
            resid = Y - mean - np.einsum("npd,p->nd", W_flat[at, :p], v)
            e_mean = Y - mean
            err = self._err.reshape(-1, 2)
            err[at, 0] += np.einsum("nd,nd->n", e_mean, e_mean)
            err[at, 1] += np.einsum("nd,nd->n", resid, resid)
            step = self.leaf_lr / (1.0 + vv)
            W_flat[at, :p] += (step * resid)[:, None, :] * v[None, :, None]
        # leaf statistics
        self._leaf_n.reshape(-1)[at] += 1.0
        self._leaf_s.reshape(-1, d)[at] += Y
        self._seen.reshape(-1)[at] += 1
        self._seen_s.reshape(-1, d)[at] += Y
        self._seen_q.reshape(-1)[at] += np.einsum("nd,nd->n", Y, Y)
        # histograms of the leaves that may still split (others write to the trash slot)
        if self._n_ready:
            B1 = self.n_bins + 1
            slot = self._slot.reshape(-1)[at] + self._row_slots  # (n,) flat slot
            cell = (slot[:, None] * self._cap + np.arange(p)) * B1 + b  # (n, p) flat cells
            self._hist_n.reshape(-1)[cell] += 1.0
            self._hist_s.reshape(-1, d)[cell] += Y[:, None, :]
        # warm-up of the features whose thresholds are not fixed yet
        if self._n_ready < p:
            warming = np.flatnonzero(~self._ready[:p])
            self._warm[warming, self._warm_n[warming]] = v[warming]
            self._warm_n[warming] += 1
            for j in warming[self._warm_n[warming] >= self.warmup].tolist():
                theta = warmup_thresholds(self._warm[j], self.n_bins)
                self._thr[j, : len(theta)] = theta
                self._ready[j] = True
                self._n_ready += 1
        # split checks, every grace_period samples of a leaf above the maximum depth
        if self._n_ready:
            node = at - self._row_nodes
            due = ((self._seen.reshape(-1)[at] % self.grace_period == 0)
                   & (self._depth[node] < self.max_depth))
            if due.any():
                self._try_splits(np.flatnonzero(due), node[due], p)

    def _try_splits(self, c: np.ndarray, node: np.ndarray, p: int) -> None:
        B, d = self.n_bins, self.dim
        slot = self._slot[c, node]
        Hn = self._hist_n[c, slot, :p, :B]  # (k, p, B)
        Hs = self._hist_s[c, slot, :p, :B]  # (k, p, B, d)
        n_left = np.cumsum(Hn, axis=2)[:, :, :-1]  # (k, p, B - 1)
        s_left = np.cumsum(Hs, axis=2)[:, :, :-1]  # (k, p, B - 1, d)
        n_tot = Hn.sum(axis=2)  # (k, p): samples since the feature's thresholds were fixed
        s_tot = Hs.sum(axis=2)  # (k, p, d)
        n_right = n_tot[:, :, None] - n_left
        s_right = s_tot[:, :, None, :] - s_left
        valid = (n_left >= _MIN_SIDE) & (n_right >= _MIN_SIDE)
        if not valid.any():
            return
        with np.errstate(divide="ignore", invalid="ignore"):
            gain = ((s_left**2).sum(-1) / n_left + (s_right**2).sum(-1) / n_right
                    - ((s_tot**2).sum(-1) / n_tot)[:, :, None])
        gain = np.where(valid, gain, -np.inf)
        flat = np.argmax(gain.reshape(len(c), -1), axis=1)  # ties: lowest (feature, bin)
        k_rows = np.arange(len(c))
        j, k = np.divmod(flat, B - 1)
        best = gain[k_rows, j, k]
        # noise level after the split, from every sample the leaf saw since it was created
        seen = self._seen[c, node].astype(np.float64)
        s = self._seen_s[c, node]
        sse = self._seen_q[c, node] - np.einsum("kd,kd->k", s, s) / seen - best
        sigma2 = np.maximum(sse, 0.0) / (np.maximum(seen - 2.0, 1.0) * d)
        m = np.maximum(valid.reshape(len(c), -1).sum(axis=1), 1)  # best is -inf when m = 0
        threshold = sigma2 * special.chdtri(d, self.split_confidence / m)
        go = (best > threshold) & (best > 1e-12 * self._seen_q[c, node])  # not rounding noise
        if not go.any():
            return
        c, node, j, k, kr = c[go], node[go], j[go], k[go], k_rows[go]
        self._feat[c, node] = j
        self._split[c, node] = k
        left, right = 2 * node + 1, 2 * node + 2
        for child, cn, cs in ((left, n_left[kr, j, k], s_left[kr, j, k]),
                              (right, n_right[kr, j, k], s_right[kr, j, k])):
            self._leaf_n[c, child] = cn
            self._leaf_s[c, child] = cs
            if self._linear:  # the children start from the parent's linear model
                self._W[c, child] = self._W[c, node]
        # histogram slots: the left child inherits the parent's, the right one takes a new one;
        # children at the maximum depth never split and write to the trash slot
        parent_slot = self._slot[c, node]
        inner = self._depth[left] < self.max_depth
        new_slot = np.where(inner, self._n_slots[c], self._S)
        self._n_slots[c] += inner
        self._slot[c, left] = np.where(inner, parent_slot, self._S)
        self._slot[c, right] = new_slot
        self._slot[c, node] = self._S
        for s_ in (parent_slot[inner], new_slot[inner]):
            self._hist_n[c[inner], s_] = 0.0
            self._hist_s[c[inner], s_] = 0.0

    # -- inspection ---------------------------------------------------------------------------

    def n_leaves(self) -> np.ndarray:
        """Number of leaves of each copy, shape `(n,)`."""
        return 1 + np.count_nonzero(self._feat >= 0, axis=1)


def _check_tree_params(max_depth, n_bins, warmup, grace_period, split_confidence,
                       max_features, leaf_model, leaf_lr) -> None:
    check_int("max_depth", max_depth, 1)
    check_int("n_bins", n_bins, 2)
    check_int("warmup", warmup, 1)
    check_int("grace_period", grace_period, 1)
    check_real("split_confidence", split_confidence, 0.0, 1.0, low_open=True)
    check_max_features(max_features)
    if leaf_model not in ("mean", "linear", "adaptive"):
        raise ValueError(f"leaf_model must be 'mean', 'linear' or 'adaptive', got {leaf_model!r}")
    check_real("leaf_lr", leaf_lr, 0.0, 2.0, low_open=True)


class TreeStack:
    r"""$n$ copies of `OnlineTree` on one context stream, as stacked arrays.

    `predict` bins the sample once and routes all $n$ copies with one array operation a tree
    level; `learn` turns the gradients into targets $\mu - g_i / \lambda$ and updates every
    copy's leaf and histograms at once.

    Parameters
    ----------
    n
        Number of copies.
    decision_set, lam, max_depth, n_bins, warmup, grace_period, split_confidence, max_features
        As in `OnlineTree`.

    Examples
    --------
    >>> import numpy as np
    >>> from learners import TreeStack
    >>> stack = TreeStack(2, None, warmup=8, grace_period=8)
    >>> for t in range(64):
    ...     c = (t % 8) / 8
    ...     stack.learn({"c": c}, np.array([[c - 0.5], [0.5 - c]]))  # targets 0.5 - c, c - 0.5
    >>> stack.predict({"c": 0.9})  # the mean target of the leaf c > 0.6875
    array([[-0.3125],
           [ 0.3125]])
    >>> stack.n_leaves()
    array([4, 4])
    """

    #: `predict` and `learn` validate x (a dict of finite numbers, else `ValueError` naming
    #: `x`) before any state changes
    validates_x = True

    def __init__(self, n: int, decision_set=None, lam: float = 1.0, max_depth: int = 3,
                 n_bins: int = 16, warmup: int = 64, grace_period: int = 32,
                 split_confidence: float = 1e-3, max_features: int = 1_000,
                 leaf_model: str = "adaptive", leaf_lr: float = 0.1):
        check_stack(n, None)
        self.n = int(n)
        self.decision_set = check_decision_set(decision_set)
        self.lam = lam
        K = self.decision_set
        self._mu = np.asarray(K.centroid, dtype=np.float64).reshape(K.dim)
        self._core = _TreeCore(self.n, K.dim, self._mu, int(max_depth), int(n_bins),
                               int(warmup), int(grace_period), float(split_confidence),
                               int(max_features), leaf_model, float(leaf_lr))
        self._interval = ((float(K._lo[0]), float(K._hi[0]))
                          if isinstance(K, sets.Box) and K.dim == 1 else None)
        self._R = 1e6 * max(float(K.diameter), 1.0)

    def predict(self, x: dict) -> np.ndarray:
        """The $n$ points $\\Pi_K(\\text{leaf value})$, shape `(n, d)`."""
        a = self._core.values(x)
        if self._interval is not None:
            return np.minimum(np.maximum(a, self._interval[0]), self._interval[1])
        # a leaf value farther than R from mu is first pulled back along its ray to distance R
        # (R = 1e6 max(D, 1)): its projection moves by O(D^2 / R), and projections of huge
        # points lose every digit (issue 14, item 11)
        z = a - self._mu
        r2 = np.einsum("nd,nd->n", z, z)
        if r2.max() > self._R**2:
            shrink = np.minimum(1.0, self._R / np.sqrt(np.maximum(r2, 1e-300)))
            a = self._mu + z * shrink[:, None]
        return self.decision_set._project(a)

    def learn(self, x: dict, G) -> None:
        """Every copy learns the target $\\mu - g_i / \\lambda$; row $i$ of `G` (shape
        `(n, d)`) is $g_i$."""
        core = self._core
        v, new = core._index.read(x)
        G = check_targets(G, (self.n, core.dim), "g")
        with np.errstate(over="ignore"):
            Y = self._mu - G / self.lam
        _check_magnitude(Y, "the target mu - g / lam")
        core.update(x, Y, new, v)

    def n_leaves(self) -> np.ndarray:
        """Number of leaves of each copy, shape `(n,)`."""
        return self._core.n_leaves()


class OnlineTree(base.Estimator):
    r"""Weak OCO learner: an online regression tree fitted to the regularised minimiser.

    Given the linear loss $a \mapsto \langle g_t, a\rangle$, each leaf plays the minimiser of
    the losses it received plus a proximal term, the mean of the targets $\mu - g/\lambda$:
    $$a_{\text{leaf}} = \Pi_K\Big(\mu - \frac{\sum_{t \in \text{leaf}} g_t}{\lambda\,
    n_{\text{leaf}}}\Big),$$
    and the tree grows greedily (quantile-binned candidate thresholds, squared-error splits
    under a noise test; see `_TreeCore`), up to depth `max_depth`. For the squared loss the
    target is the residual (as in `RegressorOCO`, with which it agrees in spirit), so a
    booster's copies fit what the earlier ones left. Leaves hold $d$-vectors: K can be any
    set (a simplex for multiclass). `lam` is $\lambda$, $\mu$ is the centroid of K. Before
    any update it plays $\mu$. Unseen features count as 0.

    `stack(n)` serves $n$ copies with one array operation a step (the copies share the
    binning and differ only in their targets); `BoOCO` uses it.

    Parameters
    ----------
    decision_set
        The convex set $K$ (`onlineboost.sets`); `None` means `Interval(-1, 1)`.
    lam
        $\lambda > 0$, the weight of the proximal term (the targets are $\mu - g/\lambda$).
    max_depth
        Depth $D \ge 1$ of the tree (1: a stump, up to $2^D$ leaves).
    n_bins
        At most `n_bins - 1` candidate thresholds a feature ($\ge 2$).
    warmup
        Number of values of a feature that place its thresholds ($\ge 1$).
    grace_period
        A leaf looks for a split every `grace_period` samples it receives.
    split_confidence
        $\delta \in (0, 1]$: a leaf splits when its best split reduces the squared error more
        than the best of its candidates would on noise, except with probability $\delta$.
    max_features
        At most this many feature names are kept (`FeatureIndex`): later new names are
        ignored, so the state stays bounded when every record brings a new name.
    leaf_model
        `"mean"` (leaf means), `"linear"` (means plus a normalised-LMS linear correction) or
        `"adaptive"` (whichever of the two has erred less at that leaf).
    leaf_lr
        Step of the normalised LMS updates of linear leaves, in $(0, 2]$.

    The defaults (`max_depth=3`, `n_bins=16`, `warmup=64`, `grace_period=32`,
    `split_confidence=1e-3`, `leaf_model="adaptive"`, `leaf_lr=0.1`) were chosen by the mean
    progressive MAE of `BoOCO(N=10)` over the six development streams of issue 11
    (StumpMixture, TrumpApproval, ChickWeights, Diabetes, Boston, California; targets scaled
    into [-1, 1]) among the variants tried (leaf model mean / linear / adaptive, `leaf_lr`
    0.1 / 0.25 / 0.5, depth 2 / 3 / 4, 16 / 32 bins, warm-up 64 / 128 / 200, grace 16 / 32 /
    64 / 100), variants within 1% of the lowest counting as ties, broken by the mean over the
    five real streams: linear leaves cut it by a third against mean leaves; warm-up 200 was
    1% lower on the six (from StumpMixture alone) and 2.5% higher on the five real streams;
    depth 2, 4 and 32 bins were within 1% on both.

    Examples
    --------
    >>> import numpy as np
    >>> from learners import OnlineTree
    >>> from streams import StumpMixture
    >>> stream = StumpMixture(n_features=3, n_stumps=2, seed=0)
    >>> tree = OnlineTree(max_depth=2)
    >>> errors = []
    >>> for x, y in stream.take(2000):  # gradient of (a - y)^2 / 2 at a = 0: the target is y
    ...     errors.append(abs(float(tree.predict_one(x)[0]) - y))
    ...     tree.learn_one(x, np.array([0.0 - y]))
    >>> round(float(np.mean(errors[:500])), 3), round(float(np.mean(errors[-500:])), 3)
    (0.3..., 0.0...)
    >>> tree.n_leaves
    4
    """

    def __init__(self, decision_set: sets.ConvexSet | None = None, lam: float = 1.0,
                 max_depth: int = 3, n_bins: int = 16, warmup: int = 64,
                 grace_period: int = 32, split_confidence: float = 1e-3,
                 max_features: int = 1_000, leaf_model: str = "adaptive",
                 leaf_lr: float = 0.1):
        check_decision_set(decision_set)
        check_real("lam", lam, 0.0, low_open=True)
        _check_tree_params(max_depth, n_bins, warmup, grace_period, split_confidence,
                           max_features, leaf_model, leaf_lr)
        self.decision_set = decision_set
        self.lam = lam
        self.max_depth = max_depth
        self.n_bins = n_bins
        self.warmup = warmup
        self.grace_period = grace_period
        self.split_confidence = split_confidence
        self.max_features = max_features
        self.leaf_model = leaf_model
        self.leaf_lr = leaf_lr
        self._stack = self.stack(1)

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"decision_set": sets.Simplex(3), "lam": 2.0, "max_depth": 2, "n_bins": 4,
               "warmup": 5, "grace_period": 5}

    def stack(self, n: int, seeds: list | None = None) -> TreeStack:
        """$n$ fresh copies as one `TreeStack` (`seeds` ignored: not random)."""
        check_stack(n, seeds)
        return TreeStack(n, self.decision_set, float(self.lam), int(self.max_depth),
                         int(self.n_bins), int(self.warmup), int(self.grace_period),
                         float(self.split_confidence), int(self.max_features),
                         self.leaf_model, float(self.leaf_lr))

    def predict_one(self, x: dict) -> np.ndarray:
        """The point of K played at `x`, shape `(dim,)`."""
        return self._stack.predict(x)[0]

    def learn_one(self, x: dict, g) -> None:
        """Learn the linear loss $a \\mapsto \\langle g, a\\rangle$, `g` of shape `(dim,)`."""
        dim = self._stack.decision_set.dim
        self._stack.learn(x, check_targets(g, (dim,), "g")[None, :])

    @property
    def n_leaves(self) -> int:
        return int(self._stack.n_leaves()[0])


class TreeRegressorStack:
    r"""$n$ copies of `OnlineTreeRegressor` that see one feature stream and differ only in
    their targets; `predict` gives shape `(n,)`, `learn` takes `y` of shape `(n,)`.

    Examples
    --------
    >>> from learners import TreeRegressorStack
    >>> stack = TreeRegressorStack(2, warmup=4, grace_period=10)
    >>> for t in range(40):
    ...     c = t % 4
    ...     stack.learn({"c": c}, [float(c >= 2), 3.0])
    >>> stack.predict({"c": 3})
    array([1., 3.])
    """

    validates_x = True

    def __init__(self, n: int, max_depth: int = 3, n_bins: int = 16, warmup: int = 64,
                 grace_period: int = 32, split_confidence: float = 1e-3,
                 max_features: int = 1_000, leaf_model: str = "adaptive", leaf_lr: float = 0.1):
        check_stack(n, None)
        self.n = int(n)
        self._core = _TreeCore(self.n, 1, 0.0, int(max_depth), int(n_bins), int(warmup),
                               int(grace_period), float(split_confidence), int(max_features),
                               leaf_model, float(leaf_lr))

    def predict(self, x: dict) -> np.ndarray:
        """The $n$ predictions (leaf means), shape `(n,)`; 0 before any sample."""
        return self._core.values(x)[:, 0]

    def learn(self, x: dict, y) -> None:
        """Every copy learns its target; `y` has shape `(n,)`."""
        v, new = self._core._index.read(x)
        y = check_targets(y, (self.n,), "y")
        _check_magnitude(y, "y")
        self._core.update(x, y[:, None], new, v)

    def n_leaves(self) -> np.ndarray:
        return self._core.n_leaves()


class OnlineTreeRegressor(OneCopyRegressor):
    r"""Online regression tree: greedy quantile-binned splits, leaf means (see `OnlineTree`).

    The regressor face of the same tree: `BoOCO` wraps it in `RegressorOCO` (a residual
    target per copy, $\mu - g_i/\lambda_i$) and its `stack` serves all copies at once.

    Parameters
    ----------
    max_depth, n_bins, warmup, grace_period, split_confidence, max_features
        As in `OnlineTree`.

    Examples
    --------
    >>> from river import datasets, evaluate, metrics, preprocessing, tree
    >>> from learners import OnlineTreeRegressor
    >>> model = OnlineTreeRegressor()
    >>> evaluate.progressive_val_score(datasets.TrumpApproval(),
    ...                                preprocessing.StandardScaler() | model, metrics.MAE())
    MAE: 0.462553
    >>> model.n_leaves
    5
    >>> evaluate.progressive_val_score(datasets.TrumpApproval(),  # river's, for comparison
    ...     preprocessing.StandardScaler() | tree.HoeffdingTreeRegressor(), metrics.MAE())
    MAE: 0.956103
    """

    def __init__(self, max_depth: int = 3, n_bins: int = 16, warmup: int = 64,
                 grace_period: int = 32, split_confidence: float = 1e-3,
                 max_features: int = 1_000, leaf_model: str = "adaptive", leaf_lr: float = 0.1):
        _check_tree_params(max_depth, n_bins, warmup, grace_period, split_confidence,
                           max_features, leaf_model, leaf_lr)
        self.max_depth = max_depth
        self.n_bins = n_bins
        self.warmup = warmup
        self.grace_period = grace_period
        self.split_confidence = split_confidence
        self.max_features = max_features
        self.leaf_model = leaf_model
        self.leaf_lr = leaf_lr
        self._stack = self.stack(1)

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"max_depth": 1, "n_bins": 4, "warmup": 5, "grace_period": 5, "leaf_model": "mean"}

    def stack(self, n: int, seeds: list | None = None) -> TreeRegressorStack:
        """$n$ fresh copies sharing the binning (`seeds` ignored: not random)."""
        check_stack(n, seeds)
        return TreeRegressorStack(n, int(self.max_depth), int(self.n_bins), int(self.warmup),
                                  int(self.grace_period), float(self.split_confidence),
                                  int(self.max_features), self.leaf_model,
                                  float(self.leaf_lr))

    @property
    def n_leaves(self) -> int:
        return int(self._stack.n_leaves()[0])

