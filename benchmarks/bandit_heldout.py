"""BoBLO's defaults against river's LinUCB on held-out contextual bandit streams (no tuning).

The development streams of `benchmarks.bandit_compare` (ImageSegments, digits, `LinearBandit`)
are where BoBLO's defaults and LinUCB's tuned (alpha, beta) were chosen. This benchmark runs
the same comparison on classification data sets that were never tuned on, turned into bandits
by `streams.ClassificationBandit` (reward 1 for the true class), and only reports:

* scikit-learn's `load_wine`, `load_iris`, `load_breast_cancer`;
* river's bundled `Phishing` and `Bananas` (river has no other bundled data set with >= 3
  classes than ImageSegments, a development stream; Keystroke, Insects, ... need downloads);
* UCI Tic-Tac-Toe (`tic-tac-toe.csv` from the shared data folder, `$ONLINEBOOST_DATA`; the
  27 one-hot features of `benchmarks.secboost_table.load_tic_tac_toe`);
* two synthetic non-linear streams: `streams.StumpMixture` (a convex combination of decision
  stumps over 5 uniform features, its target cut at its terciles into 3 classes) and river's
  `synth.Waveform` (3 classes, 21 features), both with a fixed data seed (0);
* since the seventh session, nine more of river's synthetic classification generators
  (`SYNTH`: Agrawal, Hyperplane, LED, Mixed, RandomRBF, RandomTree, SEA, Sine, STAGGER; data
  seed 0, 3,000 rows each).

Streams longer than `--max-rounds` (default 3,000) are cut after that many rounds of each seed's
shuffled order. Policies: `BoBLO()` and `BoBLO(n_learners=N)` for N = 2, 3, 5 exactly as the code
under test defines them, `NeighbourBoBLO()` (`onlineboost.neighbours`); river's `LinUCBDisjoint`
with its defaults (alpha = beta = 1), with each of the development streams' tuned settings
(`bandit_compare.LINUCB`), and the best of the small sweep [(1, 1), (1, 5), (10, 20), (100, 20),
(100, 100)] per data set picked in hindsight on the same seeds (an upper bound: no user can pick
it); uniform random play. Contexts are standardised online (BoBLO holds its own scaler; LinUCB gets
river's `StandardScaler` plus a bias feature, as in `bandit_compare`). Seeds 0-4 shuffle the stream
and seed the policy; the metric is the progressive average reward, mean ± std over seeds.

The code under test is whatever `onlineboost` (with `learners`, `streams`) Python imports;
the script and its results come from the checkout that holds this file. Each run records its
rewards under a label (the git branch of `onlineboost`'s checkout, or `--label`) in
`benchmarks/results/bandit_heldout.json`, and the section shows every recorded version, so
two code versions can be compared:

    # this checkout's code
    cd <this checkout> && PYTHONPATH=$PWD nice -n 5 python -m benchmarks.bandit_heldout
    # a candidate branch checked out at /path/cand: a folder exposing only its packages,
    # put first (`-m` would put this checkout first; `-P` stops that)
    mkdir -p /tmp/cand_pkgs && ln -sfn /path/cand/{onlineboost,learners,streams} /tmp/cand_pkgs/
    cd <this checkout> && PYTHONPATH=/tmp/cand_pkgs:$PWD nice -n 5 python -P -m \\
        benchmarks.bandit_heldout
    # (Python 3.10 has no -P: `cd /tmp/cand_pkgs && PYTHONPATH=<this checkout> python -m ...`)

The script prints where `onlineboost` was imported from and records its checkout's branch and
last commit to `onlineboost`/`learners`/`streams` (and BoBLO()'s parameters) with the table.

`--quick` runs 300 rounds of one seed and writes nothing. `--gap LED,Hyperplane` prints, per
seed and per stretch of rounds, `BoBLO()` against LinUCB's defaults on those streams with what
`BoBLO()`'s loss model would have earned played greedily (`bandit_compare.run_gap`), on the
diagnosis seeds `--gap-seeds` (default 100-104, not the table's), and writes nothing.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
import warnings
from pathlib import Path

import numpy as np
from river import bandit as river_bandit
from river import datasets, preprocessing
from sklearn.datasets import load_breast_cancer, load_iris, load_wine

import learners
import onlineboost
import streams
from benchmarks import report
from benchmarks.bandit_compare import LINUCB as DEV_LINUCB
from benchmarks.bandit_compare import gap_markdown, gap_table, grid, linucb, parse_seeds
from onlineboost import BoBLO, evaluate
from onlineboost.neighbours import NeighbourBoBLO
from streams import ClassificationBandit, StumpMixture

RAW = Path(__file__).parent / "results" / "bandit_heldout.json"
MAX_ROUNDS = 3000
DEV_STREAMS = ("ImageSegments", "digits", "LinearBandit")
# the (alpha, beta) sweep of `bandit_compare --tune`; it holds the defaults (1, 1) and every
# development stream's tuned setting
SWEEP = [(1.0, 1.0), (1.0, 5.0), (10.0, 20.0), (100.0, 20.0), (100.0, 100.0)]
#: BoBLO's rows: the defaults, then boosting at depths 2, 3 and 5 (the depths 2 and 3 since the
#: eighth session: versions recorded before have no such rows)
BOBLO = {"BoBLO()": {}, "BoBLO(n_learners=2)": {"n_learners": 2},
         "BoBLO(n_learners=3)": {"n_learners": 3}, "BoBLO(n_learners=5)": {"n_learners": 5}}
RANDOM = "uniform random play"
#: `onlineboost.NeighbourBoBLO()`: `BoBLO()` and a nearest-neighbour second stage (fourteenth
#: session; versions recorded before have no such row)
NEIGHBOUR = "NeighbourBoBLO()"


def _linucb_name(ab) -> str:
    return f"LinUCB ({ab[0]:g}, {ab[1]:g})"


def load_tic_tac_toe() -> tuple[np.ndarray, np.ndarray]:
    """UCI Tic-Tac-Toe through the project's loader (the file is found by `streams`)."""
    from benchmarks.secboost_table import load_tic_tac_toe as load

    return load(streams.find_data_file("tic-tac-toe.csv"))


