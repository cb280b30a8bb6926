r"""A synthetic regression stream built for boosting: a convex combination of decision stumps."""

from __future__ import annotations

import numpy as np
from river.datasets import base

from onlineboost._checks import check_int, check_real, check_seed

__all__ = ["StumpMixture"]


class StumpMixture(base.SyntheticDataset):
    r"""Regression stream whose target is a convex combination of $\pm 1$ decision stumps.

    $$x \sim U[0, 1]^d, \qquad
    y = \sum_{k=1}^{m} \alpha_k \, s_k(x) + \varepsilon, \qquad
    s_k(x) = \sigma_k \cdot \begin{cases} +1 & x_{j_k} > \theta_k \\ -1 & \text{else}
    \end{cases}$$

    with $\alpha$ on the simplex, so the noise-free target lies in $[-1, 1]$: one stump is a
    weak learner's best shot, the mixture is what boosting can reach. `n_features` is $d$,
    `n_stumps` is $m$, `noise` the standard deviation of the Gaussian $\varepsilon$ (the target
    is not clipped). The combination ($\alpha$, $j$, $\theta \sim U[0.1, 0.9]$, $\sigma$) is
    drawn from `seed` when the stream is built; the samples are drawn from a second generator
    re-created from `seed` by every `__iter__`, so two passes match (river's `Friedman`).
    The stream is endless; use `take(n)`.

    Parameters
    ----------
    n_features
        Dimension $d \ge 1$ of $x$; features are named `"x0"`, `"x1"`, ...
    n_stumps
        Number $m \ge 1$ of stumps in the combination.
    noise
        Standard deviation $\ge 0$ of the additive Gaussian noise.
    seed
        Seed of the combination and of the samples; `None` draws fresh ones.

    Attributes
    ----------
    weights
        $\alpha$, shape `(m,)`, non-negative, summing to 1.
    features
        $j_k$, the feature index of each stump.
    thresholds
        $\theta_k$.
    signs
        $\sigma_k \in \{-1, +1\}$.

    Examples
    --------
    >>> from streams import StumpMixture
    >>> stream = StumpMixture(n_features=3, n_stumps=2, seed=0)
    >>> for x, y in stream.take(2):
    ...     print({k: round(v, 3) for k, v in x.items()}, round(y, 3))
    {'x0': 0.677, 'x1': 0.243, 'x2': 0.612} 1.0
    {'x0': 0.423, 'x1': 0.823, 'x2': 0.771} 1.0
    >>> x, y = next(iter(stream))
    >>> stream.predict(x) == y  # noise-free: the target is the generating combination
    True
    """

    def __init__(self, n_features: int = 5, n_stumps: int = 5, noise: float = 0.0,
                 seed: int | None = None):
        check_int("n_features", n_features, 1)
        check_int("n_stumps", n_stumps, 1)
        check_real("noise", noise, 0.0)
        check_seed(seed)
        super().__init__(task="Regression", n_features=n_features)
        self.n_stumps = n_stumps
        self.noise = noise
        self.seed = seed
        combination_seed, self._sample_seed = np.random.SeedSequence(seed).spawn(2)
        rng = np.random.default_rng(combination_seed)
        self.weights = rng.dirichlet(np.ones(n_stumps))
        self.features = rng.integers(0, n_features, size=n_stumps)
        self.thresholds = rng.uniform(0.1, 0.9, size=n_stumps)
        self.signs = rng.choice([-1.0, 1.0], size=n_stumps)
        self._names = [f"x{j}" for j in range(n_features)]

    def predict_array(self, X: np.ndarray) -> np.ndarray:
        """The noise-free target of each row of `X` (shape `(n, n_features)`)."""
        X = np.asarray(X, dtype=np.float64)
        stumps = np.where(X[:, self.features] > self.thresholds, self.signs, -self.signs)
        return np.sum(stumps * self.weights, axis=-1)  # same rounding for one row or many

    def predict(self, x: dict) -> float:
        """The noise-free target $\\sum_k \\alpha_k s_k(x)$ of one sample."""
        row = np.array([[x.get(name, 0.0) for name in self._names]])
        return float(self.predict_array(row)[0])

    def __iter__(self):
        rng = np.random.default_rng(self._sample_seed if self.seed is not None else None)
        while True:
            X = rng.random((256, self.n_features))  # draw in blocks: vectorised
            y = self.predict_array(X)
            if self.noise > 0:
                y = y + rng.normal(scale=self.noise, size=len(y))
            for row, target in zip(X.tolist(), y.tolist()):
                yield dict(zip(self._names, row)), target
