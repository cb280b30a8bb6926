"""BoOCOMultiClassifier: probabilities on the growing simplex, learning, aggregates, bad input."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from river import compose, evaluate, metrics, preprocessing, tree

import learners
from onlineboost import BoOCOMultiClassifier


def quadrant_stream(n: int, seed: int, noise: float = 0.0):
    """x uniform on [-1, 1]^2, y = the quadrant (4 classes, linearly separable by argmax)."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        u, v = rng.uniform(-1.0, 1.0, size=2)
        y = int(2 * (u > 0) + (v > 0))
        if rng.random() < noise:
            y = int(rng.integers(4))
        yield {"u": float(u), "v": float(v)}, y


def models():
    return [
        BoOCOMultiClassifier(tree.HoeffdingTreeClassifier(grace_period=50), n_learners=4,
                             seed=1),
        BoOCOMultiClassifier(learners.LinearOGD(lr=0.5), n_learners=3, gamma=0.5,
                             step_size="theory"),
    ]


@pytest.mark.parametrize("model", models(), ids=["tree", "linear"])
def test_probabilities_on_the_simplex_every_step_as_classes_appear(model):
    # classes appear one by one: "a" first, then "b" at step 30, "c" at 60, "d" at 90
    labels = ["a"] * 30 + ["a", "b"] * 15 + ["a", "b", "c"] * 10 + ["c", "d", "b", "a"] * 30
    seen = []
    for t, ((x, _), y) in enumerate(zip(quadrant_stream(len(labels), 2), labels)):
        proba = model.predict_proba_one(x)
        assert list(proba) == seen  # the classes seen so far, in order of appearance
        if seen:
            p = np.array(list(proba.values()))
            assert np.all(p >= 0) and np.all(np.isfinite(p))
            assert math.isclose(p.sum(), 1.0, rel_tol=0, abs_tol=1e-12), t
            assert model.predict_one(x) in seen
        else:
            assert proba == {} and model.predict_one(x) is None
        model.learn_one(x, y)
        if y not in seen:
            seen.append(y)
            # right after a class appears the played point already covers it
            proba = model.predict_proba_one(x)
            assert list(proba) == seen
            assert math.isclose(sum(proba.values()), 1.0, abs_tol=1e-12)
    assert model.classes == ["a", "b", "c", "d"]


@pytest.mark.parametrize("model", models(), ids=["tree", "linear"])
def test_learns_a_seeded_multiclass_stream_well_above_the_majority(model):
    correct, counts = 0, np.zeros(4)
    for t, (x, y) in enumerate(quadrant_stream(1500, 3)):
        if t >= 750:
            correct += model.predict_one(x) == y
            counts[y] += 1
        model.learn_one(x, y)
    majority = counts.max() / 750
    assert majority < 0.3
    assert correct / 750 > 0.8  # a booster that does not learn stays near 0.25


def test_boosting_beats_its_first_learner_on_a_nonlinear_stream():
    # linear copies on the simplex, classes by the ring |x| < 0.5, 0.5..0.8, > 0.8: one linear
    # learner cannot separate a ring; the chain of ten can do better (stage vs first learner)
    rng = np.random.default_rng(4)
    model = BoOCOMultiClassifier(learners.LinearOGD(lr=1.0), n_learners=10, aggregate=False)
    single = BoOCOMultiClassifier(learners.LinearOGD(lr=1.0), n_learners=1, aggregate=False)
    hits = np.zeros(2)
    for t in range(4000):
        u, v = rng.uniform(-1, 1, size=2)
        x = {"u": u, "v": v, "uu": u * u, "vv": v * v, "uv": u * v}
        r = math.hypot(u, v)
        y = 0 if r < 0.5 else (1 if r < 0.8 else 2)
        if t >= 2000:
            hits += [model.predict_one(x) == y, single.predict_one(x) == y]
        model.learn_one(x, y)
        single.learn_one(x, y)
    assert hits[0] > hits[1]


def test_vote_never_far_below_the_class_prior():
    # pure-noise features, 80% of labels "x": the Hedge vote over (prior, learners, stages)
    # must stay within its bound of the prior's mistakes
    rng = np.random.default_rng(5)
    model = BoOCOMultiClassifier(learners.LinearOGD(lr=2.0, decay="constant"), n_learners=5,
                                 gamma=0.3, step_size=1.0)
    mistakes = prior_mistakes = 0
    counts: dict = {}
    T = 2000
    for _ in range(T):
        x = {"a": float(rng.normal()), "b": float(rng.normal())}
        y = "x" if rng.random() < 0.8 else str(rng.choice(["y", "z"]))
        if counts:
            mistakes += model.predict_one(x) != y
            prior_mistakes += max(counts, key=counts.get) != y
        counts[y] = counts.get(y, 0) + 1
        model.learn_one(x, y)
    beta, pi = 1.0, 0.5 / 6  # vote_lr, the prior's share of the prior mass (N + 1 = 6)
    bound = (beta * prior_mistakes + math.log(1 / pi)) / math.log(2 / (1 + math.exp(-beta)))
    assert mistakes <= bound
    assert mistakes / T < prior_mistakes / T + 0.05  # and in practice close to it


