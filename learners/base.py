r"""The weak-learner protocol of the boosters, and the one place a `learner` argument is resolved.

A booster with $N$ copies of a weak learner talks to them through a **stack**: one object that
serves all $N$ copies at once. A weak OCO learner plays points of a convex set $K$
(`onlineboost.sets`) and learns from linear losses $a \mapsto \langle g, a \rangle$:

* `learner.stack(n, seeds)` → a `WeakStack` of `n` fresh copies (copy $i$ seeded `seeds[i]`);
* `stack.predict(x)` → the $n$ points, shape `(n, dim)`, each in $K$;
* `stack.learn(x, G)` → one step per copy, row $i$ of `G` (shape `(n, dim)`) is $g_i$;
* `stack.validates_x` (optional, default False) → `predict` and `learn` refuse a bad `x` with
  a `ValueError` before any state moves;
* `stack.predict_vector(v)` / `stack.learn_vector(v, G)` (optional) → the same on a float
  vector instead of a feature dict;
* `stack.forward(x)` / `stack.predict_forward(fwd)` / `stack.learn_forward(fwd, G)`
  (optional) → an explicit forward pass held by the caller, so that a booster predicting and
  then learning on one `x` reads it once (`LinearOGDStack`); nothing is cached in the stack.

A learner without `stack` (anything with `predict_one(x)` → point and `learn_one(x, g)`,
cloneable as a river `Estimator`) is served by `LoopedCopies`, one clone a copy.

Dependencies run one way: this package imports the geometry (`onlineboost.sets`,
`onlineboost._checks`), boosters import this module, and **`resolve_learner` is the only
place** where a booster's `learner` argument becomes a weak OCO learner: `None` → the default
learner, a regressor → the regression reduction `RegressorOCO`, a learner with a
`decision_set` parameter → a clone on the booster's $K$.

Write your own weak learner
---------------------------
Two methods make a weak OCO learner: `predict_one(x)` (a point of K) and `learn_one(x, g)`
(one step on the linear loss $a \mapsto \langle g, a\rangle$). This one plays
$\theta \cdot \operatorname{sign}(v)$ and moves $\theta \in [-1, 1]$ by projected
gradient descent; alone it can only say $\pm 1$, boosted its copies approach the target:

>>> import numpy as np
>>> from river import base
>>> from onlineboost import BoOCO, sets
>>> class SignLearner(base.Estimator):
...     def __init__(self, lr: float = 0.1):
...         self.lr = lr
...         self._theta = 0.0
...     def predict_one(self, x):
...         return np.array([self._theta * np.sign(x["v"])])
...     def learn_one(self, x, g):  # d/dtheta <g, theta sign(v)> = g sign(v)
...         step = self._theta - self.lr * float(g[0]) * np.sign(x["v"])
...         self._theta = min(max(step, -1.0), 1.0)
>>> model = BoOCO(SignLearner(), n_learners=8, decision_set=sets.Interval(-1, 1))
>>> for t in range(300):
...     v = (-1.0) ** t
...     model.learn_one({"v": v}, 0.6 * v)  # the target is 0.6 sign(v)
>>> model.staged_predict_one({"v": 1.0}).round(2)  # BoOCO with N = 1, ..., 8 copies
array([ 1.  , -0.33,  0.33,  0.6 ,  0.62,  0.47,  0.6 ,  0.54])
>>> round(model.predict_one({"v": 1.0}), 2)  # the online aggregate of those
0.58

Give it `stack(n, seeds)` returning an object with `predict(x)` → `(n, dim)` and
`learn(x, G)` to serve all copies with one array operation (`WeakStack`); a river regressor
needs nothing: boosters wrap it in `RegressorOCO`.
"""

from __future__ import annotations

import functools
import inspect
import sys
from typing import Protocol, runtime_checkable

import numpy as np
from river import base

from onlineboost import sets

from .linear_ogd import LinearOGD
from .mlp import TinyMLP
from .reduction import RegressorOCO

__all__ = ["LoopedCopies", "WeakLearner", "WeakStack", "default_learner", "is_regressor",
           "make_stack", "resolve_learner"]


@runtime_checkable
class WeakStack(Protocol):
    """$n$ copies of a weak OCO learner served by one object (see the module docstring)."""

    n: int

    def predict(self, x: dict) -> np.ndarray:
        """The $n$ points of $K$, shape `(n, dim)`."""

    def learn(self, x: dict, G: np.ndarray) -> None:
        """One step per copy on $a \\mapsto \\langle G_i, a \\rangle$; `G` has shape `(n, dim)`."""


@runtime_checkable
class WeakLearner(Protocol):
    """A weak OCO learner: one copy, `predict_one(x)` → point of $K$, `learn_one(x, g)`."""

    def predict_one(self, x: dict): ...

    def learn_one(self, x: dict, g) -> None: ...


class LoopedCopies:
    """$n$ independent clones of a learner without `stack`, driven one by one.

    Examples
    --------
    >>> import numpy as np
    >>> from learners import LinearOGD
    >>> from learners.base import LoopedCopies
    >>> copies = LoopedCopies([LinearOGD(lr=0.5), LinearOGD(lr=0.5)])
    >>> copies.learn({"c": 1.0}, np.array([[1.0], [-1.0]]))
    >>> copies.predict({"c": 1.0})
    array([[-1.],
           [ 1.]])
    """

    def __init__(self, copies):
        self.copies = list(copies)
        self.n = len(self.copies)

    def predict(self, x):
        return np.stack([np.asarray(w.predict_one(x), dtype=np.float64).reshape(-1)
                         for w in self.copies])

    def learn(self, x, G):
        for w, g in zip(self.copies, G):
            w.learn_one(x, g)


