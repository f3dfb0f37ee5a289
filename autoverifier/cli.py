"""The ``autoverifier`` command line.

Each group of commands lives in its own module exposing ``register(app)``; heavy imports
happen inside the commands, so ``autoverifier --help`` stays fast.
"""

from __future__ import annotations

import importlib

import typer

app = typer.Typer(
    name="autoverifier",
    help="Reference-based answer verification that learns its rules from its own errors.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)

COMMAND_MODULES = (
    "autoverifier.cmd_verify",  # verify, verify-one
    "autoverifier.cmd_construct",  # construct, demo
    "autoverifier.cmd_eval",  # eval, report
    "autoverifier.cmd_serve",  # serve
    "autoverifier.cmd_rules",  # rules list | show | explain | test | activate | retire | restore | diff | build | snapshot
)

for _name in COMMAND_MODULES:
    importlib.import_module(_name).register(app)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
