"""BoOCOClassifier: defaults that learn, the aggregates' guarantees, river classifier learners."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from river import datasets, evaluate, metrics, tree

import learners
from onlineboost import BoOCOClassifier


def imbalanced_stream(n: int, seed: int, signal: float):
    """75% True; x carries `signal` (0 = pure noise) about the label."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        y = bool(rng.random() < 0.75)
        a = float(rng.normal() + signal * (1 if y else -1))
        yield {"a": a, "b": float(rng.normal())}, y


def test_defaults_learn_phishing():
    acc = evaluate.progressive_val_score(datasets.Phishing(), BoOCOClassifier(seed=1),
                                         metrics.Accuracy())
    assert acc.get() > 0.87  # one Hoeffding tree: 0.88; the old linear defaults: 0.70


@pytest.mark.parametrize("signal", [0.0, 0.5])
def test_defaults_never_far_below_the_majority_class(signal):
    model = BoOCOClassifier(seed=2)
    hits = 0
    T = 1500
    for x, y in imbalanced_stream(T, 3, signal):
        hits += model.predict_one(x) == y
        model.learn_one(x, y)
    assert hits / T >= 0.75 - 0.03


def test_vote_within_its_bound_of_the_first_learner_and_the_prior():
    # a deliberately bad booster (gamma small, big constant steps) on a stream where the first
    # learner is good: the Hedge vote must keep the mistakes within the documented bound
    model = BoOCOClassifier(learners.LinearOGD(lr=0.5), n_learners=6, gamma=0.1, step_size=1.0,
                            loss="logistic", bound=2.0)
    rng = np.random.default_rng(4)
    mistakes = first = prior = 0
    n_true = 0
    for t in range(1500):
        u, v = rng.normal(size=2)
        x = {"u": float(u), "v": float(v)}
        y = bool(u + 0.3 * v > 0.2)
        E = model._experts(x)
        mistakes += model.predict_one(x) != y
        first += bool(E[1, 1] > 0.5) != y
        prior += (n_true > t - n_true) != y
        n_true += y
        model.learn_one(x, y)
    c = math.log(2 / (1 + math.exp(-1.0)))  # vote_lr = 1
    assert mistakes <= (first + math.log(2)) / c
    assert mistakes <= (prior + math.log(2 * (6 + 5) - 2)) / c  # M = N + 5 experts
    assert mistakes < first + 60  # in practice close to the best expert


@pytest.mark.parametrize("loss", ["squared", "logistic", "hinge"])
@pytest.mark.parametrize("aggregate", [True, False])
def test_probabilities_sum_to_one(loss, aggregate):
    model = BoOCOClassifier(learners.LinearOGD(lr=0.5), n_learners=3, loss=loss,
                            aggregate=aggregate, bound=1.5)
    for x, y in imbalanced_stream(200, 5, 1.0):
        p = model.predict_proba_one(x)
        assert set(p) == {False, True}
        assert 0.0 <= p[True] <= 1.0 and math.isclose(p[True] + p[False], 1.0)
        model.learn_one(x, y)


def test_tree_learners_boost_beyond_one_tree():
    # a curved boundary, majority-class leaves: one tree is a coarse staircase; five boosted
    # trees reweighted where the chain errs refine it (measured: 0.98 against 0.88)
    rng = np.random.default_rng(6)
    def make():
        return tree.HoeffdingTreeClassifier(grace_period=50, leaf_prediction="mc")
    model = BoOCOClassifier(make(), n_learners=5, seed=3)
    single = make()
    hits = np.zeros(2)
    for t in range(2000):
        u, v = rng.uniform(-1, 1, size=2)
        x = {"u": float(u), "v": float(v)}
        y = bool(v > 0.5 * np.sin(3 * u))
        if t >= 1000:
            hits += [model.predict_one(x) == y, single.predict_one(x) == y]
        model.learn_one(x, y)
        single.learn_one(x, y)
    assert hits[0] / 1000 > 0.92 and hits[0] > hits[1] + 30


def test_same_seed_same_predictions():
    def run(seed):
        model = BoOCOClassifier(tree.HoeffdingTreeClassifier(grace_period=30), n_learners=3,
                                seed=seed)
        out = []
        for x, y in imbalanced_stream(300, 7, 1.0):
            out.append(model.predict_proba_one(x)[True])
            model.learn_one(x, y)
        return out

    assert run(11) == run(11)
    assert run(11) != run(12)  # the seed reaches the copies (their Poisson draws)


