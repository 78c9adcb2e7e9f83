"""unostats stands alone: what a user reads (the package's code, comments, help and templates,
the docs, the bundled scenarios, the README) points only inside the project (no paths to the
team's shared folder or its source files, no word of the team's issue tracker), and the bundled
scenarios are found through the package's resources and run by name. The slow test builds a
wheel, installs it into a fresh venv and runs a bundled scenario by name from an empty folder."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import duckdb
import pytest

from unostats.scenario import (
    ScenarioError,
    bundled_dir,
    bundled_presets,
    bundled_scenarios,
    load_scenario,
    locate_scenario,
)

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "unostats"

# What must never appear: paths out of the project to the team's folder or its source
# documents, the catalogue's old file name, and the issue tracker.
FORBIDDEN = {
    "a path to the team's shared folder": re.compile(r"\.\./shared|/work/|\bshared/(seeds|bench)"),
    "a path to the source documents": re.compile(r"\bseeds/|\bseeds?/0\d\d|_[0-9a-f]{16}\.txt"),
    "the catalogue outside the project": re.compile(r"RULES\.md|CONVENTIONS\.md"),
    "the issue tracker": re.compile(r"\bissues?\b", re.IGNORECASE),
}


def user_facing_files() -> list[Path]:
    files = [p for p in PACKAGE.rglob("*") if p.is_file() and "__pycache__" not in p.parts
             and p.suffix in (".py", ".j2", ".html", ".md", ".txt", ".yaml", ".json")]
    files += sorted((ROOT / "docs").rglob("*.md")) + sorted((ROOT / "scenarios").glob("*.yaml"))
    files += [ROOT / "README.md"]
    return files


def test_every_reference_points_inside_the_project():
    files = user_facing_files()
    assert len(files) > 60 and ROOT / "docs" / "rules.md" in files
    found = []
    for path in files:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for what, pattern in FORBIDDEN.items():
                if pattern.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{n}: {what}: {line.strip()[:100]}")
    assert not found, "\n".join(found)


@pytest.mark.parametrize("line", [
    "see ../shared/RULES.md", "the source (seeds/002)", "from shared/bench/uno_ref.c",
    "# issue 5: the rules", "Issues are tracked elsewhere", "seeds/000_04053542a56f51f8.txt"])
def test_the_patterns_catch_outside_references(line):
    assert any(p.search(line) for p in FORBIDDEN.values())


def test_bundled_scenarios_come_from_the_package_resources(monkeypatch):
    monkeypatch.delenv("UNOSTATS_SCENARIOS", raising=False)
    folder = bundled_dir()
    names = set(bundled_presets())
    assert {"standard", "extreme", "championship", "tournament"} <= names
    # a wheel ships scenarios/ as unostats/scenarios (pyproject's wheel target), which
    # bundled_dir finds through importlib.resources; in a checkout it is the repository's folder
    assert sorted(p.name for p in folder.glob("*.yaml")) == \
        sorted(p.name for p in (ROOT / "scenarios").glob("*.yaml"))
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '"scenarios" = "unostats/scenarios"' in pyproject


def test_a_bundled_scenario_loads_by_name_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    scenario = load_scenario("extreme")
    assert scenario.name == "extreme" and scenario.source_path == bundled_presets()["extreme"]
    (tmp_path / "extreme").write_text("name: mine\ngames: 1\nplayers: 2\nvariants: [{name: a}]\n")
    assert load_scenario("extreme").name == "mine"  # a path that exists wins over a name
    with pytest.raises(ScenarioError) as e:
        locate_scenario("extrem")
    assert "did you mean 'extreme'?" in str(e.value) and "championship, design, extreme" in str(e.value)
    with pytest.raises(ScenarioError) as e:
        locate_scenario("scenarios/standard.yaml")
    assert "`unostats simulate standard`" in str(e.value)


def _run(args: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, check=False, **kw)


@pytest.mark.slow
def test_fresh_wheel_runs_a_bundled_scenario_by_name(tmp_path):
    """pip wheel -> a fresh venv (its dependencies from this interpreter's site-packages, so no
    network) -> `unostats simulate extreme` in an empty folder."""
    dist = tmp_path / "dist"
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                  "-w", str(dist), str(ROOT)])
    if built.returncode != 0 and "hatchling" in built.stderr:
        built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(dist),
                      str(ROOT)])
    assert built.returncode == 0, built.stderr
    (wheel,) = dist.glob("unostats-*.whl")
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True, system_site_packages=False).create(env_dir)
    py = env_dir / "bin" / "python"
    # the dependencies come from the running environment: a .pth file adds its site-packages
    # after the venv's own, so the wheel's unostats (installed into the venv) is the one imported
    site = _run([str(py), "-c", "import site; print(site.getsitepackages()[0])"]).stdout.strip()
    deps = [p for p in sys.path if p.endswith("site-packages")]
    Path(site, "zz_deps.pth").write_text("\n".join(deps) + "\n")
    installed = _run([str(py), "-m", "pip", "install", "--no-deps", "--no-index", str(wheel)])
    assert installed.returncode == 0, installed.stderr
    work = tmp_path / "empty"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "UNOSTATS_SCENARIOS")}
    result = _run([str(env_dir / "bin" / "unostats"), "simulate", "extreme", "--games", "20",
                   "--db", "x.duckdb", "-q", "--format", "csv"], cwd=work, env=env)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 1 + 26 and ",extreme,extreme,4,20," in result.stdout
    where = _run([str(py), "-c", "import unostats, sys; print(unostats.__file__)"], cwd=work,
                 env=env).stdout
    assert where.startswith(str(env_dir)), where  # the wheel's copy ran, not the checkout
    listing = _run([str(env_dir / "bin" / "unostats"), "scenarios"], cwd=work, env=env)
    assert listing.returncode == 0 and "extreme" in listing.stdout
    assert str(env_dir) in listing.stderr  # the bundled files inside the installed package
    assert sorted(os.listdir(work)) == ["x.duckdb"]
    shutil.rmtree(env_dir)


@pytest.mark.parametrize("columns", [60, 100, 160])
def test_scenarios_listing_fits_the_terminal(invoke, columns, monkeypatch):
    monkeypatch.setenv("COLUMNS", str(columns))
    result = invoke("scenarios")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["name", "description"]
    assert max(len(line) for line in lines) <= columns
    names = [line.split()[0] for line in lines[2:] if not line.startswith(" ")]
    listed = bundled_scenarios()
    assert names == [name for name, _, _ in listed]
    per_name = len(lines[2:]) / len(names)
    assert per_name <= 3  # at most three lines each, the rest cut
    assert any(line.endswith(" ...") for line in lines)  # the long ones say they are cut
    assert "--format json" in result.stderr
    full = {r["name"]: r for r in json.loads(invoke("scenarios", "-f", "json").stdout)}
    assert {name: (text, str(path)) for name, text, path in listed} == \
        {n: (r["description"], r["file"]) for n, r in full.items()}


def test_simulate_by_name_stores_the_name(invoke, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = invoke("simulate", "standard", "--games", 2, "--set", "players=2", "--db", "s.duckdb",
                    "-q", "--format", "csv")
    assert result.exit_code == 0, result.output
    con = duckdb.connect("s.duckdb", read_only=True)
    (command,), = con.execute("SELECT command FROM runs").fetchall()
    con.close()
    assert command.startswith("unostats simulate standard --games 2 --set players=2")
