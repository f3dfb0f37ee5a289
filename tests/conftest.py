"""Session-wide test settings: no network, Prefect state in a temp dir, shared data path."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

_PREFECT_HOME = tempfile.mkdtemp(prefix="autoverifier-prefect-")
os.environ.setdefault("PREFECT_HOME", _PREFECT_HOME)
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
for _k in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
    if not os.environ.get("AUTOVERIFIER_LIVE_TESTS"):
        os.environ.pop(_k, None)

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("AUTOVERIFIER_SHARED", REPO.parent / "shared"))


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The shared data folder; tests that need it skip when it is absent."""
    if not SHARED.exists():
        pytest.skip(f"shared data folder not found at {SHARED}")
    return SHARED


def pytest_collection_modifyitems(config, items):
    if os.environ.get("AUTOVERIFIER_LIVE_TESTS") == "1":
        return
    skip_live = pytest.mark.skip(reason="live provider test: set AUTOVERIFIER_LIVE_TESTS=1")
    for item in items:
        if "live" in item.keywords:
            item.add_marker(skip_live)


@pytest.fixture(scope="session")
def prefect_harness():
    """One temporary Prefect server (SQLite) for every flow test in the session."""
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=120):
        yield
