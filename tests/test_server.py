"""The OpenRLHF reward servers (ASGI and the stdlib baseline) over real HTTP on loopback."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.fake_verifier import FakeVerifier
from verifier_runtime.integrations.openrlhf import parse_payload, strip_prompt
from verifier_runtime.integrations.server import RewardServer
from verifier_runtime.integrations.server_stdlib import StdlibRewardServer

ENGINES = {"asgi": RewardServer, "stdlib": StdlibRewardServer}

REPO = Path(__file__).resolve().parent.parent


def _post(url: str, body: bytes | dict, timeout: float = 10.0, headers: dict | None = None) -> tuple[int, dict]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method="POST",
                                 headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@pytest.fixture(params=list(ENGINES))
def server(request):
    srv = ENGINES[request.param](FakeVerifier(delay_s=0.6), "127.0.0.1", 0, rewards={"incorrect": -1.0}, workers=2,
                                 max_body_bytes=64 * 1024).start()
    yield srv
    srv.stop()


def test_get_reward_openrlhf_payload(server):
    prompts = ["<|user|>What is 2+2?<|assistant|>", "<|user|>Capital?<|assistant|>", "Q"]
    responses = [" The answer is 4<|im_end|>", " Lyon", ""]
    body = {"query": [p + r for p, r in zip(prompts, responses, strict=True)], "prompts": prompts,
            "labels": ["4", "Paris", "1"]}
    status, out = _post(server.url + "/get_reward", body)
    assert status == 200
    assert out["rewards"] == [1.0, -1.0, 0.0]  # the empty response is "invalid" (default 0.0)
    assert out["scores"] == [1.0, 0.0, 0.0]
    assert out["extra_logs"]["invalid"] == [0.0, 0.0, 1.0]
    assert set(out["extra_logs"]) == {"correct", "abstained", "invalid", "fallback_called", "label_missing"}
    assert out["decided_by"] == ["match.last_token", "match.last_token", "guard.no_answer"]
    with urllib.request.urlopen(server.url + "/health", timeout=5) as resp:
        health = json.loads(resp.read())
    assert health["status"] == "ok" and health["artifact_version"] == "r-test" and health["modules"] == 2


@pytest.mark.parametrize("body,status,code", [
    (b"{not json", 400, "invalid_json"),
    (b"[1, 2]", 400, "wrong_type"),
    ({"query": ["a"]}, 400, "missing_keys"),
    ({"query": ["a", "b"], "prompts": ["a"], "labels": ["x", "y"]}, 400, "length_mismatch"),
    ({"query": "a", "labels": ["x"]}, 400, "wrong_type"),
    ({"query": [1], "labels": ["x"]}, 400, "wrong_type"),
    ({"query": ["a"], "labels": [{"x": 1}]}, 400, "wrong_type"),
    (b"x" * (64 * 1024 + 1), 413, "too_large"),
    (b"[" * 30_000 + b"]" * 30_000, 400, "invalid_json"),
    (b'{"query": ["a"], "labels": [' + b"1" * 5000 + b"]}", 400, "invalid_json"),
    (b'{"query": ["a"], "labels": [true]}', 400, "wrong_type"),
    (b'\xff\xfe{"query": []}', 400, "invalid_json"),
])
def test_bad_payloads_get_clear_4xx(server, body, status, code):
    got, out = _post(server.url + "/get_reward", body)
    assert got == status and out["error"]["code"] == code and out["error"]["message"]


def test_routes_and_methods(server):
    got, out = _post(server.url + "/nope", {})
    assert got == 404
    with pytest.raises(urllib.error.HTTPError) as exc:
        urllib.request.urlopen(server.url + "/get_reward", timeout=5)
    assert exc.value.code == 405


def test_concurrent_slow_requests_overlap(server):
    if isinstance(server, RewardServer):  # the thread path (a networked judge waits on I/O there)
        server.state.inline = False
    body = {"query": ["SLEEP 1"], "prompts": [""], "labels": ["1"]}
    results: list[float] = []

    def one():
        t = time.perf_counter()
        status, out = _post(server.url + "/get_reward", body)
        assert status == 200 and out["rewards"] == [1.0]
        results.append(time.perf_counter() - t)

    t0 = time.perf_counter()
    threads = [threading.Thread(target=one) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    assert len(results) == 2
    assert wall < 1.1, f"two 0.6 s requests took {wall:.2f}s: they did not overlap"


@pytest.mark.parametrize("engine", list(ENGINES))
def test_stop_finishes_in_flight_request(engine):
    srv = ENGINES[engine](FakeVerifier(delay_s=0.5), "127.0.0.1", 0).start()
    url = srv.url
    out: list = []
    t = threading.Thread(target=lambda: out.append(_post(url + "/get_reward",
                                                         {"query": ["SLEEP 2"], "labels": ["2"]})))
    t.start()
    time.sleep(0.15)  # the request is now being verified
    srv.stop()
    t.join(5)
    assert out and out[0][0] == 200 and out[0][1]["rewards"] == [1.0]
    with pytest.raises(OSError):
        urllib.request.urlopen(url + "/health", timeout=2)


def test_payload_helpers():
    assert strip_prompt("PROMPT answer</s>", "PROMPT") == " answer"
    assert strip_prompt("<bos>PROMPT answer", "PROMPT") == " answer"  # prompt not at the very start
    assert strip_prompt("whole text", "missing") == "whole text"
    assert parse_payload(json.dumps({"query": ["Q: 1"], "labels": [3]}).encode()) == ([""], [["3"]], ["Q: 1"])
    assert parse_payload(json.dumps({"query": ["a", "b"], "labels": [None, ["1", 2]]}).encode())[1] == [None, ["1", "2"]]


def _serve_subprocess(*args: str) -> tuple[subprocess.Popen, int]:
    """`autoverifier serve` with the scripted verifier on a free port, in a subprocess."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code = ("import typer; from autoverifier import cmd_serve; app = typer.Typer(); cmd_serve.register(app); "
            "app.command('noop', hidden=True)(lambda: None); app()")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-c", code, "serve", "--port", str(port), *args, "--factory",
                             "tests.fake_verifier:make_fake_verifier"], env=env, stderr=subprocess.PIPE, text=True)
    return proc, port


