"""The Parquet results store (``--store parquet:DIR``): a run's games as a Parquet dataset that
whoever plays the games writes shard by shard, the driver's record of the batches complete, and
the DuckDB connection that reads it all through the same tables and views as a results file.

Layout of DIR (any path or URI a pyarrow file system accepts: a folder, ``file://``,
``s3://bucket/prefix``)::

    unostats-store.json                     marks DIR as a store (format, schema version)
    runs/<run_id>.json                      one manifest per run (below)
    <table>/run_id=<id>/variant=<v>/players=<n>/games-<first>-<end>.parquet

``<table>`` is each table the DuckDB store appends a batch to (``games.FRAME_COLUMNS``: games,
game_seats, rounds, round_seats), with its columns and types (the cell columns included, so a
shard needs no path to be read); ``first`` .. ``end - 1`` are the batch's games (12 digits),
``<v>`` the variant name percent-encoded. A shard is written to a temporary name and renamed
(``write_shards``), so it is whole or absent; its name is a function of the batch, so a batch
played again (a retried task, a resume with the same batch sizes) overwrites it with the same
rows.

The manifest holds the run's rows of every metadata table (``runs``, ``variants``,
``precision_looks``, and any other table keyed by ``run_id``) and ``parquet_batches``: the
batches the driver recorded (``record_shards``), one row each. Readers read only the shards of
recorded batches, so a shard written but never recorded (a crash between the two, a worker
that lost its driver) is ignored; a batch recorded twice is stored once; a batch overlapping a
recorded one otherwise is refused. The manifest is replaced whole after every batch (temporary
name and rename; one PUT on an object store), so a reader sees a run at one batch boundary.

Why JSON manifests in DIR rather than a DuckDB file: DuckDB writes its files only on a local
disk, and DIR may be object storage; one small file per run also lets runs of several drivers
share DIR without a lock. Readers never list the shard folders, only ``runs/``.

The connection of both the writer and the readers is an in-memory DuckDB with the store's whole
schema (``database.SCHEMA_DDL``): the metadata tables are filled from the manifests, and each
shard table is replaced by a view over the recorded shards (an Arrow dataset over the pyarrow
file system: DuckDB opens no file of DIR, so a reader's SQL can neither read nor write one),
so every standard view and every reader works unchanged. The writer (``ParquetWriter``) writes
the runs it changed back to their manifests at every commit and batch; the views follow the
batches lazily. Opening checks what a hand could have edited (``_check_batches``,
``check_shards``): each fault is one sentence naming the file.
"""

from __future__ import annotations

import functools
import json
import os
import secrets
import shutil
import tempfile
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.fs as pafs

from ..sql import StoreError, first_line
from . import database, games

PREFIX = "parquet:"
MARKER = "unostats-store.json"
MANIFESTS = "runs"
FORMAT = "unostats parquet store"
FORMAT_VERSION = 1
BATCHES_TABLE = "parquet_batches"
COMPRESSION = "zstd"

BATCHES_DDL = f"""CREATE TABLE IF NOT EXISTS {BATCHES_TABLE} (
  run_id VARCHAR NOT NULL,
  variant VARCHAR NOT NULL,
  players SMALLINT NOT NULL,
  first_game BIGINT NOT NULL,        -- the batch's games: first_game .. end_game - 1
  end_game BIGINT NOT NULL,
  rows JSON NOT NULL,                -- rows per shard table
  PRIMARY KEY (run_id, variant, players, first_game)
)"""


# --- Where the store is ------------------------------------------------------------------------

@dataclass(frozen=True)
class ParquetLocation:
    """A Parquet store: the pyarrow file system and the path of DIR in it. ``uri`` is DIR as
    the user gave it (messages, the resume command). Picklable (pyarrow file systems are)."""

    uri: str
    filesystem: pafs.FileSystem = field(compare=False)
    root: str

    def __str__(self) -> str:
        return PREFIX + self.uri

    @property
    def is_local(self) -> bool:
        return isinstance(self.filesystem, pafs.LocalFileSystem)

    def path(self, *parts: str) -> str:
        return "/".join((self.root.rstrip("/"), *parts)) if self.root else "/".join(parts)