BAD = [
    ({"a": float("nan"), "b": 0.0}, True, "x"),
    ({"a": float("inf"), "b": 0.0}, True, "x"),
    ({"a": "red", "b": 0.0}, True, "x"),
    ({"a": 0.1, "b": 0.0}, float("nan"), "y"),
    ({"a": 0.1, "b": 0.0}, float("inf"), "y"),
    ({"a": 0.1, "b": 0.0}, 2, "y"),
    ({"a": 0.1, "b": 0.0}, "maybe", "y"),
    ({"a": 0.1, "b": 0.0}, [True], "y"),
]


@pytest.mark.parametrize("learner", [None, learners.LinearOGD()], ids=["tree", "linear"])
@pytest.mark.parametrize("x, y, match", BAD)
def test_bad_input_raises_naming_it_and_leaves_state_unchanged(learner, x, y, match):
    model = BoOCOClassifier(learner, n_learners=3, seed=1)
    for xx, yy in imbalanced_stream(40, 8, 1.0):
        model.learn_one(xx, yy)
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match=match):
        model.learn_one(x, y)
    assert pickle.dumps(model) == before
    if match == "x":
        with pytest.raises(ValueError, match="x"):
            model.predict_proba_one(x)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"bound": 0.0}, "bound"),
        ({"loss": "cross-entropy"}, "loss"),
        ({"weighting": "boot"}, "weighting"),
        ({"weight_power": -1.0}, "weight_power"),
        ({"vote_lr": -1.0}, "vote_lr"),
        ({"rate": 0.0}, "rate"),
        ({"linear_lr": -0.5}, "linear_lr"),
        ({"stack_lr": 0.0}, "stack_lr"),
        ({"n_learners": 0}, "n_learners"),
    ],
)
def test_invalid_parameters_raise(kwargs, match):
    with pytest.raises(ValueError, match=match):
        BoOCOClassifier(**kwargs)


def test_forward_pass_reused_only_for_the_same_unmodified_dict():
    # learn_one reuses the prediction's forward pass for the very same dict: a copy of x, or
    # a dict modified after the prediction, must give the same model as a fresh pass would
    def run(mode):
        model = BoOCOClassifier(n_learners=4, seed=5)
        out = []
        for x, y in imbalanced_stream(400, 9, 1.0):
            out.append(model.predict_proba_one(x)[True])
            if mode == "copy":
                model.learn_one(dict(x), y)
            elif mode == "mutated":  # predicted on x, then x changes in place before the learn
                x["a"] += 1.0
                model.learn_one(x, y)
            else:
                model.learn_one(x, y)
        return out

    def fresh_mutated():  # the reference for "mutated": learn on the changed x, no reuse
        model = BoOCOClassifier(n_learners=4, seed=5)
        out = []
        for x, y in imbalanced_stream(400, 9, 1.0):
            out.append(model.predict_proba_one(x)[True])
            model.learn_one({**x, "a": x["a"] + 1.0}, y)
        return out

    assert run("same") == run("copy")
    assert run("mutated") == fresh_mutated()
    assert run("mutated") != run("same")


def test_expert_rows_prior_first_stages_mean_linear_stack():
    model = BoOCOClassifier(n_learners=3, seed=2)
    for x, y in imbalanced_stream(300, 10, 1.0):
        model.learn_one(x, y)
    x = {"a": 0.7, "b": -0.2}
    E = model._experts(x)
    assert E.shape == (3 + 5, 2) and np.allclose(E.sum(axis=1), 1.0)
    W = model._weak_points(x)[:, 0]  # the copies' scores 2 P(True) - 1 (bound 1)
    assert math.isclose(E[-3, 1], (1 + W.mean()) / 2)  # the mean of the copies
    assert math.isclose(E[-2, 1], model._linear_expert.proba(x))
    # the stack reads every expert but the prior (and not itself)
    assert math.isclose(E[-1, 1], model._stack.proba(E[1:-1, 1]))
    assert 0.0 < E[-1, 1] < 1.0 and E[-1, 1] != 0.5  # it has learnt something
    assert BoOCOClassifier(n_learners=3, linear_expert=False)._experts(x).shape == (7, 2)
    assert BoOCOClassifier(n_learners=3, stack_expert=False)._experts(x).shape == (7, 2)
    assert BoOCOClassifier(n_learners=3, linear_expert=False,
                           stack_expert=False)._experts(x).shape == (6, 2)