def test_works_in_a_pipeline_with_progressive_validation():
    from river import datasets

    model = compose.Pipeline(preprocessing.StandardScaler(),
                             BoOCOMultiClassifier(learners.LinearOGD(lr=0.5), n_learners=3))
    acc = evaluate.progressive_val_score(datasets.ImageSegments().take(600), model,
                                         metrics.Accuracy())
    assert acc.get() > 0.6  # 7 classes, majority about 0.15


def test_same_seed_same_predictions():
    def run(seed):
        model = BoOCOMultiClassifier(tree.HoeffdingTreeClassifier(grace_period=30),
                                     n_learners=3, weighting="poisson", seed=seed)
        out = []
        for x, y in quadrant_stream(300, 6, noise=0.2):
            out.append(tuple(model.predict_proba_one(x).values()))
            model.learn_one(x, y)
        return out

    assert run(7) == run(7)


BAD = [
    ({"u": float("nan"), "v": 0.0}, 1, "x"),
    ({"u": float("inf"), "v": 0.0}, 1, "x"),
    ([1.0, 2.0], 1, "x"),
    ({"u": 0.1, "v": 0.0}, float("nan"), "y"),
    ({"u": 0.1, "v": 0.0}, float("inf"), "y"),
    ({"u": 0.1, "v": 0.0}, [1], "y"),
    ({"u": 0.1, "v": 0.0}, None, "y"),
]


@pytest.mark.parametrize("model", models(), ids=["tree", "linear"])
@pytest.mark.parametrize("x, y, match", BAD)
def test_bad_input_raises_naming_it_and_leaves_state_unchanged(model, x, y, match):
    for xx, yy in quadrant_stream(40, 8):
        model.learn_one(xx, yy)
    model.predict_proba_one({"u": 0.3, "v": 0.3})  # a forward pass is cached
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match=match):
        model.learn_one(x, y)
    assert pickle.dumps(model) == before
    if match == "x":
        with pytest.raises(ValueError, match="x"):
            model.predict_proba_one(x)
        with pytest.raises(ValueError, match="x"):
            model.predict_one(x)


def test_linear_copies_reject_a_string_feature_before_a_new_class():
    model = BoOCOMultiClassifier(learners.LinearOGD(), n_learners=2)
    model.learn_one({"u": 1.0}, "a")
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match="x"):
        model.learn_one({"u": "red"}, "b")  # a new label must not be added either
    assert pickle.dumps(model) == before and model.classes == ["a"]


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_learners": 0}, "n_learners"),
        ({"n_learners": True}, "n_learners"),
        ({"gamma": 0.0}, "gamma"),
        ({"step_size": "fast"}, "step_size"),
        ({"delta": -1.0}, "delta"),
        ({"weighting": "boot"}, "weighting"),
        ({"weight_power": -1.0}, "weight_power"),
        ({"vote_lr": 0.0}, "vote_lr"),
        ({"seed": 1.5}, "seed"),
        ({"learner": "tree"}, "learner"),
    ],
)
def test_invalid_parameters_raise(kwargs, match):
    with pytest.raises(ValueError, match=match):
        BoOCOMultiClassifier(**kwargs)


def test_hoeffding_leaf_counts_read_directly_equal_predict_proba_one():
    # copies that are river Hoeffding trees with majority-class leaves are read from their
    # leaf counts (no dict copies); the rows must equal predict_proba_one's, before and after
    # splits, with a class the trees have not seen
    from onlineboost.booco_multiclass import _ClassifierCopies

    proto = tree.HoeffdingTreeClassifier(grace_period=20, delta=0.05, leaf_prediction="mc")
    copies = _ClassifierCopies(proto, 3, np.random.default_rng(0), "poisson", rate=3.0)
    assert copies.leaf_counts
    rng = np.random.default_rng(1)
    classes = ["a", "b", "c", "never"]
    for t in range(600):
        u, v = rng.uniform(-1, 1, size=2)
        x = {"u": float(u), "v": float(v)}
        fast = copies.predict(x, classes)
        copies.leaf_counts = False
        slow = copies.predict(x, classes)
        copies.leaf_counts = True
        assert np.allclose(fast, slow) and np.allclose(fast.sum(axis=1), 1.0)
        label = "a" if u > v else ("b" if u > -0.3 else "c")
        copies.fit(x, [label] * 3, np.ones(3), rng)
    assert min(m.n_nodes for m in copies.models) > 1  # the trees did split


def test_forward_pass_reused_only_for_the_same_unmodified_dict():
    # learn_one reuses the prediction's pass for the very same dict object: learning on a copy
    # (no reuse) must give the same predictions; a dict changed in place after the prediction
    # must be learnt as changed
    def run(mode):
        model = BoOCOMultiClassifier(tree.HoeffdingTreeClassifier(grace_period=30),
                                     n_learners=3, seed=4)
        out = []
        for x, y in quadrant_stream(400, 5, noise=0.1):
            out.append(model.predict_proba_one(x))
            if mode == "copy":
                model.learn_one(dict(x), y)
            elif mode == "mutated":
                x["u"] = -x["u"]
                model.learn_one(x, y)
            elif mode == "fresh-mutated":
                model.learn_one({**x, "u": -x["u"]}, y)
            else:
                model.learn_one(x, y)
        return out

    assert run("same") == run("copy")
    assert run("mutated") == run("fresh-mutated") != run("same")
