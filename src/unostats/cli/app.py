"""The ``unostats`` command line's app: its name, help and epilog. The commands register on it
from their own modules (``cli/__init__`` imports them in the order ``--help`` lists them), then
``fit_help`` lets the terminal wrap their help: the source's line breaks inside a paragraph go,
so an 80-column terminal does not break a sentence written for 100."""

from __future__ import annotations

import inspect

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


def fit_help(app: typer.Typer) -> None:
    """Each command's help and epilog (and the app's) as paragraphs the terminal wraps."""
    app.info.help, app.info.epilog = prose(app.info.help), prose(app.info.epilog)
    for command in app.registered_commands:
        command.help = prose(command.help or inspect.getdoc(command.callback))
        command.epilog = prose(command.epilog)


def prose(text):
    """``text`` with the line breaks inside each paragraph made spaces; a paragraph with an
    indented line (examples, commands) keeps its lines as written."""
    if not isinstance(text, str):
        return text
    paragraphs = text.strip("\n").split("\n\n")  # as written: an example's indent is kept
    return "\n\n".join(p if any(line[:1].isspace() for line in p.split("\n"))
                        else " ".join(line.strip() for line in p.split("\n"))
                        for p in paragraphs)
