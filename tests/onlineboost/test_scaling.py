"""onlineboost.scaling: the robust online standardiser against a brute-force transcription of
its rule, against river's StandardScaler on clean data, and under one poisoned value."""

from __future__ import annotations

import copy
import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from river import bandit, preprocessing

from onlineboost import scaling
from onlineboost._contexts import ContextVectors
from onlineboost.scaling import RobustStandardScaler, ScaledPolicy

# the rule's documented constants, written here rather than read from the module, so that
# the transcription shares nothing with what it checks (`onlineboost.scaling`'s docstring)
DOC_K, DOC_WARMUP, DOC_CLIP, DOC_K_WARM, DOC_MAX_ABS = 5.0, 10, 5.0, 3.0, 1e100


class BruteForce:
    """The rule of `onlineboost.scaling`, transcribed one feature and one value at a time."""

    def __init__(self, k=DOC_K, warmup=DOC_WARMUP, clip=DOC_CLIP):
        self.k, self.warmup, self.clip = k, warmup, clip
        self.f = {}

    @staticmethod
    def _median(a):
        a = sorted(a)
        return 0.5 * a[(len(a) - 1) // 2] + 0.5 * a[len(a) // 2]

    def learn_one(self, x):
        for key, v in x.items():
            v = min(max(float(v), -DOC_MAX_ABS), DOC_MAX_ABS)
            f = self.f.setdefault(key, {"vals": [], "n": 0, "mean": 0.0, "var": 0.0, "dev": 0.0})
            if f["n"] < self.warmup:  # warm-up: the values inside the band
                f["vals"].append(v)
                f["n"] += 1
                vals, n = f["vals"], f["n"]
                med = self._median(vals)
                mad = self._median([abs(a - med) for a in vals])
                s = sorted(vals)
                band = min(self.k, DOC_K_WARM) * 1.4826 * mad
                lo = min(med - band, s[min(1, n - 1)])
                hi = max(med + band, s[max(n - 2, 0)])
                w = [a for a in vals if lo <= a <= hi] if n >= 3 else []
                f["mean"] = sum(w) / len(w) if w else med
                f["var"] = sum((a - f["mean"]) ** 2 for a in w) / len(w) if w else 0.0
                f["dev"] = 0.0
                continue
            mean, var = f["mean"], f["var"]
            h = self.k * math.sqrt(var) if var > 0 else f["dev"]
            c = min(max(v, mean - h), mean + h)
            if var == 0 and v != mean:
                f["dev"] = abs(v - mean)
            f["n"] += 1
            new_mean = mean + (c - mean) / f["n"]
            f["var"] = max(var + ((c - mean) * (c - new_mean) - var) / f["n"], 0.0)
            f["mean"] = new_mean

    def transform_one(self, x):
        out = {}
        for key, v in x.items():
            f = self.f.get(key)
            if f is None or f["var"] <= 0:
                out[key] = 0.0
                continue
            v = min(max(float(v), -DOC_MAX_ABS), DOC_MAX_ABS)
            z = (v - f["mean"]) / math.sqrt(f["var"])
            out[key] = min(max(z, -self.clip), self.clip)
        return out


def _stream(n, seed, huge=-1e300):
    """Dicts with missing keys, a key appearing mid-stream, a constant, a sparse binary and a
    heavy-tailed feature, and a few extreme values."""
    rng = np.random.default_rng(seed)
    rows = []
    for t in range(n):
        x = {k: float(rng.normal(3.0, 2.0)) for k in "ab" if rng.random() < 0.8}
        if t >= 40:
            x["late"] = float(rng.standard_t(3))
        if t % 3 == 0:
            x["const"] = 4.0
        x["sparse"] = float(rng.random() < 0.1)
        if t in (2, 57, 131):
            x["a"] = [1e99, huge, 1e20][(2, 57, 131).index(t)]
        rows.append(x)
    return rows


@pytest.mark.parametrize("params", [{}, {"k": 3.0, "warmup": 4, "clip": 5.0}])
def test_scaler_and_context_vectors_follow_the_brute_force_rule(params):
    """The river transformer, the numpy reader of BoBLO's contexts and the transcription agree
    on every record (learn, then transform), with missing, new, constant and extreme values."""
    ref, scaler = BruteForce(**params), RobustStandardScaler(**params)
    for x in _stream(300, 0):
        ref.learn_one(x)
        scaler.learn_one(x)
        want = ref.transform_one(x)
        got = scaler.transform_one(x)
        assert list(got) == list(want)
        np.testing.assert_allclose(list(got.values()), list(want.values()), rtol=1e-9,
                                   atol=1e-9)
    ref, reader = BruteForce(), ContextVectors(scale=True)
    for x in _stream(300, 1, huge=-1e100):  # ContextVectors refuses |v| > 1e100
        v = reader.read(x)
        reader.commit()
        ref.learn_one(x)
        expected = np.zeros(len(reader))
        for k, z in ref.transform_one(x).items():
            expected[reader.names.index(k)] = z
        np.testing.assert_allclose(v, expected, rtol=1e-9, atol=1e-9)


def _river_gap(gen, k=scaling.K, seeds=3, n=1000, after=(100, 999)):
    """Largest |z - z_river| / (1 + |z_river|) from record `after[i]` on (river's clipped)."""
    gap = dict.fromkeys(after, 0.0)
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        ours, river = RobustStandardScaler(k=k), preprocessing.StandardScaler()
        for t, v in enumerate(gen(rng, n)):
            x = {"f": float(v)}
            ours.learn_one(x)
            river.learn_one(x)
            zr = float(np.clip(river.transform_one(x)["f"], -scaling.CLIP, scaling.CLIP))
            d = abs(ours.transform_one(x)["f"] - zr) / (1.0 + abs(zr))
            for a in after:
                if t >= a:
                    gap[a] = max(gap[a], d)
    return gap


@pytest.mark.parametrize("name, gen, bounds", [
    ("normal", lambda r, n: r.normal(3.0, 2.0, size=n), (0.035, 0.003)),
    ("uniform", lambda r, n: r.random(n), (1e-12, 1e-12)),
    ("binary", lambda r, n: (r.random(n) < 0.2) * 1.0, (1e-12, 1e-12)),
    ("student-t5", lambda r, n: r.standard_t(5, size=n), (0.17, 0.008)),
])
def test_close_to_river_on_clean_data(name, gen, bounds):
    """On clean data the outputs are river's StandardScaler's (clipped to +-CLIP) up to the
    warm-up and the rare winsorised values: the documented gaps after 100 and 1,000 records."""
    gap = _river_gap(gen)
    assert gap[100] <= bounds[0] and gap[999] <= bounds[1], gap


def test_the_warm_up_band_and_the_deviation_band_as_documented():
    """A feature whose MAD is 0 in its warm-up keeps everything but its smallest and largest
    value ([second smallest, second largest]); a feature constant through its warm-up learns
    its first deviation as its mean and bands the next by that deviation. The river
    transformer and BoBLO's context reader follow the transcription on every record."""
    sparse = [0.0, 0.0, -5.0, 0.0, 0.0, -3.0, 0.0, 7.0, 4.0, 0.0]  # MAD 0, four values off 0
    const = [4.0] * 14 + [5.0, 1.0, 6.0, 2.0, 4.5]  # (1.0: banded to 4 - |5 - 4|)
    rng = np.random.default_rng(0)
    rows = [{"s": sparse[t] if t < len(sparse) else float(rng.normal()),
             "c": const[t] if t < len(const) else float(rng.normal(4.0, 1.0))}
            for t in range(40)]
    ref, scaler, reader = BruteForce(), RobustStandardScaler(), ContextVectors(scale=True)
    for t, x in enumerate(rows):
        ref.learn_one(x)
        scaler.learn_one(x)
        want = ref.transform_one(x)
        np.testing.assert_allclose(list(scaler.transform_one(x).values()), list(want.values()),
                                   rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(reader.read(x), [want["s"], want["c"]], rtol=1e-12,
                                   atol=1e-15)
        reader.commit()
        if t == len(sparse) - 1:  # the warm-up's statistics: -5 and 7 left out, -3 and 4 kept
            kept = [0.0] * 6 + [-3.0, 4.0]
            assert ref.f["s"]["mean"] == pytest.approx(np.mean(kept))
            assert ref.f["s"]["var"] == pytest.approx(np.var(kept))


def test_values_beyond_max_abs_count_as_max_abs():
    """A feature whose values all lie beyond +-1e100 is learned as +-1e100 (its square and
    sums stay finite): the standard deviation is exactly 1e100, and later values are
    standardised by it, as the transcription does."""
    ref, scaler = BruteForce(), RobustStandardScaler()
    for t in range(40):
        x = {"f": 3e100 if t % 2 else -7e200}
        ref.learn_one(x)
        scaler.learn_one(x)
        assert scaler.transform_one(x) == pytest.approx(ref.transform_one(x), rel=1e-12)
    probe = {"f": 1e99}
    assert scaler.transform_one(probe)["f"] == pytest.approx(ref.transform_one(probe)["f"],
                                                             rel=1e-9)
    assert 0.0 < scaler.transform_one(probe)["f"] < 0.5


def test_one_extreme_value_is_what_river_cannot_survive():
    """The reason for the rule: river's scaler, after one 1e99, standardises every later clean
    value to about 0 for the rest of the stream; the robust one keeps them informative."""
    rng = np.random.default_rng(3)
    xs = rng.normal(size=500)
    xs[30] = 1e99
    ours, river = RobustStandardScaler(), preprocessing.StandardScaler()
    zo, zr = [], []
    for v in xs:
        ours.learn_one({"f": v})
        river.learn_one({"f": v})
        zo.append(ours.transform_one({"f": v})["f"])
        zr.append(river.transform_one({"f": v})["f"])
    z3, zm3 = river.transform_one({"f": 3.0})["f"], river.transform_one({"f": -3.0})["f"]
    assert z3 == zm3  # river: every value standardised alike (to -1/sqrt(n))
    assert np.corrcoef(zo[100:], xs[100:])[0, 1] > 0.99
    assert abs(np.std(zo[100:]) - 1.0) < 0.1


CLEAN = np.random.default_rng(11).normal(2.0, 3.0, size=260)


def _outputs(values):
    st_ = scaling.Stats.empty(1)
    out = np.empty(len(values))
    for t, v in enumerate(values):
        st_ = scaling.learn(st_, np.array([v]))
        out[t] = scaling.transform(st_, np.array([v]))[0]
    return out


CLEAN_Z = _outputs(CLEAN)
FINITE = st.floats(allow_nan=False, allow_infinity=False)
EXTREMES = st.sampled_from([1e99, -1e99, 1e50, 1e20, -1e20, 1e100, 1.7976931348623157e308,
                            -1.7976931348623157e308, 5e-324, 0.0])


@settings(max_examples=150, deadline=None)
@given(value=st.one_of(FINITE, EXTREMES), at=st.integers(0, 60))
def test_one_injected_value_cannot_poison_later_outputs(value, at):
    """Any single finite value (up to the largest double) at any position: every output is
    finite and within +-CLIP, and from 50 records past the warm-up and the injection on the
    outputs of the clean records are within 0.3 (1 + |z|) of the clean run's."""
    values = CLEAN.copy()
    values[at] = value
    z = _outputs(values)
    assert np.isfinite(z).all() and np.abs(z).max() <= scaling.CLIP
    start = max(at, scaling.WARMUP) + 50
    gap = np.abs(z[start:] - CLEAN_Z[start:]) / (1.0 + np.abs(CLEAN_Z[start:]))
    assert gap.max() <= 0.3, (gap.max(), int(gap.argmax()) + start)


@settings(max_examples=60, deadline=None)
@given(value=st.one_of(FINITE, EXTREMES), at=st.integers(0, 30))
def test_the_river_transformer_refuses_nothing_finite(value, at):
    """The dict transformer takes any finite value and answers finite, bounded outputs."""
    scaler = RobustStandardScaler()
    for t, v in enumerate(CLEAN[:80]):
        x = {"f": value if t == at else float(v), "g": float(t % 5)}
        scaler.learn_one(x)
        z = scaler.transform_one(x)
        assert all(math.isfinite(u) and abs(u) <= scaling.CLIP for u in z.values())


def test_a_level_shift_is_followed():
    """A genuine change of scale reaches the statistics (the documented figures: records until
    the new level is standardised to |z| <= 2 after a shift at record 1,000: 272, 869, 2,336)."""
    for shift, within in ((10.0, 300), (1e3, 900), (1e6, 2400)):
        rng = np.random.default_rng(0)
        st_ = scaling.Stats.empty(1)
        for t in range(1000 + within):
            v = rng.normal() + (shift if t >= 1000 else 0.0)
            st_ = scaling.learn(st_, np.array([v]))
        assert abs(scaling.transform(st_, np.array([shift]))[0]) <= 2.0, shift


def test_constant_sparse_and_late_features():
    """A constant feature gives 0; a constant feature's scale is set by two deviating values,
    not one (the first is learned as the mean); a feature seen late has its own warm-up.
    (`clip=10` so that the output shows the statistics rather than the default clip at 5.)"""
    scaler = RobustStandardScaler(clip=10.0)
    for _ in range(30):
        scaler.learn_one({"c": 4.0})
    assert scaler.transform_one({"c": 4.0, "new": 5.0}) == {"c": 0.0, "new": 0.0}
    scaler.learn_one({"c": 1e99})  # alone: learned as 4.0
    assert scaler.transform_one({"c": 4.0}) == {"c": 0.0}
    scaler.learn_one({"c": 5.0})  # the second deviation, within the first's: the scale is 1
    z = scaler.transform_one({"c": 5.0})["c"]
    assert 5.0 < z < 6.0  # (5 - 4.03) / 0.18
    for t in range(10):
        scaler.learn_one({"late": float(t)})
    assert scaler._stats.count[scaler._columns["late"]] == 10
    assert scaler._stats.count[scaler._columns["c"]] == 32


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf"), "1.5", None, True,
                                 np.bool_(False), 10**400, [1.0]])
