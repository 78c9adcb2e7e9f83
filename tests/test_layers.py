"""The package's layers run one way: every import of src/unostats, read with ``ast``, against the
layer table below. No cycle, and no module imports from a layer above its own.

Every import counts, wherever it is written: at module level, inside a function (a lazy import
that keeps start-up light still makes its module depend on the one it imports; a cycle hidden
that way is still a cycle), under ``if TYPE_CHECKING:``, and in each of its forms (``import
a.b``, ``from a import b``, ``from . import b``, ``from .. import b``). Importing ``a.b.c`` from
outside package ``a.b`` also runs ``a.b``'s ``__init__`` first, so that is an import of ``a.b``
too: a package whose ``__init__`` imports upwards cannot hide a cycle behind its submodules.

The contract is printed (``pytest -s tests/test_layers.py``); ``test_the_checker_reports_...``
shows on a small made-up package that a cycle and an upward import are caught.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = "unostats"

# Top to bottom. A module imports from its own layer and the layers below, never from above.
# One layer per folder (``test_every_folder_sits_in_one_layer``): a pattern names a folder or a
# module of the top package, and everything under it (the top package itself: only its
# ``__init__``); the longest pattern that names a module decides its layer, and every module
# must have one.
LAYERS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("cli and API", "the command line (thin commands over the layers below, one module per "
     "group) and the Python API at the package's top level, over the same functions",
     ("unostats.cli", "unostats.api", "unostats")),
    ("runs and report", "simulate/resume (one run or a list of them), replay, tune and the "
     "report's pipeline: they find a run's kind in the registry and hand over to it, never "
     "naming a kind themselves",
     ("unostats.runs", "unostats.report")),
    ("run kinds", "the one registry of run kinds (plain games, tournaments, leagues)",
     ("unostats.kinds",)),
    ("executors", "where a kind's games play other than this machine's threads: a Ray cluster",
     ("unostats.executors",)),
    ("kinds", "each kind's package (plain games, tournaments, leagues): its driver, summary "
     "and report sections (and the write of whole tournaments, which writes games)",
     ("unostats.games", "unostats.tournaments", "unostats.leagues", "unostats.design")),
    ("base", "what every kind of run shares: the session of play, signals, progress, the "
     "engine cache, hand-over and memory, precision looks, compare and query; the report's "
     "number formatting and chart look",
     ("unostats.base",)),
    ("store, engine, scenario", "the results database (frames, packing, games' tables and views, "
     "the writer ..., the schema over every kind's tables), the engine (its API over parts, "
     "inputs, outputs and kernels), scenario files (the loader over every kind's section)",
     ("unostats.store", "unostats.engine", "unostats.scenario")),
    ("kinds' specs", "each kind's scenario section and store tables, and its pure part (a "
     "championship's bracket, a league's seatings), in the kind's ``spec`` folder, which the "
     "loader and the store read",
     ("unostats.tournaments.spec", "unostats.leagues.spec", "unostats.design.spec")),
    ("checking and SQL", "what the sections and tables share with the scenario loader and the "
     "store: scenario problems and value checks, the store's errors and SQL helpers (the "
     "Wilson macros, turns as minutes)",
     ("unostats.checking", "unostats.sql")),
    ("catalogue", "the rule catalogue and its page, docs/rules.md (over the rule table)",
     ("unostats.catalogue",)),
    ("leaves", "rules, seats, statistics, ratings, rows out, the pace of durations, seed "
     "sequences by the batch",
     ("unostats.rules", "unostats.seats", "unostats.stats", "unostats.ratings",
      "unostats.output", "unostats.durations", "unostats.seed_sequences")),
    ("atoms", "card ids and event codes and their text, the version, the defaults the command "
     "line shares",
     ("unostats.cards", "unostats.codes", "unostats.event_text", "unostats.defaults",
      "unostats.version")),
)


# --- The checker --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # the imported module (of the package)
    line: int
    in_function: bool = False  # written inside a function (a lazy import)
    via_package: bool = False  # the package __init__ that importing a submodule runs first

    def __str__(self) -> str:
        how = ", inside a function" if self.in_function else ""
        how += ", its package __init__" if self.via_package else ""
        return f"{self.source} -> {self.target} (line {self.line}{how})"


@dataclass
class Result:
    modules: list[str]
    imports: list[Import]
    cycles: list[tuple[list[str], list[Import]]] = field(default_factory=list)  # group, path
    upward: list[tuple[Import, str, str]] = field(default_factory=list)  # import, from, to layer
    unplaced: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.cycles or self.upward or self.unplaced)

    def problems(self) -> list[str]:
        out = [f"module {m} is in no layer: add it to the layer table" for m in self.unplaced]
        for group, path in self.cycles:
            among = ("" if len(group) == len(path)
                     else f" (one cycle of the group {', '.join(group)})")
            out.append("import cycle: " + " -> ".join([path[0].source] + [i.target for i in path])
                       + among + "\n    " + "\n    ".join(str(i) for i in path))
        out += [f"upward import: {i} goes from layer '{a}' up to layer '{b}'"
                for i, a, b in self.upward]
        return out


def find_modules(root: Path, package: str) -> dict[str, Path]:
    """Module name -> file for every .py file of ``package`` under ``root``."""
    out = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


class _Imports(ast.NodeVisitor):
    def __init__(self, module: str, is_package: bool, known: Mapping[str, Path]):
        self.module, self.known = module, known
        self.package = module if is_package else module.rpartition(".")[0]
        self.depth = 0  # functions (and lambdas) around the node being visited
        self.found: list[Import] = []

    def _in_function(self, node: ast.AST) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _in_function

    def _add(self, target: str, node: ast.stmt) -> None:
        imp = Import(self.module, target, node.lineno, self.depth > 0)
        if target != self.module and imp not in self.found:  # one per statement and module
            self.found.append(imp)

    def _longest_known(self, name: str) -> str | None:
        parts = name.split(".")
        for n in range(len(parts), 0, -1):
            if ".".join(parts[:n]) in self.known:
                return ".".join(parts[:n])
        return None

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            target = self._longest_known(alias.name)
            if target is not None:
                self._add(target, node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            base = self.package.split(".")
            base = base[:len(base) - (node.level - 1)]
            base = ".".join(base + ([node.module] if node.module else []))
        else:
            base = node.module or ""
        if base.split(".")[0] != self.module.split(".")[0]:
            return  # another distribution (numpy, duckdb, ...)
        for alias in node.names:
            sub = f"{base}.{alias.name}"
            target = sub if sub in self.known else self._longest_known(base)
            if target is not None:
                self._add(target, node)


def find_imports(known: Mapping[str, Path]) -> list[Import]:
    """Every import between modules of ``known``, with the package __init__ files they run
    (those that import a module of the package: an ``__init__`` that imports none runs nothing
    of it, so reaching a submodule through it depends on nothing above)."""
    direct: dict[str, list[Import]] = {}
    for module, path in known.items():
        visitor = _Imports(module, path.name == "__init__.py", known)
        visitor.visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        direct[module] = visitor.found
    out = []
    for module, found in direct.items():
        for imp in found:
            out.append(imp)
            parts = imp.target.split(".")
            for n in range(1, len(parts)):
                package = ".".join(parts[:n])
                inside = module == package or module.startswith(package + ".")
                if package in known and not inside and direct[package]:
                    out.append(Import(module, package, imp.line, imp.in_function, True))
    return out


def folder_layers(root: Path, package: str,
                  layers: Sequence[tuple[str, str, tuple[str, ...]]]) -> dict[str, set[str]]:
    """Each package folder below the top one -> the layers its modules sit in (one, if the
    folder keeps to one layer; the top package's own modules each name their layer)."""
    out: dict[str, set[str]] = defaultdict(set)
    for module, path in find_modules(root, package).items():
        folder = module if path.name == "__init__.py" else module.rpartition(".")[0]
        place = layer_of(module, layers)
        if folder != package and place is not None:
            out[folder].add(place[1])
    return dict(out)


def _cycles(imports: Sequence[Import]) -> list[tuple[list[str], list[Import]]]:
    """Each strongly connected group of modules (Tarjan) with one cycle through its first
    module, as the imports that make it."""
    edges: dict[str, dict[str, Import]] = defaultdict(dict)
    for imp in imports:  # one import per pair; prefer a plain module-level one for the message
        best = edges[imp.source].get(imp.target)
        if best is None or (best.in_function, best.via_package) > (imp.in_function,
                                                                  imp.via_package):
            edges[imp.source][imp.target] = imp
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(edges[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted({i.source for i in imports} | {i.target for i in imports}):
        if node not in index:
            visit(node)
    out = []
    for group in groups:  # the shortest way from the group's first module back to it
        start, members = group[0], set(group)
        paths = {start: []}
        queue = [start]
        found = None
        while queue and found is None:
            node = queue.pop(0)
            for nxt, imp in sorted(edges[node].items()):
                if nxt == start:
                    found = paths[node] + [imp]
                    break
                if nxt in members and nxt not in paths:
                    paths[nxt] = paths[node] + [imp]
                    queue.append(nxt)
        out.append((group, found))
    return out


def _names(pattern: str, module: str) -> bool:
    if "." not in pattern:  # the top package: its __init__ only
        return module == pattern
    return module == pattern or module.startswith(pattern + ".")


def layer_of(module: str, layers: Sequence[tuple[str, str, tuple[str, ...]]]
             ) -> tuple[int, str] | None:
    """(index from the top, name) of the layer whose longest pattern names ``module``."""
    best = None
    for i, (name, _, patterns) in enumerate(layers):
        for p in patterns:
            if _names(p, module) and (best is None or len(p) > best[0]):
                best = (len(p), i, name)
    return None if best is None else best[1:]


def check(root: Path, package: str,
          layers: Sequence[tuple[str, str, tuple[str, ...]]]) -> Result:
    known = find_modules(root, package)
    imports = find_imports(known)
    result = Result(sorted(known), imports, cycles=_cycles(imports))
    result.unplaced = [m for m in sorted(known) if layer_of(m, layers) is None]
    for imp in imports:
        a, b = layer_of(imp.source, layers), layer_of(imp.target, layers)
        if a is not None and b is not None and b[0] < a[0]:
            result.upward.append((imp, a[1], b[1]))
    return result


def describe(result: Result, layers: Iterable[tuple[str, str, tuple[str, ...]]]) -> str:
    """The contract and the verdict, as text."""
    lines = ["Layers of unostats, top to bottom; a module imports only from its own layer and "
             "the layers below:"]
    for i, (name, what, patterns) in enumerate(layers, start=1):
        lines.append(f"  {i}. {name}: {what}")
        lines.append(f"       {', '.join(patterns)}")
    direct = [i for i in result.imports if not i.via_package]
    lazy = sum(i.in_function for i in direct)
    lines.append(f"{len(result.modules)} modules, {len(direct)} imports between them ({lazy} "
                 f"inside functions) and {len(result.imports) - len(direct)} package __init__ "
                 "files those imports run:")
    lines += [f"  {p}" for p in result.problems()] or ["  no cycle, no upward import: KEPT"]
    return "\n".join(lines)


# --- Tests --------------------------------------------------------------------------------------

def test_layers_run_one_way():
    result = check(SRC, PACKAGE, LAYERS)
    text = describe(result, LAYERS)
    print("\n" + text)
    assert result.ok, text


def test_every_folder_sits_in_one_layer():
    """A folder is one layer: what a folder holds can be told from the table by its name."""
    folders = folder_layers(SRC, PACKAGE, LAYERS)
    print("\n" + "\n".join(f"  {f.removeprefix(PACKAGE + '.')}/: {', '.join(sorted(ls))}"
                           for f, ls in sorted(folders.items())))
    mixed = {f: sorted(ls) for f, ls in folders.items() if len(ls) > 1}
    assert not mixed, f"folders that span layers: {mixed}"
    assert {"unostats.base", "unostats.runs", "unostats.tournaments.spec"} <= set(folders)


def _write(root: Path, files: Mapping[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_the_checker_reports_a_cycle_and_an_upward_import(tmp_path):
    _write(tmp_path, {
        "toy/__init__.py": "",
        "toy/top.py": "from . import low\n",
        # upward, and a cycle with top, hidden inside a function
        "toy/low.py": "def f():\n    from .top import x\n",
        "toy/base.py": "",
        # a package whose __init__ imports from above: importing its submodule runs it
        "toy/pkg/__init__.py": "from .. import mid\n",
        "toy/pkg/leaf.py": "from .. import base\n",
        "toy/mid.py": "import toy.pkg.leaf\n",
    })
    layers = (("top", "", ("toy.top", "toy.mid")), ("low", "", ("toy.low", "toy.pkg")),
              ("base", "", ("toy.base", "toy")))
    result = check(tmp_path, "toy", layers)
    text = describe(result, layers)
    print("\n" + text)
    assert not result.ok
    cycles = {tuple(i.source for i in path) for _, path in result.cycles}
    assert cycles == {("toy.low", "toy.top"), ("toy.mid", "toy.pkg")}
    upward = {(i.source, i.target, i.in_function, i.via_package) for i, _, _ in result.upward}
    assert upward == {("toy.low", "toy.top", True, False), ("toy.pkg", "toy.mid", False, False)}
    assert "import cycle: toy.low -> toy.top -> toy.low" in text
    assert "upward import: toy.low -> toy.top (line 2, inside a function) goes from layer " \
           "'low' up to layer 'top'" in text
    assert "toy.mid -> toy.pkg (line 1, its package __init__)" in text


def test_the_checker_places_every_module(tmp_path):
    _write(tmp_path, {"toy/__init__.py": "", "toy/stray.py": "import os\n"})
    result = check(tmp_path, "toy", (("base", "", ("toy.base",)),))
    assert result.unplaced == ["toy", "toy.stray"]
    assert "module toy.stray is in no layer" in describe(result, ())


def test_an_init_that_imports_nothing_runs_nothing(tmp_path):
    """Reaching a low submodule through a high package's import-free ``__init__`` is no upward
    import; the same ``__init__`` importing a module of its package is one."""
    files = {"toy/__init__.py": "", "toy/high/__init__.py": "", "toy/high/top.py": "",
             "toy/high/low/__init__.py": "", "toy/high/low/leaf.py": "",
             "toy/base.py": "from .high.low import leaf\n"}
    layers = (("high", "", ("toy.high",)), ("low", "", ("toy.high.low", "toy.base", "toy")))
    _write(tmp_path, files)
    assert check(tmp_path, "toy", layers).ok
    _write(tmp_path, {"toy/high/__init__.py": "from . import top\n"})
    upward = {(i.source, i.target) for i, _, _ in check(tmp_path, "toy", layers).upward}
    assert upward == {("toy.base", "toy.high")}
