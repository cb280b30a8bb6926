r"""Second-order weak policies on the simplex: per-arm online ridge models of the linear cost.

Each copy regresses every arm's cost $g_t(a)$ on the context (a bias and the features) by online
ridge regression (recursive least squares, LinUCB's own per-arm model) and plays the softmax of
its predicted costs. The copies of a stack share their contexts, so they share the Gram matrix
$A_t = \lambda I + \sum_{s \le t} \tilde c_s \tilde c_s^\top$: one Sherman-Morrison update of
$A_t^{-1}$ a round serves all $n k$ models.
"""

from __future__ import annotations

import math

import numpy as np
from river import base

from onlineboost import sets
from onlineboost._checks import check_real

from ._features import FeatureIndex, VectorStackEntries, check_simplex, check_stack, check_targets

__all__ = ["RidgePolicy", "RidgePolicyStack"]

_ONE = np.ones(1)  # the bias entry of [1, c]


class RidgePolicyStack(VectorStackEntries):  # predict(x) / learn(x, G): _features
    r"""$n$ copies of `RidgePolicy`: weights $\Theta$ `(n, k, 1 + p)`, shared $A^{-1}$.

    The dict methods `predict`/`learn` and the vector methods `predict_vector`/`learn_vector`
    (a dense context whose $j$-th entry is column $j$; a longer vector adds columns) are as in
    `SoftmaxPolicyStack`. Use one family or the other on a stack, not both.

    Parameters
    ----------
    n
        Number of copies.
    decision_set
        The simplex $\Delta_k$.
    l2, temperature, forget
        As in `RidgePolicy`.

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost import sets
    >>> from learners import RidgePolicyStack
    >>> stack = RidgePolicyStack(2, sets.Simplex(2), l2=1.0, temperature=0.5)
    >>> stack.learn({}, np.array([[1.0, 0.0], [0.0, 1.0]]))  # costs regressed on the bias
    >>> stack.predict({}).round(4)  # predicted costs 0.5 and 0: softmax(-(0.5, 0) / 0.5)
    array([[0.2689, 0.7311],
           [0.7311, 0.2689]])
    """

    validates_x = True

    def __init__(self, n: int, decision_set, l2: float = 1.0, temperature: float = 0.1,
                 forget: float = 1.0):
        check_stack(n, None)
        self.n = int(n)
        self.decision_set = check_simplex(decision_set)
        self.l2 = float(l2)
        self.temperature = float(temperature)
        self.forget = float(forget)
        self._beta = 1.0 / self.temperature
        k = self.decision_set.dim
        self._index = FeatureIndex()
        self._P = np.eye(1) / self.l2  # A^{-1}, (1 + p, 1 + p); column 0 is the bias
        self._theta = np.zeros((self.n, k, 1))  # (n, k, 1 + p) cost weights
        # predict_vector's forward pass (c, [1, c], Theta [1, c]), reused by a learn_vector on
        # the same c (the boosters' round): derived, not state
        self._forward = None

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_forward"] = None
        return state

    def __setstate__(self, state):
        state.pop("_c", None)  # (pickled before the forward pass was kept)
        state.setdefault("_forward", None)
        self.__dict__.update(state)

    # -- vector entry points (the hot path) -------------------------------------------------

    def _extend(self, c: np.ndarray, grow: bool) -> np.ndarray:
        q = self._P.shape[0]
        if len(c) + 1 > q:
            if not grow:
                c = c[:q - 1]
            else:
                self._grow(len(c) + 1)
                q = len(c) + 1
        if len(c) + 1 == q:  # (the usual case: one call)
            return np.concatenate((_ONE, c))
        ce = np.zeros(q)
        ce[0] = 1.0
        ce[1:len(c) + 1] = c
        return ce

    def _grow(self, q: int) -> None:
        self._forward = None
        old = self._P.shape[0]
        P = np.eye(q) / self.l2  # new features: no data yet, prior precision l2
        P[:old, :old] = self._P
        self._P = P
        pad = np.zeros((self.n, self.decision_set.dim, q - old))
        self._theta = np.concatenate([self._theta, pad], axis=2)

    def _softmax(self, costs: np.ndarray) -> np.ndarray:
        beta = self._beta
        if len(costs) == 1 and costs.size <= 64:  # one copy, a few arms: the same operations
            row = costs.tolist()[0]  # in plain floats (cheaper than six numpy calls)
            m = min(row)  # log-domain shift: cannot overflow
            e = [math.exp((m - v) * beta) for v in row]
            total = sum(e)
            return np.array([v / total for v in e])[None]
        # (ndarray.min / .sum without their Python wrappers: the same reductions)
        z = np.minimum.reduce(costs, axis=1, keepdims=True) - costs
        E = np.exp(z * beta)
        return E / np.add.reduce(E, axis=1, keepdims=True)

    def predicted_costs(self, c: np.ndarray) -> np.ndarray:
        """The predicted cost of every arm for every copy, `(n, k)` (vector context)."""
        return self._theta @ self._extend(c, grow=False)

    def predict_vector(self, c: np.ndarray) -> np.ndarray:
        """$\\operatorname{softmax}(-\\hat g_i(c) / \\tau)$ for every copy, `(n, k)`. Not
        validated: the caller passes finite floats (and does not modify `c` before a
        `learn_vector` on it: the two share this forward pass)."""
        ce = self._extend(c, grow=False)
        costs = self._theta @ ce
        self._forward = (c, ce, costs)
        return self._softmax(costs)

    def learn_vector(self, c: np.ndarray, G: np.ndarray) -> None:
        r"""One recursive-least-squares step of every arm model of every copy on the costs `G`
        `(n, k)`: $u = A^{-1}\tilde c$, $\Theta \mathrel{+}= (G - \Theta\tilde c)\, u^\top /
        (1 + \tilde c^\top u)$, $A^{-1} \mathrel{-}= u u^\top / (1 + \tilde c^\top u)$. Not
        validated: the caller passes finite floats of the right shapes."""
        forward, self._forward = self._forward, None
        P = self._P
        if forward is not None and forward[0] is c and len(c) + 1 == len(P):
            _, ce, costs = forward  # predict_vector's, on the same c and weights
        else:
            ce = self._extend(c, grow=True)
            P = self._P
            costs = self._theta @ ce
        if self.forget != 1.0:  # A <- forget A + c c^T: older rounds count less
            P *= 1.0 / self.forget
        u = P @ ce
        s = 1.0 + float(ce @ u)
        v = u / s
        R = G - costs  # (n, k) residuals
        self._theta += R[:, :, None] * v
        if s > 0.0:  # u u^T / s as w w^T, exactly symmetric: with forgetting an asymmetric
            w = u * (1.0 / math.sqrt(s))  # rounding error grows as forget^-t
            P -= w[:, None] * w
        else:  # (only for contexts so large that s overflowed)
            P -= u[:, None] * v

    def discount(self, factor: float) -> None:
        """`learners.FeaturePolicyStack.discount`: $A^{-1}$ times `factor`, the weights kept."""
        self._P *= factor


