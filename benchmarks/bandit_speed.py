"""Decisions per second of BoBLO against river's tuned LinUCB, interleaved round by round.

Run: `python -m benchmarks.bandit_speed` (`--quick` for a smoke run, `--repeats`, `--rounds`).
Writes the `bandit_speed` section of BENCHMARKS.md.

On each development stream of `benchmarks.bandit_compare` (ImageSegments, digits, `LinearBandit`)
four policies play the same rounds in one process: `BoBLO()` with its defaults,
`BoBLO(n_learners=5)`, `NeighbourBoBLO()` (`onlineboost.neighbours`) and river's `LinUCBDisjoint`
with the (alpha, beta) tuned per data set in `bandit_compare.LINUCB`, behind river's
`StandardScaler` and a constant bias feature (as in `bandit_compare`; BoBLO holds its own scaler).
Every round times each policy's `pull` + `update` (and LinUCB's scaler) right after the others', so
that all four see the same load on a shared machine. Repeat r plays the stream shuffled by seed r;
the table gives the median decisions/s over the repeats and the median of the per-repeat ratios to
LinUCB.

`BoBLO()`'s round runs compiled (numba, `onlineboost._kernels`), and so does
`BoBLO(n_learners=5)`'s (`onlineboost._deep_kernels`): one untimed warm-up pass of
100 rounds compiles the kernels (or loads them from numba's cache) before anything is timed.
The compile and cache-load times are measured apart, in fresh processes with an empty numba
cache directory (`compile_times`), and `round_split` times `BoBLO()` alone per round: the
compiled round, the kernels' own calls in it, and the numpy round (`BoBLO._JIT = False`);
`deep_split` does the same for `BoBLO(n_learners=5)` over the Fourier later copies (N > 1's default
until the fifteenth session, `boblo.FOURIER_LATER`; `onlineboost._deep_kernels` against its
general path, `BoBLO._DEEP = False`).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

from benchmarks import report
from benchmarks.bandit_compare import DATASETS, LINUCB, linucb
from learners import FeaturePolicy
from onlineboost import BoBLO, _kernels
from onlineboost.boblo import FIXED_WEIGHT_LEARNER, FOURIER_LATER
from onlineboost.neighbours import NeighbourBoBLO

POLICIES = ["BoBLO()", "BoBLO(n_learners=5)", "NeighbourBoBLO()", "river LinUCBDisjoint (tuned)"]


def make(name: str, data_name: str, seed: int):
    """The policy and the transformer it is timed with (None: the policy holds its own)."""
    if name == "BoBLO()":
        return BoBLO(seed=seed), None
    if name == "BoBLO(n_learners=5)":
        return BoBLO(n_learners=5, seed=seed), None
    if name == "NeighbourBoBLO()":
        return NeighbourBoBLO(seed=seed), None
    return linucb(*LINUCB[data_name], seed)


def _play(made: list, streams: list, n_rounds: int | None) -> tuple[int, list[float]]:
    """Play `made` (policies with their transformers, None: the policy holds its own) on
    `streams` (one copy of the same stream each) round by round, timing each policy's pull +
    update (and its transformer) right after the others': `(rounds, seconds per policy)`."""
    spent = [0.0] * len(made)
    n = 0
    for rounds in zip(*streams):
        if n_rounds is not None and n >= n_rounds:
            break
        n += 1
        for j, ((context, arm_ids), (policy, scaler), stream) in enumerate(
                zip(rounds, made, streams)):
            tic = time.perf_counter()
            if scaler is not None:
                scaler.learn_one(context)
                context = scaler.transform_one(context)
            arm = policy.pull(arm_ids, context)
            spent[j] += time.perf_counter() - tic
            reward = stream.reward(arm)  # (the stream's time is not the policy's)
            tic = time.perf_counter()
            policy.update(arm, context, reward)
            spent[j] += time.perf_counter() - tic
    return n, spent


def interleaved(data_name: str, seed: int, n_rounds: int | None = None) -> list[float]:
    """Decisions/s of every policy in `POLICIES` on one pass over the stream, interleaved."""
    warnings.simplefilter("ignore")
    made = [make(name, data_name, seed) for name in POLICIES]
    n, spent = _play(made, [DATASETS[data_name](seed) for _ in POLICIES], n_rounds)
    return [n / s for s in spent]


def heldout(data_name: str, seed: int) -> list[float]:
    """Decisions/s of `BoBLO()`, `NeighbourBoBLO()` and of river's `LinUCBDisjoint` with its
    defaults (alpha = beta = 1; its cost per round does not depend on them) on one pass over a
    held-out stream of
    `benchmarks.bandit_heldout` (at most its 3,000 rounds), interleaved round by round as in
    `interleaved`. Every round is timed, the first (which builds BoBLO's state) and the
    scaler's warm-up included: on streams of 150-200 rounds they weigh."""
    from benchmarks import bandit_heldout

    warnings.simplefilter("ignore")
    made = [(BoBLO(seed=seed), None), (NeighbourBoBLO(seed=seed), None), linucb(1.0, 1.0, seed)]
    streams = [bandit_heldout.make_stream(data_name, seed) for _ in made]
    n, spent = _play(made, streams, bandit_heldout.MAX_ROUNDS)
    return [n, *(n / s for s in spent)]


_FIRST_ROUNDS = """
import time, warnings
import numpy as np
from onlineboost import BoBLO
warnings.simplefilter("ignore")

def rounds():  # (the build included: the first `BoBLO` of a process loads the kernels)
    tic = time.perf_counter()
    policy, rng = BoBLO(seed=0, n_learners=N_LEARNERS), np.random.default_rng(0)
    for _ in range(40):  # (the scaler's warm-up, then the kernels' rounds)
        c = {f"x{j}": float(v) for j, v in enumerate(rng.normal(size=5))}
        policy.update(policy.pull([0, 1, 2], c), c, 0.5)
    return time.perf_counter() - tic

first = rounds()
print(first - rounds())
"""


def compile_times(n_learners: int = 1) -> tuple[float, float]:
    """Seconds the kernels add to a process's first `BoBLO(n_learners=n_learners)` (its build,
    which loads them, `boblo._warm`, and its first rounds; `BoBLO()`'s `onlineboost._kernels`,
    with 5 also `learners._stack_kernels`, `onlineboost._boost_kernels` and
    `onlineboost._deep_kernels`): compiling them (a
    fresh process, an empty numba cache directory; numba's own start-up included) and loading
    them from that cache (a second fresh process)."""
    script = f"N_LEARNERS = {int(n_learners)}\n" + _FIRST_ROUNDS
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        runs = [subprocess.run([sys.executable, "-c", script], env=env, check=True,
                               capture_output=True, text=True) for _ in range(2)]
    return float(runs[0].stdout), float(runs[1].stdout)


