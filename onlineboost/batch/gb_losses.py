r"""Losses for gradient tree boosting: value, score derivative and exact constant minimiser.

A loss $\ell(y, f)$ gives `value(y, f)` and `derivative(y, f)` $= \partial_f \ell(y, f)$,
elementwise, and `line_minimiser(y, f)`: a $\gamma$ in
$\arg\min_\gamma \sum_i \ell(y_i, f_i + \gamma)$. Closed forms are used where they exist
(mean, median, the exponential loss's half log-ratio); `GBLoss.line_minimiser` is otherwise a
bracketed root of the (monotone, for a convex loss) derivative, searched in $[-B, B]$ with
$B$ = `bound`. A minimiser that is not attained (a pure leaf of the deviance or the
exponential loss, where the infimum is at $\pm\infty$) is replaced by the best point of
$[-B, B]$; either way the result is never worse than $\gamma = 0$.
"""

from __future__ import annotations

import numpy as np
from scipy import optimize, special

__all__ = [
    "GBLoss",
    "SquaredError",
    "AbsoluteError",
    "Huber",
    "BinomialDeviance",
    "ExponentialLoss",
    "CustomLoss",
]


class GBLoss:
    """Base class: subclass and define `value` and `derivative` to boost any loss.

    Examples
    --------
    >>> import numpy as np
    >>> class Quartic(GBLoss):
    ...     def value(self, y, f):
    ...         return (y - f) ** 4
    ...     def derivative(self, y, f):
    ...         return -4 * (y - f) ** 3
    >>> round(float(Quartic().line_minimiser(np.array([0.0, 3.0]), np.zeros(2))), 9)
    1.5
    """

    is_classifier = False
    bound = 50.0

    def value(self, y, f):
        raise NotImplementedError

    def derivative(self, y, f):
        raise NotImplementedError

    def _line_candidates(self, y, f) -> list[float]:
        B = self.bound

        def g(gamma):
            return float(np.sum(self.derivative(y, f + gamma)))

        candidates = [0.0, -B, B]
        lo, hi = -B, B
        g_lo, g_hi = g(lo), g(hi)
        if g_lo < 0 < g_hi:
            candidates.append(optimize.brentq(g, lo, hi, xtol=1e-14, rtol=4 * np.finfo(float).eps))
        elif g_lo == 0:
            candidates.append(lo)
        return candidates

    def line_minimiser(self, y, f) -> float:
        """$\\gamma$ minimising $\\sum_i \\ell(y_i, f_i + \\gamma)$ (see the module docstring)."""
        candidates = self._line_candidates(y, f)
        losses = [float(np.sum(self.value(y, f + c))) for c in candidates]
        return float(candidates[int(np.argmin(losses))])

    def init(self, y) -> float:
        """The exact constant minimiser $c_0 \\in \\arg\\min_c \\sum_i \\ell(y_i, c)$."""
        return self.line_minimiser(y, np.zeros(len(y)))

    def __repr__(self):
        params = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({params})"


class SquaredError(GBLoss):
    """$\\ell(y, f) = \\tfrac12 (y - f)^2$; line minimiser: the mean residual.

    Examples
    --------
    >>> import numpy as np
    >>> SquaredError().line_minimiser(np.array([1.0, 2.0, 6.0]), np.ones(3))
    2.0
    """

    def value(self, y, f):
        return 0.5 * (y - f) ** 2

    def derivative(self, y, f):
        return f - y

    def line_minimiser(self, y, f):
        return float(np.mean(y - f))


class AbsoluteError(GBLoss):
    """$\\ell(y, f) = |y - f|$; line minimiser: the median residual.

    Examples
    --------
    >>> import numpy as np
    >>> AbsoluteError().line_minimiser(np.array([1.0, 2.0, 60.0]), np.zeros(3))
    2.0
    """

    def value(self, y, f):
        return np.abs(y - f)

    def derivative(self, y, f):
        return -np.sign(y - f)

    def line_minimiser(self, y, f):
        return float(np.median(y - f))


