r"""Softmax linear policies on the simplex, trained by exponentiated gradient in logit space."""

from __future__ import annotations

import math

import numpy as np
from river import base

from onlineboost import sets
from onlineboost._checks import check_real

from ._features import FeatureIndex, check_simplex, check_stack, check_targets

__all__ = ["SoftmaxPolicy", "SoftmaxPolicyStack"]


def _softmax(Z: np.ndarray) -> np.ndarray:
    E = np.exp(Z - Z.max(axis=-1, keepdims=True))  # log-domain shift: cannot overflow
    return E / E.sum(axis=-1, keepdims=True)


def _check_update(update):
    if update not in ("exponentiated", "gradient"):
        raise ValueError(f"update must be 'exponentiated' or 'gradient', got {update!r}")


class SoftmaxPolicyStack:
    r"""$n$ copies of `SoftmaxPolicy` as arrays $\Theta$ `(n, k, p)` and $b$ `(n, k)`.

    Besides the dict methods `predict`/`learn`, the vector methods `predict_vector`/
    `learn_vector` take the context as a dense vector $c$ whose $j$-th entry is column $j$
    (a longer vector adds columns, initialised at 0): the hot path of a caller that converts
    each context once (`onlineboost.BoBLO`). Use one family or the other on a stack, not both.

    Parameters
    ----------
    n
        Number of copies.
    decision_set
        The simplex $\Delta_k$.
    lr, decay, update
        As in `SoftmaxPolicy`.

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost import sets
    >>> from learners import SoftmaxPolicyStack
    >>> stack = SoftmaxPolicyStack(2, sets.Simplex(2), lr=np.log(3.0))
    >>> stack.learn({}, np.array([[1.0, 0.0], [0.0, 1.0]]))
    >>> stack.predict({})
    array([[0.25, 0.75],
           [0.75, 0.25]])
    """

    def __init__(self, n: int, decision_set, lr: float = 0.1, decay: str = "constant",
                 update: str = "exponentiated"):
        check_stack(n, None)
        _check_update(update)
        self.n = int(n)
        self.decision_set = check_simplex(decision_set)
        self.lr = lr
        self.decay = decay
        self.update = update
        self._last = None  # (c, P) of the last prediction, for the "gradient" update
        k = self.decision_set.dim
        self._index = FeatureIndex()
        self._theta = np.zeros((self.n, k, 0))  # (n, k, p) logit weights
        self._b = np.zeros((self.n, k))  # (n, k) logit biases
        self._t = 0  # steps taken
        self._perm: dict = {}  # tuple of keys (in dict order) -> their columns, when all known

    def _read(self, x: dict, grow: bool) -> tuple[np.ndarray, list]:
        """`FeatureIndex.read`, with a fast path for dicts whose keys are all known columns
        (the usual case on a stream): one `np.fromiter` and one finiteness check."""
        perm = self._perm.get(tuple(x)) if isinstance(x, dict) else None
        if perm is not None:
            try:
                v = np.fromiter(x.values(), dtype=np.float64, count=len(x))
            except (TypeError, ValueError):
                v = None
            if v is not None and np.all(np.isfinite(v)):
                c = np.zeros(len(self._index))
                c[perm] = v
                return c, []
        c, new = self._index.read(x, grow=grow)  # validates and names the bad feature
        if not new and len(self._perm) < 64:
            columns = {k: i for i, k in enumerate(self._index.names)}
            if all(k in columns for k in x):
                self._perm[tuple(x)] = np.array([columns[k] for k in x], dtype=np.intp)
        return c, new

    def predict(self, x: dict) -> np.ndarray:
        """The $n$ distributions $\\operatorname{softmax}(\\Theta_i c + b_i)$, shape `(n, k)`."""
        c, _ = self._read(x, grow=False)
        return self._predict(c)

    def _predict(self, c: np.ndarray) -> np.ndarray:
        P = _softmax(self._theta @ c + self._b)  # (n, k, p) @ (p,) -> (n, k)
        self._last = (c, P)
        return P

    def learn(self, x: dict, G) -> None:
        """One step per copy on $a \\mapsto \\langle g_i, a\\rangle$; row $i$ of `G` (shape
        `(n, k)`) is $g_i$."""
        c, new = self._read(x, grow=True)
        G = check_targets(G, (self.n, self.decision_set.dim), "g")
        if new:
            self._index.add(new)
            self._grow(len(c))
        self._step(c, G)

    def _grow(self, p: int) -> None:
        pad = np.zeros((self.n, self.decision_set.dim, p - self._theta.shape[2]))
        self._theta = np.concatenate([self._theta, pad], axis=2)
        self._last = None

    def _step(self, c: np.ndarray, G: np.ndarray) -> None:
        self._t += 1
        eta_t = self.lr / math.sqrt(self._t) if self.decay == "sqrt" else self.lr
        if self.update == "gradient":  # chain rule through the softmax: J^T g = P (g - <P, g>)
            last = self._last
            P = last[1] if last is not None and last[0] is c else self._predict(c)
            G = P * (G - np.sum(P * G, axis=1, keepdims=True))
        self._last = None
        self._theta -= (eta_t * G)[:, :, None] * c  # logits move by -eta g (c.c + 1)
        self._b -= eta_t * G

    def predict_vector(self, c: np.ndarray) -> np.ndarray:
        """`predict` for a dense context vector `c` (entries past the known columns are
        unseen features and count as 0). Not validated: the caller passes finite floats."""
        p = self._theta.shape[2]
        if len(c) != p:
            c = c[:p] if len(c) > p else np.concatenate([c, np.zeros(p - len(c))])
        return self._predict(c)

    def learn_vector(self, c: np.ndarray, G: np.ndarray) -> None:
        """`learn` for a dense context vector `c` and gradients `G` of shape `(n, k)`. Not
        validated: the caller passes finite floats of the right shapes."""
        if len(c) > self._theta.shape[2]:
            self._grow(len(c))
        elif len(c) < self._theta.shape[2]:
            c = np.concatenate([c, np.zeros(self._theta.shape[2] - len(c))])
        self._step(c, G)


