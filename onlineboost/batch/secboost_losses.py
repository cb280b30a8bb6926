r"""Losses for SecBoost, queried by value only, and the $v$-derivatives built from values.

A SecBoost loss is any vectorised callable $F: \mathbb{R} \to \mathbb{R}$ of the edge
$z = y H(x)$ (it is called on arrays of any shape and must return finite values). It may carry
two optional attributes: `beta`, a smoothness constant (Lemma 5.7 then gives
$\overline{W}_{2,t} = 2\beta$), and `convex`, which allows the convex offset oracle. No loss
here has, or needs, a derivative.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "LogisticLoss",
    "ClippedLogisticLoss",
    "SpringLoss",
    "v_derivative",
    "second_v_derivative",
]


def v_derivative(F, z, v):
    r"""The $v$-derivative $\delta_v F(z) = (F(z + v) - F(z)) / v$ (Definition 4.1).

    Examples
    --------
    >>> v_derivative(lambda z: z**2, 1.0, 0.5)  # secant slope of z^2 between 1 and 1.5
    2.5
    """
    return (F(z + v) - F(z)) / v


def second_v_derivative(F, z, b, c):
    r"""$\delta_{\{b, c\}} F(z) = \frac{F(z+b+c) - F(z+b) - F(z+c) + F(z)}{bc}$ (Lemma B.1).

    Examples
    --------
    >>> second_v_derivative(lambda z: z**2, 3.0, 0.1, -2.0)  # twice the leading coefficient
    2.0...
    """
    return (F(z + b + c) - F(z + b) - F(z + c) + F(z)) / (b * c)


def _logistic(z):
    # log(1 + e^{-z}) = log1p(e^{-|z|}) + max(-z, 0): stable, and faster than np.logaddexp
    return np.log1p(np.exp(-np.abs(z))) + np.maximum(-z, 0.0)


class LogisticLoss:
    r"""$F(z) = \log(1 + e^{-z})$, eq. (89): convex and $\tfrac14$-smooth.

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost.batch.secboost_losses import LogisticLoss
    >>> LogisticLoss()(np.array([0.0, 50.0])).round(6)
    array([0.693147, 0.      ])
    """

    beta = 0.25
    convex = True

    def __call__(self, z):
        return _logistic(np.asarray(z, dtype=np.float64))

    def __repr__(self):
        return "LogisticLoss()"


class ClippedLogisticLoss:
    r"""$F_{q}(z) = \min\{\log(1 + e^{-z}), \log(1 + e^{-q})\}$, eq. (90).

    Flat for $z \le q$: non-convex, non-differentiable, Lipschitz. `q` is $q$.

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost.batch.secboost_losses import ClippedLogisticLoss
    >>> ClippedLogisticLoss(q=-2.0)(np.array([-10.0, -2.0, 0.0])).round(6)
    array([2.126928, 2.126928, 0.693147])
    """

    beta = None
    convex = False

    def __init__(self, q: float = -2.0):
        if not np.isfinite(q):
            raise ValueError(f"q must be finite, got {q!r}")
        self.q = q

    def __call__(self, z):
        return np.minimum(_logistic(np.asarray(z, dtype=np.float64)), _logistic(self.q))

    def __repr__(self):
        return f"ClippedLogisticLoss(q={self.q!r})"


class SpringLoss:
    r"""Spring loss, eq. (91): the logistic loss plus peaks every $1/Q$.

    $$F_Q(z) = \log(1 + e^{-z}) + \frac{1 - \sqrt{1 - 4(z_Q - [z_Q])^2}}{Q},
    \qquad z_Q = Qz - \tfrac12,$$

    $[\cdot]$ the nearest integer. Peaks of height $1/Q$ sit at $z \in \mathbb{Z}/Q$, where the
    loss is not differentiable; it is non-convex and not Lipschitz. `Q` is $Q$; with $Q = 1$
    this is the spring loss of eq. (75) shifted by $1/2$.

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost.batch.secboost_losses import SpringLoss
    >>> F = SpringLoss(Q=500)
    >>> float(F(0.0) - np.log(2)), float(F(0.001) - np.log1p(np.exp(-0.001)))  # peak, valley
    (0.002, 0.0)
    """

    beta = None
    convex = False

    def __init__(self, Q: float = 500.0):
        if not (np.isfinite(Q) and Q > 0):
            raise ValueError(f"Q must be finite and > 0, got {Q!r}")
        self.Q = Q

    def __call__(self, z):
        z = np.asarray(z, dtype=np.float64)
        z_Q = self.Q * z - 0.5
        d = z_Q - np.rint(z_Q)  # [.]: nearest integer
        bump = 1.0 - np.sqrt(np.maximum(1.0 - 4.0 * d * d, 0.0))
        return _logistic(z) + bump / self.Q

    def __repr__(self):
        return f"SpringLoss(Q={self.Q!r})"
