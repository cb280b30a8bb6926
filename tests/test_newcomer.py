"""The first hour of a new user, scripted (issue 17, "Done when").

A wheel is built from this checkout's sources and installed into a fresh virtual environment
(`--system-site-packages`, so numpy, river and scikit-learn come from this machine, offline);
every command then runs from a scratch folder outside the checkout, with no `PYTHONPATH` and
no `ONLINEBOOST_DATA`: `onlineboost --version`, the main job (fewer shuffles), `onlineboost
table --datasets boston` without and with `--data-dir`, and the README's crash-and-resume block
exactly as written there.

The wheel is built without build isolation (offline) when this environment has the build
backend pyproject.toml asks for (setuptools >= 77); otherwise pip fetches it into an isolated
build environment, as `pip install -e .` does.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
DEMO_MARKER = "<!-- crash-and-resume demo -->"


def _sh(args, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, timeout=300, **kwargs)


def _has_build_backend() -> bool:
    try:
        major = int(metadata.version("setuptools").split(".")[0])
    except metadata.PackageNotFoundError:
        return False
    return major >= 77


@pytest.fixture(scope="module")
def newcomer(tmp_path_factory):
    """(environment for subprocesses, a scratch folder outside the checkout, the venv)."""
    base = tmp_path_factory.mktemp("newcomer")
    assert ROOT not in base.parents  # the scratch folders are outside the checkout
    src = base / "src"  # the sources a wheel holds, without the checkout's build/ leftovers
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    for package in ("onlineboost", "learners", "streams"):
        shutil.copytree(ROOT / package, src / package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    offline = ["--no-build-isolation"] if _has_build_backend() else []
    built = _sh([sys.executable, "-m", "pip", "wheel", "--no-deps", *offline, "-w",
                 str(base / "wheels"), str(src)])
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = (base / "wheels").glob("onlineboost-*.whl")

    venv = base / "venv"
    made = _sh([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip",
                str(venv)])
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "ONLINEBOOST_DATA", "PYTHONHOME")}
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", VIRTUAL_ENV=str(venv))
    # pip from this machine's site-packages installs into the venv (its sys.prefix)
    installed = _sh([str(python), "-m", "pip", "install", "--no-deps", "--no-index",
                     "--force-reinstall", "--quiet", str(wheel)], env=env)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    work = base / "work"
    work.mkdir()
    return env, work, venv


def _run(newcomer, *args, cwd=None):
    env, work, _ = newcomer
    return _sh(list(args), env=env, cwd=cwd or work)


def test_the_installed_package_is_the_wheel_not_the_checkout(newcomer):
    _, _, venv = newcomer
    out = _run(newcomer, "python", "-c",
               "import onlineboost, streams, learners; "
               "print(onlineboost.__file__, streams.__file__, learners.__file__)")
    assert out.returncode == 0, out.stderr
    for path in out.stdout.split():
        assert Path(path).is_relative_to(venv) and not Path(path).is_relative_to(ROOT)
    assert shutil.which("onlineboost", path=newcomer[0]["PATH"]).startswith(str(venv))


def test_version(newcomer):
    out = _run(newcomer, "onlineboost", "--version")
    declared = re.search(r'^version = "(.+)"$', (ROOT / "pyproject.toml").read_text(),
                         re.MULTILINE).group(1)
    assert (out.returncode, out.stdout.strip()) == (0, f"onlineboost {declared}")


def test_the_main_job_runs_with_no_data_file(newcomer):
    out = _run(newcomer, "onlineboost", "table", "--runs", "2", "--jobs", "1")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert lines[0].startswith("data set") and "N=10" in lines[0]
    assert lines[1].split()[:2] == ["diabetes", "stump"]
    assert lines[-1].startswith("Normalised loss = BoOCO's mean squared error")
    assert "runs 2/2 100%" in out.stderr  # the progress bar, without tqdm, to the end


def _boston_csv(folder: Path) -> Path:
    """A small file with boston.csv's columns (13 features, target medv last)."""
    names = ["crim", "zn", "indus", "chas", "nox", "rm", "age", "dis", "rad", "tax", "ptratio",
             "black", "lstat", "medv"]
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 13))
    y = 22 + 5 * np.tanh(X[:, 5]) + rng.normal(scale=0.5, size=60)
    folder.mkdir(exist_ok=True)
    rows = [",".join(names)] + [",".join(f"{v:.5f}" for v in (*x, t)) for x, t in zip(X, y)]
    (folder / "boston.csv").write_text("\n".join(rows) + "\n")
    return folder


def test_boston_without_data_is_an_error_naming_data_dir_and_with_it_runs(newcomer):
    _, work, _ = newcomer
    missing = _run(newcomer, "onlineboost", "table", "--datasets", "boston", "--runs", "1")
    assert missing.returncode == 1 and missing.stdout == ""
    assert "boston.csv not found" in missing.stderr and "--data-dir" in missing.stderr
    also = _run(newcomer, "onlineboost", "table", "--datasets", "diabetes", "boston", "--runs",
                "1", "--data-dir", str(work / "nope"))
    assert also.returncode == 1 and "--data-dir" in also.stderr  # even with diabetes found
    data = _boston_csv(work / "data")
    found = _run(newcomer, "onlineboost", "table", "--datasets", "boston", "--data-dir",
                 str(data), "--runs", "1", "--n-max", "2", "--jobs", "1", "--no-progress")
    assert found.returncode == 0, found.stderr
    assert found.stdout.splitlines()[1].split()[:2] == ["boston", "stump"]


def _readme_demo() -> str:
    text = (ROOT / "README.md").read_text()
    block = re.search(r"```sh\n(.*?)```", text[text.index(DEMO_MARKER):], re.DOTALL)
    return block.group(1)


def test_the_readmes_crash_and_resume_demo_crashes_mid_stream_and_resumes_exactly(newcomer):
    env, work, _ = newcomer
    scratch = work / "tmp"  # where the demo's mktemp -d goes: empty again at the end
    scratch.mkdir()
    out = _sh(["bash", "-c", _readme_demo()], env={**env, "TMPDIR": str(scratch)}, cwd=work)
    assert out.returncode == 0, out.stdout + out.stderr
    killed = re.search(r"killed after (\d+) of 4000 answers", out.stdout)
    assert killed and 1500 <= int(killed.group(1)) < 4000  # a real crash, mid-stream
    assert "the resumed run answered exactly like an uninterrupted one" in out.stdout
    assert list(scratch.iterdir()) == []  # cleaned up
    assert not {"answers.csv", "model.ckpt", "stream.csv"} & {p.name for p in work.iterdir()}
