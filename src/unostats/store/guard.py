"""What a user's SQL may do to files: ``check_user_sql`` refuses, before anything runs, the
statements of ``unostats query`` that would write or fetch outside the results database.

- ``COPY ... TO 'file'`` writes a new file; an existing file (or folder) only with
  ``overwrite``, and the database's own files (the file, its ``.wal``) never.
- ``INSTALL``/``LOAD`` (DuckDB would download extensions), ``ATTACH`` (opens another database
  for writing, or creates one), ``EXPORT DATABASE``, ``COPY FROM DATABASE`` and ``PREPARE``/
  ``EXECUTE`` (a prepared statement would escape these checks) are refused outright.

Connections are opened with extension auto-install and auto-load off and their configuration
locked (``database.open_store``), so no SQL can turn downloads back on.
"""

from __future__ import annotations

import os
from pathlib import Path

import duckdb

from .sql import StoreError

REFUSED = {
    "LOAD": "INSTALL and LOAD statements are refused: unostats works offline and never "
            "downloads or loads DuckDB extensions",
    "ATTACH": "ATTACH statements are refused: `unostats query` reads the results database "
              "only (open another file with its own --db)",
    "EXPORT": "EXPORT DATABASE is refused (it overwrites files); write each table with "
              "COPY (SELECT ...) TO 'new-file'",
    "COPY_DATABASE": "COPY FROM DATABASE is refused: `unostats query` reads the results "
                     "database only",
    "PREPARE": "PREPARE/EXECUTE are refused; bind values with --param NAME=VALUE instead",
    "EXECUTE": "PREPARE/EXECUTE are refused; bind values with --param NAME=VALUE instead",
}


def database_files(db_path: str | os.PathLike) -> list[Path]:
    """The files DuckDB keeps for a database: the file itself and its write-ahead log."""
    path = Path(db_path)
    return [path, path.with_name(path.name + ".wal")]


def check_user_sql(sql: str, *, db_path: str | os.PathLike, overwrite: bool = False) -> None:
    """Raise StoreError if ``sql`` would download, attach, or write over an existing file."""
    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as e:
        raise StoreError(" ".join(str(e).split())) from None
    for statement in statements:
        kind = statement.type.name
        if kind in REFUSED:
            raise StoreError(REFUSED[kind])
        if kind == "COPY":
            target = copy_target(statement.query)
            if target is not None:
                _check_target(target, db_path, overwrite)


def _check_target(target: str, db_path: str | os.PathLike, overwrite: bool) -> None:
    path = Path(os.path.expanduser(target))
    for own in database_files(db_path):
        if _same_file(path, own):
            raise StoreError(f"COPY ... TO {target!r} is refused: it is the results database's "
                             "own file; choose another file name")
    if os.path.lexists(path) and not overwrite:
        what = "folder" if path.is_dir() else "file"
        raise StoreError(f"COPY ... TO {target!r} is refused: that {what} exists and would be "
                         "overwritten; choose a new file name, or add --overwrite")


def _same_file(a: Path, b: Path) -> bool:
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    return os.path.realpath(a) == os.path.realpath(b)


# --- Finding the target of COPY ... TO ----------------------------------------------------------

def copy_target(statement: str) -> str | None:
    """The file name after the top-level TO of a COPY statement, None for COPY ... FROM.

    The target must be one quoted string ('file.csv'); anything else (an expression, a
    parameter, a dollar-quoted string) is refused, since it could not be checked."""
    tokens = list(_tokens(statement))
    for i, (kind, text, depth) in enumerate(tokens):
        if depth == 0 and kind == "word" and text.upper() == "FROM" and i > 0:
            return None
        if depth == 0 and kind == "word" and text.upper() == "TO":
            nxt = tokens[i + 1] if i + 1 < len(tokens) else None
            if nxt is None or nxt[0] != "string":
                raise StoreError("COPY ... TO needs the file name as one quoted string, e.g. "
                                 "COPY (SELECT ...) TO 'rounds.csv'")
            return nxt[1]
    return None


def _tokens(text: str):
    """(kind, text, paren depth) for words, strings and symbols; comments and quoted
    identifiers are skipped as units so that nothing inside them counts."""
    i, n, depth = 0, len(text), 0
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif text.startswith("--", i):
            j = text.find("\n", i)
            i = n if j < 0 else j + 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif c == "'":
            j, parts = i + 1, []
            while j < n:
                if text[j] == "'":
                    if text.startswith("''", j):
                        parts.append("'")
                        j += 2
                        continue
                    break
                parts.append(text[j])
                j += 1
            yield "string", "".join(parts), depth
            i = j + 1
        elif c == '"':
            j = text.find('"', i + 1)
            while j >= 0 and text.startswith('""', j):
                j = text.find('"', j + 2)
            yield "ident", text[i:j + 1], depth
            i = n if j < 0 else j + 1
        elif c.isalnum() or c == "_":
            j = i
            while j < n and (text[j].isalnum() or text[j] in "_$"):
                j += 1
            yield "word", text[i:j], depth
            i = j
        else:
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
            yield "symbol", c, depth
            i += 1
