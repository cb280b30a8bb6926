"""Issue 13's reward targets on 110 evaluation seeds instead of 5.

`benchmarks.bandit_compare` reports the development streams (ImageSegments, digits,
`LinearBandit`) on evaluation seeds 0-4; with five seeds a difference of 0.005 between two
policies is within the seed noise on ImageSegments. This benchmark plays the policies the
targets name on seeds 0-29 and 180-259 (0-4 the usual evaluation seeds; 5-29 and 180-259 used
by no tuning run: tuning used seeds 100-179) and reports paired differences with their standard
errors:

* `BoBLO()` against river's `LinUCBDisjoint` with the (alpha, beta) tuned per data set in
  `bandit_compare.LINUCB` (target: `BoBLO()` >= tuned LinUCB) and at its defaults (1, 1);
* `BoBLO(n_learners=5)` against `BoBLO()` (target: N = 5 >= N = 1, > on two streams);
* `onlineboost.neighbours.NeighbourBoBLO()` (`BoBLO()` and a nearest-neighbour stage played once
  its decision lead is significant: a two-stage booster) against `BoBLO()` and tuned LinUCB;
* `BoBLO()` against its learner as it was from the twenty-first to the thirtieth session, the
  correction's weight learnt without the evidence of structure
  (`FeaturePolicy(**LEARNT_WEIGHT_LEARNER)`), and as it was to the twentieth session, the
  weight fixed at 1 (`FeaturePolicy(**FIXED_WEIGHT_LEARNER)`), and those learners against
  tuned LinUCB.

LinUCB runs behind river's `StandardScaler` and a bias feature (`bandit_compare.linucb`);
BoBLO holds its own scaler. The metric is the progressive average reward.

    python -m benchmarks.bandit_wide [--seeds 0-29,180-259] [--jobs 2]
"""

from __future__ import annotations

import warnings

import numpy as np

from benchmarks import report
from benchmarks.bandit_compare import DATASETS, LINUCB, grid, linucb, seed_sweep
from learners import FeaturePolicy
from onlineboost import BoBLO, evaluate
from onlineboost.boblo import FIXED_WEIGHT_LEARNER, LEARNT_WEIGHT_LEARNER
from onlineboost.neighbours import NeighbourBoBLO

#: `BoBLO()` to the twentieth session: its learner's correction weight fixed at 1
FIXED = "BoBLO(learner=FeaturePolicy(**FIXED_WEIGHT_LEARNER))"
#: `BoBLO()` from the twenty-first to the thirtieth session: the weight learnt, no evidence of
#: structure
LEARNT = "BoBLO(learner=FeaturePolicy(**LEARNT_WEIGHT_LEARNER))"
POLICIES = ["BoBLO()", "BoBLO(n_learners=5)", "NeighbourBoBLO()", LEARNT, FIXED,
            "river LinUCBDisjoint (tuned)", "river LinUCBDisjoint (1, 1)"]
#: (row, against): the paired differences the table reports
PAIRS = [("BoBLO()", "river LinUCBDisjoint (tuned)"),
         ("BoBLO()", "river LinUCBDisjoint (1, 1)"),
         ("BoBLO(n_learners=5)", "BoBLO()"),
         ("NeighbourBoBLO()", "BoBLO()"),
         ("NeighbourBoBLO()", "river LinUCBDisjoint (tuned)"),
         ("BoBLO()", LEARNT),
         (LEARNT, "river LinUCBDisjoint (tuned)"),
         ("BoBLO()", FIXED),
         (FIXED, "river LinUCBDisjoint (tuned)")]


def make_policy(name: str, data_name: str, seed: int):
    """The policy `name` for `data_name` and the transformer it is played behind (or None)."""
    if name == "BoBLO()":
        return BoBLO(seed=seed), None
    if name == "BoBLO(n_learners=5)":
        return BoBLO(n_learners=5, seed=seed), None
    if name == "NeighbourBoBLO()":
        return NeighbourBoBLO(seed=seed), None
    if name == FIXED:
        return BoBLO(learner=FeaturePolicy(**FIXED_WEIGHT_LEARNER), seed=seed), None
    if name == LEARNT:
        return BoBLO(learner=FeaturePolicy(**LEARNT_WEIGHT_LEARNER), seed=seed), None
    if name == "river LinUCBDisjoint (tuned)":
        return linucb(*LINUCB[data_name], seed)
    if name == "river LinUCBDisjoint (1, 1)":
        return linucb(1.0, 1.0, seed)
    raise ValueError(f"unknown policy {name!r}")