def _pass_us(policy, stream, warm_up: int = 50) -> float:
    """`policy`'s pull + update over one pass of `stream`, in microseconds per round past its
    first `warm_up` learnt rounds (the scaler's warm-up: the kernels' rounds)."""
    total = n = 0
    for context, arm_ids in stream:
        tic = time.perf_counter()
        arm = policy.pull(arm_ids, context)
        toc = time.perf_counter()
        reward = stream.reward(arm)
        tac = time.perf_counter()
        policy.update(arm, context, reward)
        if policy._rounds > warm_up:
            total += toc - tic + time.perf_counter() - tac
            n += 1
    return total / n * 1e6


def round_split(data_name: str, seed: int = 0) -> list[float]:
    """`BoBLO()` alone over one pass, in microseconds per round (kernel rounds only, past the
    scaler's warm-up): pull + update; of which `pull_round_features` and
    `update_round_features` (the compiled calls as the steady round makes them, per call: the
    first through numba's dispatcher, the others through the overload it picked,
    `_kernels._entry`); the pull's call alone, its arguments unboxed and nothing computed,
    through numba's dispatcher and through that overload's entry point; and the numpy round's
    pull + update (`_JIT = False`). The kernels are compiled or loaded first (`interleaved`,
    untimed)."""
    warnings.simplefilter("ignore")
    interleaved(data_name, seed, 100)
    spent, calls, entries = {}, {}, {}
    kernels = {name: getattr(_kernels, name) for name in ("pull_round_features",
                                                          "update_round_features")}

    def timed(name):
        def call(*args):
            kernel = entries.get(name)
            tic = time.perf_counter()
            out = (kernel or kernels[name])(*args)
            spent[name] = spent.get(name, 0.0) + time.perf_counter() - tic
            calls[name] = calls.get(name, 0) + 1
            if kernel is None:
                entries[name] = _kernels._entry(kernels[name], args)
            return out
        return call

    out = []
    try:
        for name in kernels:
            setattr(_kernels, name, timed(name))
        for jit in (True, False):
            policy = BoBLO(seed=seed)
            policy._JIT = jit
            us = _pass_us(policy, DATASETS[data_name](seed))
            if jit:
                out += [us] + [spent[name] / calls[name] * 1e6 for name in kernels]
            else:
                out.append(us)
    finally:
        for name, f in kernels.items():
            setattr(_kernels, name, f)
    args = dispatch_args()
    reps = 20000
    for at, kernel in enumerate((_kernels.pull_round_features,
                                 _kernels._entry(_kernels.pull_round_features, args))):
        tic = time.perf_counter()
        for _ in range(reps):
            kernel(*args)
        out.insert(3 + at, (time.perf_counter() - tic) / reps * 1e6)
    return out


def dispatch_args() -> tuple:
    """Arguments on which the defaults' pull kernel (`_kernels.pull_round_features`: a copy with
    its own features, on the mixture) returns status 0 before computing anything (an empty
    context): what `round_split` times as numba's dispatch of one call."""
    return (np.empty(0), False, *(np.empty(0),) * 4, False, 5.0, 5.0, 1e100,
            np.empty((1, 1, 2, 1)), np.empty(1), 0.0, 0.0, np.empty((0, 0)), np.empty(0), True,
            np.empty((1, 1)), 1.0, 50.0, 1.0, np.empty(1), 1.0, 0.0, np.empty(0), np.empty(1),
            np.empty(1), np.empty(0), np.zeros(1), 0.2)


