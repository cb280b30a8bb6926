"""The `onlineboost` command's top level and its main job, `onlineboost table`: version, help,
errors, the default protocol's output and its legend, progress, and a light `import`."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import onlineboost
from onlineboost.app import cli, table

ROOT = Path(__file__).resolve().parent.parent


def _modules_after(code: str) -> set[str]:
    """The top-level modules a fresh interpreter has imported after running `code`."""
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport json, sys; print(json.dumps(sorted(sys.modules)))"],
        capture_output=True, text=True, check=True, cwd=ROOT)
    return set(json.loads(out.stdout.splitlines()[-1]))


@pytest.mark.parametrize("code", [
    "import onlineboost",
    # not BoBLO: river.bandit loads scikit-learn
    "from onlineboost import BoOCO, BoOCOClassifier, sets, losses, extension",
    "from onlineboost.app.cli import build_parser; build_parser(); build_parser('table')",
])
def test_import_and_help_load_no_scikit_learn_scipy_stats_or_matplotlib(code):
    loaded = _modules_after(code)
    assert "onlineboost" in loaded
    assert not {"sklearn", "matplotlib", "scipy.stats"} & loaded


def test_bare_import_loads_no_numpy_and_help_builds_without_river():
    assert "numpy" not in _modules_after("import onlineboost")
    loaded = _modules_after("from onlineboost.app.cli import build_parser; build_parser('table')")
    assert not {"numpy", "river"} & loaded


def test_every_public_name_resolves_lazily_and_unknown_names_fail():
    for name in onlineboost.__all__:
        value = getattr(onlineboost, name)
        assert getattr(value, "__name__", "").rsplit(".", 1)[-1] == name
    assert set(onlineboost.__all__) <= set(dir(onlineboost))
    with pytest.raises(AttributeError, match="no_such_thing"):
        onlineboost.no_such_thing  # noqa: B018


def test_version_matches_the_project_metadata(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["--version"])
    assert exit_.value.code == 0
    declared = re.search(r'^version = "(.+)"$', (ROOT / "pyproject.toml").read_text(),
                         re.MULTILINE).group(1)
    assert capsys.readouterr().out.strip() == f"onlineboost {declared}" == \
        f"onlineboost {onlineboost.__version__}"


def test_no_command_is_a_usage_error_naming_the_commands(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main([])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "a command is required" in err and "'table'" in err and "'run'" in err


def test_top_level_help_lists_the_commands(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert "table" in out and "the main job" in out and "run" in out and "--version" in out


def test_table_help_shows_every_default_of_both_protocols(capsys):
    with pytest.raises(SystemExit):
        cli.main(["table", "--help"])
    out = " ".join(capsys.readouterr().out.split())  # undo argparse's line wrapping
    for shown in ["(default: frank-wolfe)", "(default: ['diabetes'])", "(default: 20)",
                  "(default: stump; with --protocol paper: stump ridge mlp)",
                  "(default: 10; with --protocol paper: 5)",
                  "(default: 1.0; with --protocol paper: 0.1)",
                  "(default: frank-wolfe; with --protocol paper: 0.01)",
                  "(default: 0.01; with --protocol paper: 0.01)", "(default: 2)"]:
        assert shown in out


def test_a_missing_data_set_is_an_error_naming_data_dir_even_when_another_is_found(
        tmp_path, capsys):
    code = cli.main(["table", "--datasets", "diabetes", "boston", "--data-dir",
                     str(tmp_path / "nope"), "--runs", "1", "--no-progress"])
    assert code == 1
    out, err = capsys.readouterr()
    assert out == ""  # nothing ran
    assert "boston.csv not found" in err and "--data-dir" in err
    assert str(tmp_path / "nope") in err and "diabetes:" not in err


def test_default_protocol_output_shows_boosting_against_the_weak_learner(capsys):
    assert cli.main(["table", "--runs", "1", "--n-max", "3", "--jobs", "1",
                     "--no-progress"]) == 0
    out = capsys.readouterr().out
    lines = out.strip().splitlines()
    assert lines[0].split()[:5] == ["data", "set", "learner", "weak", "MSE"]
    assert lines[1].split()[:2] == ["diabetes", "stump"]  # the default learner: stumps only
    assert "(paper)" not in out and "paper best" not in out
    assert lines[-1] == table.LEGENDS["frank-wolfe"][0]
    # gamma = 1: N = 1 is the weak learner itself, up to the rescaling of its seed
    assert float(lines[1].split()[3]) == pytest.approx(1.0, abs=0.01)


def test_paper_protocol_prints_the_papers_rows_and_explains_them(capsys):
    assert cli.main(["table", "--protocol", "paper", "--learners", "ridge", "--runs", "1",
                     "--jobs", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "(paper)" in out and "paper best" in out
    assert "1.000  0.986  0.974  0.965  0.956" in out  # the paper's Diabetes/ridge row
    assert out.strip().endswith(table.LEGENDS["paper"][-1])
    row = next(line for line in out.splitlines() if line.startswith("diabetes"))
    assert len(row.split()) == 3 + 5 + 3  # N = 1..5, best "x% (N=k)", paper best
    assert row.split()[-1] == "4.4%"  # the paper's best: 1 - 0.956 (its Table 1 prints 4.4%)


def test_flags_override_the_protocol(capsys):
    assert cli.main(["table", "--protocol", "paper", "--learners", "stump", "--n-max", "2",
                     "--runs", "1", "--jobs", "1", "--no-progress"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert "N=2" in header and "N=3" not in header


def test_run_table_progress_reaches_the_total(capsys):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    data = {"toy": (X, np.clip(X[:, 0], -1, 1))}
    table.run_table(data, ["ridge"], runs=3, n_max=2, jobs=1, progress=True)
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("runs 3/3 100% |" + "#" * 30 + "|")


@pytest.mark.parametrize("flag, value", [("--runs", "0"), ("--n-max", "-1"), ("--jobs", "two")])
def test_counts_must_be_positive_whole_numbers(flag, value, capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["table", flag, value])
    assert exit_.value.code == 2
    assert f"argument {flag}: must be" in capsys.readouterr().err


@pytest.mark.parametrize("flags, n_workers, jobs, progress", [
    ([], 2, 2, True),  # the defaults: two local workers, progress shown
    (["--jobs", "1", "--no-progress"], 1, 1, False),
    (["--jobs", "-1"], None, -1, True),  # every local core: the engine picks the count
    (["--scheduler", "tcp://127.0.0.1:1"], 2, -1, True),  # a cluster: all of its workers
])
def test_table_hands_jobs_workers_and_progress_to_the_grid(flags, n_workers, jobs, progress,
                                                           tmp_path, monkeypatch, capsys):
    """What `onlineboost table` passes on: `--jobs` as the engine's workers (none named for
    -1) and as the grid's `n_jobs` (-1 on a distributed backend), `--no-progress`; and the
    `--markdown` file is the table with a final newline."""
    import contextlib

    from onlineboost.app import backends

    seen, original = {}, table.run_table

    @contextlib.contextmanager
    def engine(backend, scheduler, n_workers=None):
        seen["n_workers"] = n_workers
        yield backend

    def run_table(data, learners, **kwargs):
        seen.update(kwargs)
        return original(data, learners, **{**kwargs, "jobs": 1, "progress": False})

    monkeypatch.setattr(backends, "engine", engine)
    monkeypatch.setattr(table, "run_table", run_table)
    md = tmp_path / "t.md"
    assert cli.main(["table", "--learners", "ridge", "--n-max", "1", "--runs", "1",
                     "--markdown", str(md), *flags]) == 0
    assert (seen["n_workers"], seen["jobs"], seen["progress"]) == (n_workers, jobs, progress)
    text = md.read_text()
    assert text.endswith("|\n") and text.count("\n") == len(text.splitlines())


def test_run_tables_defaults_are_the_papers_protocol_and_the_commands_runs():
    """`run_table` called bare runs Table 1's protocol (gamma, steps, delta, N up to 5) with
    the command's 20 runs, on one local worker."""
    import inspect

    defaults = {k: v.default for k, v in inspect.signature(table.run_table).parameters.items()}
    paper = table.PROTOCOLS["paper"]
    assert {k: defaults[k] for k in ("gamma", "step_size", "delta", "n_max")} == {
        k: paper[k] for k in ("gamma", "step_size", "delta", "n_max")}
    command = cli.build_parser("table").parse_args(["table"])
    assert defaults["runs"] == command.runs == 20 and defaults["jobs"] == 1
    shown = inspect.signature(table.format_table).parameters["n_max"].default
    assert shown == defaults["n_max"]  # the table shows the columns run_table fills


