"""The team deployment as shipped: `prefect deploy --all` against a real Prefect server, a
worker that runs a round from a deployment, and the compose file checked by docker compose.

The server is a real ``prefect server start`` (SQLite, a temporary PREFECT_HOME) started by the
test and stopped after it; the worker is ``prefect worker start --run-once`` on the process
pool, started from another directory (the pull step must find the checkout by itself).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from tests.helpers import small_construct_config

REPO = Path(__file__).resolve().parent.parent
PREFECT = Path(sys.executable).parent / "prefect"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A real Prefect server on a free local port; yields its environment."""
    import httpx

    home = tmp_path_factory.mktemp("prefect-home")
    port = _free_port()
    env = {**os.environ, "PREFECT_HOME": str(home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
           "PREFECT_API_DATABASE_CONNECTION_URL": f"sqlite+aiosqlite:///{home}/prefect.db",
           "PREFECT_API_URL": f"http://127.0.0.1:{port}/api", "PREFECT_LOGGING_LEVEL": "INFO"}
    env.pop("AUTOVERIFIER_HOME", None)
    log = open(home / "server.log", "w")  # noqa: SIM115 - closed at teardown
    proc = subprocess.Popen([str(PREFECT), "server", "start", "--host", "127.0.0.1", "--port", str(port)],
                            env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 180
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"the Prefect server did not start: {(home / 'server.log').read_text()[-2000:]}")
        time.sleep(1)
    try:
        yield env
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def _api(env: dict, method: str, path: str, body: dict | None = None):
    import httpx

    # the server answers 503 while its SQLite database is busy (a loaded machine); Prefect's own
    # client retries those, and so does this one
    for attempt in range(5):
        r = httpx.request(method, env["PREFECT_API_URL"] + path, json=body, timeout=30)
        if r.status_code not in (429, 502, 503) or attempt == 4:
            break
        time.sleep(1 + 2 * attempt)
    r.raise_for_status()
    return r.json()


def _run(cmd: list[str], env: dict, cwd: Path, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def test_deploy_all_and_a_worker_runs_a_round(server, tmp_path) -> None:
    env = {**server, "AUTOVERIFIER_HOST_HOME": str(REPO), "AUTOVERIFIER_SHARED": str(tmp_path / "shared")}
    for pool, kind in (("autoverifier-process", "process"), ("autoverifier-docker", "docker")):
        r = _run([str(PREFECT), "work-pool", "create", pool, "--type", kind], env, REPO, 120)
        assert r.returncode == 0, r.stdout + r.stderr
    r = _run([str(PREFECT), "--no-prompt", "deploy", "--all"], env, REPO)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    deps = {d["name"]: d for d in _api(env, "POST", "/deployments/filter", {})}
    assert set(deps) == {"construct-default", "construct-demo", "evaluate", "construct-default-docker"}
    weekly = deps["construct-default"]
    assert weekly["parameters"]["config"] == "configs/construct.yaml"
    assert [s["schedule"]["cron"] for s in weekly["schedules"]] == ["0 3 * * 1"]
    for name in ("construct-default", "construct-demo", "construct-default-docker"):  # one run at a time, queued
        assert deps[name]["global_concurrency_limit"]["limit"] == 1, name
        assert deps[name]["concurrency_options"]["collision_strategy"] == "ENQUEUE", name
    for d in deps.values():  # no path of this machine in any deployment: the pull step finds the checkout
        assert d["pull_steps"] == [{"flows.deploy_steps.working_directory": {"directory": "{{ $AUTOVERIFIER_HOME }}"}}]
        assert str(REPO) not in json.dumps({k: d[k] for k in ("pull_steps", "path", "entrypoint")})

    # a run of the demo deployment on a small pool, picked up by a worker started elsewhere
    (tmp_path / "pool").mkdir()
    cfg = small_construct_config(tmp_path / "pool")
    run = _api(env, "POST", f"/deployments/{deps['construct-demo']['id']}/create_flow_run",
               {"parameters": {"config": str(cfg), "rounds": 1}})
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    r = _run([str(PREFECT), "worker", "start", "--pool", "autoverifier-process", "--run-once"], env, outside, 600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    parent = _api(env, "GET", f"/flow_runs/{run['id']}")
    assert parent["state_type"] == "COMPLETED", parent["state"]
    assert parent["name"] == "e2e-from-round-001"
    runs = _api(env, "POST", "/flow_runs/filter", {"flow_runs": {"name": {"any_": ["e2e-round-001"]}}})
    assert len(runs) == 1 and runs[0]["state_type"] == "COMPLETED"
    rnd = runs[0]
    assert {"config:e2e", "base:r0000", "drafter:offline"} <= set(rnd["tags"])
    assert rnd["parameters"]["round_no"] == 1 and rnd["parameters"]["base_release"] == "r0000"
    logs = _api(env, "POST", "/logs/filter", {"logs": {"flow_run_id": {"any_": [rnd["id"]]}}, "limit": 200})
    text = "\n".join(entry["message"] for entry in logs)
    for step in ("prepare", "replay", "residuals", "cluster", "draft", "validate", "freeze", "publish"):
        assert f"e2e-round-001 · {step}:" in text, step  # a progress line per step, on the run's page
    keys = {a["key"] for a in _api(env, "POST", "/artifacts/filter", {"artifacts": {"flow_run_id": {"any_": [rnd["id"]]}}})}
    assert keys == {"e2e-round", "e2e-cards", "e2e-trace"}
    assert (tmp_path / "pool" / "rulebank" / "rounds" / "r0001" / "manifest.json").is_file()


def _compose_command() -> list[str] | None:
    docker = shutil.which("docker")
    if docker and subprocess.run([docker, "compose", "version"], capture_output=True).returncode == 0:
        return [docker, "compose"]
    legacy = shutil.which("docker-compose")
    return [legacy] if legacy else None


def _prefect_version() -> str:
    import prefect

    return prefect.__version__


def test_compose_file_pins_and_waits() -> None:
    """Read as YAML (no Docker needed): pinned images, healthchecks, the worker after the server."""
    spec = yaml.safe_load((REPO / "docker-compose.yml").read_text())
    services = spec["services"]
    assert services["prefect-server"]["image"] == f"prefecthq/prefect:{_prefect_version()}-python3.11"
    assert services["worker"]["build"]["args"]["PREFECT_VERSION"] == _prefect_version()
    assert "PREFECT_VERSION=" + _prefect_version() in (REPO / "Dockerfile").read_text()
    assert yaml.safe_load((REPO / "prefect.yaml").read_text())["prefect-version"] == _prefect_version()
    for name, svc in services.items():
        assert ":" in svc["image"] and not svc["image"].endswith(("latest", ":3")) or name == "worker", name
        assert "healthcheck" in svc, name
    assert services["worker"]["depends_on"]["prefect-server"]["condition"] == "service_healthy"
    assert services["prefect-server"]["depends_on"]["postgres"]["condition"] == "service_healthy"


@pytest.mark.skipif(_compose_command() is None, reason="neither `docker compose` nor docker-compose is installed")
def test_docker_compose_config_validates_with_one_setting_for_the_shared_data(tmp_path) -> None:
    cmd = _compose_command()
    assert cmd is not None
    base = {k: v for k, v in os.environ.items() if k not in ("AUTOVERIFIER_SHARED", "PREFECT_UI_API_URL")}

    def config(**extra: str) -> dict:
        r = subprocess.run([*cmd, "-f", str(REPO / "docker-compose.yml"), "config"], env={**base, **extra},
                           capture_output=True, text=True, timeout=60, cwd=REPO)
        assert r.returncode == 0, r.stderr
        return yaml.safe_load(r.stdout)

    def shared_source(spec: dict) -> str:
        for v in spec["services"]["worker"]["volumes"]:
            src, target = (v["source"], v["target"]) if isinstance(v, dict) else v.split(":")[:2]
            if target == "/shared":
                return src
        raise AssertionError("no /shared mount")

    default = config()
    assert os.path.realpath(shared_source(default)) == os.path.realpath(REPO / ".." / "shared")  # README's ../shared
    assert default["services"]["prefect-server"]["environment"]["PREFECT_UI_API_URL"] == "http://localhost:4200/api"
    moved = config(AUTOVERIFIER_SHARED=str(tmp_path), PREFECT_UI_API_URL="http://verifier-box:4200/api")
    assert shared_source(moved) == str(tmp_path)
    assert moved["services"]["prefect-server"]["environment"]["PREFECT_UI_API_URL"] == "http://verifier-box:4200/api"
    assert moved["services"]["worker"]["environment"]["AUTOVERIFIER_HOME"] == "/app"