def deep_split(data_name: str, seed: int = 0) -> list[float]:
    """`BoBLO(n_learners=5)` over the Fourier later copies (`boblo.FOURIER_LATER`, the
    configuration the compiled N > 1 round covers; the default's neighbour copies play the
    general path) alone over one pass, in microseconds per round past the scaler's
    warm-up: its compiled round's pull + update; of which `pull_deep` and `update_deep` (the
    compiled calls, numba's dispatch included); and its general path's pull + update
    (`BoBLO._DEEP = False`: the round as it ran before `onlineboost._deep_kernels`, its heavy
    steps compiled). The kernels are compiled or loaded first (`interleaved`, untimed)."""
    from onlineboost import _deep_kernels

    warnings.simplefilter("ignore")
    interleaved(data_name, seed, 100)
    names = ("pull_deep", "update_deep")
    kernels = {name: getattr(_deep_kernels, name) for name in names}
    spent = dict.fromkeys(names, 0.0)
    calls = dict.fromkeys(names, 0)

    def timed(name):
        def call(*args):
            tic = time.perf_counter()
            out = kernels[name](*args)
            spent[name] += time.perf_counter() - tic
            calls[name] += 1
            return out
        return call

    out = []
    try:
        for name in names:
            setattr(_deep_kernels, name, timed(name))
        for deep in (True, False):
            learner = FeaturePolicy(**FIXED_WEIGHT_LEARNER, **FOURIER_LATER)
            policy = BoBLO(learner, n_learners=5, seed=seed)
            policy._DEEP = deep
            out.append(_pass_us(policy, DATASETS[data_name](seed)))
            if deep:
                out += [spent[name] / calls[name] * 1e6 for name in names]
    finally:
        for name, f in kernels.items():
            setattr(_deep_kernels, name, f)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=None, help="rounds per pass (all)")
    args = parser.parse_args(argv)
    repeats = 1 if args.quick else args.repeats
    n_rounds = 300 if args.quick else args.rounds
    rows = {}
    tic = time.time()
    interleaved(next(iter(DATASETS)), 0, 100)  # (untimed: the kernels compiled or loaded)
    for data_name in DATASETS:
        runs = np.array([interleaved(data_name, seed, n_rounds) for seed in range(repeats)])
        rows[data_name] = runs
        print(data_name, np.round(np.median(runs, axis=0)), flush=True)
    lines = ["| data set | " + " | ".join(f"{p} decisions/s" for p in POLICIES)
             + " | BoBLO() / LinUCB | BoBLO(n_learners=5) / LinUCB | NeighbourBoBLO() / LinUCB |",
             "|---|" + "---:|" * (len(POLICIES) + 3)]
    first, neighbour = {}, {}
    for data_name, runs in rows.items():
        med = np.median(runs, axis=0)
        ratios = np.median(runs[:, :3] / runs[:, 3:4], axis=0)
        first[data_name], neighbour[data_name] = ratios[0], ratios[2]
        lines.append(f"| {data_name} | " + " | ".join(f"{v:,.0f}" for v in med) + " | "
                     + " | ".join(f"{r:.2f}x" for r in ratios) + " |")
    table = "\n".join(lines)
    met = all(r >= 3.0 for r in first.values())
    verdict = (f"Issue 13's target is at least 3x LinUCB's decisions/s on each stream: "
               f"**{'met' if met else 'not met'}**, `BoBLO()` at "
               + " / ".join(f"{r:.2f}x" for r in first.values()) + " ("
               + " / ".join(first) + "); `NeighbourBoBLO()` (not the target's policy) at "
               + " / ".join(f"{r:.2f}x" for r in neighbour.values()) + ".")
    print(table)
    split = ["| data set | BoBLO() pull + update, us/round | of which `pull_round_features` | "
             "of which `update_round_features` | the pull's call alone, numba's dispatch | "
             "the pull's call alone, the overload's entry point | numpy round "
             "(`_JIT = False`) | compiled / numpy |", "|---|" + "---:|" * 7]
    for data_name in DATASETS:
        runs = np.array([round_split(data_name, seed) for seed in range(repeats)])
        t, pk, uk, disp, entry, nump = np.median(runs, axis=0)
        split.append(f"| {data_name} | {t:.1f} | {pk:.1f} | {uk:.1f} | {disp:.1f} | "
                     f"{entry:.1f} | {nump:.1f} | {nump / t:.2f}x faster |")
    split = "\n".join(split)
    print(split)
    deep = ["| data set | Fourier later copies' N = 5, pull + update, us/round | of which "
            "`pull_deep` | "
            "of which `update_deep` | general path (`_DEEP = False`), us/round | compiled / "
            "general |", "|---|" + "---:|" * 5]
    for data_name in DATASETS:
        runs = np.array([deep_split(data_name, seed) for seed in range(repeats)])
        t, pk, uk, gen = np.median(runs, axis=0)
        deep.append(f"| {data_name} | {t:.1f} | {pk:.1f} | {uk:.1f} | {gen:.1f} | "
                    f"{gen / t:.2f}x faster |")
    deep = "\n".join(deep)
    print(deep)
    from benchmarks import bandit_heldout

    held = ["| held-out data set | rounds | BoBLO() decisions/s | NeighbourBoBLO() decisions/s | "
            "river LinUCBDisjoint (defaults) decisions/s | BoBLO() / LinUCB | "
            "NeighbourBoBLO() / LinUCB |", "|---|---:|---:|---:|---:|---:|---:|"]
    held_ratios, neighbour_ratios = [], []
    for data_name in bandit_heldout.DATASETS:
        runs = np.array([heldout(data_name, seed) for seed in range(repeats)])
        med = np.median(runs, axis=0)
        ratio = float(np.median(runs[:, 1] / runs[:, 3]))
        neighbour = float(np.median(runs[:, 2] / runs[:, 3]))
        held_ratios.append(ratio)
        neighbour_ratios.append(neighbour)
        held.append(f"| {data_name} | {med[0]:,.0f} | {med[1]:,.0f} | {med[2]:,.0f} | "
                    f"{med[3]:,.0f} | {ratio:.2f}x | {neighbour:.2f}x |")
        print(held[-1], flush=True)
    held = "\n".join(held)
    first, cached = compile_times()
    first5, cached5 = compile_times(5)
    compiled = (f"The kernels' first use in a process, paid by the first `BoBLO()` built "
                f"(`boblo._warm`), not by its rounds: {first:.1f} s to compile them (once per "
                f"installation and source change; numba's own start-up included), "
                f"{cached:.2f} s to load them from numba's cache in any later process "
                f"(`compile_times`: fresh processes, an empty cache directory); the first "
                f"`BoBLO(n_learners=5)` built (its default neighbour later copies, the "
                f"general path) loads the general path's compiled pieces too "
                f"(`learners._stack_kernels`, `onlineboost._boost_kernels`): {first5:.1f} s and "
                f"{cached5:.2f} s for the three families (over the Fourier later copies it also "
                f"loads `onlineboost._deep_kernels`, the compiled N > 1 round).")
    print(compiled)
    print(f"{time.time() - tic:.0f} s")
    if args.quick:
        return
    rounds = "Every round" if n_rounds is None else f"The first {n_rounds} rounds"
    text = (f"## Contextual bandits: decisions per second against LinUCB\n\n"
            f"`python -m benchmarks.bandit_speed` — {report.machine()}. {rounds} of each "
            f"development stream, {repeats} repeats (repeat r shuffled by seed r), the four "
            f"policies interleaved round by round in one process (each round times every "
            f"policy's pull + update right after the others', so all see the same load on a "
            f"shared machine); medians over the repeats, ratios the median of the per-repeat "
            f"ratios. LinUCB is river's `LinUCBDisjoint` with (alpha, beta) tuned per data set "
            f"(`bandit_compare.LINUCB`) behind river's `StandardScaler` and a bias feature; "
            f"BoBLO holds its own scaler. `BoBLO()` runs its compiled round (numba); an "
            f"untimed warm-up pass of 100 rounds compiles (or loads) the kernels first, so the "
            f"table excludes that one-off cost, given below.\n\n{table}\n\n"
            f"`BoBLO()` alone, per round past the scaler's warm-up (`round_split`, medians over "
            f"the same {repeats} repeats):\n\n{split}\n\n"
            f"`BoBLO(n_learners=5)` over the Fourier later copies (`FOURIER_LATER`, N > 1's "
            f"default until the fifteenth session; the default's neighbour copies play the "
            f"general path) alone, per round past the scaler's warm-up (`deep_split`, "
            f"medians over the same {repeats} repeats):\n\n{deep}\n\n"
            f"{compiled}\n\n{verdict}\n\n"
            f"**Held-out streams** (`heldout`: `benchmarks.bandit_heldout`'s data sets, "
            f"never tuned on; every round timed, the first round and the scaler's warm-up "
            f"included; LinUCB with its defaults; the same {repeats} repeats, medians): "
            f"`BoBLO()` at {min(held_ratios):.2f}x to {max(held_ratios):.2f}x LinUCB's "
            f"decisions/s (below 3x on {sum(r < 3.0 for r in held_ratios)} of "
            f"{len(held_ratios)}), `NeighbourBoBLO()` at {min(neighbour_ratios):.2f}x to "
            f"{max(neighbour_ratios):.2f}x.\n\n"
            f"{held}\n\n{NOTE}\n")
    report.write_section("bandit_speed", text)