@pytest.mark.parametrize("n_max", [3, 5, 7])
def test_every_markdown_row_has_the_headers_cells(n_max):
    """The paper's rows (five values of N) are cut or padded to the table's N = 1..n_max."""
    cell = {"baseline": 0.19, "normalised": np.linspace(1.0, 0.9, n_max), "runs": 2}
    text = table.format_table({("diabetes", "stump"): cell, ("boston", "ridge"): cell},
                              n_max=n_max, markdown=True, paper=True)
    lines = text.splitlines()
    assert len(lines) == 2 + 4  # header, rule, and each cell with its paper row
    assert {line.count("|") for line in lines} == {3 + n_max + 2 + 1}


@pytest.mark.parametrize("done, total, expect", [
    (2, 8, "runs 2/8  25% |##        | 1:30 elapsed, 4:30 left"),
    (1, 1, "runs 1/1 100% |##########| 1:30 elapsed, 0:00 left"),
])
def test_the_progress_line_extrapolates_the_time_left(done, total, expect):
    """The bar's share, the percentage and the time left (the mean time per item so far
    times the items left), here after 90 s."""
    import io

    out = io.StringIO()
    table._draw(out, False, "runs", done, total, 10, 90.0)
    assert out.getvalue() == expect + "\n"


PAPER_TEXT = (Path(__file__).resolve().parents[2] / "shared" / "papers"
              / "hazan-singh-2021-boosting-for-online-convex-optimization.txt")


