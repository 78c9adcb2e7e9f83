"""The values the command line shares with the layers below it, in a module that imports
nothing: the commands' options name them without loading the store or the scenario loader,
which keeps start-up light."""

DB_ENV = "UNOSTATS_DB"  # the results database when --db is not given
STORE_ENV = "UNOSTATS_STORE"  # the results store when --store is not given
DEFAULT_DB = "unostats.duckdb"  # the results database when neither is given
GAMES_MAX = 10**12  # games (tournaments) per cell: the one limit, in files and on the command line
