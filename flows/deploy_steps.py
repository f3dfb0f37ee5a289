"""Deployment steps of ``prefect.yaml`` (run by a worker before each flow run).

``working_directory`` is the pull step of every AutoVerifier deployment: it changes into the
checkout the flows are run from, so ``prefect.yaml`` names no path. The directory is, in order,
the step's ``directory`` input (``{{ $AUTOVERIFIER_HOME }}`` in ``prefect.yaml``: set on the
worker, e.g. ``/app`` in the Docker image), else the source tree of the ``autoverifier``
package the worker itself runs (an editable install of the checkout).
"""

from __future__ import annotations

import os
from pathlib import Path


class WorkingDirectoryError(RuntimeError):
    """The worker cannot find the AutoVerifier checkout to run the flows from."""


def working_directory(directory: str | None = None) -> dict[str, str]:
    """Change into the AutoVerifier checkout; returns ``{"directory": <path>}`` for later steps."""
    from verifier_runtime.paths import SOURCE_ROOT

    candidates = [(directory, "the step's directory ($AUTOVERIFIER_HOME)")] if directory else []
    candidates.append((str(SOURCE_ROOT), "the checkout the worker's autoverifier package is installed from"))
    for path, what in candidates:
        p = Path(path).expanduser()
        if (p / "flows" / "construct.py").is_file() and (p / "configs").is_dir():
            os.chdir(p)
            return {"directory": str(p.resolve())}
        if directory and path == directory:
            raise WorkingDirectoryError(f"{what} is {path}, which holds no AutoVerifier checkout "
                                        "(flows/construct.py and configs/)")
    raise WorkingDirectoryError(
        f"no AutoVerifier checkout found: set AUTOVERIFIER_HOME on the worker (tried {SOURCE_ROOT}, "
        "the source tree of the installed package)")