@pytest.mark.skipif(not PAPER_TEXT.exists(), reason="the paper's text (../shared/papers) is "
                    "not beside the repository")
def test_the_papers_rows_are_table_1_of_the_paper_text():
    # `table.PAPER`, the (paper) rows `onlineboost table --protocol paper` prints, against the
    # table as it stands in the paper's text: every figure, every data set and learner
    text = " ".join(PAPER_TEXT.read_text().split())
    sets = {"Boston": "boston", "Diabetes": "diabetes", "California Housing": "california"}
    names = {"Decision Stumps": "stump", "Ridge Regression": "ridge", "Tiny MLP": "mlp"}
    found = {}
    for block in re.finditer(r"(Boston|Diabetes|California Housing) dataset WL N=2 N=3 N=4 "
                             r"N=5 Improvement ((?:(?:Decision Stumps|Ridge Regression|Tiny MLP)"
                             r"(?: -?\d\.\d{3}){5} -?\d+\.\d%\s*){3})", text):
        for row in re.finditer(r"(Decision Stumps|Ridge Regression|Tiny MLP)((?: -?\d\.\d{3}){5})",
                               block.group(2)):
            found[(sets[block.group(1)], names[row.group(1)])] = tuple(
                float(v) for v in row.group(2).split())
    assert found == table.PAPER


def test_run_once_is_a_prequential_pass_of_the_weak_learner_and_booco_on_table_1s_k():
    # the protocol written out: the paper's gamma = 0.1, eta = 0.01, delta = 0.01 and K =
    # [-1, 1] by default, a seeded shuffle, contexts standardised before each learns, the weak
    # learner's answer clipped to K; targets beyond K so that K's bounds show
    from river import preprocessing

    from onlineboost import BoOCO, sets

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.clip(1.5 * X[:, 0], -1.0, 1.0)  # a ridge fit answers beyond K on both sides
    got = table.run_once(X, y, "ridge", seed=3)
    order = np.random.default_rng(3).permutation(40)
    scaler = preprocessing.StandardScaler()
    weak = table.make_learner("ridge", 3)
    booster = BoOCO(table.make_learner("ridge", 3), n_learners=5, gamma=0.1, step_size=0.01,
                    delta=0.01, seed=3, decision_set=sets.Interval(-1.0, 1.0))
    base, boosted = 0.0, np.zeros(5)
    for t in order:
        raw = {f"x{j}": X[t, j] for j in range(3)}
        x = scaler.transform_one(raw)
        base += (float(np.clip(weak.predict_one(x), -1.0, 1.0)) - y[t]) ** 2
        boosted += (booster.staged_predict_one(x) - y[t]) ** 2
        scaler.learn_one(raw)
        weak.learn_one(x, float(y[t]))
        booster.learn_one(x, float(y[t]))
    assert got.baseline == pytest.approx(base / 40, rel=1e-12)
    np.testing.assert_allclose(got.boosted, boosted / 40, rtol=1e-12)
