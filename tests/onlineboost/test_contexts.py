"""ContextVectors: the robust scaling of onlineboost.scaling (as its river transformer),
vectorised; validation before mutation."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from onlineboost import scaling
from onlineboost._contexts import ContextVectors
from onlineboost.scaling import RobustStandardScaler


@pytest.mark.parametrize("scale", [True, False])
def test_equals_the_robust_scaler_with_missing_and_new_keys(scale):
    rng = np.random.default_rng(0)
    reader, river_scaler = ContextVectors(scale=scale), RobustStandardScaler()
    for t in range(300):
        keys = [k for k in "abcd" if t >= 5 * "abcd".index(k) and rng.random() < 0.8]
        x = {k: float(rng.normal(loc=3.0, scale=2.0)) for k in keys}
        if t % 7 == 0:
            x["const"] = 4.0  # variance 0: standardised to 0
        if t in (3, 60):
            x["a"] = 1e99 if t == 3 else -1e100  # winsorised: bounded influence
        v = reader.read(x)
        reader.commit()
        if scale:
            river_scaler.learn_one(x)
            x = river_scaler.transform_one(x)
        expected = np.zeros(len(reader))
        for k, value in x.items():
            expected[reader.names.index(k)] = value
        np.testing.assert_allclose(v, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("bad, match", [
    ({"a": float("nan")}, "context\\['a'\\]"), ({"a": 1.0, "z": float("inf")}, "context\\['z'\\]"),
    ({"a": "x"}, "context\\['a'\\]"), ({"a": "1.5"}, "context\\['a'\\]"),
    ({"a": b"1"}, "context\\['a'\\]"), ({"a": None}, "context\\['a'\\]"),
    ({"a": 10**400}, "context\\['a'\\]"), ({"a": 1e308}, "context\\['a'\\]"),
    ({"a": -1.1e100}, "context\\['a'\\]"), ({"a": 1.0, "b": 1e308, "c": 1e308}, "context\\['b'\\]"),
    ([1.0], "context"),
])
def test_bad_context_raises_naming_the_feature_and_changes_nothing(bad, match):
    reader = ContextVectors(scale=True)
    reader.read({"a": 1.0, "b": 2.0})
    reader.commit()
    before = pickle.dumps(reader)
    with pytest.raises(ValueError, match=match):
        reader.read(bad)
    reader.commit()  # nothing pending: a no-op
    assert pickle.dumps(reader) == before
    twin = ContextVectors(scale=True)
    twin.read({"a": 1.0, "b": 2.0})
    twin.commit()
    np.testing.assert_array_equal(reader.read({"a": 3.0, "b": 1.0}),
                                  twin.read({"a": 3.0, "b": 1.0}))


def test_numpy_and_int_values_and_the_cap_are_accepted():
    reader = ContextVectors(scale=False)
    v = reader.read({"a": np.float32(1.5), "b": np.int64(3), "c": 7, "d": 1e100, "e": -1e100})
    np.testing.assert_array_equal(v, [1.5, 3.0, 7.0, 1e100, -1e100])


def test_a_read_stores_nothing_until_commit():
    reader = ContextVectors(scale=True)
    reader.read({"a": 1.0})
    reader.commit()
    before = pickle.dumps(reader)
    reader.read({"a": 5.0, "new": 2.0})  # would learn a new column and move the mean
    assert pickle.dumps(reader) == before and reader.names == ["a"]
    reader.commit()
    assert reader.names == ["a", "new"]


def test_one_extreme_context_cannot_poison_the_scaling():
    """Before, one context of 1e99 set the running variance near 1e198 / n and every later
    context was standardised to about 0; now later outputs stay near the clean run's."""
    rng = np.random.default_rng(5)
    rows = [{"a": float(u), "b": float(v)} for u, v in rng.normal(size=(300, 2))]
    clean, poisoned = ContextVectors(scale=True), ContextVectors(scale=True)
    gaps = []
    for t, x in enumerate(rows):
        z = clean.read(x)
        clean.commit()
        zp = poisoned.read({"a": 1e99, "b": x["b"]} if t == 30 else x)
        poisoned.commit()
        if t >= 100:
            gaps.append((np.abs(zp - z) / (1.0 + np.abs(z))).max())
    assert max(gaps) < 0.15 and np.mean(gaps) < 0.05