def parquet_location(uri: str, filesystem: pafs.FileSystem | None = None) -> ParquetLocation:
    """DIR as a location: a local path (relative ones from the working directory) or a URI
    pyarrow knows (``file://``, ``s3://``, ``gs://``, ``hdfs://``...); or, with
    ``filesystem``, a path inside that file system (e.g. a ``SubTreeFileSystem``)."""
    text = str(uri)
    if not text.strip():
        raise StoreError("--store parquet: needs a folder or URI after 'parquet:', "
                         "e.g. --store parquet:results/ or --store parquet:s3://bucket/unostats")
    if filesystem is not None:
        return ParquetLocation(text, filesystem, text.rstrip("/"))
    if "://" not in text:
        root = os.path.abspath(os.path.expanduser(text))
        return ParquetLocation(text, pafs.LocalFileSystem(), root)
    try:
        fs, root = pafs.FileSystem.from_uri(text)
    except (pa.ArrowException, ValueError, OSError) as e:
        raise StoreError(f"--store parquet:{text}: not a location pyarrow can open "
                         f"({first_line(str(e))}); give a folder, or a URI such as "
                         "file:///data/unostats or s3://bucket/unostats") from None
    return ParquetLocation(text, fs, root.rstrip("/"))


def parse_store(spec: str) -> ParquetLocation | Path:
    """A ``--store`` value: ``parquet:DIR`` (a ``ParquetLocation``) or ``duckdb:FILE`` (the
    file's ``pathlib.Path``, as ``--db FILE``)."""
    kind, colon, rest = str(spec).partition(":")
    if colon and kind == "parquet":
        return parquet_location(rest)
    if colon and kind == "duckdb":
        if not rest.strip():
            raise StoreError("--store duckdb: needs a file name, e.g. --store duckdb:results.duckdb")
        return Path(rest)
    raise StoreError(f"--store {spec!r}: expected parquet:DIR (a folder, or a URI such as "
                     "s3://bucket/prefix) or duckdb:FILE")


def _info(loc: ParquetLocation, path: str) -> pafs.FileInfo:
    try:
        return loc.filesystem.get_file_info(path)
    except (pa.ArrowException, OSError) as e:
        raise StoreError(f"cannot reach {loc}: {first_line(str(e))}") from None


def _read_text(loc: ParquetLocation, path: str) -> str:
    with loc.filesystem.open_input_stream(path) as f:
        return f.read().decode("utf-8")


def _write_atomic(loc: ParquetLocation, path: str, write) -> None:
    """``write(temp_path)`` then rename to ``path``: readers see the old file or the new one."""
    fs = loc.filesystem
    parent = path.rsplit("/", 1)[0]
    name = path.rsplit("/", 1)[1]
    tmp = f"{parent}/.{name}.{secrets.token_hex(4)}.tmp"
    fs.create_dir(parent, recursive=True)
    try:
        write(tmp)
        fs.move(tmp, path)
    except BaseException:
        try:
            fs.delete_file(tmp)
        except (pa.ArrowException, OSError):
            pass
        raise


def _write_text(loc: ParquetLocation, path: str, text: str) -> None:
    def write(tmp: str) -> None:
        with loc.filesystem.open_output_stream(tmp) as f:
            f.write(text.encode("utf-8"))
    _write_atomic(loc, path, write)


def stored_runs_exist(loc: ParquetLocation) -> bool:
    """DIR is a store (its marker exists)."""
    return _info(loc, loc.path(MARKER)).type == pafs.FileType.File