def _is_sklearn(model) -> bool:
    """A scikit-learn estimator (one exists only once scikit-learn is imported: no import here)."""
    sk = sys.modules.get("sklearn.base")
    return sk is not None and isinstance(model, sk.BaseEstimator)


def is_regressor(model) -> bool:
    """A plain regressor (river, or scikit-learn with `partial_fit`), not a weak OCO learner."""
    return isinstance(model, base.Regressor) or (
        _is_sklearn(model) and hasattr(model, "partial_fit"))


def default_learner(regression: bool):
    """The default weak learner: `TinyMLP` for a regressor on raw targets, else `LinearOGD`.

    The rule (issue 11, tuned on the development streams only): among `LinearOGD`,
    `OnlineRidge`, `OnlineStump` and `TinyMLP` under BoOCO's defaults, `TinyMLP` was at or
    below river's best regressor on the most development streams (all five real ones, see
    BENCHMARKS.md, "BoOCO as a drop-in regressor"). Boosting one-hidden-unit networks builds
    an additive network of $N$ tanh units online. Elsewhere (a decision set given, margin or
    linear losses) the paper's OCO learner `LinearOGD` on K stays the default.
    """
    return TinyMLP() if regression else None


@functools.lru_cache(maxsize=256)
def _named_params(init) -> frozenset | None:
    """The names of `init`'s parameters (a class's `__init__`), or None if it takes `*args` or
    `**kwargs` (whose names only the instance knows)."""
    names = []
    for name, param in inspect.signature(init).parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            return None
        names.append(name)
    return frozenset(names[1:])  # (not `self`)


def _has_param(model: base.Base, name: str) -> bool:
    """`name in model._get_params()`, from the class's signature once (river reads it through
    `inspect.signature` at each call) where `_get_params` is river's own."""
    cls = type(model)
    if cls._get_params is base.Base._get_params and inspect.isfunction(cls.__init__):
        names = _named_params(cls.__init__)
        if names is not None:
            return name in names
    return name in model._get_params()


def resolve_learner(learner, decision_set: sets.ConvexSet, regression: bool = False):
    """The weak OCO learner a booster on `decision_set` runs for its `learner` argument.

    Returns `(prototype, reduced)`: `reduced` is True when `learner` was a regressor wrapped in
    `RegressorOCO(learner, decision_set, lam=1)` (the booster then scales copy $i$'s linear
    loss by $1/\\lambda_i$ to set its own $\\lambda_i$). `None` gives `default_learner
    (regression)`: `TinyMLP` through the reduction, or `LinearOGD` on `decision_set`.
    Anything else must offer `stack` or `predict_one` / `learn_one`, else a `ValueError`
    naming `learner`.

    Examples
    --------
    >>> from onlineboost import sets
    >>> from learners import OnlineRidge
    >>> from learners.base import resolve_learner
    >>> [(type(p).__name__, reduced) for p, reduced in [
    ...     resolve_learner(None, sets.Interval(-2, 2)),
    ...     resolve_learner(None, sets.Interval(-2, 2), regression=True),
    ...     resolve_learner(OnlineRidge(), sets.Interval(-1, 1))]]
    [('LinearOGD', False), ('RegressorOCO', True), ('RegressorOCO', True)]
    >>> resolve_learner("ridge", sets.Interval(-1, 1))
    Traceback (most recent call last):
    ...
    ValueError: learner must be a weak OCO learner (stack, or predict_one / learn_one) or ...
    """
    if learner is None:
        learner = default_learner(regression)
        if learner is None:
            return LinearOGD(decision_set), False
    if is_regressor(learner):
        return RegressorOCO(learner, decision_set=decision_set, lam=1.0), True
    if not (hasattr(learner, "stack")
            or (hasattr(learner, "predict_one") and hasattr(learner, "learn_one"))):
        raise ValueError("learner must be a weak OCO learner (stack, or predict_one / "
                         f"learn_one) or a regressor, got {learner!r}")
    if (isinstance(learner, base.Base) and _has_param(learner, "decision_set")
            and getattr(learner, "decision_set", None) is not decision_set):
        # (a prototype already on this very set is only ever stacked or cloned by
        # `make_stack`, never learnt on: no clone needed)
        learner = learner.clone({"decision_set": decision_set})
    return learner, False


def make_stack(prototype, n: int, seed: int | None = None):
    """$n$ fresh copies of `prototype` as one stack (its own `stack`, else `LoopedCopies`).

    With a `seed`, copy $i$ gets its own seed drawn from `numpy.random.default_rng(seed)`
    when the prototype has a `seed` parameter.
    """
    seeds = None
    if seed is not None and isinstance(prototype, base.Base) and _has_param(prototype, "seed"):
        rng = np.random.default_rng(seed)
        seeds = [int(s) for s in rng.integers(0, 2**31 - 1, n)]
    if hasattr(prototype, "stack"):
        return prototype.stack(n, seeds)
    if isinstance(prototype, base.Base):
        return LoopedCopies([prototype.clone({"seed": seeds[i]}) if seeds else prototype.clone()
                             for i in range(n)])
    import copy

    return LoopedCopies([copy.deepcopy(prototype) for _ in range(n)])
