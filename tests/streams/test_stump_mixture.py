from __future__ import annotations

import itertools

import numpy as np
import pytest

from streams import StumpMixture


def test_two_passes_match_and_seeds_differ():
    stream = StumpMixture(seed=4, noise=0.1)
    first, second = list(stream.take(300)), list(stream.take(300))
    assert first == second
    assert list(StumpMixture(seed=5, noise=0.1).take(5)) != first[:5]


def test_target_is_the_generating_combination():
    stream = StumpMixture(n_features=4, n_stumps=6, seed=1)
    assert np.all(stream.weights >= 0) and stream.weights.sum() == pytest.approx(1.0)
    assert np.all((stream.thresholds > 0.1) & (stream.thresholds < 0.9))
    for x, y in stream.take(500):
        assert set(x) == {"x0", "x1", "x2", "x3"} and all(0 <= v < 1 for v in x.values())
        # independent recomputation of sum_k alpha_k s_k(x)
        s = [sg if x[f"x{j}"] > th else -sg
             for j, th, sg in zip(stream.features, stream.thresholds, stream.signs)]
        assert y == pytest.approx(np.dot(stream.weights, s), abs=1e-12)
        assert -1.0 <= y <= 1.0 and stream.predict(x) == y


def test_noise_has_the_requested_scale():
    stream = StumpMixture(n_stumps=3, noise=0.3, seed=2)
    residuals = [y - stream.predict(x) for x, y in stream.take(4000)]
    assert np.std(residuals) == pytest.approx(0.3, rel=0.05)
    assert abs(np.mean(residuals)) < 0.02


def test_endless_and_take():
    stream = StumpMixture(seed=0)
    assert len(list(itertools.islice(iter(stream), 1000))) == 1000
    assert len(list(stream.take(7))) == 7


@pytest.mark.parametrize("params", [{"n_features": 0}, {"n_stumps": 1.5}, {"noise": -0.1},
                                    {"seed": "a"}])
def test_invalid_parameters(params):
    with pytest.raises(ValueError, match=next(iter(params))):
        StumpMixture(**params)


def test_the_combination_is_drawn_as_documented():
    """Over many stumps: thresholds uniform on [0.1, 0.9] (Kolmogorov-Smirnov), every feature
    index in use about equally (chi-square), signs of both kinds; one feature and one stump,
    the smallest settings, are taken; a feature missing from `x` counts as 0."""
    from scipy import stats

    stream = StumpMixture(n_features=4, n_stumps=4000, seed=3)
    assert stats.kstest(stream.thresholds, "uniform", args=(0.1, 0.8)).pvalue > 1e-3
    counts = np.bincount(stream.features, minlength=4)
    assert len(counts) == 4 and stats.chisquare(counts).pvalue > 1e-3
    assert set(stream.signs.tolist()) == {-1.0, 1.0}
    one = StumpMixture(n_features=1, n_stumps=1, seed=0)
    (x, y), = one.take(1)
    assert set(x) == {"x0"} and abs(y) == 1.0
    assert stream.predict({}) == stream.predict_array(np.zeros((1, 4)))[0]