def test_bad_values_raise_naming_the_feature_and_change_nothing(bad):
    scaler = RobustStandardScaler()
    for t in range(15):
        scaler.learn_one({"a": float(t), "b": 1.0})
    before = pickle.dumps(scaler)
    with pytest.raises(ValueError, match=r"x\['b'\]"):
        scaler.learn_one({"a": 1.0, "b": bad, "c": 2.0})
    with pytest.raises(ValueError, match=r"x\['b'\]"):
        scaler.transform_one({"a": 1.0, "b": bad})
    assert pickle.dumps(scaler) == before
    with pytest.raises(ValueError, match="x must be a dict"):
        scaler.learn_one([1.0])


@pytest.mark.parametrize("params, name", [({"k": 0.5}, "k"), ({"k": True}, "k"),
                                          ({"warmup": 3}, "warmup"), ({"warmup": 5.0}, "warmup"),
                                          ({"clip": 0.0}, "clip"), ({"clip": math.inf}, "clip")])
def test_bad_parameters_raise_naming_them(params, name):
    with pytest.raises(ValueError, match=name):
        RobustStandardScaler(**params)


def test_pickle_clone_and_pipeline():
    scaler = RobustStandardScaler()
    rows = _stream(120, 4)
    for x in rows[:60]:
        scaler.learn_one(x)
    twin = pickle.loads(pickle.dumps(scaler))
    deep = copy.deepcopy(scaler)
    for x in rows[60:]:
        for s in (scaler, twin, deep):
            s.learn_one(x)
        assert scaler.transform_one(x) == twin.transform_one(x) == deep.transform_one(x)
    assert scaler.clone()._columns == {} and scaler.clone().k == scaling.K
    from river import linear_model

    model = RobustStandardScaler() | linear_model.LinearRegression()
    for x in rows:
        model.learn_one({k: v for k, v in x.items()}, x.get("b", 0.0))
    assert math.isfinite(model.predict_one(rows[0]))


def test_scaled_policy_sees_scaled_contexts_and_learns_only_in_update():
    """`ScaledPolicy` passes LinUCB contexts standardised by the statistics of the earlier
    rounds; a pull leaves the scaler as is; one 1e99 context does not break LinUCB."""
    policy = ScaledPolicy(bandit.LinUCBDisjoint(seed=0))
    rng = np.random.default_rng(2)
    rewards = []
    for t in range(400):
        c = float(rng.normal())
        ctx = {"c": 1e99 if t == 40 else c}
        before = pickle.dumps(policy._scaler)
        arm = policy.pull(["a", "b"], ctx)
        assert pickle.dumps(policy._scaler) == before
        r = float((arm == "a") == (c > 0))
        policy.update(arm, ctx, r)
        rewards.append(r)
    assert np.mean(rewards[100:]) > 0.9
    assert pickle.loads(pickle.dumps(policy)).pull(["a", "b"], {"c": 2.0}) == "a"
    with pytest.raises(ValueError, match="policy"):
        ScaledPolicy(object())
    with pytest.raises(ValueError, match="scaler"):
        ScaledPolicy(bandit.LinUCBDisjoint(), scaler=object())