def check_store(loc: ParquetLocation, *, create: bool) -> None:
    """DIR is a store of this schema version (``create``: or becomes one, if new or empty)."""
    marker = loc.path(MARKER)
    info = _info(loc, loc.root) if loc.root else None
    if info is not None and info.type == pafs.FileType.File:
        raise StoreError(f"{loc}: {loc.uri} is a file; --store parquet: takes a folder "
                         "(a DuckDB file is --db FILE)")
    if _info(loc, marker).type != pafs.FileType.File:
        if not create:
            raise StoreError(f"no Parquet results store at {loc.uri} (no {MARKER}); create one "
                             f"with `unostats simulate SCENARIO --store {loc}`")
        is_folder = info is not None and info.type == pafs.FileType.Directory
        if is_folder and loc.filesystem.get_file_info(pafs.FileSelector(loc.root)):
            raise StoreError(f"{loc.uri} is a folder with other files, not a unostats Parquet "
                             "store; choose a new or empty folder")
        _write_text(loc, marker, json.dumps({"format": FORMAT, "version": FORMAT_VERSION,
                                              "schema_version": database.SCHEMA_VERSION}) + "\n")
        return
    try:
        head = json.loads(_read_text(loc, marker))
        ok = head.get("format") == FORMAT
    except (ValueError, AttributeError):
        ok = False
    if not ok:
        raise StoreError(f"{loc}: {MARKER} is not a unostats store marker; the folder was "
                         "altered or is not a store")
    if head.get("version") != FORMAT_VERSION or head.get("schema_version") != database.SCHEMA_VERSION:
        raise StoreError(f"{loc} has Parquet store format {head.get('version')} with results "
                         f"schema version {head.get('schema_version')}, but this unostats uses "
                         f"format {FORMAT_VERSION}, schema version {database.SCHEMA_VERSION}; "
                         "use the matching unostats version or a new folder")


# --- Shards (written by whoever plays the games) -----------------------------------------------

@functools.cache
def shard_schemas() -> dict[str, pa.Schema]:
    """Each shard table's Arrow schema: the DuckDB store's view of the table
    (``games.CELL_VIEWS_DDL``: the cell columns, then the frame's) as DuckDB hands it to Arrow."""
    con = duckdb.connect(":memory:", config=dict(database.OFFLINE_CONFIG))
    try:
        for ddl in (*games.TABLES_DDL, *games.CELL_VIEWS_DDL):
            con.execute(ddl)
        return {t: con.sql(f"SELECT * FROM {t} LIMIT 0").arrow().schema
                for t in games.FRAME_COLUMNS}
    finally:
        con.close()


def shard_path(loc: ParquetLocation, table: str, run_id: str, variant: str, players: int,
               first: int, end: int) -> str:
    return loc.path(table, f"run_id={_quote(run_id)}", f"variant={_quote(variant)}",
                    f"players={int(players)}", f"games-{first:012d}-{end:012d}.parquet")


def _quote(value: str) -> str:
    return urllib.parse.quote(str(value), safe="")


@dataclass(frozen=True)
class ShardReceipt:
    """What ``write_shards`` wrote: the batch (cell, games ``first`` .. ``end - 1``) and the rows
    of each table. Picklable: a worker returns it and the driver records it."""

    run_id: str
    variant: str
    players: int
    first: int
    end: int
    rows: tuple[tuple[str, int], ...]


def write_shards(location: ParquetLocation | str, run_id: str, variant: str, players: int,
                 batch: Any) -> ShardReceipt:
    """Write one engine batch (``games``, ``game_seats``, ``rounds``, ``round_seats``: polars
    frames or Arrow tables, as ``simulate_arrow`` yields them) as one Parquet shard per table,
    each atomically (temporary name, then rename). ``location``: a ``ParquetLocation`` or the
    DIR of ``parquet:DIR``. The batch's games must be consecutive; nothing is recorded: hand
    the receipt to the driver (``record_shards``). Raises StoreError for a batch that does not
    fit the schema (columns, a value out of its type's range)."""
    import pyarrow.parquet as pq  # here: importing it costs every command 0.1 s

    loc = location if isinstance(location, ParquetLocation) else parquet_location(location)
    frames = {name: games.as_arrow(df) for name, df in games.frames_of(batch).items()
              if name in games.FRAME_COLUMNS}
    if any(frame is None for frame in frames.values()):
        raise StoreError("a Parquet store keeps rows: this batch has its games' totals instead "
                         "of its rounds (played with totals=True)")
    game_col = frames["games"]["game"].to_numpy()
    if len(game_col) == 0:
        raise StoreError("an empty batch has no games to write")
    first, end = int(game_col.min()), int(game_col.max()) + 1
    games._check_game_range(frames, first)
    key = {"run_id": run_id, "variant": variant, "players": int(players)}
    rows = []
    for table, frame in frames.items():
        data = _typed(table, frame, key)
        path = shard_path(loc, table, run_id, variant, players, first, end)
        _write_atomic(loc, path, lambda tmp, data=data: pq.write_table(
            data, tmp, filesystem=loc.filesystem, compression=COMPRESSION))
        rows.append((table, data.num_rows))
    return ShardReceipt(run_id, variant, int(players), first, end, tuple(rows))