def test_pickles_mid_stream_and_loads_the_old_state():
    reader = ContextVectors(scale=True)
    rows = [{"a": float(t % 5), "b": float(t % 3)} for t in range(30)]
    for x in rows[:15]:
        reader.read(x)
        reader.commit()
    twin = pickle.loads(pickle.dumps(reader))
    for x in rows[15:]:
        np.testing.assert_array_equal(reader.read(x), twin.read(x))
        reader.commit()
        twin.commit()
    old = ContextVectors.__new__(ContextVectors)  # a reader pickled before the robust scaling
    old.__setstate__({"scale": True, "_columns": {"a": 0}, "_keys": ("a",), "_idx": None,
                      "_count": np.array([40.0]), "_mean": np.array([2.0]),
                      "_var": np.array([4.0]), "_next": None})
    np.testing.assert_allclose(old.read({"a": 4.0}), [(4.0 - 2.05) / np.sqrt(3.99)], rtol=1e-3)


def test_an_old_state_counts_its_seen_columns_past_the_warm_up_and_its_unseen_ones_not():
    """A reader pickled before the robust scaling kept Welford's counts: a column seen fewer
    than `scaling.WARMUP` times has no warm-up buffer to go on with, so it counts as past the
    warm-up (WARMUP values); a column never seen starts its warm-up from nothing."""
    old_state = {"scale": True, "_columns": {"a": 0, "b": 1, "c": 2}, "_keys": ("a", "b", "c"),
                 "_idx": None, "_count": np.array([40.0, 3.0, 0.0]),
                 "_mean": np.array([2.0, 1.0, 0.0]), "_var": np.array([4.0, 1.0, 0.0]),
                 "_next": None}
    old = ContextVectors.__new__(ContextVectors)
    old.__setstate__(old_state)
    want = ContextVectors(scale=True)  # the same statistics, built directly
    st = scaling.Stats.empty(3)
    st.count = np.array([40.0, float(scaling.WARMUP), 0.0])
    st.mean, st.var = np.array([2.0, 1.0, 0.0]), np.array([4.0, 1.0, 0.0])
    want._columns, want._keys, want._stats = {"a": 0, "b": 1, "c": 2}, ("a", "b", "c"), st
    rng = np.random.default_rng(0)
    for _ in range(15):
        x = dict(zip("abc", rng.normal(1.0, 2.0, size=3).tolist()))
        np.testing.assert_array_equal(old.read(x), want.read(x))
        old.commit()
        want.commit()


@pytest.mark.parametrize("q", [3, 10, 30, 70])
def test_the_fused_scaling_kernels_compute_the_rule_bit_for_bit(q):
    """The usual round (same keys, statistics past the warm-up) runs `scaling.learn_transform`
    or, for short rows, `learn_transform_floats`: the numbers are those of `scaling.learn` then
    `scaling.transform`, bit for bit, through the warm-up, outliers, constant columns (variance
    0), rounds where every column has a variance, a pickle and a key change."""
    from onlineboost import scaling

    rng = np.random.default_rng(q)
    reader = ContextVectors(scale=True)
    st = scaling.Stats.empty(q)
    for t in range(200):
        v = rng.normal(loc=2.0, scale=3.0, size=q)
        v[0] = 4.0  # constant: variance 0, standardised to 0
        v[1] = 0.0 if t < 60 else float(t % 3)  # constant, then two records set its scale
        if t in (40, 41, 90):
            v[2 + t % (q - 2)] = 1e90 if t != 41 else -3e99  # winsorised
        if t in (150, 160):  # the constant column deviates: once (learned as its mean), then
            v[0] = 5.0 if t == 150 else 1.0  # again (banded to 4 - 1), which sets its scale:
            # every column has a variance from here on (the usual round, `ready`)
        if t == 120:  # (a pickled and restored reader goes on with the same numbers)
            reader = pickle.loads(pickle.dumps(reader))
        x = {f"c{j}": float(a) for j, a in enumerate(v)}
        got = reader.read(x)
        reader.commit()
        st = scaling.learn(st, v)
        np.testing.assert_array_equal(got, scaling.transform(st, v))
    x = {**{f"c{j}": 1.0 for j in range(q)}, "new": 2.0}
    np.testing.assert_array_equal(reader.read(x)[:q], scaling.transform(
        scaling.learn(st, np.ones(q)), np.ones(q)))  # (a new key: the general path)