class SoftmaxPolicy(base.Estimator):
    r"""Weak OCO learner on the simplex: the policy $c \mapsto \mathrm{softmax}(\Theta c + b)$.

    Given the linear loss $a \mapsto \langle g_t, a\rangle$ it moves the logits of the context
    against the loss, an exponentiated-gradient (Hedge) step lifted to linear policies:
    $$\Theta \leftarrow \Theta - \eta_t\, g_t c_t^\top, \qquad b \leftarrow b - \eta_t g_t,$$
    so that without context features it is exactly exponentiated gradient,
    $x_{t+1} \propto \exp(-\eta \sum_{s \le t} g_s)$. `lr` is $\eta$; `decay="sqrt"` uses
    $\eta_t = \eta/\sqrt t$. `update="gradient"` instead takes a gradient step on the
    parameters of $(\Theta, b) \mapsto \langle g_t, \operatorname{softmax}(\Theta c_t + b)
    \rangle$, i.e. replaces $g_t$ by $J^\top g_t = x_t \odot (g_t - \langle x_t, g_t\rangle)$
    with $x_t$ the current point: under an importance-weighted bandit cost
    $g_t = \ell\, e_a / p(a)$ this is REINFORCE, whose step $\ell\, x_t(a)/p(a)\,(e_a - x_t)$
    stays bounded when the arm is drawn from $x_t$. Its points always lie in the relative
    interior of $\Delta_k$, so a bandit policy sampling arms from them keeps exploring. Unseen
    features count as 0.

    Parameters
    ----------
    decision_set
        The simplex $\Delta_k$ (`onlineboost.sets.Simplex`); `None` means `Simplex(2)`.
    lr
        Step size $\eta > 0$.
    decay
        `"constant"` or `"sqrt"`.
    update
        `"exponentiated"` (logits move by $-\eta g_t$) or `"gradient"` (by $-\eta J^\top g_t$).

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost import sets
    >>> from learners import SoftmaxPolicy
    >>> rng = np.random.default_rng(0)
    >>> policy = SoftmaxPolicy(sets.Simplex(2), lr=0.5)
    >>> for _ in range(300):  # arm 0 is cheap when c > 0, arm 1 when c < 0
    ...     c = float(rng.normal())
    ...     policy.learn_one({"c": c}, np.array([-c, c]))
    >>> policy.predict_one({"c": 1.0}).round(3), policy.predict_one({"c": -1.0}).round(3)
    (array([1., 0.]), array([0., 1.]))
    """

    def __init__(self, decision_set: sets.Simplex | None = None, lr: float = 0.1,
                 decay: str = "constant", update: str = "exponentiated"):
        check_simplex(decision_set)
        check_real("lr", lr, 0.0, low_open=True)
        if decay not in ("sqrt", "constant"):
            raise ValueError(f"decay must be 'sqrt' or 'constant', got {decay!r}")
        _check_update(update)
        self.decision_set = decision_set
        self.lr = lr
        self.decay = decay
        self.update = update
        self._stack = self.stack(1)

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"decision_set": sets.Simplex(4), "lr": 0.5, "decay": "sqrt"}
        yield {"decision_set": sets.Simplex(3), "update": "gradient"}

    def stack(self, n: int, seeds: list | None = None) -> SoftmaxPolicyStack:
        """$n$ fresh copies as one `SoftmaxPolicyStack` (`seeds` ignored: not random)."""
        check_stack(n, seeds)
        return SoftmaxPolicyStack(n, self.decision_set, float(self.lr), self.decay, self.update)

    def predict_one(self, x: dict) -> np.ndarray:
        """The distribution $\\operatorname{softmax}(\\Theta c + b)$, shape `(k,)`."""
        return self._stack.predict(x)[0]

    def learn_one(self, x: dict, g) -> None:
        """One step on the linear loss $a \\mapsto \\langle g, a\\rangle$, `g` of shape `(k,)`."""
        self._stack.learn(x, check_targets(g, (self._stack.decision_set.dim,), "g")[None, :])