def _typed(table: str, frame: pa.Table, key: Mapping[str, Any]) -> pa.Table:
    """The frame as the store's table: the cell columns added, every column cast (safely: a
    value out of range fails) to its type, in the table's order."""
    schema = shard_schemas()[table]
    n = frame.num_rows
    columns = []
    for f in schema:
        if f.name in key:
            columns.append(pa.array(np.full(n, key[f.name]) if f.name == "players"
                                    else [key[f.name]] * n, type=f.type))
            continue
        try:
            columns.append(frame[f.name].cast(f.type, safe=True))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
            raise StoreError(f"cannot store the batch's {table}.{f.name}: "
                             f"{first_line(str(e))}") from None
    return pa.Table.from_arrays(columns, schema=schema)


# --- Manifests ---------------------------------------------------------------------------------

def _manifest_path(loc: ParquetLocation, run_id: str) -> str:
    return loc.path(MANIFESTS, f"{_quote(run_id)}.json")


def _run_tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The metadata tables a manifest holds: every base table keyed by run_id that is not a
    shard table (runs, variants, precision_looks, parquet_batches, the tournament tables)."""
    return [t for (t,) in con.execute(
        """SELECT table_name FROM information_schema.columns
           WHERE table_schema = 'main' AND column_name = 'run_id'
             AND table_name IN (SELECT table_name FROM information_schema.tables
                                WHERE table_schema = 'main' AND table_type = 'BASE TABLE')
           ORDER BY table_name""").fetchall()
            if t not in games.FRAME_COLUMNS and t != "cells"]  # cells: the DuckDB store's ids


def _manifest_text(con: duckdb.DuckDBPyConnection, run_id: str,
                   given: Mapping[str, list[str]] | None = None) -> str:
    """A run's manifest: its rows of every metadata table. ``given``: table -> its rows as
    JSON texts, instead of reading them (the writer keeps the batches it recorded)."""
    parts = []
    for table in _run_tables(con):
        cur = con.execute(f"SELECT * FROM {table} WHERE run_id = ?"
                          + (" LIMIT 0" if given and table in given else ""), [run_id])
        rows = given[table] if given and table in given else [_json(r) for r in cur.fetchall()]
        if rows:
            columns = _json([d[0] for d in cur.description])
            parts.append(f'{_json(table)}:{{"columns":{columns},"rows":[{",".join(rows)}]}}')
    head = _json({"format": FORMAT, "version": FORMAT_VERSION, "run_id": run_id})
    return f'{head[:-1]},"tables":{{{",".join(parts)}}}}}\n'


def _json(value: Any) -> str:
    return json.dumps(value, default=_json_value, separators=(",", ":"))


def _json_value(value: Any) -> Any:
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)


def _load_manifests(con: duckdb.DuckDBPyConnection, loc: ParquetLocation) -> dict[str, str]:
    """Fill the metadata tables from every run manifest of DIR; returns run id -> its text."""
    folder = loc.path(MANIFESTS)
    if _info(loc, folder).type != pafs.FileType.Directory:
        return {}
    texts = {}
    tables = set(_run_tables(con))
    for info in sorted(loc.filesystem.get_file_info(pafs.FileSelector(folder)),
                       key=lambda i: i.path):
        if info.type != pafs.FileType.File or not info.base_name.endswith(".json") \
                or info.base_name.startswith("."):
            continue
        name = f"{MANIFESTS}/{info.base_name}"
        text = _read_text(loc, info.path)
        try:
            doc = json.loads(text)
            run_id = doc["run_id"]
            content = doc["tables"]
            parts = [(t, part["columns"], part["rows"]) for t, part in content.items()]
        except (ValueError, KeyError, TypeError, AttributeError):
            raise StoreError(f"{loc}: {name} is not a run manifest (damaged or not written by "
                             "unostats); restore it from a copy, or move it out of the store"
                             ) from None
        if not isinstance(run_id, str) or info.path != _manifest_path(loc, run_id):
            raise StoreError(f"{loc}: {name} holds run {run_id!r}, whose manifest is "
                             f"{MANIFESTS}/{_quote(run_id)}.json; the file was renamed or copied "
                             "by hand: restore its name, or move it out of the store")
        for table, columns, rows in parts:
            if table not in tables:
                raise StoreError(f"{loc}: {name} has table {table}, which this schema does not "
                                 "have; restore the manifest from a copy")
            if table == BATCHES_TABLE:
                _check_batches(loc, name, run_id, columns, rows)
            try:
                _insert_rows(con, table, columns, rows)
            except (duckdb.Error, pa.ArrowException, IndexError, TypeError) as e:
                raise StoreError(f"{loc}: the {table} rows of {name} do not fit its columns "
                                 f"({first_line(str(e))}); the manifest was edited or damaged: "
                                 "restore it from a copy") from None
        texts[run_id] = text
    return texts


def _check_batches(loc: ParquetLocation, name: str, run_id: str, columns: list[str],
                   rows: list[list[Any]]) -> None:
    """The recorded batches of a manifest are the run's, each a range of games, and no two of
    a cell share a game (the writer records each batch once: ``ParquetWriter.record``)."""
    fix = (f"the manifest was edited by hand: restore {name} from a copy (unostats records "
           "each batch once)")
    try:
        at = [columns.index(c) for c in ("run_id", "variant", "players", "first_game",
                                         "end_game")]
        batches = [tuple(r[i] for i in at) for r in rows]
    except (ValueError, IndexError, TypeError):
        raise StoreError(f"{loc}: the {BATCHES_TABLE} rows of {name} lack their columns; "
                         f"{fix}") from None
    cells: dict[tuple, list[tuple[int, int]]] = {}
    for rid, variant, players, first, end in batches:
        if rid != run_id:
            raise StoreError(f"{loc}: {name} records a batch of run {rid!r}, not of its own run "
                             f"{run_id!r}; {fix}")
        if not (type(first) is int and type(end) is int and 0 <= first < end):
            raise StoreError(f"{loc}: {name} records a batch of games {first!r}..{end!r}, which "
                             f"is not a range of games; {fix}")
        cells.setdefault((variant, players), []).append((first, end))
    for (variant, players), ranges in cells.items():
        ranges.sort()
        for (a, b), (c, d) in zip(ranges, ranges[1:]):
            if c < b:
                what = (f"the batch of games {a}..{b - 1} twice" if (a, b) == (c, d) else
                        f"overlapping batches (games {a}..{b - 1} and {c}..{d - 1})")
                raise StoreError(f"{loc}: {name} records {what} of {variant!r} at {players} "
                                 f"players; {fix}")


def check_shards(loc: ParquetLocation, con: duckdb.DuckDBPyConnection) -> None:
    """Every shard of a recorded batch is there, a regular file of DIR (not a symbolic link
    out of it) with its table's schema: a store edited by hand is refused when it is opened,
    naming the shard, rather than deep inside a read."""
    import pyarrow.parquet as pq  # here: importing it costs every command 0.1 s

    batches = con.execute(f"SELECT run_id, variant, players, first_game, end_game "
                          f"FROM {BATCHES_TABLE} ORDER BY ALL").fetchall()
    for table, schema in shard_schemas().items():
        paths = [shard_path(loc, table, *b) for b in batches]
        for b, path, info in zip(batches, paths, _infos(loc, paths)):
            rel = path[len(loc.root):].lstrip("/")
            fix = (f"restore it from a copy of the store, or move the run's manifest "
                   f"{MANIFESTS}/{_quote(b[0])}.json out of the store to drop run {b[0]}")
            if info.type == pafs.FileType.NotFound:
                raise StoreError(f"{loc}: the shard {rel} of a recorded batch is missing; {fix}")
            if info.type != pafs.FileType.File or (loc.is_local and _linked(loc, path)):
                raise StoreError(f"{loc}: the shard {rel} is not a regular file of the store "
                                 f"(a symbolic link, or a folder); {fix}")
            try:
                found = pq.read_schema(path, filesystem=loc.filesystem)
            except (pa.ArrowException, OSError) as e:
                raise StoreError(f"{loc}: the shard {rel} is not a Parquet file "
                                 f"({first_line(str(e))}); {fix}") from None
            if not found.equals(schema, check_metadata=False):
                want = ", ".join(f"{f.name} {f.type}" for f in schema)
                raise StoreError(f"{loc}: the shard {rel} does not have the columns of a "
                                 f"{table} shard ({want}); {fix}")


def _infos(loc: ParquetLocation, paths: list[str]) -> list[pafs.FileInfo]:
    try:
        return loc.filesystem.get_file_info(paths) if paths else []
    except (pa.ArrowException, OSError) as e:
        raise StoreError(f"cannot reach {loc}: {first_line(str(e))}") from None


def _linked(loc: ParquetLocation, path: str) -> bool:
    """A local shard reached through a symbolic link (the file, or a folder on its way)."""
    root = os.path.realpath(loc.root)
    return os.path.realpath(path) != os.path.join(root, os.path.relpath(path, loc.root))


def _insert_rows(con: duckdb.DuckDBPyConnection, table: str, columns: list[str],
                 rows: list[list[Any]]) -> None:
    data = pa.table({c: pa.array([r[i] for r in rows]) for i, c in enumerate(columns)})
    con.register("_manifest_rows", data)
    try:
        con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM _manifest_rows")
    finally:
        con.unregister("_manifest_rows")


# --- The connection over DIR -------------------------------------------------------------------

def _connect(memory_limit: str | None, path: str = ":memory:") -> duckdb.DuckDBPyConnection:
    """A new database with the store's schema, the shard tables left out (``_define_views``
    makes them views)."""
    con = duckdb.connect(path, config=dict(database.OFFLINE_CONFIG))
    try:
        _settings(con, memory_limit)
        for ddl in (*database.SCHEMA_DDL, BATCHES_DDL):
            con.execute(ddl)
        con.execute("INSERT INTO meta VALUES ('schema_version', ?)",
                    [str(database.SCHEMA_VERSION)])
        for table in games.FRAME_COLUMNS:  # the DuckDB store's views over its stored rows
            con.execute(f"DROP VIEW {table}")
    except BaseException:
        con.close()
        raise
    return con


def _settings(con: duckdb.DuckDBPyConnection, memory_limit: str | None) -> None:
    con.execute("SET TimeZone = 'UTC'")  # as a results file's connections
    con.execute("SET enable_progress_bar = false")
    if memory_limit:
        con.execute("SET memory_limit = ?", [memory_limit])


def _define_views(con: duckdb.DuckDBPyConnection, loc: ParquetLocation) -> dict[str, Any]:
    """Each shard table as a view over the shards of the recorded batches: an Arrow dataset
    that pyarrow reads (no shards: an empty Arrow table of the table's schema), so that DuckDB
    itself opens no file of DIR and a reader's sandbox (``database.sandbox``) allows none.
    Returns the Arrow data registered, by name: registered again, they serve the same views
    on another connection."""
    import pyarrow.dataset as pads  # here: importing it costs every command 0.1 s

    batches = con.execute(f"SELECT run_id, variant, players, first_game, end_game "
                          f"FROM {BATCHES_TABLE} ORDER BY ALL").fetchall()
    registered = {}
    for table, schema in shard_schemas().items():
        paths = [shard_path(loc, table, *b) for b in batches]
        source = f"_parquet_{table}"
        columns = ", ".join(schema.names)
        data = (pads.dataset(paths, schema=schema, format="parquet",
                             filesystem=loc.filesystem) if paths else schema.empty_table())
        con.register(source, data)
        registered[source] = data
        con.execute(f"CREATE OR REPLACE VIEW {table} AS SELECT {columns} FROM {source}")
    # The rows by cell (``games.BY_CELL``, which the standard views read): the cells numbered
    # here, in the order of their keys.
    con.execute("DELETE FROM cells")
    con.execute("INSERT INTO cells SELECT row_number() OVER (ORDER BY run_id, variant, "
                "players), * FROM (SELECT DISTINCT run_id, variant, players "
                f"FROM {BATCHES_TABLE})")
    for table in games.FRAME_COLUMNS:
        con.execute(f"CREATE OR REPLACE VIEW {games.BY_CELL[table]} AS SELECT c.cell, "
                    f"t.* EXCLUDE (run_id, variant, players) FROM {table} t "
                    "JOIN cells c USING (run_id, variant, players)")
    return registered


def open_reader(loc: ParquetLocation, memory_limit: str | None = None,
                writes_in: str | os.PathLike | None = None) -> duckdb.DuckDBPyConnection:
    """A read-only DuckDB connection over the store: its tables and views as a results file
    has them, writing statements refused and SQL kept in the same sandbox as there
    (``database.sandbox``, ``writes_in`` the same). (Built in a temporary database file,
    reopened read-only and deleted at once: the connection keeps it open.)"""
    check_store(loc, create=False)
    folder = tempfile.mkdtemp(prefix="unostats-parquet-")
    path = os.path.join(folder, "store.duckdb")
    try:
        build = _connect(None, path)
        try:
            _load_manifests(build, loc)
            check_shards(loc, build)
            registered = _define_views(build, loc)
        finally:
            build.close()
        con = duckdb.connect(path, read_only=True, config=dict(database.OFFLINE_CONFIG))
    except (pa.ArrowException, OSError) as e:
        raise StoreError(f"cannot read {loc}: {first_line(str(e))}") from None
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    try:
        _settings(con, memory_limit)
        for name, data in registered.items():
            con.register(name, data)
        database.sandbox(con, writes_in)
    except BaseException:
        con.close()
        raise
    return con


class ParquetWriter:
    """The connection a run writes a Parquet store through. It behaves as the DuckDB connection
    it wraps (the store's functions run their SQL on it: start, resume, finish, looks), writes
    the runs this process changed back to their manifests at every commit, batch and close,
    and redefines the shard views when a batch has been recorded since (lazily: before the
    next use)."""

    def __init__(self, loc: ParquetLocation, memory_limit: str | None = None):
        check_store(loc, create=True)
        self.location = loc
        self._con = _connect(memory_limit)
        try:
            self._written = _load_manifests(self._con, loc)
            check_shards(loc, self._con)
            _define_views(self._con, loc)
            self._con.execute("SET lock_configuration = true")
        except BaseException:
            self._con.close()
            raise
        self._stale = False
        self._batches: dict[str, list[str]] = {}  # run id -> its recorded batches as JSON

    def __getattr__(self, name: str) -> Any:
        if self._stale:
            _define_views(self._con, self.location)
            self._stale = False
        return getattr(self._con, name)

    def commit(self) -> None:
        self._con.commit()
        self.flush()

    def close(self) -> None:
        try:
            self.flush()
        finally:
            self._con.close()

    def flush(self) -> None:
        """Write the manifest of every run this process runs whose rows changed."""
        for (run_id,) in self._con.execute("SELECT run_id FROM runs WHERE pid = ?",
                                           [os.getpid()]).fetchall():
            text = _manifest_text(self._con, run_id, {BATCHES_TABLE: self._batch_rows(run_id)})
            if self._written.get(run_id) != text:
                _write_text(self.location, _manifest_path(self.location, run_id), text)
                self._written[run_id] = text

    def _batch_rows(self, run_id: str) -> list[str]:
        if run_id not in self._batches:
            self._batches[run_id] = [_json(r) for r in self._con.execute(
                f"SELECT * FROM {BATCHES_TABLE} WHERE run_id = ?", [run_id]).fetchall()]
        return self._batches[run_id]

    def record(self, *receipts: ShardReceipt) -> int:
        """Record batches whose shards are written, then write the manifest once; returns how
        many were new (a batch recorded before is stored once). A batch overlapping a recorded
        one of its cell otherwise is refused."""
        try:
            return sum(self._record(r) for r in receipts)
        finally:
            self.flush()

    def _record(self, r: ShardReceipt) -> bool:
        con = self._con
        games._check_cell(con, r.run_id, r.variant, r.players)
        clash = con.execute(
            f"""SELECT first_game, end_game FROM {BATCHES_TABLE}
                WHERE run_id = ? AND variant = ? AND players = ?
                  AND first_game < ? AND end_game > ? ORDER BY first_game""",
            [r.run_id, r.variant, r.players, r.end, r.first]).fetchall()
        if clash == [(r.first, r.end)]:
            return False
        if clash:
            lo, hi = clash[0]
            raise StoreError(f"batch games {r.first}..{r.end - 1} of run {r.run_id} "
                             f"({r.variant}, {r.players} players) overlap the recorded games "
                             f"{lo}..{hi - 1}; batches must not overlap")
        row = [r.run_id, r.variant, r.players, r.first, r.end, json.dumps(dict(r.rows))]
        known = self._batch_rows(r.run_id)
        con.begin()
        try:
            con.execute(f"INSERT INTO {BATCHES_TABLE} VALUES (?, ?, ?, ?, ?, ?)", row)
            con.execute("UPDATE runs SET games_completed = games_completed + ? "
                        "WHERE run_id = ?", [r.end - r.first, r.run_id])
            con.commit()
        except BaseException:
            con.rollback()
            raise
        known.append(_json(row))
        self._stale = True
        return True

    def recorded_ranges(self, run_id: str, variant: str, players: int) -> list[tuple[int, int]]:
        """The recorded batches of a cell as (first, end) game ranges, in order."""
        return [tuple(r) for r in self._con.execute(
            f"SELECT first_game, end_game FROM {BATCHES_TABLE} WHERE run_id = ? AND "
            "variant = ? AND players = ? ORDER BY first_game",
            [run_id, variant, players]).fetchall()]


def record_shards(con: ParquetWriter, *receipts: ShardReceipt) -> int:
    """The driver's record of batches whose shards workers wrote (``write_shards``), in any
    order: from now on they count, once each; the manifest is written once for all of them.
    Returns how many were new (0 for a batch recorded before). Each run must be running and
    have the cell."""
    if not isinstance(con, ParquetWriter):
        raise StoreError("record_shards needs the connection of a Parquet store "
                         "(store.open_store(parquet location, read_only=False))")
    return con.record(*receipts)


def write_batch(con: ParquetWriter, run_id: str, variant: str, players: int,
                batch: Any) -> None:
    """The driver's write of one batch it played: its shards, then its record (a batch that
    overlaps a recorded one is refused; one recorded before is stored once)."""
    if len(batch.games) == 0:
        return
    games._check_cell(con._con, run_id, variant, players)  # before any shard is written
    con.record(write_shards(con.location, run_id, variant, players, batch))


def missing_ranges(con: ParquetWriter, run_id: str, variant: str, players: int,
                   games_wanted: int) -> list[tuple[int, int]]:
    """The game ranges of a cell not yet recorded, up to ``games_wanted`` (what a resume, or an
    executor that plays batches out of order, still has to play)."""
    out, at = [], 0
    for lo, hi in con.recorded_ranges(run_id, variant, players):
        if lo > at:
            out.append((at, min(lo, games_wanted)))
        at = max(at, hi)
    if at < games_wanted:
        out.append((at, games_wanted))
    return [(lo, hi) for lo, hi in out if lo < hi]

