"""Where a command may write a file of its own (``unostats query --out``): ``check_output``
allows a new regular file, an existing one only with ``overwrite``, and never a file of the
results store (the DuckDB file and the files DuckDB keeps beside it, anything in a Parquet
store's folder) nor a folder, FIFO or device.

What a query's SQL may reach is not checked here: DuckDB's own sandbox keeps it in the store
(``database.sandbox``).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .parquet import ParquetLocation
from .sql import StoreError

# The files DuckDB keeps beside a database FILE: FILE.wal, and while it checkpoints or recovers
# FILE.wal.checkpoint and FILE.wal.recovery.
DUCKDB_SIDE_FILES = (".wal", ".wal.checkpoint", ".wal.recovery")


def database_files(db_path: str | os.PathLike) -> list[Path]:
    """The files DuckDB keeps for a database: the file itself and those beside it."""
    path = Path(db_path)
    return [path, *(path.with_name(path.name + s) for s in DUCKDB_SIDE_FILES)]


def check_output(path: str | os.PathLike, target: str | os.PathLike | ParquetLocation, *,
                 overwrite: bool, option: str = "--out") -> None:
    """Raise StoreError unless ``path`` may receive a file written by unostats next to the
    results store ``target`` (a DuckDB file, or a Parquet store)."""
    path = Path(path)
    if _in_store(path, target):
        where = (f"the Parquet store {target.uri}" if isinstance(target, ParquetLocation)
                 else f"the results database {target}")
        raise StoreError(f"{option} {path} is a file of {where}, which a command never writes "
                         "over; give a file outside the store")
    if not os.path.lexists(path):
        return
    try:
        mode = os.stat(path).st_mode
    except OSError:  # a dangling symbolic link: replacing it loses nothing
        mode = stat.S_IFREG
    if not stat.S_ISREG(mode):
        what = "a folder" if stat.S_ISDIR(mode) else "not a regular file (a FIFO, a device ...)"
        raise StoreError(f"{option} {path} is {what}; give the name of a file")
    if not overwrite:
        raise StoreError(f"{option} {path} exists; give another file, or --overwrite to "
                         "replace it")


def _in_store(path: Path, target: str | os.PathLike | ParquetLocation) -> bool:
    real = os.path.realpath(path)
    if isinstance(target, ParquetLocation):
        if not target.is_local:
            return False
        root = os.path.realpath(target.root)
        return real == root or real.startswith(os.path.join(root, ""))
    return any(real == os.path.realpath(own) or _same_file(path, own)
               for own in database_files(target))


def _same_file(a: Path, b: Path) -> bool:
    """The same file under two names (a hard link)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False
