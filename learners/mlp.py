r"""A one-hidden-unit network $f(x) = a \tanh(w \cdot x + b) + c$ trained by online gradient
descent."""

from __future__ import annotations

import numpy as np

from onlineboost._checks import check_real, check_seed

from ._features import FeatureIndex, check_stack, check_targets
from ._single import OneCopyRegressor

__all__ = ["MLPStack", "TinyMLP"]


class MLPStack:
    r"""$n$ `TinyMLP` copies on one feature stream, as arrays: $w$ `(n, p)`, $a, b, c$ `(n,)`.

    Parameters
    ----------
    n
        Number of copies.
    lr
        As in `TinyMLP`.
    seeds
        One seed a copy (initialisation of $a$ and $b$).

    Examples
    --------
    >>> from learners import MLPStack
    >>> stack = MLPStack(2, lr=0.1, seeds=[0, 1])
    >>> stack.predict({"x": 1.0})
    array([-0.06196989,  0.00998407])
    >>> stack.learn({"x": 1.0}, [1.0, 1.0])
    >>> stack.predict({"x": 1.0})
    array([0.06290308, 0.12684621])
    """

    def __init__(self, n: int, lr: float = 0.05, seeds: list | None = None):
        seeds = check_stack(n, seeds)
        self.n = int(n)
        self.lr = lr
        self._index = FeatureIndex()
        init = np.array([np.random.default_rng(s).uniform(-1.0, 1.0, size=2) for s in seeds])
        self._a = init[:, 0].copy()  # (n,) output weight
        self._b = 0.5 * init[:, 1]  # (n,) hidden bias
        self._c = np.zeros(self.n)  # (n,) output bias
        self._w = np.zeros((self.n, 0))  # (n, p) input weights; a new feature starts at 0

    def _forward(self, x_vec: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        h = np.tanh(self._w @ x_vec + self._b)
        return h, self._a * h + self._c

    def predict(self, x: dict) -> np.ndarray:
        """The $n$ outputs $a_i \\tanh(w_i \\cdot x + b_i) + c_i$, shape `(n,)`."""
        v, _ = self._index.read(x, grow=False)
        return self._forward(v)[1]

    def learn(self, x: dict, y) -> None:
        """One gradient step on $\\tfrac12 (f_i(x) - y_i)^2$ for every copy; `y` has shape
        `(n,)`."""
        v, new = self._index.read(x)
        y = check_targets(y, (self.n,), "y")
        if new:
            self._index.add(new)
            self._w = np.concatenate([self._w, np.zeros((self.n, len(new)))], axis=1)
        h, f = self._forward(v)
        e = f - y  # d loss / d f
        delta = e * self._a * (1.0 - h * h)  # d loss / d (w . x + b)
        self._a -= self.lr * e * h
        self._c -= self.lr * e
        self._w -= self.lr * delta[:, None] * v[None, :]
        self._b -= self.lr * delta


class TinyMLP(OneCopyRegressor):
    r"""The paper's "tiny MLP": one hidden tanh unit, trained by online gradient descent.

    $$f(x) = a \tanh(w \cdot x + b) + c, \qquad
    \theta \leftarrow \theta - \eta \, (f(x_t) - y_t) \, \nabla_\theta f(x_t)$$

    for $\theta = (w, b, a, c)$, all updated from the same forward pass. `lr` is $\eta$.
    Initialisation: $w = 0$ (a single hidden unit has no symmetry to break, and a feature seen
    for the first time starts at 0, the weight it had while unseen), $a \sim U[-1, 1]$,
    $b \sim U[-\tfrac12, \tfrac12]$ from `seed`, $c = 0$. Standardise the features (e.g.
    `preprocessing.StandardScaler() | TinyMLP()`): large inputs saturate the unit.

    Parameters
    ----------
    lr
        Step size $\eta > 0$.
    seed
        Seed of the initialisation of $a$ and $b$.

    Examples
    --------
    >>> from river import evaluate, metrics, preprocessing
    >>> from learners import TinyMLP
    >>> from streams import StumpMixture
    >>> model = preprocessing.StandardScaler() | TinyMLP(lr=0.05, seed=0)
    >>> evaluate.progressive_val_score(StumpMixture(n_stumps=1, seed=3).take(2000), model,
    ...                                metrics.MSE())
    MSE: 0.198437
    """

    def __init__(self, lr: float = 0.05, seed: int | None = None):
        check_real("lr", lr, 0.0, low_open=True)
        check_seed(seed)
        self.lr = lr
        self.seed = seed
        self._stack = MLPStack(1, float(lr), [seed])

    @classmethod
    def _unit_test_params(cls):
        yield {"seed": 1}
        yield {"lr": 0.001, "seed": 2}

    def stack(self, n: int, seeds: list | None = None) -> MLPStack:
        """$n$ fresh copies; copy $i$ is `self.clone({"seed": seeds[i]})` (all `self.seed`
        when `seeds` is None)."""
        seeds = [self.seed] * len(check_stack(n, None)) if seeds is None else check_stack(n, seeds)
        return MLPStack(n, float(self.lr), seeds)
