"""The documentation site: it builds in strict mode (a broken link, a missing anchor or a page left
out of the nav fails) without reaching the network, its generated pages (CLI, scenario files,
store) are what docs/gen_reference.py makes of the code today, and every scenario written in the
docs is one the real loader accepts."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from unostats.scenario import load_text
from unostats.scenario import resolve

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _generator():
    spec = importlib.util.spec_from_file_location("gen_reference", DOCS / "gen_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _build(config: Path, site: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                           str(config), "--site-dir", str(site)],
                          capture_output=True, text=True, env=env, cwd=config.parent)


def test_the_site_builds_in_strict_mode_offline(tmp_path):
    done = _build(ROOT / "mkdocs.yml", tmp_path / "site")
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "WARNING" not in output, output
    pages = sorted(p.relative_to(tmp_path / "site").as_posix()
                   for p in (tmp_path / "site").rglob("*.html"))
    for page in ("index.html", "tutorial.html", "scenario.html", "cli.html", "store.html",
                 "rules.html", "statistics.html", "performance.html", "changelog.html"):
        assert page in pages
    # no web fonts or other files fetched by the pages (theme font: false)
    for page in pages:
        html = (tmp_path / "site" / page).read_text(encoding="utf-8")
        assert "fonts.googleapis" not in html and "fonts.gstatic" not in html, page


def test_a_broken_link_fails_the_build(tmp_path):
    shutil.copytree(DOCS, tmp_path / "docs")
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    page = tmp_path / "docs" / "tutorial.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nSee [nowhere](no-such-page.md).\n",
                    encoding="utf-8")
    done = _build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert done.returncode != 0
    assert "no-such-page.md" in done.stdout + done.stderr


@pytest.mark.parametrize("page", ["cli.md", "scenario.md", "store.md"])
def test_generated_pages_are_current(page):
    made = _generator().PAGES[page]()
    assert (DOCS / page).read_text(encoding="utf-8") == made, \
        f"docs/{page} is out of date: run `make docs`"


def test_the_generator_refuses_a_key_it_does_not_explain(monkeypatch):
    monkeypatch.setattr(resolve, "TOP_KEYS", resolve.TOP_KEYS + ("colour_blind",))
    with pytest.raises(SystemExit, match="colour_blind"):
        _generator().scenario_page()


def _yaml_blocks(page: str) -> list[str]:
    text = (DOCS / page).read_text(encoding="utf-8")
    return re.findall(r"```yaml\n(.*?)```", text, flags=re.DOTALL)


@pytest.mark.parametrize("page", ["scenario.md", "tutorial.md"])
def test_every_scenario_in_the_docs_loads(page):
    blocks = _yaml_blocks(page)
    assert len(blocks) >= (7 if page == "scenario.md" else 1)
    for block in blocks:
        scenario = load_text(block, f"docs/{page}")
        assert scenario.cells(), block


def test_the_readme_links_resolve_and_its_scenario_loads():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = [t.split("#")[0] for t in re.findall(r"\]\(([^)\s]+)\)", text)
               if not t.startswith(("http://", "https://"))]
    assert len(targets) >= 10
    missing = [t for t in targets if not (ROOT / t).is_file()]
    assert not missing, missing
    blocks = re.findall(r"```yaml\n(.*?)```", text, flags=re.DOTALL)
    assert blocks
    for block in blocks:
        assert load_text(block, "README.md").cells()
    # the clone's two commands come first, `make test` among them (CI runs it)
    assert "make demo" in text.split("\n\n", 3)[2] and "make test" in text.split("\n\n", 3)[2]