@pytest.mark.parametrize("engine", list(ENGINES))
def test_cli_serve_shuts_down_on_sigterm(tmp_path, engine):
    """`autoverifier serve` in a subprocess: answers, then exits cleanly on SIGTERM."""
    proc, port = _serve_subprocess("--engine", engine)
    try:
        deadline = time.time() + 20
        while True:
            try:
                status, out = _post(f"http://127.0.0.1:{port}/get_reward", {"query": ["x 5"], "labels": ["5"]},
                                    timeout=2)
                break
            except (urllib.error.URLError, ConnectionError):
                if time.time() > deadline or proc.poll() is not None:
                    raise AssertionError("server did not come up") from None
                time.sleep(0.1)
        assert status == 200 and out["rewards"] == [1.0]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0
        assert "reward server stopped" in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


# --- the ASGI server only -------------------------------------------------------------------

def _get(url: str, timeout: float = 5.0) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def test_ready_metrics_and_list_limits():
    srv = RewardServer(FakeVerifier(delay_s=0.0), "127.0.0.1", 0, max_items=3).start()
    try:
        assert _get(srv.url + "/ready")[0] == 200
        body = {"query": ["x 5", "x 6", "y"], "prompts": ["", "", ""], "labels": ["5", "?6", ["1", "y"]]}
        status, out = _post(srv.url + "/get_reward", body)
        assert status == 200 and out["rewards"] == [1.0, 1.0, 1.0] and out["decided_by"][1] == "fallback:offline"
        status, out = _post(srv.url + "/get_reward", {"query": ["a"] * 4, "labels": ["1"] * 4})
        assert status == 413 and out["error"]["code"] == "too_many_items"
        status, out = _post(srv.url + "/get_reward", {"query": ["x 1"], "labels": [None]})
        assert status == 200 and out["extra_logs"]["label_missing"] == [1.0] and out["rewards"] == [0.0]
        status, text = _get(srv.url + "/metrics")
        assert status == 200
        assert 'autoverifier_requests_total{route="/get_reward",status="200"} 2' in text
        assert 'autoverifier_requests_total{route="/get_reward",status="413"} 1' in text
        assert "autoverifier_samples_total 4" in text and "autoverifier_fallback_calls_total 1" in text
        assert 'autoverifier_decided_by_total{decided_by="match.last_token"} 2' in text
        assert 'autoverifier_request_seconds_bucket{le="+Inf"} 3' in text and "autoverifier_ready 1" in text
    finally:
        srv.stop()
    assert srv.state.draining


def test_many_concurrent_connections_are_all_answered():
    """More simultaneous connections than the old server's backlog of 5: none is reset."""
    srv = RewardServer(FakeVerifier(delay_s=0.0), "127.0.0.1", 0).start()
    errors: list[str] = []
    done: list[int] = []
    barrier = threading.Barrier(64)

    def client(i: int) -> None:
        barrier.wait()
        try:
            status, out = _post(srv.url + "/get_reward", {"query": [f"x {i}"], "labels": [str(i)]}, timeout=30)
            assert status == 200 and out["rewards"] == [1.0]
            done.append(i)
        except Exception as exc:  # noqa: BLE001 - counted
            errors.append(f"{type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=client, args=(i,)) for i in range(64)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
    finally:
        srv.stop()
    assert not errors and len(done) == 64


def test_sigterm_drains_readiness_first(tmp_path):
    """`serve` under SIGTERM: a request in flight finishes while /ready already answers 503."""
    proc, port = _serve_subprocess()
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 20
        while True:
            try:
                if _get(base + "/ready", timeout=1)[0] == 200:
                    break
            except (urllib.error.URLError, ConnectionError):
                pass
            if time.time() > deadline or proc.poll() is not None:
                raise AssertionError("server did not come up")
            time.sleep(0.1)
        out: list = []
        t = threading.Thread(target=lambda: out.append(_post(base + "/get_reward", {"query": ["SLEEP 2"],
                                                                                     "labels": ["2"]})))
        t.start()
        time.sleep(0.1)
        proc.send_signal(signal.SIGTERM)
        t.join(10)
        assert out and out[0][0] == 200 and out[0][1]["rewards"] == [1.0]
        assert proc.wait(10) == 0
        assert "INFO" not in proc.stderr.read()  # no per-request log lines by default
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
