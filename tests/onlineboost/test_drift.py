"""onlineboost.drift.RisingMean: river's ADWIN, whose alarms count only where the mean rose."""

from __future__ import annotations

import numpy as np
import pytest
from river import drift

from onlineboost.drift import RisingMean


def _stream(levels, seed=0, noise=0.1):
    rng = np.random.default_rng(seed)
    return (np.repeat(levels, 1000) + noise * rng.normal(size=1000 * len(levels))).tolist()


@pytest.mark.parametrize("path", ["direct", "public"])
@pytest.mark.parametrize("seed", range(5))
def test_alarms_are_adwins_cuts_that_raised_its_mean(seed, path, monkeypatch):
    """Against ADWIN fed the same values through its public API: an alarm exactly where ADWIN
    cut its window and the kept window's mean is above the mean before the update; the same
    on `RisingMean`'s direct path (river's compiled window, its Python layers skipped; a new
    window after each cut) and on its public one (taken where river's layout differs)."""
    import onlineboost.drift as module

    if path == "public":
        monkeypatch.setattr(module, "_WINDOW", None)
    else:
        assert module._WINDOW is not None  # (this river's layout: the direct path runs)
    xs = _stream([0.6, 0.3, 0.3, 0.7, 0.2, 0.5], seed)
    rising, adwin = RisingMean(), drift.ADWIN()
    got, expected, cuts = [], [], []
    for t, x in enumerate(xs):
        before = adwin.estimation
        adwin.update(x)
        rising.update(x)
        if adwin.drift_detected:
            cuts.append(t)
            if adwin.estimation > before:
                expected.append(t)
        if rising.drift_detected:
            got.append(t)
        assert rising.estimation == adwin.estimation
    assert got == expected
    assert set(got) < set(cuts)  # the falls (0.6 -> 0.3, 0.7 -> 0.2) are cuts, not alarms


def test_a_rise_alarms_a_fall_does_not():
    rising = RisingMean()
    alarms = []
    for t, x in enumerate(_stream([0.3, 0.3, 0.6])):  # a rise at 2000
        rising.update(x)
        alarms += [t] * rising.drift_detected
    assert len(alarms) >= 1 and 2000 <= alarms[0] < 2200
    falling = RisingMean()
    for x in _stream([0.7, 0.7, 0.2, 0.2]):
        falling.update(x)
        assert not falling.drift_detected


def test_the_flag_holds_for_one_update_and_clones_start_afresh():
    rising = RisingMean(delta=0.01)
    xs = _stream([0.2, 0.8])
    flags = []
    for x in xs:
        rising.update(x)
        flags.append(rising.drift_detected)
    first = flags.index(True)
    assert not flags[first + 1]
    clone = rising.clone()
    assert clone.delta == 0.01 and clone.estimation == 0.0 and not clone.drift_detected
    assert rising._get_params() == {"delta": 0.01, "clock": 32, "max_buckets": 5,
                                    "min_window_length": 5, "grace_period": 10}


@pytest.mark.parametrize("kwargs, name", [
    ({"delta": 0.0}, "delta"), ({"delta": 1.5}, "delta"), ({"delta": float("nan")}, "delta"),
    ({"clock": 0}, "clock"), ({"clock": 2.5}, "clock"), ({"max_buckets": 0}, "max_buckets"),
    ({"min_window_length": 0}, "min_window_length"), ({"grace_period": -1}, "grace_period"),
])
def test_bad_parameters(kwargs, name):
    # (river's ADWIN takes them unchecked; clock=0 panics in its Rust core at the first value)
    with pytest.raises(ValueError, match=name):
        RisingMean(**kwargs)


@pytest.mark.parametrize("x", [float("nan"), float("inf"), "0.5", None, True])
def test_a_bad_value_is_refused_and_moves_nothing(x):
    rising = RisingMean()
    for v in _stream([0.3])[:100]:
        rising.update(v)
    before = (rising.estimation, rising._adwin.width)
    with pytest.raises(ValueError, match="x"):
        rising.update(x)
    assert (rising.estimation, rising._adwin.width) == before


def test_the_smallest_valid_parameters_are_taken_and_run_as_adwins():
    """The bounds of `test_bad_parameters` are the least valid values, not one above: each is
    accepted, handed to ADWIN unchanged, and the watch alarms where ADWIN with the same
    parameters cut and rose (a bound off by one refuses them)."""
    params = dict(clock=1, max_buckets=1, min_window_length=1, grace_period=0)
    rising, adwin = RisingMean(**params), drift.ADWIN(**params)
    assert {k: getattr(rising, k) for k in params} == params
    got, expected = [], []
    for t, x in enumerate(_stream([0.2, 0.6], seed=1)):
        before = adwin.estimation
        adwin.update(x)
        rising.update(x)
        if adwin.drift_detected and adwin.estimation > before:
            expected.append(t)
        if rising.drift_detected:
            got.append(t)
    assert got == expected and got  # the rise at 1000 is seen