class Huber(GBLoss):
    """$\\ell = \\tfrac12 r^2$ if $|r| \\le \\delta$, else $\\delta(|r| - \\delta/2)$, $r = y - f$.

    The line minimiser is the root of the monotone, continuous derivative, bracketed by the
    smallest and largest residual.

    Examples
    --------
    >>> import numpy as np
    >>> round(Huber(delta=1.0).line_minimiser(np.array([0.0, 0.5, 100.0]), np.zeros(3)), 9)
    0.75
    """

    def __init__(self, delta: float = 1.0):
        if not delta > 0:
            raise ValueError(f"delta must be > 0, got {delta!r}")
        self.delta = delta

    def value(self, y, f):
        r = np.abs(y - f)
        return np.where(r <= self.delta, 0.5 * r**2, self.delta * (r - 0.5 * self.delta))

    def derivative(self, y, f):
        return -np.clip(y - f, -self.delta, self.delta)

    def line_minimiser(self, y, f):
        r = y - f
        lo, hi = float(r.min()), float(r.max())
        if lo == hi:
            return lo
        return float(
            optimize.brentq(lambda g: np.sum(self.derivative(y, f + g)), lo, hi, xtol=1e-14)
        )


class BinomialDeviance(GBLoss):
    """Binomial deviance on log-odds, $y \\in \\{0, 1\\}$: $\\ell = \\log(1 + e^f) - y f$.

    Examples
    --------
    >>> import numpy as np
    >>> round(BinomialDeviance().init(np.array([0, 1, 1, 1])), 9)  # log(3/1)
    1.098612289
    """

    is_classifier = True

    def __init__(self, bound: float = 50.0):
        self.bound = bound

    def value(self, y, f):
        return np.logaddexp(0.0, f) - y * f

    def derivative(self, y, f):
        return special.expit(f) - y


class ExponentialLoss(GBLoss):
    """$\\ell = e^{-\\tilde y f}$, $\\tilde y = 2y - 1$ for $y \\in \\{0, 1\\}$.

    Line minimiser in closed form: $\\gamma = \\tfrac12 \\log(\\sum_{\\tilde y = 1} e^{-f} /
    \\sum_{\\tilde y = -1} e^{f})$, clipped to $[-B, B]$ when a side is empty.

    Examples
    --------
    >>> import numpy as np
    >>> round(ExponentialLoss().init(np.array([0, 1, 1, 1])), 9)  # log(3) / 2
    0.549306144
    """

    is_classifier = True

    def __init__(self, bound: float = 50.0):
        self.bound = bound

    def value(self, y, f):
        return np.exp(-(2.0 * y - 1.0) * f)

    def derivative(self, y, f):
        y_pm = 2.0 * y - 1.0
        return -y_pm * np.exp(-y_pm * f)

    def line_minimiser(self, y, f):
        pos = y == 1
        if pos.all() or not pos.any():  # infimum at +-infinity: best point of [-B, B]
            return super().line_minimiser(y, f)
        log_ratio = special.logsumexp(-f[pos]) - special.logsumexp(f[~pos])
        return float(np.clip(0.5 * log_ratio, -self.bound, self.bound))


class CustomLoss(GBLoss):
    """A user's loss from two vectorised callables `value(y, f)` and `derivative(y, f)`.

    Examples
    --------
    >>> import numpy as np
    >>> loss = CustomLoss(lambda y, f: np.cosh(y - f), lambda y, f: -np.sinh(y - f))
    >>> round(loss.init(np.array([1.0, 1.0, 4.0])), 6) > 1.0
    True
    """

    def __init__(self, value, derivative, is_classifier: bool = False):
        self.value_fn = value
        self.derivative_fn = derivative
        self.is_classifier = is_classifier

    def value(self, y, f):
        return self.value_fn(y, f)

    def derivative(self, y, f):
        return self.derivative_fn(y, f)
