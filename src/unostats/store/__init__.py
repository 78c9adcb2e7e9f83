"""The DuckDB results store: schema, bulk writes per batch, standard views and clean opens.

One file holds every run. ``simulate`` is the only writer; everything else opens read-only.
This package's names are the store's interface (``from unostats import store``). Its errors
and the SQL helpers every part shares (transaction, CREATE TABLE text, the casting INSERT of a
frame, the Wilson macros) are ``unostats.sql``, below it with each kind's tables. Its modules:

- ``runs``: the ``meta``, ``runs`` and ``variants`` tables; a run's start, resume and finish;
  reading runs back.
- ``frames``: the columns of the engine's frames as the store types them, and their logical keys.
- ``packing``: how a frame's row is stored, several columns packed in one integer, and back.
- ``games``: the engine's frames as tables, their views, and ``write_batch`` (integrity without
  indexes, one transaction per batch).
- ``durations``: the ``durations`` view (turns as minutes at each run's ``seconds_per_turn``;
  a tournament's are ``tournament_durations``, with its tables).
- ``database``: opening the file, creating or checking the whole schema (with every kind's
  tables: ``tournaments.spec.tables``, ``leagues.spec.tables``; concurrency); the readers' sandbox (no
  file outside the store, no download, settings locked).
- ``queries``: SQL from users (rows streamed; what the reader's sandbox refuses, in words),
  and the export of one run's rows.
- ``files``: the files unostats writes for the user (reports, exports, a tuned seat, a query's
  result): never over the results store or a non-regular file, an existing one only if
  unostats wrote it or with ``--overwrite`` (``check_output``, ``write_output``).
- ``parquet``: the Parquet store (``--store parquet:DIR``): shards written by whoever plays the
  games (``write_shards``), batches recorded by the driver (``record_shards``), and a DuckDB
  connection with the same tables and views over the dataset.
- ``stores``: ``open_store`` and ``write_batch`` for either store.
- ``keep``: what a run keeps (``--keep rows|games|summary``) and a batch reduced to it: each
  game's totals (a compiled pass, ``_totals``, imported by writers only), blocks of sums,
  round-length histograms.
- ``sums``: the sums every summary reads, whatever a run kept (``cell_sums``).

Tables (logical keys in brackets; the modules list the columns):

- ``meta`` [key]: ``schema_version``.
- ``runs`` [run_id]: provenance, status and progress of one ``unostats simulate``.
- ``variants`` [run_id, variant, players]: the resolved rules of each cell of a run, and its
  sweep point (``sweep``, JSON; null outside a sweep).
- ``precision_looks`` [run_id, variant, players, look, statistic]: a precision-targeted run's
  looks at each cell's intervals.
- ``games`` [run_id, variant, players, game], ``game_seats`` [... game, seat],
  ``rounds`` [... game, round], ``round_seats`` [... game, round, seat]: the engine's frames
  (``engine.simulate``) under their cell's columns. These four are views: the rows are stored
  in ``stored_games`` ... with an integer ``cell`` (``cells`` [cell]: run_id, variant, players)
  and a seat's policy as a code (``policies`` [code]: policy).
- Tournament runs add ``tournament_fields``, ``tournament_stages``, ``tournaments``,
  ``tournament_tables`` and ``tournament_entrants`` with their views: see ``tournaments.spec.tables``.
- Runs that keep less than rows (``runs.keep``): ``game_totals`` [cell, game],
  ``round_lengths`` [cell, first_game, turns] and ``block_sums`` [cell, first_game, name]:
  see ``keep``.
- League runs add ``league_fits`` [run_id, variant, players, policy] and its view
  ``league_ratings``: see ``leagues.spec.tables``.

Every file gets the whole schema, whatever kinds of run it will hold: the schema has one version
(``SCHEMA_VERSION``), and a file that holds games today can receive a tournament run tomorrow.
"""

from ..defaults import DEFAULT_DB
from ..sql import StoreError, UnknownRunError
from .database import SCHEMA_VERSION, WRITER_MEMORY_LIMIT, is_memory
from .files import OutputRefused, check_output, write_output, write_problem
from .frames import FRAME_COLUMNS, RESULT_KEYS
from .games import (
    BY_CELL, KEPT_TABLES, VIEWS, completed_games, duplicate_keys, game_measures_sql, how_it_plays_sql,
)
from . import sums
from .keep import KEEPS, KEPT, run_keep
from .parquet import (
    ParquetLocation,
    ParquetWriter,
    ShardReceipt,
    parquet_location,
    parse_store,
    record_shards,
    write_shards,
)
from .queries import EXPORT_TABLES, export_run, query, sql_relation, sql_rows
from .runs import (
    RUN_COLUMNS,
    RUN_STATUSES,
    VERSION_KEYS,
    add_cells,
    finish_run,
    latest_run_id,
    list_runs,
    record_looks,
    resolve_run_id,
    resume_run,
    run_info,
    start_run,
)
from .stores import is_parquet, missing_ranges, open_store, write_batch

__all__ = [
    "BY_CELL", "DEFAULT_DB", "KEEPS", "KEPT", "KEPT_TABLES", "run_keep", "sums", "EXPORT_TABLES", "FRAME_COLUMNS", "RESULT_KEYS", "RUN_COLUMNS", "RUN_STATUSES",
    "SCHEMA_VERSION", "VERSION_KEYS", "VIEWS", "WRITER_MEMORY_LIMIT", "ParquetLocation",
    "ParquetWriter", "ShardReceipt", "StoreError", "UnknownRunError",
    "add_cells", "check_output", "completed_games", "duplicate_keys", "export_run", "finish_run",
    "game_measures_sql", "how_it_plays_sql",
    "is_memory", "latest_run_id", "list_runs", "open_store", "record_looks", "query", "resolve_run_id", "resume_run", "run_info",
    "sql_relation", "sql_rows", "start_run", "write_batch", "write_problem", "is_parquet",
    "OutputRefused", "check_output", "write_output",
    "missing_ranges", "parquet_location", "parse_store", "record_shards", "write_shards",
]
