"""The ``unostats`` command line's app: its name, help and epilog. The commands register on it
from their own modules (``cli/__init__`` imports them in the order ``--help`` lists them)."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="unostats",
    help="Measure UNO rule variants: simulate millions of games, store every game and round in "
         "DuckDB, answer questions with SQL.",
    epilog="Examples:\n\n"
           "  unostats simulate standard --games 500\n"
           "  unostats query \"SELECT * FROM round_length\" --format csv\n"
           "  unostats runs\n\n"
           "Every command has --help with examples.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="rich",
    pretty_exceptions_show_locals=False,
)


def _version(value: bool) -> None:
    if value:
        from ..version import __version__

        typer.echo(f"unostats {__version__}")
        raise typer.Exit()


@app.callback()
def _main(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print unostats' version and exit.")) -> None:
    """The app's own options (the app's help above is what --help shows)."""