NOTE = """\
**Thirty-first session: the evidence of structure in the default.** The tables above are this
session's, after `BoBLO()`'s learner began weighing its correction by the evidence of structure
(`learners.structure_evidence`: two more per-arm ridge models a round, the structured one over
the correction's random features and up to 64 stumps, `_stack_kernels.evidence_step`, one
compiled call after the round is learnt). It costs about 11 us a round on `LinearBandit` (23.1
against the learnt weight alone's 12.4 in a separate timing of one run, seed 0) and leaves
`BoBLO()` at 4.24x / 5.04x / 3.50x tuned LinUCB's decisions/s on the development streams: issue
13's target holds, with less margin than the learnt weight alone's (5.95x / 8.29x / 4.76x in
the twenty-second session's table). A first version, the stumps built and checked in numpy
around two kernel calls, ran at 3.43x / 4.61x / 2.77x: the whole round of the evidence is now
one compiled call. On the held-out streams (not a target) `BoBLO()` runs at 2.06x to 5.75x
LinUCB's defaults, below 3x on 15 of 17 (the low-dimensional ones, where LinUCB's own round is
cheapest; the twenty-third session's table, on a slower machine without the evidence, had
2.55x to 6.75x, below 3x on 9).

**Twenty-seventh session: fewer random features on low-dimensional contexts, screened (not
adopted).** The table above is the twenty-third session's, unchanged. On this session's machine
a scratch run of four of the 2-4-column held-out streams (3 seeds, interleaved as `heldout`
does) gave `BoBLO()` at 2.56x / 2.58x / 2.66x / 2.71x LinUCB's decisions/s on Bananas / Sine /
SEA / iris (22,007 against 8,650 decisions/s on Bananas): still below 3x there. The one change
left open above that would cut the compiled calls by half or more on such streams is a
smaller copy: $D$ random features with $D$ growing with the context's width (the number of
features an RBF kernel's Fourier approximation needs grows with the dimension). Screened on
the development side's low-dimensional synthetic streams (tuning seeds 600-629, progressive
average reward, paired against `BoBLO()`'s 128 features; scratch): `NonlinearBandit(2, 3)`
at 32 / 48 / 64 / 96 features -0.033 / -0.027 / -0.020 / -0.014 (SE 0.005-0.006),
`NonlinearBandit(2, 2)` -0.0033 / -0.0011 / -0.0003 / +0.0000; at 64 / 96 features
`NonlinearBandit(3, 4)` -0.016 / -0.009, `NonlinearBandit(5, 3)` -0.0062 / -0.0027, the
stump classes over 5 features -0.018 / -0.005, linear classes over 3 and 4 features within
0.0004. The correction needs its 128 features even in two dimensions, so the model stays as
it is and the ratio on the narrowest held-out streams stays the machine's. A packed triangle
of the inverse Gram matrix was timed once more (scratch, 131 x 131, product and downdate over
the upper triangle only): 16-21 us against the full matrix's 6-8 us, as the eighteenth and
twenty-fourth sessions found.

**Twenty-third session: the same code on a slower machine.** This table was run on this
session's machine, with no code change since the twenty-second session's run. Every policy is
3-5x slower here in absolute terms (`BoBLO()` 11,064 against 42,502 decisions/s on
ImageSegments; tuned LinUCB 2,041 against 6,405), and `BoBLO()` loses more than LinUCB does. On
the development streams the target still holds: 5.29x / 6.85x / 4.36x (6.64x / 9.57x / 5.30x
before). On the held-out streams it does not: 2.55x-6.75x, below 3x on 9 of 17, the streams
with 2-9 columns (Bananas, Sine, SEA, STAGGER, Mixed and iris at 2.55-2.74x). A scratch run of
the held-out streams earlier in the session, 3 seeds, gave the same picture (2.57x-6.55x, 10
below 3x), so the 3x on every held-out stream of the twenty-second session's table held on that
machine only. Where the round loses here, measured alone on Bananas (scratch, several runs; this
machine's timings move by 20-30% from run to run): 30-40 us a round, of which the two compiled
calls take 13-15 us and Python the rest. With 32 random features instead of 128 the calls take
6-7 us. So the passes over the 131 x 131 inverse Gram matrix cost about 7 us a round here,
against about 2.6 us on the earlier machine. That fits a cache shared with other tenants
(the two loops timed alone on a 131 x 131 matrix: 2.5 us for the product, 3.6 us for the
rank-1 downdate; both are vectorised, AVX2). Two ideas were measured and dropped:
* the lane's constant arrays in one numba structref, so that each call unboxes one argument
  instead of 20: 0.3-0.5 us a call in a scratch A/B, within this machine's noise;
* the downdate of round t fused into the product of round t + 1 (one pass over the matrix
  instead of two, the same floats): 4% of the two passes, which are bound by arithmetic and
  cache traffic, not by the number of passes.
Halving the matrix's traffic needs symmetric (packed) storage in every path that reads it: the
numpy round's `learners._stack_kernels`, this lane and `_deep_kernels`. It changes the floats
at rounding and would gain about 10% on such a machine. It is left for a session that can
re-run the reward benchmarks. Fewer random features on low-dimensional contexts would be a
change of the model, which needs a rule of its own.

**Twenty-second session: the overloads called without numba's dispatch.** The steady round
(`_kernels.pull_lane`, `update_lane`) now calls the compiled overloads that numba's dispatcher
picked for the lane's first call, through their entry points (`_kernels._entry`). The
dispatcher types all 26-30 arguments again on every call; the entry point only unboxes them.
The round table's last two columns show the difference: 1.3 against 0.9-1.0 us for the pull's
call that computes nothing. The arithmetic is the same compiled code, so the floats are the
same: a test plays the same arms and leaves the same state as a lane that keeps the
dispatcher. The entry point checks no argument's type, so the lane takes it only where every
argument keeps its type by construction (`_entry`'s docstring says which). Five Python frames
a round were also inlined: the drift watch, the context's float read, the weight's store,
`BoOCO.copies`' property in the lane's check and the annealed $1/\\tau_t$. Each of those
five is within run-to-run noise alone, and four copy a shared step (each guarded by a kernel
test that compares the lane's round with the general one); put back as calls in review, the
same benchmark gave 2.93x / 2.96x / 2.98x on Bananas / iris / Sine (one run; five seeds of the
six 2-4-column streams, scratch: 2-4% below the inlined code on five of them), so together they
are what keeps those streams above 3x, and they stay.
Measured in the same process, `BoBLO()` alternating with itself on the old calls round by
round and interleaved with LinUCB, 4 seeds: 1.08x / 1.06x / 1.07x the decisions/s on Bananas
/ SEA / iris (scratch A/B). The frames' part is within run-to-run noise (about 1-2% each time).
In this table `BoBLO()` is 6.64x / 9.57x / 5.30x tuned LinUCB on the development streams and at
least 3.01x on every held-out stream (Bananas 3.01x, Sine 3.05x; a run of this session before
the last two frames: 3.08x and 3.09x); in the twenty-first session's run it was 2.85-3.0x on six
held-out streams. The margin over 3x on the 2-4-column streams is thin: run to run these ratios
move by about 5%, and timed against LinUCB alone (without `NeighbourBoBLO()` interleaved, scratch
`pair.py`) they sit at 2.9-3.1x. Where the rest goes, measured alone:
about 4.5 us a round of arithmetic in the two kernels and 5 us of Python around them; most
of the arithmetic is the two passes over the copy's 131 x 131 inverse Gram matrix on a
2-column stream (1.3 us each, near the cache's bandwidth). Played interleaved with LinUCB, a
round costs about 5 us more than alone, because LinUCB's own work evicts the interpreter's
and the kernels' code and data (a 4 MB sweep of memory before each pull and each update adds
about 5 us a round to `BoBLO()` played alone).

**Twenty-first session: the learnt weight.** `BoBLO()`'s learner now learns its correction's
weight online (`bandit_compare`'s twenty-first-session paragraph); its compiled round carries
the weight's play, gradient and AdaGrad step. As first written its update took the pull's law
as a list, a fresh state array and a second $1/\\tau_t$ a round, about 1 us: 10% of the
decisions/s on the 2-4-column held-out streams (scratch A/B against the fixed weight,
interleaved, both orders). The steady round now reuses the pull's law (`lane.p`) and $1/\\tau_t$
(`lane.beta`) and refills a state buffer on the lane: the same floats, and the weighted round
costs 16.4 against 15.98 us on Bananas (+2.4%; 3 seeds x 3,000 rounds, alternating). In that
session's run `BoBLO()` was 6.36x / 8.68x / 4.84x tuned LinUCB on the development streams
(issue 13's 3x target holds) and 2.85-3.0x on six of the 2-4-column held-out streams, against
3.08-3.55x for the fixed weight in the run before: most of that gap is run to run (the
interleaved A/B above), some is the weight's.

**Eighteenth session: a vectorised cosine and fewer Python steps.** Three changes to
`BoBLO()`'s compiled round, none to its arithmetic beyond the cosine's last bit: every one of
`BoBLO()`'s 85 held-out runs (`bandit_heldout`, 17 streams, seeds 0-4) scores the same reward
to the last digit, and the kernel tests hold (`tests/onlineboost/test_boblo_kernel.py`).
(1) The random features' cosine is fdlibm's written out (`_kernels._cos_scaled`: its
reduction by pi/2 in three parts with their tails and its minimax kernels, no call in the
loop, so LLVM vectorises it): within 1 ulp of libm's `cos` (the same float in 84% of the
cases), 128 features in 0.3 us instead of 1.3 us; one process alone on SEA, 15.6 us a round
-> 13.1 us. (2) Fewer Python steps on the steady round: the pull goes through the lane in
one function (`_kernels.pull_lane`), its pending round records that it did, and `update`
then learns through that lane without checking it again (a copy taken in between has no lane
yet and takes the checked path); the draw inlined. (3) `RisingMean` feeds
river's compiled ADWIN window directly (ADWIN's own steps without its Python properties; the
public path where river's layout differs; both tested against ADWIN's public API). Measured
as the table measures (interleaved with river's LinUCB, two policies only, SEA, seeds 0-2,
ten alternated processes of the code before and after each step): (2) and (3) moved the ratio
from about 2.86x to about 3.0x; (1) from about 2.6x to 2.9x. Interleaved rounds pay Python
about 1.5 times what a process alone does (LinUCB's own interpreter work evicts BoBLO's from
the caches): a round without any check, bookkeeping or river statistics (scratch code) runs
in 11 us interleaved against the real round's 15 us, while the kernels' share moves only
from 6.6 to 7.2 us. What is left: the kernels' compute, about 4.2 us (two passes over the
copy's $A^{-1}$, 132 x 132 on SEA, near the L2 cache's bandwidth), numba's dispatch of two
calls, about 2 us (about 47 ns per array argument; scalars cost little: packing the constant
scalars into one array saved 0.05 us and was dropped), and the Python of the API (validation,
river's per-arm statistics, the pending round). A product over the symmetric half of
$A^{-1}$ (half the memory) ran slower (its column updates do not vectorise) and was dropped.
Two runs this session, this table's the second: `BoBLO()` at or above 3x LinUCB's decisions/s
on all 17 held-out streams in both (3.15x and 3.08x at least, Bananas and Sine the lowest;
before: below 3x on 10, 2.58x at least), and 7.2x / 9.8x / 5.5x and 7.1x / 9.9x / 5.5x on the
development streams (before: 5.8x / 8.5x / 4.5x); the machine was quieter than in earlier runs
(LinUCB itself ran faster), and run to run the ratios move by about 0.1, so the margin on
the 2-4-column streams is thin.

**Sixteenth session: the lane.** `BoBLO()`'s compiled round now gathers the arguments that
stay put from round to round once (`onlineboost._kernels.Lane`: the views of the model's and the
copy's arrays, the constants folded from the parameters, two buffers for the law, the
cumulative errors as an array), checks each round by identity that none of those arrays was
replaced (a new column, the numpy round, a pickle or deep copy gathers its own), and calls the
same two kernels with the same numbers: the same arms, seed for seed, on the development
streams and on three held-out streams (seeds 0-1). About 1 us of Python less a round, one
process alone on SEA (about 17.5 to 16 us; interleaved round by round with LinUCB and only the
two of them, SEA / Sine / Mixed 2.34x / 2.39x / 2.39x before, 2.48x / 2.46x / 2.47x after, a
shared machine's noise of the same order). Four runs this session with it: below 3x on 9, 10,
10 and 10 of the 17 held-out streams, 2.48x-2.58x at least (fifteenth session's run: 12,
2.50x); run to run the ratios move by about 0.1, so a stream near 3x falls on either side.
`NeighbourBoBLO()` on `LinearBandit` ran at 2.81x-2.96x in the three runs with the neighbour
N = 5 in the same loop (3.06x in the first).

**Sixteenth session: N > 1's neighbour later copies.** The table's `BoBLO(n_learners=5)` column
is the new default (copies 2..5 nearest neighbours of what copy 1 leaves, `depth.PlayLead`;
`bandit_compare`'s sixteenth-session paragraph): its round is the general path (numpy), the
neighbour copies' search of the last 2,000 contexts compiled (`learners._stack_kernels.nearest`,
numpy's distances to the bit; first a stable argsort, then a partition, about twice and once
this search's cost in numpy): 1.31x / 2.09x / 0.95x tuned LinUCB's decisions/s in this table
(0.7x-1.5x with the numpy search), where the Fourier later copies' compiled round runs at
2.0x-4.2x (`deep_split` still times that configuration, `FOURIER_LATER`). Issue 13's speed
target is `BoBLO()`'s; a compiled round for the
neighbour copies is left for later. The rest of
the gap is as the eleventh session found: a prototype that also skipped every check and the
second `fits` reached 2.57x-2.66x on SEA / Sine / Bananas / Mixed, and the kernels' own calls
are about 8 us a round of the 16 (3.2 us and 4.5 us, numba's dispatch of their 29 and 23
arguments about 1.3 us each). Two prototypes were not pursued: fusing the ridge step's two
passes over $A^{-1}$ (the rank-one step deferred into the next round's product) ran slower
with $A^{-1}$ in cache (3.2 us against 2.7 us) and was not consistently faster out of it;
handing the arrays over as one jitclass saved about 0.45 us of dispatch a call, but a
jitclass is compiled anew in every process (numba does not cache it).

**Fifteenth session: the count bonus.** `BoBLO()`'s play now subtracts the count bonus
(`count_bonus`, `onlineboost.boblo.count_shift`) inside its compiled pull: two more arguments
to `pull_round_features` (the arms' counts and the scale), $k$ square roots and a logarithm a
round, the counts stepped in `update`. The table above is measured with it.

**Fifteenth session: `NeighbourBoBLO()` compiled.** The table's third column is
`onlineboost.NeighbourBoBLO()` (`BoBLO()` and a nearest-neighbour second stage,
`benchmarks/bandit_neighbours.py`; fourteenth session: 2.1x / 3.3x / 1.7x tuned LinUCB's
decisions/s on ImageSegments / digits / `LinearBandit`). Its pull after stage 1's compiled pull is
now one compiled call (`onlineboost._neighbour_kernels.stage_costs`: stage 1's costs recomputed
from the features that pull left, by `_kernels`' own functions, instead of read again in numpy;
the context standardised; the neighbours; both greedy arms; stage 2's law once it plays), its row
is stored compiled, the k-NN pass sums its squared distances vectorised (`reassoc`) in a pass of
its own before the selection, and the kernel takes 19 arguments instead of 26 (numba's dispatch
costs about 70 ns an argument). One process, each policy alone on a full pass (seed 1, us a
round, `BoBLO()` / `NeighbourBoBLO()` before / after): ImageSegments 18 / 52 / 29, digits 30 / 80
/ 45, `LinearBandit` 16 / 46 / 28; river's SEA 13 / 22 (before the last step) / 21, of which the
k-NN about 3 (the same policy with a window of 1 row: 18). Same rewards, seed for seed, on the
development streams' evaluation seeds 0-4 and on the 17 held-out streams' seeds 0-4
(`bandit_compare`'s and `bandit_heldout`'s rows stand). What is left over
`BoBLO()`'s round is the k-NN pass (7-20 us on the development streams: up to 1,000 stored
contexts an arm) and about 4 us of Python and dispatch. **Held-out**: the held-out table's
`NeighbourBoBLO()` column (every round timed, as `BoBLO()`'s): below 3x LinUCB's defaults on all
but LED; issue 13's speed target is `BoBLO()`'s.

**Eleventh session: a new machine, the first round, where a round's time goes.** This run is on
another machine (an AMD EPYC with AVX-512, numpy 2.4.6): every policy is 2-3x faster than in the
tenth session's run, LinUCB included, so compare ratios, not decisions/s. `BoBLO()`'s first
round (the booster, its copies and the loss model built, a context of 4 columns) cost 1.1-1.7 ms
and now 0.5-0.8 ms: `learners.FeaturePolicy` built a one-copy stack of its own at construction
(two 129 x 129 inverse Gram matrices a `BoBLO()`, never used: the booster calls `stack`), now at
first use; `BoBLO` builds its default learner on the booster's simplex, so `BoOCO` no longer
clones it (river's `clone`, ~0.35 ms); the same arms and laws, bit for bit. On the held-out
streams (this benchmark's `heldout`, run before and after the change on the same day), the ratio
to LinUCB rose most on the shortest streams (wine 2.59x -> 2.88x, iris 2.39x -> 2.62x, 178 and
150 rounds), by -0.06 to +0.12 on the others (LED +0.45), within a run's noise. **Held-out:
2.25x to 6.31x, below 3x on twelve of the seventeen** (tenth session: fourteen). Where a round's
time goes on a 3-column stream (SEA, one process, round after round, not interleaved; about 16
us): the two compiled calls 3.1 us and 5.5 us (numba's dispatch about 1.3 us of each: 27 and 23
arguments), the Python around them (the context's checks, the law as lists, the draw, the
pending round, the estimate's bookkeeping, the reward's checks) about 5.5 us, the drift detector
0.8 us, river's reward statistics 0.15 us; interleaved with LinUCB every piece is slower (about
22 us, against LinUCB's 55-60 us). A prototype round with every state array fetched once outside
the loop and the input checks skipped (unsafe: a floor, not a candidate) played the same arms at
2.80x / 2.93x / 2.80x / 2.84x LinUCB's defaults on SEA / Sine / Bananas / iris, against 2.45x /
2.33x / 2.38x / 2.51x (interleaved, 5 seeds, medians): even all the Python that could go would
leave these streams below 3x, and what can safely go is about half of it, so it was not done.
Fewer random features where the context has few columns (16 per column, at most 128; prototype,
tuning seeds 400-404) saved about 15% of the round on a 3-column stream but lost reward on
`NonlinearBandit` (-0.009 at d = 2) and was not pursued.

**Tenth session: a drift detector.** `BoBLO()` now feeds the loss of every learnt round to a
drift detector, `onlineboost.drift.RisingMean` (river's ADWIN, counting only rises of the mean;
chosen by the rules in `bandit_compare`'s tenth-session paragraph, whose part (d) was this
benchmark: met, 4.77x / 5.81x / 3.73x tuned LinUCB; with the first rule's
`drift.PageHinkley`, 4.94x / 6.47x / 3.74x in an earlier run on a less loaded machine). Its
update is river's, outside the compiled calls: ADWIN costs about 0.5 us a value (it checks for
a cut every 32), Page-Hinkley's Python 2-3 us of a 57-66 us round (measured interleaved with
`BoBLO(drift_detector=None)`). **The held-out streams: 2.18x to 5.80x LinUCB's defaults, below
3x on fourteen of the seventeen** (ninth session: 2.35x-6.11x, twelve; a shared machine's noise
is of the same order as the detector's cost).

**Ninth session: 128 features, no forgetting.** `BoBLO()`'s weak learner now regresses on 128
random Fourier features of the context beside it and forgets nothing (`boblo.DEFAULT_LEARNER`,
chosen by the rule in `bandit_compare`'s ninth-session paragraph, whose part (d) was this
benchmark on the development streams: 256 features scored the same reward but fell to 2.52x
tuned LinUCB on `LinearBandit` in a run of the full benchmark, so 128 it is). Its compiled
round's update now reuses the features the pull computed for the same context (the same floats;
about 5-7% of a round, interleaved). Table above: `BoBLO()` at 5.15x / 7.13x / 4.00x tuned LinUCB
on ImageSegments / digits / `LinearBandit` (eighth session, 64 features: 5.9x / 8.3x / 4.7x; this
run's machine was slower for both, LinUCB's own decisions/s 30-40% below the eighth session's):
the speed target holds on the development streams. **On the held-out streams it is 2.35x to
6.11x LinUCB's defaults, below 3x on twelve of the seventeen** (eighth session: nine): where
contexts have 2-10 columns LinUCB's round is cheapest and `BoBLO()`'s is the 128-feature ridge
step (~10 us) plus about 30 us of Python around its two compiled calls. `FeaturePolicy.stack`
now builds the boosted stack whenever `later_features` is given, also when it equals
`n_features` (128 = 128 here; the same policy, same rewards), so `BoBLO(n_learners=5)` keeps its
compiled round: 2.69x / 3.36x / 2.17x.

**Eighth session: the default learner has random features.** `BoBLO()`'s weak learner now
regresses on 64 random Fourier features of the context beside it (`boblo.DEFAULT_LEARNER`,
chosen by the rule in `bandit_compare`'s eighth-session paragraph), and its compiled round
takes them (`_kernels.pull_round_features` / `update_round_features`, the features with the
stack's own sums and `math.cos`): 30-74 us a round (`round_split` above) where the former
learner took 20-36 us, so `BoBLO()` is at 5.9x / 8.3x / 4.7x tuned LinUCB on ImageSegments /
digits / `LinearBandit` (seventh session: 7.3x / 10.4x / 5.6x): the speed target (>= 3x on the
development streams) still holds. On the held-out streams it is 2.7x to 7.3x LinUCB's defaults,
below 3x on nine of the seventeen (iris, Phishing, Bananas, Agrawal, Hyperplane, Mixed, SEA,
Sine, STAGGER: 2-10 context columns, where LinUCB's own round is cheapest); the run shared the
machine with the test suite (the ratios are interleaved, round by round). `BoBLO(n_learners=5)`'s
compiled round covers the new first copy too (`_deep_kernels.pull_deep`: copy 1's features
as the stack makes them): 2.8x / 3.8x / 2.3x; the `fuse5` figures below were measured over the
former, linear first copy.

`BoBLO(n_learners=5)` (its default learner: copy 1 as `BoBLO()`'s, copies 2..5 over 128
random Fourier features; `depth.FitLead`) runs its whole round as two compiled calls since the
eighth session (below); the warm-up pass compiles or loads those kernels too.

What changed for N = 5 (eighth session, `fuse5`). The seventh session had compiled the round's
heavy steps, but the round was still stitched together in Python (~240 us on LinearBandit and
ImageSegments, ~325 us on digits, of which ~50 us compiled). `onlineboost._deep_kernels`
transcribes the whole default N > 1 round (the "dr" estimate, `aggregate="auto"` =
`depth.FitLead` with the uniform anchor, the `RidgeMixture` loss model, BoBLO's own scaler or
none) into `pull_deep` (the scaler past its warm-up, the model's costs, copy 1's and copies
2..N's costs, their features, the residual sums, both softmaxes, BoOCO's chain, the stages'
projection when a row has a rounding residue below 0, the advice, FitLead's fitted
predictions in phase 1 or Exp4's mixture after the switch, the law's running sums) and
`update_deep` (the doubly robust estimate, kappa, the extension's gradient at the N points,
copy 1's and copies 2..N's ridge steps, the mixture's step, FitLead's leads, cumulant bounds,
margins and switch test, or Exp4's losses), in place on the general path's own arrays; any
round they do not cover (the first, the scaler's warm-up, new or missing features, bad input,
anything not finite, FitLead's `then="follow"`, other configurations) runs the general path,
which refuses bad input by name with nothing moved. Two steps are computed differently, to
rounding: the later copies' 512 Fourier features a round take a branch-free cosine (fdlibm's
reduction by pi/2 and its polynomials, vectorised; within an ulp of the C library's, whose
scalar calls were half of the compiled pull), and FitLead's phi(y) = e^y - 1 - y at its 40
rates 2^-i follows from the smallest by phi(2y) = phi(y)^2 + 2 phi(y)(1 + y) + y^2 (terms
>= 0 here, so stable: within 1e-15 of an exact phi, where `expm1(y) - y` loses up to 6e-4 of
phi's digits at the small rates; vectorised over its 2 (N - 1) k arguments instead of 1,600
`expm1` calls a round on LinearBandit). A policy pickled before takes the compiled round
after loading (`BoBLO.__setstate__`). Same arms: on full passes of the three development
streams, seeds 0-2,
the compiled round drew the general path's arm in every round, laws within 1e-10 (FitLead
never switched, on either path); on `NonlinearBandit` (seeds 100-104) the same arms and switch
rounds (518 / 445 / 428 / 614 / 274), laws within 1e-9 until the switch and 3e-7 after it
(the later copies are then played, whose inverse Gram matrices grow as 0.995^-t along the
directions two context columns never reach, where the cosine's last-bit differences grow, as
between the general path's own numpy and compiled steps; `tests/onlineboost/test_boblo_deep.py`).
The ratios move with the machine's load (two cores shared with other jobs): a run of this
session's code at 10:27 UTC, before its last kernel change (FitLead's bounds by doubling, ~1 us
on LinearBandit, ~5 us on digits), gave 3.23x / 3.81x / 2.46x LinUCB, one at 10:41 on the
final code 2.98x / 3.67x / 2.47x (ImageSegments / digits / LinearBandit); the table above is a
later run. What remains (`deep_split` above): copies 2..5's ridge steps, about 30 us of
`update_deep` on LinearBandit (four inverse Gram matrices of 139 columns, 620 KB, read and
rewritten every round, ~7 us a copy even from L2; 1.2 MB on digits; the state's layout, full
symmetric matrices, sets that), the compiled pull ~10 us, and ~20 us of
Python (river's pull / update contract, the dict's values, the draw, the kernels' dispatch
of ~30 arguments each).

What changed for N = 5 (seventh session, `lean5`). Before, its round cost ~600-950 us
(0.51x / 0.67x / 0.36x LinUCB's decisions/s in the sixth session's run). Same machine, same
script's interleaved passes (`interleaved`, 5 repeats): the final code at 3,960 / 2,451 /
3,600 decisions/s (1.14x / 1.47x / 0.74x LinUCB) in a run at 08:53 UTC, the former code
re-run right after it at 1,666 / 1,161 / 1,607 (0.50x / 0.71x / 0.36x): 2.4x / 2.1x / 2.2x
the decisions/s (ImageSegments / digits / LinearBandit). The ratio moves with the machine's
load (this branch's code minus its last commit, paired the same way at 08:43: 2.2x / 1.9x /
2.1x; the table above is a later run). `_boost_kernels.project_rows` in
`BoBLO._play_features` (below) would add ~10% on digits and LinearBandit. Now:

* `learners.FeaturePolicyStack`'s copies with random features make phi(c) and
  Theta phi once per context and round (a cache keyed by the array and its bytes,
  dropped by a learning step and by new columns, never pickled), and their recursive least
  squares step runs compiled (`learners._stack_kernels.learn`): the forgetting's scaling
  folded into the downdate, so each copy's 150-300 KB inverse Gram matrix is traversed twice a
  round (for u = A^-1 phi, then A^-1 / rho - w w^T in one pass, copy by copy
  while it is in cache) instead of four times with a temporary; the sums of A^-1 phi are
  vectorised (the one fast-math flag `reassoc`, on sums only: the strict-order loop was 3x
  slower).
* `FeaturePolicyBoostStack.predict_vector` is one compiled call
  (`_stack_kernels.boost_predict`: the later copies' features and costs, the stages' sums and
  the loss model, both softmaxes) after copy 1's numpy product; its predicted costs are made
  once a round (BoBLO's play and `FitLead` both ask).
* `onlineboost._boost_kernels`: the extension's gradient at the five iterates (the simplex
  projection of each row, the prox, transcribed: the numpy path's floats, bit for bit) and
  `FitLead`'s leads' step and cumulant bounds (2 (N - 1) k 40 `expm1`s a round, libm's as
  numpy's: the same floats; expert 0's bounds, always 0, skipped).
* Copy 1's numpy step (the one-copy learner's) makes its two rank-one updates in one compiled
  pass each (`_stack_kernels.rank_one`, no temporaries; the same floats).

Numbers: copy 1 (the played stage until `FitLead` switches) and everything outside copies
2..5 give the same floats as before; copies 2..5's dot products sum in another order than
numpy's einsum, so their states agree to rounding (`tests/learners/test_stack_kernels.py`:
1e-9 against a literal transcription of the former numpy arithmetic over 300 rounds with new
columns, both feature kinds, residual stacks, a model and forgetting; the numpy path itself
bit for bit). On full passes of the three development streams, seeds 0-2, kernels on and off
drew the same arm in all 21,321 rounds with the same laws (FitLead never switched); on
`streams.NonlinearBandit` (`--nonlinear`, seeds 100-102, 3,000 rounds) the same arms and
switch rounds (518 / 445 / 428), laws within 1e-7 after the switch, as one ulp added to the
numpy path's own inverse Gram matrices gives (9e-8: on two context columns most of the 139
directions are never seen, where A^{-1} grows as 0.995^-t).

Where N = 5's round goes now (wrapped calls, us/round, LinearBandit / digits): copies 2..5's
step 33 / 57 and their prediction 22 / 28 (compiled), copy 1's numpy step ~17 / ~25 (kept in
numpy: its floats are the one-copy learner's, which N = 5 plays until the switch), the loss
model's step 22 / 35, the scaler 15 / 51, `FitLead` 36 / 48, the validated projection of the
stages' rows in `BoBLO._play_features` 26 / 43 (BoOCO's chain leaves rounding residues of
-1e-17 in 29% / 73% of the rounds; `_boost_kernels.project_rows` gives the same floats
compiled: ~10% of the round on these two streams in an interleaved A/B, not wired in yet), and
Python between them.

What changed (fifth session, `jit13`). `BoBLO()`'s fused round (N = 1, the "dr" estimate on
the simplex, no aggregate, `learners.FeaturePolicy(**DEFAULT_LEARNER)` playing on the
`RidgeMixture` loss model, BoBLO's own scaler) runs as two numba-compiled functions,
`onlineboost._kernels.pull_round` and `update_round`: the context's range check and robust
scaling, the mixture's costs, the learner's softmax, x^1 and the law, then the estimate,
kappa, the extension's gradient with the simplex projection, the learner's ridge step with
forgetting and the mixture's reweighting and ridge step, transcribed step by step from the
numpy round and run in place on its own state arrays (every parameter passed in). numba
(`numba>=0.59`) is now a dependency: the numpy round was bound by the per-call cost of about
60 small numpy calls, which no numpy formulation avoids (the fourth session's one-function
numpy prototype reached ~1.75x); without numba BoBLO runs the numpy round (`BoBLO._JIT`). The
usual context (the last round's keys, in order, floats or ints) goes straight from the dict
to the kernel (one type check, `np.fromiter`); any other round (the first, new or missing
features, bad input, non-finite values) takes the numpy fused round, which handles it or
raises its `ValueError`, nothing moved. A single `model_l2` penalty (`loss_model._ArmRidge`)
has its own pair of kernels; the annealed softmax (`FeaturePolicy(t0=...)`) runs compiled, the
inverse gap weighting law (`link="igw"`), other weak learners, N > 1, other estimators and
gamma < eta_1 run the numpy round.

Fifth session, second part (`jit14` and the lead): the scaler's warm-up rounds (its first 10
values per column: robust statistics of a buffer, median and MAD) are compiled too (`warm_scale` /
`warm_store`, bit for bit the numpy step's floats, sums in numpy's order), and river's per-arm
reward means are made by `stats.Mean` directly (river's factory clones its default through
`inspect.signature`, ~30 us at each arm's first reward). Before, the first ~11 rounds cost
~200-300 us each, which on the held-out streams of 150-180 rounds (iris, wine) was most of
the time: iris went from ~2.3-2.6x to ~3.1x LinUCB's decisions/s in alternating runs. Then
(`jit15`) fewer calls around the kernels (the law's scratch arrays reused per thread, the arm
count and the inverse temperature read directly) and `learners.base` reading a learner's
parameter names once per class instead of through river's `_get_params` at every build: the
two-armed held-out streams gained ~0.2-0.4x in alternating runs. What remains on the shortest
streams is round 1 (~1-2 ms: building BoOCO, the weak learner's stack through river's `clone`,
the loss model).

The same numbers, to rounding: the kernels' dot products sum in another order than numpy's
BLAS (four interleaved partial sums), the element-wise steps are the numpy round's operations.
`tests/onlineboost/test_boblo_kernel.py` holds the laws, estimates and learnt states within
1e-12 (norm-wise relative) of the numpy round over full passes of the three development
shapes fed the same arms (ImageSegments: 1e-12 over 1,000 rounds, 1e-10 by the end of the
pass, as one ulp added to the numpy round's own state gives: its collinear columns are
directions the forgetting learner never sees, where its inverse Gram matrix grows as 0.995^-t
with any rounding difference). On full passes of `bandit_compare`'s streams, seeds 0-4, the
kernels drew the same arm as the numpy round in every one of the 35,535 rounds (and so with
`model_l2=20.0`), and `bandit_compare`'s evaluation rows give the same rewards, 0.866 / 0.848 /
0.664 (`table` re-run on seeds 0-4).

Where the remaining time goes (`round_split` above, and cProfile on LinearBandit): the two
compiled calls are a third to a half of the round, 1.5-2.5 us of each being numba's
dispatch (22 and 18 arguments unboxed); the rest is Python around them: river's `pull` /
`update` contract (the arm ids compared with the first pull's, the reward checked, the per-arm
reward statistics), the dict's keys compared with the last round's, the type check and
`np.fromiter` of the values, the draw (`rng.random`, the running sums as a list) and the
mixture's errors and kappa handed back. digits' `update_round` is mostly arithmetic (two
65 x 65 ridge steps and the mixture's 2 x 66 x 65 one, in plain loops).

Before (fourth session's merged code, numpy round, same script): 2.21x / 2.87x / 1.78x LinUCB's
decisions/s (ImageSegments / digits / LinearBandit); the fourth session's fused numpy round
was 1.21-1.31x the third session's.
"""


if __name__ == "__main__":
    main()