class RidgePolicy(base.Estimator):
    r"""Weak OCO learner on the simplex: per-arm online ridge cost models, played by softmax.

    Given the linear loss $a \mapsto \langle g_t, a\rangle$ in context $c_t$ it fits, for every
    arm, the ridge regression of $g_t(a)$ on $\tilde c_t = (1, c_t)$,
    $$\hat\theta_a = A_t^{-1} \sum_{s \le t} g_s(a)\, \tilde c_s, \qquad
      A_t = \lambda I + \sum_{s \le t} \tilde c_s \tilde c_s^\top,$$
    by recursive least squares (the second-order model LinUCB keeps per arm), and plays
    $$W(c) = \operatorname{softmax}\bigl(-\langle \hat\theta_a, \tilde c\rangle / \tau\bigr)_a,$$
    a point in the relative interior of $\Delta_k$ that is near the vertex of the cheapest arm
    when the predicted costs differ by much more than $\tau$. `l2` is $\lambda$, `temperature`
    is $\tau$, `forget` is $\rho$ (below). Unseen features count as 0. Under full information
    this is follow-the-regularised-leader on the squared loss of the costs, a second-order
    method; as a weak learner for BoOCO / BoBLO it fits every arm's cost, not only the played
    arm's.

    Parameters
    ----------
    decision_set
        The simplex $\Delta_k$ (`onlineboost.sets.Simplex`); `None` means `Simplex(2)`.
    l2
        Ridge penalty $\lambda > 0$.
    temperature
        Softmax temperature $\tau > 0$ (smaller: closer to the cheapest arm's vertex).

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost import sets
    >>> from learners import RidgePolicy
    >>> rng = np.random.default_rng(0)
    >>> policy = RidgePolicy(sets.Simplex(2), temperature=0.05)
    >>> for _ in range(200):  # arm 0 is cheap when c > 0, arm 1 when c < 0
    ...     c = float(rng.normal())
    ...     policy.learn_one({"c": c}, np.array([0.5 - 0.4 * c, 0.5 + 0.4 * c]))
    >>> policy.predict_one({"c": 1.0}).round(3), policy.predict_one({"c": -0.5}).round(3)
    (array([1., 0.]), array([0., 1.]))
    """

    def __init__(self, decision_set: sets.Simplex | None = None, l2: float = 1.0,
                 temperature: float = 0.1, forget: float = 1.0):
        check_simplex(decision_set)
        check_real("l2", l2, 0.0, low_open=True)
        check_real("temperature", temperature, 0.0, low_open=True)
        check_real("forget", forget, 0.0, 1.0, low_open=True)
        self.decision_set = decision_set
        self.l2 = l2
        self.temperature = temperature
        self.forget = forget
        self._stack = self.stack(1)

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"decision_set": sets.Simplex(4), "l2": 0.5, "temperature": 1.0}

    def stack(self, n: int, seeds: list | None = None) -> RidgePolicyStack:
        """$n$ fresh copies as one `RidgePolicyStack` (`seeds` ignored: not random)."""
        check_stack(n, seeds)
        return RidgePolicyStack(n, self.decision_set, float(self.l2), float(self.temperature),
                                float(self.forget))

    def predict_one(self, x: dict) -> np.ndarray:
        """The distribution $W(c)$ over the arms, shape `(k,)`."""
        return self._stack.predict(x)[0]

    def learn_one(self, x: dict, g) -> None:
        """One ridge step on the costs `g` of shape `(k,)`."""
        self._stack.learn(x, check_targets(g, (self._stack.decision_set.dim,), "g")[None, :])