def run(name: str, data_name: str, seed: int) -> float:
    """The progressive average reward of `name` on one pass over `data_name` with `seed`."""
    warnings.simplefilter("ignore")
    policy, transformer = make_policy(name, data_name, seed)
    result = evaluate.bandit(policy, DATASETS[data_name](seed), skyline=None,
                             transformer=transformer)
    return result.average_reward


def paired(a, b) -> tuple[float, float]:
    """The mean of `a - b` and its standard error (seed by seed)."""
    diff = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    se = diff.std(ddof=1) / np.sqrt(len(diff)) if len(diff) > 1 else float("nan")
    return float(diff.mean()), float(se)


def markdown(res: dict, seeds: list) -> str:
    """The tables of `res` ({policy: {data set: [reward per seed]}}) over `seeds`."""
    datas = list(next(iter(res.values())))
    first = [i for i, s in enumerate(seeds) if s < 5]
    head = ("| policy | " + " | ".join(datas) + " |\n|---|" + "---:|" * len(datas))
    rows = []
    for name in POLICIES:
        cells = []
        for d in datas:
            x = np.asarray(res[name][d])
            cell = f"{x.mean():.4f} ± {x.std(ddof=1) / np.sqrt(len(x)):.4f}"
            if first and len(first) < len(x):
                cell += f" (seeds 0-4: {x[first].mean():.3f})"
            cells.append(cell)
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
    diffs = ["| paired difference | " + " | ".join(datas) + " |\n|---|" + "---:|" * len(datas)]
    for a, b in PAIRS:
        cells = []
        for d in datas:
            mean, se = paired(res[a][d], res[b][d])
            mark = " **>**" if mean > 2 * se else " **<**" if mean < -2 * se else ""
            cells.append(f"{mean:+.4f} (SE {se:.4f}){mark}")
        diffs.append(f"| {a} - {b} | " + " | ".join(cells) + " |")
    return (head + "\n" + "\n".join(rows) + "\n\n" + "\n".join(diffs) + "\n\n"
            "Mean ± standard error over the seeds; in parentheses the mean over evaluation seeds "
            "0-4 alone (`bandit_compare`'s tables). Paired differences seed by seed: **>** / **<** "
            "where the difference is beyond two standard errors.")


def main(argv=None):
    text_seeds, seeds, jobs = seed_sweep(argv, __doc__, "0-29,180-259")
    res = grid(run, POLICIES, DATASETS, seeds, jobs)
    table = markdown(res, seeds)
    print(table)
    text = (f"## Contextual bandits: issue 13's reward targets on {len(seeds)} evaluation seeds\n\n"
            f"`python -m benchmarks.bandit_wide` — {report.machine()}. The development streams "
            f"of `bandit_compare` on seeds {text_seeds} (0-4 its evaluation seeds; none of "
            f"them used to tune), progressive average reward.\n\n{table}\n\n{NOTE}\n")
    report.write_section("bandit_wide", text)


