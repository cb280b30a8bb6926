"""Drift detectors for a policy's losses: an alarm where the mean loss rises.

A bandit policy that learns sees its loss fall; a two-sided detector would call that a change
too. `RisingMean` keeps river's ADWIN (Bifet & Gavaldà 2007), whose adaptive window is cut
where its two parts' means differ beyond a bound that holds with probability $1 - \\delta$, and
raises an alarm only at the cuts that raised the window's mean: the loss got worse. The cuts
that lowered it (the policy learning) shrink the window silently, so the reference against
which a rise is measured is the recent loss level, not the learning phase's.
"""

from __future__ import annotations

import math

from river import base
from river import drift as river_drift

from ._checks import check_int, check_real

__all__ = ["RisingMean"]

try:  # river's compiled window behind `drift.ADWIN` (absent or moved: the public path only)
    from river.drift.adwin import AdaptiveWindowing as _WINDOW
except ImportError:  # pragma: no cover - another river layout
    _WINDOW = None


class RisingMean(base.DriftDetector):
    r"""Detects a rise in the mean of a stream of reals: river's `drift.ADWIN`, one-sided.

    Every value goes to an ADWIN detector; `drift_detected` is true after an update at which
    ADWIN cut its window **and** the kept (recent) part's mean is above the window's mean
    before the cut. The parameters are ADWIN's (river's defaults).

    Parameters
    ----------
    delta
        ADWIN's confidence $\delta \in (0, 1]$: the bound on the probability of a cut where the
        mean did not change.
    clock
        How often (in updates) ADWIN checks for a cut.
    max_buckets, min_window_length, grace_period
        As for `river.drift.ADWIN`.

    Examples
    --------
    >>> import random
    >>> from river import drift
    >>> from onlineboost.drift import RisingMean
    >>> rng = random.Random(0)
    >>> rising, adwin = RisingMean(), drift.ADWIN()
    >>> alarms = {"RisingMean": [], "ADWIN": []}
    >>> for t in range(3000):  # a loss that falls (learning), then jumps at t = 2000
    ...     x = (0.6 - 0.3 * min(t, 500) / 500 if t < 2000 else 0.55) + rng.gauss(0.0, 0.1)
    ...     for name, detector in (("RisingMean", rising), ("ADWIN", adwin)):
    ...         detector.update(x)
    ...         if detector.drift_detected:
    ...             alarms[name].append(t)
    >>> alarms  # ADWIN also calls the learning a change
    {'RisingMean': [2047], 'ADWIN': [415, 2047]}
    """

    def __init__(self, delta: float = 0.002, clock: int = 32, max_buckets: int = 5,
                 min_window_length: int = 5, grace_period: int = 10):
        check_real("delta", delta, 0.0, 1.0, low_open=True)
        check_int("clock", clock, 1)
        check_int("max_buckets", max_buckets, 1)
        check_int("min_window_length", min_window_length, 1)
        check_int("grace_period", grace_period, 0)
        super().__init__()
        self.delta = delta
        self.clock = clock
        self.max_buckets = max_buckets
        self.min_window_length = min_window_length
        self.grace_period = grace_period
        self._adwin = river_drift.ADWIN(delta=delta, clock=clock, max_buckets=max_buckets,
                                        min_window_length=min_window_length,
                                        grace_period=grace_period)

    @property
    def estimation(self) -> float:
        """The mean of ADWIN's current window."""
        return self._adwin.estimation

    def update(self, x):
        """Feed a value: a finite real (else `ValueError`, nothing moved)."""
        if not (type(x) is float and x - x == 0.0):  # (the fast path: a finite float)
            try:
                finite = math.isfinite(x) and not isinstance(x, (bool, str))
            except TypeError:
                finite = False
            if not finite:
                raise ValueError(f"x must be a finite real number, got {x!r}")
        adwin = self._adwin
        helper = getattr(adwin, "_helper", None)
        if type(adwin) is river_drift.ADWIN and type(helper) is _WINDOW:
            # `ADWIN.update` and `ADWIN.estimation` on its compiled window directly (river's
            # own steps, without their Python layers: `BoBLO` feeds this every round)
            width = helper.get_width()
            before = helper.get_total() / width if width else 0.0
            if adwin._drift_detected:  # (ADWIN starts a new window after an alarm)
                adwin._reset()
                helper = adwin._helper
            cut = adwin._drift_detected = helper.update(x)
            self._drift_detected = cut and adwin.estimation > before
            return
        before = adwin.estimation
        adwin.update(x)
        self._drift_detected = adwin.drift_detected and adwin.estimation > before
