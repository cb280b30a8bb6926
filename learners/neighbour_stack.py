r"""Copies of a k-nearest-neighbour regressor of cost vectors: later copies for a boosted stack.

`NeighbourStack` serves $n$ copies that share one window of contexts. Copy $i$ predicts, for
a context $c$, the mean of its own target rows over the $k$ stored contexts nearest to $c$
(Euclidean), times `shrink`:
$$\hat g_i(c) = \frac{s}{k} \sum_{j \in N_k(c)} G_{j,i},$$
and learns a round by storing $(c, G)$ in a ring buffer of `window` rows (the oldest row goes
first). Fewer than $k$ stored rounds shrink the prediction further toward 0 (the sum is over
the rows there are, the divisor stays $k$). Contexts may gain columns (zeros for the rows
stored before); columns a context lacks count as 0. It plays, as `FeaturePolicyStack` does,
the softmax of its predicted costs (less `shift`) at the annealed temperature
$\tau_t = \tau / \sqrt{1 + t/t_0}$, $t$ its learning steps.

It is the later copies of `learners.FeaturePolicy(later_neighbours=k)`'s boosted stack
(`FeaturePolicyBoostStack`, `later_fit="residual"`): copy 1 is the per-arm ridge over random
Fourier features, copies $2..N$ fit what the earlier copies left of copy 1's target, locally.
Why neighbours: under bandit feedback, stages of copy 1's own class (smooth kernels of any
width) add no decision a first copy lacks, while the same residuals averaged over the
nearest contexts do (issue 13; `benchmarks/bandit_neighbours.py`, sixteenth session).

Not validated: the owner passes finite float vectors (`FeaturePolicyBoostStack` is called by a
booster that has checked them).

Examples
--------
>>> import numpy as np
>>> from onlineboost import sets
>>> from learners.neighbour_stack import NeighbourStack
>>> stack = NeighbourStack(1, sets.Simplex(2), k=2, shrink=1.0, window=3)
>>> for c, g in [([0.0], [1.0, 0.0]), ([1.0], [0.0, 0.0]), ([5.0], [4.0, 2.0])]:
...     stack.learn_vector(np.array(c), np.array([g]))
>>> stack.predicted_costs(np.array([0.4]))  # rows at 0 and 1 are the nearest
array([[0.5, 0. ]])
>>> stack.learn_vector(np.array([0.2]), np.array([[9.0, 9.0]]))  # overwrites the row at 0
>>> stack.predicted_costs(np.array([0.4]))
array([[4.5, 4.5]])
"""

from __future__ import annotations

import math

import numpy as np

from onlineboost._checks import check_int, check_real

from . import _stack_kernels
from ._features import check_simplex

__all__ = ["NeighbourStack"]


class NeighbourStack:
    """$n$ k-nearest-neighbour regressors of cost vectors over one shared window (module
    docstring)."""

    validates_x = False  # (its owner, the boosted stack, validates)
    #: (a switch for the tests: False runs the numpy search; off without numba)
    _COMPILED = _stack_kernels.AVAILABLE
    link = "softmax"
    _JIT = False  # (no compiled predict: `FeaturePolicyBoostStack` takes its numpy path)
    _shared = True
    model = None
    residual = False
    #: None, or a `(k,)` vector the play subtracts from every copy's predicted costs
    #: (`FeaturePolicyStack.shift`)
    shift = None

    def __init__(self, n: int, decision_set, k: int = 5, shrink: float = 0.5,
                 window: int = 2000, temperature: float = 0.1, t0: float | None = None):
        self.n = check_int("n", n, 1)
        self.decision_set = check_simplex(decision_set)
        self.k = check_int("k", k, 1)
        self.shrink = check_real("shrink", shrink, 0.0, 1e6, low_open=True)
        self.window = check_int("window", window, 1)
        self.temperature = check_real("temperature", temperature, 0.0, low_open=True)
        if t0 is not None:
            check_real("t0", t0, 0.0, low_open=True)
        self.t0 = t0
        d = self.decision_set.dim
        self._C = np.zeros((self.window, 0))  # the stored contexts (ring buffer)
        self._G = np.zeros((self.window, self.n, d))  # their target rows
        self._stored = 0  # rounds stored so far (the next row: stored % window)
        self._t = 0  # learning steps (the softmax's clock)

    def _column_fit(self, c: np.ndarray) -> np.ndarray:
        """`c` on the buffer's columns, the buffer grown to `c`'s (zeros before)."""
        p = self._C.shape[1]
        if len(c) > p:
            self._C = np.concatenate([self._C, np.zeros((self.window, len(c) - p))], axis=1)
        elif len(c) < p:
            c = np.concatenate([c, np.zeros(p - len(c))])
        return c

    def predicted_costs(self, c: np.ndarray) -> np.ndarray:
        """Every copy's predicted costs for the context vector `c`, `(n, k)`."""
        m = min(self._stored, self.window)
        out = np.zeros((self.n, self.decision_set.dim))
        if m == 0:
            return out
        p = self._C.shape[1]
        c = c[:p] if len(c) > p else self._column_fit(c)  # (unseen columns: not stored yet)
        if self._COMPILED and p <= 128:  # (the same rows, in the same order, as below)
            idx, dist = np.empty(self.k, dtype=np.int64), np.empty(self.k)
            c = np.ascontiguousarray(c, dtype=np.float64)
            nearest = idx[:_stack_kernels.nearest(self._C, m, c, self.k, idx, dist,
                                                  np.empty(p))]
        else:
            d = ((self._C[:m] - c) ** 2).sum(axis=1)
            kk = min(self.k, m)
            if kk < m:  # the kk smallest in O(m), ties at the k-th distance to the rows stored
                # first in the buffer: `np.argsort(d, kind="stable")[:kk]`'s rows, in its order
                kth = np.partition(d, kk - 1)[kk - 1]
                below = np.flatnonzero(d < kth)
                nearest = np.concatenate([below, np.flatnonzero(d == kth)[:kk - len(below)]])
                nearest = nearest[np.lexsort((nearest, d[nearest]))]
            else:
                nearest = np.argsort(d, kind="stable")
        out += self._G[nearest].sum(axis=0)
        out *= self.shrink / self.k
        return out

    def learn_vector(self, c: np.ndarray, G: np.ndarray) -> None:
        """Store the context `c` and every copy's target row, `G` `(n, k)`."""
        c = self._column_fit(np.asarray(c, dtype=np.float64))
        row = self._stored % self.window
        self._C[row] = c
        self._G[row] = G
        self._stored += 1
        self._t += 1

    def discount(self, factor: float) -> None:
        """At a drift alarm: the stored rows are of the former stream, so none is kept (the
        booster's `drift_discount` applies to information matrices; a window has none)."""
        self._stored = 0

    def inverse_temperature(self) -> float:
        r"""$1/\tau_t$ (module docstring)."""
        beta = 1.0 / self.temperature
        return beta if self.t0 is None else beta * math.sqrt(1.0 + self._t / self.t0)

    def _point(self, costs: np.ndarray) -> np.ndarray:
        """Every copy's softmax of its predicted costs `(n, k)` (less `shift`)."""
        if self.shift is not None:
            costs = costs - self.shift
        z = costs.min(axis=1, keepdims=True) - costs  # log-domain shift: cannot overflow
        E = np.exp(z * self.inverse_temperature())
        return E / E.sum(axis=1, keepdims=True)

    def predict_vector(self, c: np.ndarray) -> np.ndarray:
        """`_point` of `predicted_costs`, `(n, k)`."""
        return self._point(self.predicted_costs(c))
