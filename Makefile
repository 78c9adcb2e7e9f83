# unostats developer tasks. Everything runs inside ./.venv, which `make setup` creates.
PYTHON ?= python3
VENV   := .venv
VPY    := $(VENV)/bin/python
STAMP  := $(VENV)/.unostats-installed

.DEFAULT_GOAL := help
.PHONY: help setup test demo bench docs clean

help:  ## list the targets
	@echo "make setup   create $(VENV) (with $(PYTHON)) and install unostats with its test, ray and docs extras"
	@echo "make test    set up, then run the test suite on 2 workers (slow tests excluded; add PYTEST_ARGS='-m slow', TEST_WORKERS=N)"
	@echo "make demo    set up, simulate the bundled scenarios, print the summaries, write the reports site reports/ (GAMES=N per cell)"
	@echo "make bench   set up, then compare the engine's speed with the C yardstick (QUICK=1 for a smoke run, BENCH_ARGS=--json)"
	@echo "make docs    regenerate the generated pages (rules, CLI, scenario files, store) and build the site into site/ (strict)"
	@echo "make clean   remove build artefacts, caches (Python, the compiled engine, the report template, pytest) and the install stamp"

setup: $(STAMP)

$(VPY):
	$(PYTHON) -m venv $(VENV)

# Reinstalls only when pyproject.toml changed since the last install.
$(STAMP): pyproject.toml | $(VPY)
	$(VPY) -m pip install --disable-pip-version-check -e '.[test,ray,docs]'
	@touch $@

# pytest's exit 5 means no test was collected: a failure, said out loud. The suite runs on
# TEST_WORKERS processes (pytest-xdist; 2, the CI machine's cores; TEST_WORKERS=0 runs it in
# this process); a file's tests run on one worker, in file order (--dist loadfile: some files'
# last test checks what the earlier ones counted).
TEST_WORKERS ?= 2
test: $(STAMP)
	@rc=0; $(VPY) -m pytest -n $(TEST_WORKERS) --dist loadfile $(PYTEST_ARGS) || rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "make test: FAILED - pytest collected no tests (exit 5)" >&2; fi; \
	exit $$rc

# Every bundled scenario, one run each, into ./unostats.duckdb (kept between demos; each demo
# adds runs), then one report per scenario in the site folder reports/ (reports/<scenario>.html,
# the one plotly.js they share and reports/index.html: copy the folder to publish it). GAMES=N
# overrides the files' games per cell. Ctrl-C keeps what is stored and prints how to resume.
demo: $(STAMP)
	@set -e; for s in scenarios/*.yaml; do \
	  $(VENV)/bin/unostats simulate $$s --db unostats.duckdb $(if $(GAMES),--games $(GAMES)); \
	  $(VENV)/bin/unostats report --db unostats.duckdb --site reports; \
	done

# The site: docs/ built by MkDocs (Material theme, no network) into site/, strict (a broken link
# or reference fails). Generated first: docs/rules.md from src/unostats/catalogue.py and
# src/unostats/rules.py, and the CLI, scenario-file and store references from the app, the
# validator and the schema (docs/gen_reference.py); tests/test_catalogue.py and tests/test_docs.py
# fail when a page is out of date.
docs: $(STAMP)
	$(VPY) -m unostats.catalogue --write
	$(VPY) docs/gen_reference.py --write
	NO_MKDOCS_2_WARNING=1 $(VPY) -m mkdocs build --strict --site-dir site

bench: $(STAMP)
	$(VPY) benchmarks/bench.py $(if $(QUICK),--quick) $(BENCH_ARGS)

# The compiled engine lives in $UNOSTATS_CACHE_DIR, else $NUMBA_CACHE_DIR, else
# $XDG_CACHE_HOME/unostats (~/.cache/unostats): one engine-<hash> folder per version of its sources.
ENGINE_CACHE := $(or $(UNOSTATS_CACHE_DIR),$(NUMBA_CACHE_DIR),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/unostats)

clean:
	rm -f $(STAMP)
	rm -rf $(ENGINE_CACHE)/engine-* $(ENGINE_CACHE)/templates
	rm -rf build dist site .pytest_cache .hypothesis benchmarks/_build src/*.egg-info
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +
	find . -path ./$(VENV) -prune -o \( -name '*.nbi' -o -name '*.nbc' -o -name '*.pyc' \) -type f -exec rm -f {} +