def stump_classes(n_rows: int = MAX_ROUNDS, n_features: int = 5, n_stumps: int = 8,
                  n_classes: int = 3, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """`StumpMixture` rows with its noise-free target cut at its quantiles into `n_classes`.

    Examples
    --------
    >>> X, y = stump_classes(n_rows=600)
    >>> X.shape, sorted(set(y.tolist()))
    ((600, 5), [0, 1, 2])
    """
    pairs = list(StumpMixture(n_features=n_features, n_stumps=n_stumps, noise=0.0,
                              seed=seed).take(n_rows))
    X = np.array([[x[f"x{j}"] for j in range(n_features)] for x, _ in pairs])
    target = np.array([t for _, t in pairs])
    cuts = np.quantile(target, np.arange(1, n_classes) / n_classes)
    return X, np.searchsorted(cuts, target, side="right")


def waveform(n_rows: int = MAX_ROUNDS, seed: int = 0) -> tuple[list, list]:
    """The first `n_rows` of river's synthetic `Waveform` (3 classes, 21 features)."""
    pairs = list(datasets.synth.Waveform(seed=seed).take(n_rows))
    return [x for x, _ in pairs], [y for _, y in pairs]


def river_synth(name: str, n_rows: int = MAX_ROUNDS) -> tuple[list, list]:
    """The first `n_rows` of one of river's synthetic classification generators, data seed
    0 (`SYNTH`), boolean labels as 0 / 1."""
    return _pairs(SYNTH[name]().take(n_rows))


# river's synthetic classification generators (seventh session): linear (Hyperplane, SEA),
# non-linear (Sine, RandomRBF, RandomTree, Agrawal, Mixed), noisy many-armed (LED: 10 classes,
# 7 binary segments, 10% of them flipped), categorical codes as numbers (STAGGER, Agrawal);
# Mixed yields bool features
SYNTH = {
    "Agrawal": lambda: datasets.synth.Agrawal(classification_function=2, seed=0),
    "Hyperplane": lambda: datasets.synth.Hyperplane(seed=0, n_features=10),
    "LED": lambda: datasets.synth.LED(seed=0, noise_percentage=0.1),
    "Mixed": lambda: datasets.synth.Mixed(seed=0),
    "RandomRBF": lambda: datasets.synth.RandomRBF(seed_model=0, seed_sample=0, n_classes=4,
                                                  n_features=6),
    "RandomTree": lambda: datasets.synth.RandomTree(seed_tree=0, seed_sample=0, n_classes=3),
    "SEA": lambda: datasets.synth.SEA(seed=0),
    "Sine": lambda: datasets.synth.Sine(seed=0),
    "STAGGER": lambda: datasets.synth.STAGGER(seed=0),
}

# name -> the data set `ClassificationBandit` takes; each loaded once per process
DATASETS = {
    "wine": load_wine,
    "iris": load_iris,
    "breast_cancer": load_breast_cancer,
    "Phishing": lambda: _pairs(datasets.Phishing()),
    "Bananas": lambda: _pairs(datasets.Bananas()),
    "tic-tac-toe": load_tic_tac_toe,
    "StumpMixture 3-class": stump_classes,
    "Waveform": lambda: _as_dicts(*waveform()),
    **{name: (lambda name=name: river_synth(name)) for name in SYNTH},
}
_CACHE: dict = {}


def _pairs(dataset) -> tuple[list, list]:
    """A river data set's (contexts, labels), with boolean labels as 0 / 1."""
    xs, ys = zip(*dataset)
    return list(xs), [int(y) if isinstance(y, bool) else y for y in ys]


def _as_dicts(xs, ys):
    return list(xs), list(ys)


def make_stream(name: str, seed: int) -> ClassificationBandit:
    """The held-out data set `name` as a bandit whose row order is shuffled by `seed`.

    Examples
    --------
    >>> stream = make_stream("iris", seed=0)
    >>> stream.arm_ids, stream.n_rounds
    ([0, 1, 2], 150)
    """
    if name not in _CACHE:
        data = DATASETS[name]()
        if isinstance(data, tuple) and isinstance(data[0], list):  # contexts as dicts:
            data = _DictData(*data)  # ClassificationBandit takes an iterable of (dict, label)
        _CACHE[name] = data
    return ClassificationBandit(_CACHE[name], seed=seed)


class _DictData:
    """(contexts, labels) as an iterable of (dict, label) pairs, as river data sets are."""

    def __init__(self, xs, ys):
        self.xs, self.ys = xs, ys

    def __iter__(self):
        return zip(self.xs, self.ys)



def make_policy(name: str, seed: int):
    """The policy `name` and the transformer `evaluate.bandit` applies before it (or None)."""
    if name in BOBLO:
        return BoBLO(seed=seed, **BOBLO[name]), None  # BoBLO holds its own StandardScaler
    if name == NEIGHBOUR:
        return NeighbourBoBLO(seed=seed), None
    if name == RANDOM:
        return river_bandit.RandomPolicy(seed=seed), preprocessing.StandardScaler()
    for ab in SWEEP:
        if name == _linucb_name(ab):
            return linucb(ab[0], ab[1], seed)
    raise ValueError(f"policy {name!r} is not one of {policies()}")


def linucb_defaults(data_name: str, seed: int):
    """river's `LinUCBDisjoint` at its defaults and its transformer (`--gap`'s reference; the
    same for every data set)."""
    return make_policy(_linucb_name((1.0, 1.0)), seed)


def policies() -> list[str]:
    return [*BOBLO, NEIGHBOUR, *(_linucb_name(ab) for ab in SWEEP), RANDOM]


def run_one(policy_name: str, data_name: str, seed: int, n_rounds: int) -> float:
    warnings.simplefilter("ignore")
    policy, transformer = make_policy(policy_name, seed)
    result = evaluate.bandit(policy, make_stream(data_name, seed), n_rounds=n_rounds,
                             skyline=None, transformer=transformer)
    return float(result.average_reward)


def code_version() -> dict:
    """Where `onlineboost`, `learners` and `streams` come from, their checkout's git branch and
    commit, and `BoBLO()`'s parameters (so a recorded table says which code it measured)."""
    roots = {m.__name__: str(Path(m.__file__).resolve().parent.parent)
             for m in (onlineboost, learners, streams)}
    root = roots["onlineboost"]

    def git(*cmd):
        try:
            return subprocess.run(["git", "-C", root, *cmd], capture_output=True, text=True,
                                  timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    dirty = git("status", "--porcelain", "--", "onlineboost", "learners", "streams")
    params = {k: v for k, v in BoBLO()._get_params().items() if k not in ("transformer", "seed")}
    code = git("log", "-1", "--format=%h", "--", "onlineboost", "learners", "streams")
    return {"root": root, "roots": roots, "branch": git("rev-parse", "--abbrev-ref", "HEAD"),
            "commit": code + ("+uncommitted" if dirty else ""),
            "boblo": ", ".join(f"{k}={' '.join(repr(v).split())}" for k, v in params.items())}


def run(datas, seeds, jobs, max_rounds) -> dict:
    """{policy: {data set: [reward per seed]}} for every policy of `policies()`."""
    return grid(run_one, policies(), datas, seeds, jobs, max_rounds)


def hindsight(res: dict, data: str) -> tuple[str, list[float]]:
    """The LinUCB setting of the sweep with the highest mean reward on `data`, and its rewards.

    Examples
    --------
    >>> res = {_linucb_name(ab): {"d": [0.5]} for ab in SWEEP}
    >>> res["LinUCB (10, 20)"]["d"] = [0.6]
    >>> hindsight(res, "d")
    ('LinUCB (10, 20)', [0.6])
    """
    best = max(SWEEP, key=lambda ab: np.mean(res[_linucb_name(ab)][data]))
    return _linucb_name(best), res[_linucb_name(best)][data]


def rows(res: dict, datas) -> list[tuple[str, dict]]:
    """The table's rows: (label, {data set: rewards per seed}) in display order."""
    out = [(p, res[p]) for p in [*BOBLO, NEIGHBOUR] if p in res]
    out.append(("LinUCB defaults (1, 1)", res[_linucb_name((1.0, 1.0))]))
    for dev in DEV_STREAMS:
        ab = tuple(DEV_LINUCB[dev])
        out.append((f"LinUCB tuned on {dev} {ab[0]:g}, {ab[1]:g}", res[_linucb_name(ab)]))
    out.append(("LinUCB hindsight-tuned per data set (upper bound)",
                {d: hindsight(res, d)[1] for d in datas}))
    out.append((RANDOM, res[RANDOM]))
    return out


def _cell(vs) -> str:
    return f"{np.mean(vs):.3f} ± {np.std(vs):.3f}"


def _diff_cell(x) -> str:
    """Mean ± std of paired differences, starred when the mean is > 2 standard errors from 0.

    Examples
    --------
    >>> _diff_cell([0.02, 0.03, 0.025]), _diff_cell([0.02, -0.03, 0.0])
    ('+0.025 ± 0.004 *', '-0.003 ± 0.021')
    """
    x = np.asarray(x, dtype=np.float64)
    se = x.std() / np.sqrt(max(len(x) - 1, 1))
    star = " *" if len(x) > 1 and abs(x.mean()) > 2 * se else ""
    return f"{x.mean():+.3f} ± {x.std():.3f}{star}"


def render(entry: dict, datas) -> str:
    """One code version's table: rewards, the hindsight pick, and BoBLO() minus each LinUCB."""
    res = entry["results"]
    lines = ["| policy | " + " | ".join(datas) + " | mean |", "|---|" + "---:|" * (len(datas) + 1)]
    table = rows(res, datas)
    for name, by_data in table:
        means = [np.mean(by_data[d]) for d in datas]
        lines.append(f"| {name} | " + " | ".join(_cell(by_data[d]) for d in datas)
                     + f" | {np.mean(means):.3f} |")
    picks = [hindsight(res, d)[0].removeprefix("LinUCB ") for d in datas]
    lines.append("| (hindsight pick, alpha, beta) | " + " | ".join(picks) + " | |")
    lines += ["", "BoBLO() minus each other row: the mean over seeds of the per-seed difference "
              "(same shuffles) ± its std over seeds; * where the mean is more than twice its "
              "standard error (std / sqrt(seeds - 1)) from 0. Last column: data sets where "
              "BoBLO() is ahead / behind by more than 0.005.", "",
              "| BoBLO() minus | " + " | ".join(datas) + " | mean | ahead / behind |",
              "|---|" + "---:|" * (len(datas) + 2)]
    mine = res["BoBLO()"]
    for name, by_data in table[1:-1]:  # the deeper BoBLOs, then the LinUCB rows
        diffs = [np.subtract(mine[d], by_data[d]) for d in datas]
        ahead = sum(np.mean(x) > 0.005 for x in diffs)
        behind = sum(np.mean(x) < -0.005 for x in diffs)
        lines.append(f"| {name} | " + " | ".join(_diff_cell(x) for x in diffs)
                     + f" | {np.mean([np.mean(x) for x in diffs]):+.3f} | {ahead} / {behind} |")
    return "\n".join(lines)


def section(raw: dict) -> str:
    parts = ["## Contextual bandits on held-out data sets: BoBLO's defaults vs LinUCB (no tuning)",
             "", f"`python -m benchmarks.bandit_heldout` — {report.machine()}.", "", NOTE, ""]
    for label, entry in raw["versions"].items():
        info = entry["version"]
        datas = entry["datas"]
        parts += [f"### Code version `{label}` (checkout `{info['branch']}`, last commit to "
                  f"its code {info['commit']}, measured {entry['date']})", "",
                  f"`BoBLO()` here: {info['boblo']}. {len(entry['seeds'])} seeds, at most "
                  f"{entry['max_rounds']:,} rounds per stream.", "",
                  render(entry, datas), ""]
    labels = list(raw["versions"])
    if len(labels) > 1:
        common = [d for d in raw["versions"][labels[0]]["datas"]
                  if all(d in raw["versions"][lab]["datas"] for lab in labels)]
        parts += ["### BoBLO() across the code versions", "",
                  "The same seeds shuffle the same streams in every version (the LinUCB and "
                  "random rows, river's code, come out identical), so the differences are "
                  f"paired per seed; * as above. Versions minus `{labels[0]}`.", "",
                  "| code version | " + " | ".join(common) + " | mean |",
                  "|---|" + "---:|" * (len(common) + 1)]
        for lab in labels:
            for p in BOBLO:
                if p not in raw["versions"][lab]["results"]:
                    continue
                r = raw["versions"][lab]["results"][p]
                parts.append(f"| {lab}: {p} | " + " | ".join(_cell(r[d]) for d in common)
                             + f" | {np.mean([np.mean(r[d]) for d in common]):.3f} |")
        base = raw["versions"][labels[0]]["results"]
        for lab in labels[1:]:
            for p in BOBLO:
                if p not in raw["versions"][lab]["results"] or p not in base:
                    continue
                r = raw["versions"][lab]["results"][p]
                diffs = [np.subtract(r[d], base[p][d]) for d in common]
                parts.append(f"| {lab} minus {labels[0]}: {p} | "
                             + " | ".join(_diff_cell(x) for x in diffs)
                             + f" | {np.mean([np.mean(x) for x in diffs]):+.3f} |")
        parts.append("")
    return "\n".join(parts)


NOTE = """\
Held out: none of these streams was used to choose BoBLO's defaults or LinUCB's settings
(the development streams are ImageSegments, digits and `LinearBandit`, section
"Contextual bandits"). Streams: scikit-learn's wine (178 rows, 13 features, 3 classes), iris
(150, 4, 3), breast_cancer (569, 30, 2); river's bundled Phishing (1,250, 9, 2) and Bananas
(5,300, 2, 2: **cut to the first 3,000 rounds of each seed's shuffle**); UCI Tic-Tac-Toe (958,
27 one-hot, 2); `streams.StumpMixture(n_features=5, n_stumps=8, noise=0, seed=0)`, 3,000 rows,
its target cut at its terciles into 3 classes (non-linear: a step function of the context);
river's `synth.Waveform(seed=0)`, 3,000 rows (21 features, 3 classes). River has no other
bundled data set with 3 or more classes than ImageSegments (a development stream); Keystroke,
Insects and the like need downloads (this machine is offline). Reward 1 for the true class.
"LinUCB tuned on X" is river's `LinUCBDisjoint` with the (alpha, beta) tuned on development
stream X (`bandit_compare.LINUCB`); "hindsight-tuned" takes, per data set, the best mean of the
sweep (1, 1), (1, 5), (10, 20), (100, 20), (100, 100) on these same evaluation seeds: an
upper bound no user can reach without held-out tuning, and biased upwards by picking the
maximum of five noisy means. Small data sets (iris, wine) have few rounds: their stds are
large and much of the reward is the learning curve's start.

Reading (fourth session): `main` is the code before it (one loss model of penalty 20, Exp4 over
the stages from the first round), `lam13` its loss-model branch (the (1, 100) ridge mixture),
and the merged code adds `LeadExp4` and the Fourier later copies of `BoBLO(n_learners=5)`. The
mixture is +0.005 in the mean over the single penalty (beyond two standard errors on iris,
tic-tac-toe and Waveform, behind on none). `BoBLO(n_learners=5)` on the merged code plays
exactly `BoBLO()`'s arms on seven of the eight streams (it never left its first copy) and on
Bananas, two non-linearly separated classes over two features, it switched to its later stages
and scored 0.671 against 0.575 (+0.096): N = 5 >= N = 1 everywhere and better where boosting has
a non-linear class to add. Before, Exp4 from the first round put N = 5 0.003 below N = 1 in
the mean.

Reading (sixth session; measured after the defaults were chosen on the development streams,
reported only): `BoBLO()` now plays the annealed softmax (t0 = 50) and `BoBLO(n_learners=5)`
aggregates with `aggregate="auto"`, i.e. `depth.FitLead` (a switch when a stage predicts the
played arms' losses better beyond noise, no importance weights). `BoBLO()`: 0.826 in the mean
against the merged fourth-session code's 0.824 (Bananas +0.006, StumpMixture +0.004, Waveform
+0.002, wine -0.001; level elsewhere), still 0.006 below LinUCB hindsight-tuned per data set
(behind beyond two standard errors on tic-tac-toe and Waveform, ahead on Phishing) and 0.008 to
0.019 above LinUCB at its defaults or at any development stream's tuned setting.
`BoBLO(n_learners=5)` plays `BoBLO()`'s arms exactly on six streams and switches on two, both
non-linear: Bananas 0.782 against 0.581 (+0.201; `LeadExp4` had reached 0.671) and
StumpMixture 0.694 against 0.659 (+0.035; `LeadExp4` never switched there). So on these
held-out streams N = 5 >= N = 1 everywhere and > on two, 0.855 against 0.826 in the mean.

Reading (seventh session; nothing was chosen on these streams): nine of river's synthetic
generators joined the held-out set (`SYNTH`; river's `Mixed` yields bool features, which
`BoBLO` refused before this session: it now counts bools as 0 / 1, as river does). On the
first eight streams `BoBLO()` scores exactly the sixth session's numbers (this session changed
no arithmetic of the defaults). Over the 17 streams: `BoBLO()` 0.798 in the mean, LinUCB at its
defaults 0.799, at the development streams' tuned settings 0.785 / 0.782 / 0.796, hindsight-tuned
per data set 0.807; `BoBLO(n_learners=5)` 0.819, above every LinUCB row including the
hindsight-tuned one. On the synthetic streams `BoBLO()` trails LinUCB's defaults on LED by 0.048
(10 arms, 7 binary segments with 10% of them flipped: the annealed softmax turns nearly greedy
while the noisy per-arm estimates still need exploration; LinUCB's bonus keeps exploring), on
STAGGER by 0.023, RandomTree 0.012, Hyperplane 0.010, SEA 0.008 and Sine 0.005, and is ahead on
Agrawal (+0.010) and RandomRBF (+0.006). A diagnosis on LED and five of these streams (seeds
0-2, scratch code, reported in `bandit_compare`'s seventh-session paragraph) tried Thompson
sampling on the loss model with exact propensities: it gains on LED (0.670-0.690 against 0.656)
but loses 0.013-0.016 on digits at every scale tried, so nothing changed. `BoBLO(n_learners=5)`
equals `BoBLO()` on eleven streams and is ahead on six, all non-linear: Bananas +0.201,
Agrawal +0.071, RandomRBF +0.044, StumpMixture +0.035, STAGGER +0.012, Mixed +0.007; so on
the 17 held-out streams N = 5 >= N = 1 everywhere and > on six.

Reading (eighth session; boosting's depth, nothing chosen on these streams, no arithmetic
changed: `BoBLO()` and `BoBLO(n_learners=5)` score the seventh session's numbers exactly). The
reward grows with the number of copies, stream by stream, wherever boosting adds anything: in
the mean `BoBLO()` 0.798, `BoBLO(n_learners=2)` 0.807, `n_learners=3` 0.814, `n_learners=5`
0.819. On the eleven streams where N = 5 plays `BoBLO()`'s arms, so do N = 2 and N = 3; on the
six non-linear ones every added copy helps (Bananas 0.581 / 0.677 / 0.725 / 0.782, Agrawal
0.623 / 0.646 / 0.673 / 0.694, RandomRBF 0.486 / 0.508 / 0.523 / 0.530, StumpMixture 0.659 /
0.669 / 0.681 / 0.694). Already two copies reach hindsight-tuned LinUCB's mean (0.807), a
bound no user can reach without tuning on the stream. The same order holds on the development
side's `NonlinearBandit` (tuning seeds 100-103: N = 1 / 2 / 3 / 5 at 0.550 / 0.620 / 0.646 /
0.667, `bandit_compare`'s eighth-session paragraph).

Reading (eighth session, the new default; **caveat**: a 128-feature version of this learner was
run on these streams before the rule that chose the 64-feature one was written, so for this
change the held-out streams are not clean evidence; the rule itself used the development
streams and `NonlinearBandit` only, `bandit_compare`'s eighth-session paragraph). `BoBLO()`'s
weak learner now regresses on 64 random Fourier features of the context beside it: 0.836 in the
mean against 0.798 before, LinUCB's 0.799 at its defaults and 0.807 hindsight-tuned per data
set. Against the hindsight-tuned LinUCB it is ahead by more than 0.005 on eight streams
(Bananas +0.284, Agrawal +0.106, RandomRBF +0.095, StumpMixture +0.081, Mixed +0.023, Phishing
+0.011, STAGGER +0.010, iris +0.007) and behind on five: LED -0.059, Hyperplane -0.030,
tic-tac-toe -0.019, SEA -0.016, Waveform -0.009 (linear or nearly linear streams, where the 64
extra columns cost variance and LinUCB's bonus keeps exploring). `BoBLO(n_learners=N)` for N =
2, 3, 5 now plays `BoBLO()`'s arms on 14 to 15 of the 17 streams and switched on a few seeds of
Bananas and Agrawal (N = 5: -0.002 and +0.005 in the mean; 0.836 over all 17 at every depth):
its first copy already has most of the non-linear class the later stages brought before.

Reading (ninth session, the new default, chosen by a rule written before its runs on the
development streams and `NonlinearBandit` only (`bandit_compare`'s ninth-session paragraph);
this configuration, 128 features without forgetting, had not been run on these streams before:
they are clean evidence for it). `BoBLO()`'s weak learner now regresses on 128 random Fourier
features beside the context and forgets nothing: 0.847 in the mean against the eighth
session's 0.836, LinUCB's 0.799 at its defaults and 0.807 hindsight-tuned per data set. It
gained most on Agrawal (+0.097), RandomTree (+0.025), StumpMixture (+0.018), Hyperplane
(+0.014) and SEA (+0.011) and lost on Mixed (-0.008), LED (-0.005), iris (-0.004) and Phishing
(-0.003). Against hindsight-tuned LinUCB it is ahead by more than 0.005 on nine streams
(Bananas +0.295, Agrawal +0.203, RandomRBF +0.105, StumpMixture +0.099, RandomTree +0.025,
STAGGER +0.018, Mixed +0.015, Phishing +0.008, breast_cancer +0.005) and behind on four: LED
-0.064, tic-tac-toe -0.021, Hyperplane -0.016, SEA -0.005. `BoBLO(n_learners=N)`, N = 2, 3,
5, plays `BoBLO()`'s arms on 14 of the 17 and switched on some seeds of Bananas, StumpMixture
and Agrawal (N = 5: -0.009, +0.008, +0.002; 0.847 in the mean at every depth).

Reading (tenth session: `BoBLO()` watches for drift, a detector on the played arm's loss,
chosen by two rules on the development streams and two drifting synthetic streams
(`bandit_compare`'s tenth-session paragraph): river's `drift.PageHinkley`, then
`onlineboost.drift.RisingMean`, two recorded versions). These streams are shuffled, hence
stationary: neither detector raised an alarm on any of them, at any depth, and every reward is
the ninth session's to the last digit (0.847). What it buys where the arms change is in
`benchmarks/bandit_drift.py`.

Reading (thirteenth session: where `BoBLO()` trails LinUCB, and why; a diagnosis on seeds
100-104, not the table's 0-4, nothing chosen from these streams; `python -m
benchmarks.bandit_heldout --gap LED,Hyperplane` prints the curves, the rest are scratch
scripts). *LED*: `BoBLO()` 0.669 against LinUCB's defaults 0.726. On two of the five seeds it
settles at 0.63-0.67 from round 1,000 on while LinUCB reaches 0.75, and its loss model's greedy
arm earns what its law does (0.63-0.67): the model misjudges the arm of some classes early and
the annealed softmax (1-3% of the mass off its likeliest arm by then, spread over nine arms)
never plays it there again, where LinUCB's width keeps revisiting it. The same policy with
penalty 1 alone scores 0.684, with the correction pinned at 0 0.671, over the context alone
0.660. *Hyperplane* (linear): the correction over the context alone and the pinned correction
both score 0.922 against 0.911 (LinUCB 0.924): the 128 features cost 0.011 here (in rounds
2,000-3,000 the loss model's greedy arm earns 0.940, `BoBLO()`'s law 0.928, LinUCB 0.944). Yet
the model plus its correction *predicts* the played arm's loss better than the model alone (lead
of 0.0 to 3.5 in squared error over 3,000 rounds, under `FitLead`'s anchor; on ImageSegments +6
to +14, `NonlinearBandit` +16 to +26, `LinearBandit` -1.2 to +0.7): the split between prediction
and decision that `bandit_penalty` finds for the penalty on `LinearBandit`, so no gate on the
correction by prediction error would drop the features where they cost. *tic-tac-toe*: penalty 1
alone 0.949 against 0.939 (LinUCB 0.953). *`BoBLO(n_learners=5)` on Bananas* (seeds 100-109): it
switches on 3 of the 10 seeds and scores -0.013 and -0.009 on two of them (0.000 on the third),
and after the switch its Exp4 holds its largest weight on the first copy: the stage whose
predictions triggered the switch does not play better.

Reading (fourteenth session: `NeighbourBoBLO()`, `BoBLO()` and a nearest-neighbour second stage
played once its decision lead passes its margin, chosen on the development streams only,
`benchmarks/bandit_neighbours.py`; run on these streams once, after every choice). It scores
0.857 in the mean against `BoBLO()`'s 0.847 (every reward the tenth session's, seed for seed:
`BoBLO()`'s arms have not changed since), LinUCB's 0.799 at its defaults and 0.807
hindsight-tuned. It plays `BoBLO()`'s arms on wine, iris, breast cancer, tic-tac-toe,
Hyperplane, SEA and Sine (its test never passes there) and gains where the best policy is local:
RandomRBF +0.13, Mixed +0.044, StumpMixture +0.022, Bananas +0.006. It loses on Agrawal (-0.009,
every seed switched), LED (-0.013: one seed switched and lost 0.065) and Waveform (-0.003): where
`BoBLO()`'s prediction for the other arm is optimistic, the test's null does not hold and it
switches to a stage that is not better.

Reading (fifteenth session: the count bonus, `BoBLO(count_bonus="auto")` = 0.3, chosen on the
development streams' tuning seeds with Bernoulli arms as a guard, `bandit_compare`'s
fifteenth-session paragraph; a first pick of 0.2, a misreading of that rule, was run on these
streams before the correction and scored 0.853 too). `BoBLO()` scores 0.853 in the mean against
the fourteenth session's 0.847: LED +0.066 (0.730, level with LinUCB's defaults' 0.728, where it
trailed by 0.064: the arms of some classes, misjudged early, are tried again), RandomRBF +0.022,
iris +0.017, STAGGER +0.004, Phishing +0.003; RandomTree -0.005, tic-tac-toe -0.002, Waveform
-0.001. Against LinUCB's defaults it is ahead on 13 streams and behind on tic-tac-toe (-0.019)
and Hyperplane (-0.016); against the hindsight-tuned LinUCB (0.807) it is ahead in the mean by
0.046. `NeighbourBoBLO()` scores 0.863, +0.010 over the new `BoBLO()` (RandomRBF +0.105, Mixed
+0.043, StumpMixture +0.024, Bananas +0.007; Waveform -0.010, Agrawal -0.004), and
`BoBLO(n_learners=5)` leaves its first copy on some seeds of Bananas (-0.005), StumpMixture
(+0.007) and Agrawal (+0.001) only.

Reading (sixteenth session: `BoBLO(n_learners>1)`'s later copies are nearest neighbours of what
the first copy leaves, played once their decisions lead, `depth.PlayLead`; chosen on the
development streams' tuning seeds, `bandit_compare`'s sixteenth-session paragraph; `BoBLO()`
unchanged, the same arms). `BoBLO(n_learners=5)` scores 0.858 in the mean against `BoBLO()`'s
0.853 (N = 2 / 3: 0.857 / 0.858): RandomRBF +0.063, Mixed +0.035, StumpMixture +0.009, Waveform
-0.001, Agrawal -0.003, Phishing -0.000 (within noise) and Bananas -0.012 (beyond two standard
errors: the one held-out stream where a stage it switched to played worse); the same reward on
the other ten. So "N = 5 >= N = 1" holds within noise on 16 of the 17 held-out streams, ">"
beyond two standard errors on three.

Reading (seventeenth session: `BoBLO(n_learners>1)` checks its switch by the mirror test,
`depth.PlayLead(revert=True)`: the stage's observed losses where it differs from the first
copy against the first copy's prediction for its own arm; chosen on the development streams'
tuning seeds and two synthetic `NonlinearBandit` streams, `bandit_compare`'s seventeenth-session
paragraph; the false switch on Bananas had been seen here, so Bananas is no clean evidence for
it), and after the switch the stage plays its own law (the softmax of the costs the test
judged, not BoOCO's Frank-Wolfe point of the stage). `BoBLO(n_learners=5)` 0.859 in the mean
(0.858 before; N = 2 / 3: 0.860 / 0.860): Bananas -0.012 -> -0.0005 against `BoBLO()` (the
false switches reverted), Agrawal -0.003 -> -0.000, Mixed +0.035 -> +0.038, RandomRBF +0.063 ->
+0.057, StumpMixture +0.009 -> +0.009, Waveform -0.001 -> -0.001, Phishing +0.000 -> +0.001; the
other ten the same rewards. So N = 5 >= N = 1 within two standard errors on all 17 held-out
streams, and > beyond two on three (RandomRBF, Mixed, StumpMixture).

Reading (eighteenth session: speed only, the tables stand). `BoBLO()`'s compiled round now
computes the random features' cosine vectorised (fdlibm's, within 1 ulp of libm's) and takes
fewer Python steps (`bandit_speed`'s eighteenth-session paragraph, where these streams' speed
is: at or above 3x LinUCB's decisions/s on all 17). Re-run on this code (scratch, the same
seeds 0-4): `BoBLO()`, `BoBLO(n_learners=5)` and `NeighbourBoBLO()` score the seventeenth
session's rewards on every stream and seed to the last digit, so its table is this code's.

Reading (twenty-first session: `BoBLO()`'s learner learns its correction's weight online,
`learners.feature_policy`'s module docstring; chosen on the development streams and six
synthetic ones by rules written before their runs, `bandit_compare`'s twenty-first-session
paragraph and `bandit_headroom`; these streams were not run for it before the flip, and this
table was run after it, reported, not chosen from). `BoBLO()` scores 0.856 in the mean against
the seventeenth session's 0.853 (paired by seed): up beyond two SE on StumpMixture +0.021,
RandomRBF +0.018, Hyperplane +0.009, Agrawal +0.007 and Mixed +0.007, down on tic-tac-toe
-0.0013; wine -0.007 and LED -0.010 within noise. (Hyperplane and tic-tac-toe are not clean for
this topic: the linear streams of `bandit_headroom` were written after this table had shown
`BoBLO()` behind LinUCB's defaults there.) Against LinUCB's defaults `BoBLO()` is now ahead by
more than 0.005 on 13 and behind on three (tic-tac-toe -0.020, Hyperplane -0.006, LED -0.008,
the last within noise), against 13 and two before (tic-tac-toe -0.019, Hyperplane -0.016).
`BoBLO(n_learners=5)` 0.861 and `NeighbourBoBLO()` 0.863 (its stage 1 keeps the fixed weight:
its rewards are the seventeenth session's to the last digit).

Reading (twenty-second session: the last code version above is an option, **not** the
defaults, which are still the twenty-first session's). `count_bonus` 1.0 once the contexts have
features, 0.3 without a context, passed its rule on nine development-side streams
(`bandit_compare`'s twenty-second-session paragraph) and was made the default, then measured
here. The held-out check was not part of the written rule: these streams had always been
reported, not chosen from. It did not confirm the gain. `BoBLO()` -0.0014 in the mean (paired
SE 0.0005) against the twenty-first session: up on LED +0.013 (SE 0.0065), down on RandomRBF
-0.028 (SE 0.015), Phishing -0.0034 (SE 0.0013) and STAGGER -0.0008 (SE 0.0001), eight streams
up and nine down. `BoBLO(n_learners=5)` fell below `BoBLO()` on Bananas by 0.0026 (SE 0.0007),
where before it was level or above on every stream. A default is what we recommend on data we
have not seen, and the streams we had not tuned on said no, so the change was reverted in the
same session: `count_bonus="auto"` is 0.3 everywhere, as before. `BoBLO(count_bonus=1.0)` is one
argument away. (This uses the held-out streams to reject a change. It only ever keeps what was
there before, so it does not tune the defaults to these streams.)

Reading (thirty-first session: the last code version above is an option, **not** the defaults,
which are still the twenty-first session's). `BoBLO()`'s learner playing its correction at the
learnt weight times the posterior probability that the played arms' losses have structure
beyond a linear model (`learners.structure_evidence`, `boblo.STRUCTURED_LEARNER`) passed its
rule on the development side and was confirmed on fresh seeds (`bandit_headroom`'s
thirty-first-session paragraph), and with it `BoBLO()` met issue 13's first target on
`bandit_wide`'s 110 seeds. Measured here after it was made the default: -0.0011 in the mean
(paired SE 0.0002) against the twenty-first session, two streams up and five down:
RandomTree -0.018 (SE 0.004; the evidence turns the correction off in mid-stream before the
weak structure of a random tree's classes shows), Hyperplane +0.004 (SE 0.0015),
breast_cancer and RandomRBF -0.002 (within noise); the other ten identical to the last digit
(the posterior stays at 1 from the first rounds). Against LinUCB's defaults it was ahead by more
than 0.005 on 13 streams and behind on two (tic-tac-toe, LED), against 13 and three before. As
in the twenty-second session, the streams we had not tuned on said no, and the change was
reverted in the same session; it is one argument away. The last version above is that option
with stumps of each context column in the evidence's structured model (added after this table,
for the tree streams; its rule on the development side, with river's `RandomTree` at other data
seeds as a guard, failed there: -0.0022, SE 0.0008, so not adopted either): level in the mean
(-0.0000, paired SE 0.0001; RandomTree -0.005, Hyperplane +0.004, RandomRBF +0.001), ahead of
LinUCB's defaults by more than 0.005 on 13 streams and behind on two.

Reading (thirty-first session, the defaults: the last version above, "with a budget of
stumps"). The evidence's stumps as a budget (five per context column up to 12 columns, at most
64; `learners.structure_evidence.auto_cuts`) passed its rule on fresh development seeds,
`bandit_headroom`'s thirty-first-session paragraph, and then this check: +0.0003 in the mean
(paired SE 0.0001) against the twenty-first session, six streams up (Hyperplane +0.0033,
RandomRBF +0.0009, breast_cancer +0.0007, RandomTree +0.0004, tic-tac-toe +0.0002, SEA +0.0001),
one down (STAGGER -0.0001), the other ten identical. Against LinUCB's defaults `BoBLO()` is
ahead by more than 0.005 on 13 streams and behind on two (tic-tac-toe -0.020, LED -0.008),
against hindsight-tuned LinUCB ahead on 11 and behind on three (against 13 / 3 and 10 / 4
before). It is the default. (This measured the version by setting `boblo.DEFAULT_LEARNER` to it
in the benchmark's process, `--jobs 1`, before the code made it the default: the same
arithmetic.)"""


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="300 rounds, one seed, nothing written")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--max-rounds", type=int, default=MAX_ROUNDS)
    parser.add_argument("--only", action="append", default=None, choices=list(DATASETS),
                        help="run this data set only (repeat for several)")
    parser.add_argument("--label", default=None,
                        help="name of this code version in the results (default: the git "
                             "branch of onlineboost's checkout)")
    parser.add_argument("--render", action="store_true",
                        help="re-render the recorded results without running")
    parser.add_argument("--gap", default=None, metavar="DATA[,DATA]",
                        help="BoBLO() against LinUCB's defaults per stretch of rounds on these "
                             "data sets (`bandit_compare.run_gap`); prints, writes nothing")
    parser.add_argument("--gap-seeds", default="100-104", metavar="SEEDS",
                        help="with --gap: the seeds, comma-separated or a range A-B")
    args = parser.parse_args(argv)
    if args.gap:
        datas, seeds = args.gap.split(","), parse_seeds(args.gap_seeds)
        unknown = [d for d in datas if d not in DATASETS]
        if unknown:
            parser.error(f"--gap: unknown data sets {unknown}; choose from {list(DATASETS)}")
        res = gap_table(datas, seeds, args.jobs, args.max_rounds, make_stream, linucb_defaults)
        print(gap_markdown(res, seeds, reference="LinUCB (1, 1)"))
        return
    if args.render:
        report.write_section("bandit_heldout", section(json.loads(RAW.read_text())))
        return
    version = code_version()
    print("code under test:", version, flush=True)
    if len(set(version["roots"].values())) > 1:
        print("warning: onlineboost, learners and streams come from different checkouts")
    datas = args.only or list(DATASETS)
    seeds = list(range(1 if args.quick else args.seeds))
    max_rounds = 300 if args.quick else args.max_rounds
    tic = time.time()
    res = run(datas, seeds, args.jobs, max_rounds)
    entry = {"version": version, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
             "seeds": seeds, "max_rounds": max_rounds, "datas": datas, "results": res}
    print(render(entry, datas))
    print(f"{time.time() - tic:.0f} s", flush=True)
    if args.quick:
        return
    raw = json.loads(RAW.read_text()) if RAW.exists() else {"versions": {}}
    raw["versions"][args.label or version["branch"] or version["root"]] = entry
    RAW.write_text(json.dumps(raw, indent=1))
    report.write_section("bandit_heldout", section(raw))


if __name__ == "__main__":
    main()
