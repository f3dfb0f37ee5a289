"""Tables on the command line: a rich table on a terminal; tab-separated lines otherwise, so a
pipe, a file or a CI log gets every column whole (no wrapping at 80 columns)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from rich.console import Console
from rich.table import Table


def print_rows(title: str, columns: Sequence[str], rows: Sequence[Sequence[str]], *, stderr: bool = True,
               no_wrap: bool = True, right: Sequence[str] = ()) -> None:
    """``rows`` under ``columns``: a table titled ``title`` on a terminal, else a header line and one
    tab-separated line per row (tabs and newlines inside cells become spaces)."""
    console = Console(stderr=stderr)
    if not console.is_terminal:
        stream = sys.stderr if stderr else sys.stdout
        stream.write("\t".join(columns) + "\n")
        for r in rows:
            stream.write("\t".join(" ".join(str(c).split()) for c in r) + "\n")
        stream.flush()
        return
    t = Table(title=title, title_justify="left")
    for col in columns:
        t.add_column(col, justify="right" if col in right else "left", no_wrap=no_wrap, overflow="fold")
    for r in rows:
        t.add_row(*[str(c) for c in r])
    console.print(t)
