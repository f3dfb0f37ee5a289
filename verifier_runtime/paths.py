"""The one definition of where the code sits.

``SOURCE_ROOT`` is the directory that holds the ``verifier_runtime`` package: the repository
root in a source checkout (with ``rulebank/`` and ``configs/`` beside the packages), the
``site-packages`` folder in an installed wheel (where neither exists).
"""

from __future__ import annotations

from pathlib import Path

SOURCE_ROOT = Path(__file__).resolve().parent.parent