@pytest.mark.parametrize("q", [3, 10, 24])
def test_the_plain_float_kernel_of_a_ready_row_is_the_rule_bit_for_bit(q):
    """Every column varying (the statistics become `ready`: the plain-float kernel's own
    loop for that case), with winsorised outliers and a value that drives a column's z past
    the clip: `scaling.learn` then `scaling.transform`, bit for bit, also against
    `learn_transform_floats` called on the statistics as lists."""
    from onlineboost import scaling

    rng = np.random.default_rng(100 + q)
    reader = ContextVectors(scale=True)
    st = scaling.Stats.empty(q)
    for t in range(300):
        v = rng.normal(loc=-1.0, scale=0.5 + np.arange(q), size=q)
        if t in (50, 51, 200):
            v[t % q] = 1e80 if t != 51 else -1e95
        x = {f"c{j}": float(a) for j, a in enumerate(v)}
        if t > 20:
            out = scaling.learn_transform_floats(st.count.tolist(), st.mean.tolist(),
                                                 st.var.tolist(), st.dev.tolist(), v.tolist(),
                                                 st.ready)
        got = reader.read(x)
        reader.commit()
        st = scaling.learn(st, v)
        want = scaling.transform(st, v)
        np.testing.assert_array_equal(got, want)
        if t > 20:
            assert st.ready and out[4]
            np.testing.assert_array_equal(out[5], want)
            np.testing.assert_array_equal(out[1], st.mean)
            np.testing.assert_array_equal(out[2], st.var)


@pytest.mark.parametrize("q", [2, 30])
@pytest.mark.parametrize("bad", [float("nan"), float("inf"), 1e308, -1.1e100, 10**400,
                                 "1.5", None])
def test_a_bad_value_past_the_warm_up_is_refused_by_name(q, bad):
    """The usual round's fused kernels (plain floats up to `SMALL` columns, numpy beyond) see
    the same refusals as the general path: ValueError naming the feature, nothing stored."""
    reader = ContextVectors(scale=True)
    for t in range(20):
        reader.read({f"c{j}": float((t * (j + 1)) % 7) for j in range(q)})
        reader.commit()
    before = pickle.dumps(reader)
    x = {f"c{j}": 1.0 for j in range(q)}
    x[f"c{q - 1}"] = bad
    with pytest.raises(ValueError, match=f"context\\['c{q - 1}'\\]"):
        reader.read(x)
    reader.commit()
    assert pickle.dumps(reader) == before


@pytest.mark.parametrize("scale", [True, False])
def test_bools_are_read_as_zero_and_one(scale):
    """A bool feature (pandas, river's own transformers) is the number 0 or 1, as river's
    linear models count it: the same vectors and statistics as floats, in the warm-up and
    past it."""
    rng = np.random.default_rng(0)
    floats, bools = ContextVectors(scale=scale), ContextVectors(scale=scale)
    for t in range(80):
        flag = bool(rng.random() < 0.3)
        x = float(rng.normal())
        a = floats.read({"x": x, "flag": float(flag)})
        floats.commit()
        b = bools.read({"x": x, "flag": np.bool_(flag) if t % 2 else flag})
        bools.commit()
        np.testing.assert_array_equal(a, b)
    assert pickle.dumps(floats) == pickle.dumps(bools)