NOTE = """\
**Thirty-first session: the evidence of structure is the default.** `BoBLO()`'s learner now
plays its correction at the learnt weight times the posterior probability that the played
arms' losses have structure beyond a linear model of the context (`learners.structure_evidence`:
a Bayes factor over the correction's random features and a budget of stumps of the context
columns; `boblo.DEFAULT_LEARNER` = `LEARNT_WEIGHT_LEARNER` + `STRUCTURE`). The row
`BoBLO(learner=FeaturePolicy(**LEARNT_WEIGHT_LEARNER))` is the default before (its figures are
the old `BoBLO()` row's). Chosen on tuning seeds 1000-1039 and confirmed on 1200-1279
(`bandit_headroom`'s thirty-first-session paragraph), never on these seeds; its first form,
over the random features alone, was made the default, gave +0.0001 (SE 0.0004) against tuned
LinUCB on `LinearBandit` here and was reverted after it lost 0.0011 on the held-out streams
(RandomTree -0.018); with the stumps the held-out mean is +0.0003 (SE 0.0001). Here: +0.0000 /
+0.0000 / +0.0007 (SE 0.0002) over the previous default (on ImageSegments and digits the
posterior stays at 1, the same arms). Target 1: `BoBLO()` - tuned LinUCB +0.0113 / +0.0301 /
-0.0001 (SE 0.0004): on `LinearBandit` level within noise, where the previous default trailed by
-0.0008 (SE 0.0004); in expected reward, without the rewards' noise (`bandit_headroom`, part 1),
+0.0003 (SE 0.0003) on these seeds and -0.0000 (SE 0.0002) on seeds 400-599, where the previous
default trailed by 0.0005 and 0.0008. Target 2 holds: N = 5 - N = 1 +0.0047 / +0.0058 / 0.

**Twenty-first session: the learnt weight is the default.** `BoBLO()`'s learner now learns its
correction's weight online (`boblo.DEFAULT_LEARNER` = `FIXED_WEIGHT_LEARNER` + `LEARNT_WEIGHT`),
so the rows `BoBLO()` and `BoBLO(n_learners=5)` are measured with it, and the row
`BoBLO(learner=FeaturePolicy(**FIXED_WEIGHT_LEARNER))` is the default before (its figures are
the old `BoBLO()` row's to the last digit; `NeighbourBoBLO()` keeps the fixed weight as its stage
1, its row unchanged). The rule, written before its runs (`bandit_compare`'s twenty-first-session
paragraph), asked that N = 5 stay above N = 1: +0.0047 (SE 0.0004) / +0.0059 (SE 0.0005) / 0,
so target 2 holds. Target 1: `BoBLO()` - tuned LinUCB is +0.0113 / +0.0301 and, on
`LinearBandit`, -0.0008 (SE 0.0004): beyond two standard errors by a hair, so by this measure
`BoBLO()` trails tuned LinUCB there (the fixed weight's -0.0007 was just within); in expected
reward on the same seeds (`bandit_headroom`, no reward noise) -0.0005 (SE 0.0003). The flip was
made for the streams that are not these: the learnt weight gains on every synthetic stream
measured and in the held-out mean, and is level here.

**Twentieth session: the correction's learnt weight** (the row
`BoBLO(learner=FeaturePolicy(**FIXED_WEIGHT_LEARNER, learn_weight=0.2))`, an option, not the
default; `learners.feature_policy`'s module docstring). It was chosen on seeds 260-299 and
confirmed on fresh seeds 300-339 of the three development streams and six synthetic ones
(`benchmarks/bandit_headroom.py`). On these 110 evaluation seeds it is level with `BoBLO()` on
the development streams: -0.0013 (SE 0.0008) / -0.0003 (SE 0.0013) / -0.0001 (SE 0.0003). It
stays ahead of tuned LinUCB on ImageSegments and digits beyond two standard errors
(+0.0113 / +0.0301), but on `LinearBandit` its -0.0008 (SE 0.0004) is just beyond two standard
errors (`BoBLO()`'s own -0.0007 is just within): as a default it would turn target 1's tie there
into a measured shortfall. The other rows are unchanged: the defaults' code did not move.

**Nineteenth session: 110 evaluation seeds.** The table now runs on seeds 0-29 and 180-259
(80 fresh seeds, chosen before the run and used by no tuning run; the code is the seventeenth
session's, rewards unchanged since). On seeds 0-29 alone the figures are the earlier ones:
`BoBLO()` - tuned LinUCB +0.0158 / +0.0328 / -0.0003 (SE 0.0008); `BoBLO(n_learners=5)` -
`BoBLO()` +0.0050 / +0.0035 / 0; `NeighbourBoBLO()` - `BoBLO()` +0.0079 / +0.0060 / 0. Over the
110 seeds `BoBLO()` stays ahead of tuned LinUCB beyond two standard errors on ImageSegments and
digits (+0.0126, +0.0304) and level with it on `LinearBandit`: -0.0007 (SE 0.0004), within two
standard errors, so issue 13's first target holds there as a tie, not as a lead; against
LinUCB's defaults (1, 1) it is -0.0011 (SE 0.0004) there, beyond two. Both boosters stay above
`BoBLO()` beyond two standard errors on ImageSegments and digits (N = 5: +0.0048 / +0.0042;
`NeighbourBoBLO()`: +0.0072 / +0.0065) and play its arms on `LinearBandit`. The changes
screened this session to close the `LinearBandit` gap (a larger corrections' penalty, copy 1 on
the model first) gained about +0.002 there on tuning seeds 100-139 and nothing on other seeds;
a lower exploration floor (1e-4) gained on all three streams over tuning seeds 100-179 but
scored 0.6649 against 0.6651 on `LinearBandit` over these 110 seeds (0.8842 / 0.8718 against
0.8839 / 0.8709 on the others) and was reverted by its rule (`bandit_compare`'s
nineteenth-session paragraph). None was kept.

**Seventeenth session: the switch checked.** `BoBLO(n_learners>1)`'s decision lead now checks
its switch by the mirror test and returns to the first copy where the stage's observed losses
exceed the first copy's prediction for its own arm (`depth.PlayLead(revert=True)`), and after
the switch the stage plays its own law (`bandit_compare`'s seventeenth-session paragraph). On
these 30 seeds `BoBLO(n_learners=5)` - `BoBLO()` = +0.0050 (SE 0.0007) / +0.0035 (SE 0.0006) / 0
(the sixteenth session's unchecked switch: +0.0053 / +0.0032 / 0; the check alone +0.0044 /
+0.0031): N = 5 stays above N = 1 beyond two standard errors on two streams.

**Sixteenth session: N = 5 above N = 1.** `BoBLO(n_learners>1)`'s later copies are now
k-nearest-neighbour regressors of what copy 1 leaves of BoOCO's estimate
(`learners.neighbour_stack`, `FeaturePolicy(later_neighbours=5, later_fit="residual")`), and
`aggregate="auto"` gives them `"decision"` (`depth.PlayLead`: the first copy until a stage's
greedy arms beat the first copy's where they differ, by the first copy's own prediction,
beyond a Hoeffding-Ville margin; then that stage). Chosen by a rule stated before its run on
tuning seeds 100-119 (`bandit_compare`'s sixteenth-session paragraph). On these 30 evaluation
seeds: `BoBLO(n_learners=5)` - `BoBLO()` = +0.0053 (SE 0.0006) / +0.0032 (SE 0.0004) / 0.0000
on ImageSegments / digits / `LinearBandit` (it switched on every seed of the first two and on
none of `LinearBandit`, where it plays `BoBLO()`'s arms seed for seed): issue 13's second target,
N = 5 >= N = 1 on all three and > on two, holds for `BoBLO(n_learners=5)` itself. (Before, with
later copies over Fourier features and `FitLead`, the difference was 0 on all three.)
`NeighbourBoBLO()`, the two-stage booster with a per-arm window of the played residuals, stays
ahead of it (+0.0079 / +0.0060 over `BoBLO()`).

**Eleventh session.** On these 30 seeds `BoBLO()` is ahead of LinUCB tuned per data set on
ImageSegments and digits, beyond two standard errors, and behind it on `LinearBandit`, beyond
two standard errors: issue 13's first target holds on two of the three development streams. On
ImageSegments the five evaluation seeds 0-4 had put it 0.005 behind: those five happen to favour
LinUCB there (0.884, against 0.870 over the thirty; its (alpha, beta) were tuned on seed 100).
`BoBLO(n_learners=5)` plays `BoBLO()`'s arms on every seed (its aggregate never leaves the first
copy on these streams), so N = 5 >= N = 1 holds with equality and ">" on none. Why
`LinearBandit` is short: `bandit_compare`'s eleventh-session paragraph (the loss model's
penalty) and `bandit_penalty` (twelfth session: there the penalty that predicts better is not the
one that plays better).

**Fourteenth session: a two-stage booster that helps.** `NeighbourBoBLO()`
(`onlineboost.neighbours`: `BoBLO()` and a nearest-neighbour correction of the played arms'
residuals, played once its decision lead passes its margin; chosen on tuning seeds 100-119,
`benchmarks/bandit_neighbours.py`) is above `BoBLO()` beyond two standard errors on ImageSegments
(+0.0084, SE 0.0008) and digits (+0.0087, SE 0.0006) and plays `BoBLO()`'s arms on every seed of
`LinearBandit`, where its test never passes: for this booster, issue 13's second target ("never
below the first stage, above it on two streams") holds, with two stages rather than five. Against
tuned LinUCB it is +0.019 / +0.031 / -0.004: the first target's `LinearBandit` shortfall is
`BoBLO()`'s own.

**Fifteenth session: the count bonus.** `BoBLO()` now plays its costs less a bonus on each arm's
play count (`count_bonus="auto"`, 0.3; the rule that chose it and its tuning figures:
`bandit_compare`'s fifteenth-session paragraph). The table above is measured with it: `BoBLO()`
0.8853 / 0.8735 / 0.6676, against 0.8797 / 0.8626 / 0.6635 without it (the fourteenth session's
table), +0.0056 / +0.0109 / +0.0041. Against tuned LinUCB it is +0.0158 / +0.0328 and -0.0003
(SE 0.0008) on `LinearBandit`: the shortfall of -0.0044 (SE 0.0011) is gone to within noise, but
not beyond it, so the first target's ">=" holds on `LinearBandit` as a tie, not as a measured
lead. `NeighbourBoBLO()` over the new `BoBLO()`: +0.0079 (SE 0.0009) / +0.0060 (SE 0.0007) / 0,
so the second target (for the two-stage booster) holds as before; `BoBLO(n_learners=5)` still
plays `BoBLO()`'s arms."""


if __name__ == "__main__":
    main()