def test_stack_expert_beats_each_of_two_independent_experts():
    # two experts, each right 75% of the time, erring independently given the label: the vote
    # can only follow one, the stack learns to add their logits and beats both
    from onlineboost.booco_classifier import _StackExpert

    rng = np.random.default_rng(21)
    stack = _StackExpert(2, lr=0.03)
    hits = np.zeros(3)
    T = 4000
    for t in range(T):
        y = int(rng.random() < 0.5)
        sure = rng.random(2) < 0.5  # each expert is sure (0.9) half the time, else 0.6
        right = rng.random(2) < np.where(sure, 0.9, 0.6)
        conf = np.where(sure, 0.9, 0.6)
        p = np.where(right == bool(y), conf, 1.0 - conf)  # P(True) of each expert
        if t >= T // 2:
            hits += [(p[0] > 0.5) == y, (p[1] > 0.5) == y, (stack.proba(p) > 0.5) == y]
        stack.learn(p, y)
    acc = hits / (T // 2)
    assert acc[2] > max(acc[:2]) + 0.03


def test_linear_expert_learns_a_linear_concept_with_categories_and_missing_features():
    # a tilted plane on wildly scaled features plus a categorical one; features sometimes
    # absent: the standardised logistic regression must learn it (accuracy well above 0.9)
    rng = np.random.default_rng(12)
    model = BoOCOClassifier(n_learners=2, seed=1)
    expert = model._linear_expert
    hits = 0
    for t in range(3000):
        u, v = rng.normal(size=2)
        colour = ["red", "blue"][t % 2]
        y = bool(u - 0.5 * v + (0.8 if colour == "red" else -0.8) > 0)
        x = {"u": 1e4 * u, "v": 1e-3 * v, "colour": colour}
        if t % 7 == 0:
            del x["v"]
        if t >= 1500:
            hits += (expert.proba(x) > 0.5) == y
        expert.learn(x, int(y))
    assert hits / 1500 > 0.9


def test_linear_expert_carries_a_linear_stream():
    # on a linear concept, trees staircase; the aggregate must follow the linear expert
    rng = np.random.default_rng(13)
    w = rng.normal(size=6)
    def stream():
        for _ in range(2500):
            z = rng.normal(size=6)
            yield dict(zip("abcdef", z.tolist())), bool(z @ w > 0)
    data = list(stream())
    acc = {}
    for flag in (True, False):
        model = BoOCOClassifier(n_learners=4, linear_expert=flag, seed=3)
        hits = 0
        for x, y in data:
            hits += model.predict_one(x) == y
            model.learn_one(x, y)
        acc[flag] = hits / len(data)
    assert acc[True] > 0.93 and acc[True] > acc[False] + 0.03


def test_default_trees_fast_splitter_clone_gives_the_same_model():
    # the default trees' splitter clones without river's signature reading: a fresh, empty
    # splitter each time (sharing one would merge the leaves' statistics), same predictions
    from onlineboost._splitter import GaussianSplitter as _GaussianSplitter
    from onlineboost.booco_classifier import _DEFAULT_TREE

    proto = _GaussianSplitter(n_splits=7)
    proto.update(0.5, True, 1.0)
    twin = proto.clone()
    assert type(twin) is _GaussianSplitter and twin is not proto and twin.n_splits == 7
    assert twin._att_dist_per_class == {} and proto._att_dist_per_class != {}

    def run(learner):
        model = BoOCOClassifier(learner, n_learners=3, seed=4)
        out = []
        for x, y in imbalanced_stream(600, 8, 1.0):
            out.append(model.predict_proba_one(x)[True])
            model.learn_one(x, y)
        return out, model

    fast, model = run(None)
    plain, _ = run(tree.HoeffdingTreeClassifier(**_DEFAULT_TREE))
    assert fast == plain
    assert isinstance(model._copies._copies.models[0].splitter, _GaussianSplitter)
    assert model._copies._copies.models[0]._root.n_leaves > 1  # the trees did split


@pytest.mark.parametrize("n_classes, min_frac", [(2, 0.01), (3, 0.01), (3, 0.45)])
def test_fused_split_search_matches_rivers(n_classes, min_frac):
    # the one-loop search must give river's split bit for bit: merit, threshold, branch
    # weights (and nothing when no threshold leaves two branches above the fraction)
    from river.tree.split_criterion import GiniSplitCriterion, InfoGainSplitCriterion
    from river.tree.splitter import GaussianSplitter

    from onlineboost._splitter import GaussianSplitter as _GaussianSplitter

    rng = np.random.default_rng(n_classes)
    ours, theirs = _GaussianSplitter(), GaussianSplitter()
    pre: dict = {}
    for _ in range(200):
        c = int(rng.integers(n_classes))
        v, w = float(rng.normal(c, 1.0)), float(rng.poisson(5))
        ours.update(v, c, w)
        theirs.update(v, c, w)
        pre[c] = pre.get(c, 0.0) + w
    for criterion in (InfoGainSplitCriterion(min_frac), GiniSplitCriterion(min_frac)):
        a = ours.best_evaluated_split_suggestion(criterion, pre, "f", False)
        b = theirs.best_evaluated_split_suggestion(criterion, pre, "f", False)
        assert a.merit == b.merit and a.split_info == b.split_info
        assert a.children_stats == b.children_stats
    assert a.merit > -math.inf or min_frac > 0.4


def test_linear_expert_does_not_shadow_the_cores_linear_loss_flag():
    # the core reads `_linear` as "the loss is Linear"; the classifier's linear expert once took
    # that name, sending one-copy rounds into the Linear loss's vector path with a scalar label
    model = BoOCOClassifier(learners.LinearOGD(), n_learners=1, loss="logistic")
    assert model._linear is False and model._linear_expert is not None
    for y in [False] * 5 + [True] * 5:
        model.learn_one({"u": 0.0, "v": 0.0}, y)
    assert 0.0 < model.predict_proba_one({"u": 0.0, "v": 0.0})[True] < 1.0


def test_a_pickle_from_before_the_linear_expert_had_its_name_loads():
    model = BoOCOClassifier(learners.LinearOGD(), n_learners=2, seed=0)
    stream = list(datasets.Phishing())[:60]
    for x, y in stream[:50]:
        model.learn_one(x, y)
    old = model.__getstate__()
    old["_linear"] = old.pop("_linear_expert")  # the former layout
    restored = BoOCOClassifier.__new__(BoOCOClassifier)
    restored.__setstate__(pickle.loads(pickle.dumps(old)))
    assert restored._linear is False and restored._linear_expert is not None
    for x, y in stream[50:]:
        assert restored.predict_proba_one(x) == model.predict_proba_one(x)
        restored.learn_one(x, y)
        model.learn_one(x, y)


@pytest.mark.parametrize("loss", ["squared", "logistic"])
def test_without_the_aggregate_it_plays_the_last_stage(loss):
    """`aggregate=False`: the paper's play, the score Pi_K(x^N) of the last stage; its
    probability the loss's link (0.5 (1 + s) clipped for the squared loss, the sigmoid for
    the logistic), its label the score's sign. Checked against `iterates` on a learnt model
    whose stages disagree."""
    model = BoOCOClassifier(learners.LinearOGD(), n_learners=3, gamma=0.5, loss=loss,
                            bound=2.0, aggregate=False, seed=0)
    rng = np.random.default_rng(1)
    for _ in range(200):
        x = {"a": float(rng.normal()), "b": float(rng.normal())}
        model.learn_one(x, x["a"] + 0.3 * x["b"] > 0)
    spread = 0.0
    for _ in range(20):
        x = {"a": float(rng.normal()), "b": float(rng.normal())}
        X = model.iterates(x)[:, 0]
        s = min(max(float(X[-1]), -2.0), 2.0)
        p = 0.5 * (1.0 + min(max(s, -1.0), 1.0)) if loss == "squared" else 1 / (1 + math.exp(-s))
        assert model.predict_proba_one(x)[True] == pytest.approx(p, rel=1e-12, abs=1e-15)
        assert model.predict_one(x) == (s > 0)
        spread = max(spread, abs(float(X[-1] - X[-2])))
    assert spread > 1e-3
