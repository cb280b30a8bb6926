r"""`NeighbourBoBLO`'s round as compiled functions (numba), on `onlineboost.neighbours`' arrays.

* `nearest_means`: `NeighbourCorrection.predict`'s pass, one per arm over its stored contexts,
  keeping the $k$ rows first in (distance, buffer position) order, as a stable sort ranks them.
  The squared distances sum with the one fast-math flag `reassoc` (vectorised; the order
  `learners._stack_kernels` uses for its sums): on integer grids, where ties are exact, the
  numpy pass's floats.
* `standardise`: one Welford step of `neighbours._Standardiser`.
* `stage_costs`: the whole pull of the two stages after `BoBLO()`'s compiled pull
  (`_kernels.pull_round_features`), on the vector $x$ and features $\phi(x)$ it left in
  `BoBLO._pending`: stage 1's costs $y = m(x) + \Theta\phi(x)$ recomputed by `_kernels`' own
  functions (the floats that kernel played), their anchored twin
  $\tilde y = y - \frac1k\sum_a (y_a - m_a)$, the context standardised, the neighbours'
  correction $h$, the two greedy arms and, once stage 2 plays, its law
  $(1 - \eta)\operatorname{softmax}(-(y + h)\beta) + \eta/k$ with its running sums.
* `store`: `NeighbourCorrection.learn`'s ring-buffer write.

Compiled at first use (`cache=True`); without numba `AVAILABLE` is False and `NeighbourBoBLO`
runs its numpy round (`neighbours`).
"""

from __future__ import annotations

import math

import numpy as np

from ._kernels import (
    AVAILABLE,
    _dot_r,
    _model_costs,
    _njit,
    _njit_sum,
    _row,
    _softmax_weights,
    subtract_count_bonus,
)

__all__ = ["AVAILABLE", "nearest_means", "stage_costs", "standardise", "store"]


@_njit_sum
def _squared_distance(row, z):
    r"""$\sum_c (\text{row}_c - z_c)^2$ (`reassoc`: vectorised)."""
    d = 0.0
    for c in range(z.shape[0]):
        e = row[c] - z[c]
        d += e * e
    return d


@_njit
def nearest_means(X, r, n, window, z, k, out):
    """`out[a]` = the sum of the residuals `r[a]` of the (at most) `k` rows of `X[a]` (of the
    first `min(n[a], window)`) nearest to `z`, over `k`: per arm, the squared distances of its
    rows, then one pass keeping the `k` rows first in (distance, buffer position) order, as a
    stable sort ranks them."""
    best_d = np.empty(k)
    best_r = np.empty(k)
    best_j = np.empty(k, dtype=np.int64)
    dist = np.empty(X.shape[1])
    for a in range(X.shape[0]):
        m = min(n[a], window)
        for j in range(m):
            dist[j] = _squared_distance(X[a, j], z)
        filled = 0
        worst = 0
        for j in range(m):
            d = dist[j]
            if filled < k:
                slot = filled
                filled += 1
            elif d < best_d[worst]:  # (an equal distance later in the buffer ranks after)
                slot = worst
            else:
                continue
            best_d[slot], best_r[slot], best_j[slot] = d, r[a, j], j
            if filled == k:  # the last kept in (distance, position) order goes first
                worst = 0
                for i in range(1, k):
                    if best_d[i] > best_d[worst] or (best_d[i] == best_d[worst]
                                                     and best_j[i] > best_j[worst]):
                        worst = i
        total = 0.0
        for i in range(filled):
            total += best_r[i]
        out[a] = total / k


@_njit
def standardise(x, stats, out):
    """One step of `neighbours._Standardiser` on the first `len(x)` columns of its statistics
    `stats` (rows: count, mean, population variance), in place; `out` the scaled context (0
    where the variance is 0)."""
    count, mean, var = stats[0], stats[1], stats[2]
    for j in range(x.shape[0]):
        count[j] += 1.0
        delta = x[j] - mean[j]
        mean[j] += delta / count[j]
        var[j] += (delta * (x[j] - mean[j]) - var[j]) / count[j]
        scale = math.sqrt(var[j])
        out[j] = (x[j] - mean[j]) / scale if scale > 0.0 else 0.0
    return out


@_njit
def stage_costs(x, phi, G, weights, optimism, width0, theta, stats, X, r, n, window, k, shrink,
                play, beta, eta, z, out, counts, alpha):
    r"""The two stages' pull (module docstring) on stage 1's scaled vector `x` and features
    `phi`, its model `RidgeMixture` (`G`, `weights`, `optimism`, `width0`) and correction
    `theta`: the standardised context into `z` (the `_Standardiser`'s `stats` stepped), and
    into the rows of `out` `(5, k)`: $y$, $\tilde y$, `shrink` times the neighbours' means $h$
    and, if `play`, stage 2's law (of $y + h$ less stage 1's count bonus of `counts` and
    `alpha`, `_kernels.subtract_count_bonus`) and its running sums. Returns `(g1, g2)`, the
    greedy arms of $y$ and $y + h$."""
    y, anchored, h, p, c = out[0], out[1], out[2], out[3], out[4]
    arms = theta.shape[0]
    _model_costs(G, weights, optimism, width0, _row(x), anchored)  # m(x), for the anchor
    gap = 0.0
    for a in range(arms):
        y[a] = _dot_r(theta[a], phi) + anchored[a]  # (`_features_law`'s own sum)
        gap += y[a] - anchored[a]
    gap /= arms
    for a in range(arms):
        anchored[a] = y[a] - gap
    standardise(x, stats, z)
    nearest_means(X, r, n, window, z, k, h)
    for a in range(arms):
        h[a] *= shrink
    g1 = g2 = 0
    for a in range(1, arms):  # (`np.argmin`: the first smallest)
        if y[a] < y[g1]:
            g1 = a
        if y[a] + h[a] < y[g2] + h[g2]:
            g2 = a
    if play:  # `neighbours.stage_law` on y + h
        for a in range(arms):
            c[a] = y[a] + h[a]
        subtract_count_bonus(c, counts, alpha)
        total = _softmax_weights(c, beta, p)
        run = 0.0
        for a in range(arms):
            p[a] = (1.0 - eta) * (p[a] / total) + eta / arms
            run += p[a]
            c[a] = run
    return g1, g2


@_njit
def store(X, r, n, a, z, residual, window):
    """`NeighbourCorrection.learn`: row `(z, residual)` into arm `a`'s ring buffer."""
    j = n[a] % window
    for col in range(z.shape[0]):
        X[a, j, col] = z[col]
    for col in range(z.shape[0], X.shape[2]):
        X[a, j, col] = 0.0
    r[a, j] = residual
    n[a] += 1
