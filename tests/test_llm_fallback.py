"""The LLM fallback judges, through the real openai/anthropic clients against a local fake server."""

from __future__ import annotations

import json
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
import yaml

from verifier_runtime.fallback.base import Fallback
from verifier_runtime.fallback.cache import JudgeCache, cache_key
from verifier_runtime.fallback.llm import (
    BUILTIN_CONFIG,
    REASK_MESSAGE,
    LLMJudge,
    load_fallback_config,
    make_llm_judge,
    resolve_settings,
)
from verifier_runtime.fallback.prompt import (
    DEFAULT_TEMPLATE,
    parse_judgment,
    render_prompt,
    validate_template,
)
from verifier_runtime.fallback.providers import Completion, ProviderError
from verifier_runtime.limits import RESPONSE_TAIL_CHARS
from verifier_runtime.types import FallbackResult

try:  # tests/ on sys.path (plain `pytest`), or the repository root (`python -m pytest`, a tests package)
    from fakes import FakeLLMServer
except ImportError:  # pragma: no cover - depends on how pytest was started
    from tests.fakes import FakeLLMServer

REPO = Path(__file__).resolve().parent.parent
KEY_ENV = "AUTOVERIFIER_TEST_LLM_KEY"
PATHS = {"openai": "/v1/chat/completions", "anthropic": "/v1/messages"}

# --- the strict parser ---------------------------------------------------------------------

PARSE_CASES = [
    ("plain yes", "The answers agree.\nFinal Judgment: Yes", True),
    ("plain no", "They differ.\nFinal Judgment: No", False),
    ("lower case", "final judgment: yes", True),
    ("upper case", "FINAL JUDGMENT: NO", False),
    ("bold label", "Reasoning.\n**Final Judgment:** Yes", True),
    ("bold all", "**Final Judgment: No**", False),
    ("bold value", "Final Judgment: **Yes**", True),
    ("full stop", "Final Judgment: Yes.", True),
    ("spaces", "   Final   Judgment :   No   ", False),
    ("british spelling", "Final Judgement: Yes", True),
    ("label next line", "**Final Judgment:**\nNo", False),
    ("heading", "## Final Judgment: Yes", True),
    ("last of two decides", "Final Judgment: No\nOn reflection...\nFinal Judgment: Yes", True),
    ("last of two decides no", "Final Judgment: Yes\nFinal Judgment: No", False),
    ("text after judgment", "Final Judgment: Yes\nThe units agree.", True),
    ("bare yes", "The values are equal.\nYes", True),
    ("bare no", "No", False),
    ("bare no bold", "**No**", False),
    ("think stripped", "<think>Final Judgment: No</think>\nFinal Judgment: Yes", True),
    ("think only", "<think>Final Judgment: Yes</think>", None),
    ("unclosed think", "Final Judgment: No\n<think>maybe Final Judgment: Yes", False),
    ("dangling close", "Final Judgment: Yes</think>\nFinal Judgment: No", False),
    ("boxed", "Final Judgment: \\boxed{Yes}", True),
    ("yes/no", "Final Judgment: Yes/No", None),
    ("yes and no", "Final Judgment: Yes and No", None),
    ("hedge", "Final Judgment: Probably yes", None),
    ("qualified", "Final Judgment: Yes, mostly", None),
    ("empty value", "Final Judgment:", None),
    ("neither", "The answer looks right to me.", None),
    ("empty", "", None),
    ("whitespace", "  \n\n ", None),
    ("bare contradicts judgment", "Final Judgment: Yes\nNo", None),
    ("bare agrees with judgment", "Final Judgment: No\nNo", False),
    ("yes inside a sentence", "Yes, I think the answer is correct", None),
    ("word containing yes", "Final Judgment: Yesterday", None),
    ("maybe", "Final Judgment: Maybe", None),
    ("not a string", None, None),
]


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in PARSE_CASES], ids=[c[0] for c in PARSE_CASES])
def test_parse_judgment(text: str, expected: bool | None) -> None:
    assert parse_judgment(text) is expected


# --- the prompt ----------------------------------------------------------------------------


def test_render_prompt_fills_placeholders_and_omits_empty_guidance() -> None:
    p = render_prompt(DEFAULT_TEMPLATE, "What is 2+2?", "4", "So it is 4.")
    assert "<question>\nWhat is 2+2?\n</question>" in p
    assert "<reference>\n4\n</reference>" in p
    assert "<response>\nSo it is 4.\n</response>" in p
    assert "{guidance}" not in p and "guidance" not in p.lower()
    assert p.rstrip().endswith("if it does not.")


def test_render_prompt_includes_guidance() -> None:
    p = render_prompt(DEFAULT_TEMPLATE, "q", "r", "s", "Accept pi written as 3.14 when the question asks for two decimals.")
    assert "Additional grading guidance" in p
    assert "Accept pi written as 3.14" in p
    assert p.index("Accept pi") < p.index("<question>")


def test_render_prompt_is_safe_against_braces_and_placeholders_in_inputs() -> None:
    q = "Evaluate {x} for x={response} and {0} {}"
    resp = "The set is {1, 2} and \\frac{a}{b}; {question} {guidance}"
    p = render_prompt(DEFAULT_TEMPLATE, q, "{1,2}", resp)
    assert q in p and resp in p and "<reference>\n{1,2}\n</reference>" in p


def test_render_prompt_bounds_inputs_and_cleans_control_characters() -> None:
    big = "x" * 2_000_000 + "\x00\x01 the answer is 42"
    p = render_prompt(DEFAULT_TEMPLATE, "q\x00", "42", big)
    assert "\x00" not in p and "\x01" not in p
    assert "earlier characters cut" in p
    assert p.count("x") <= RESPONSE_TAIL_CHARS + 200
    assert "the answer is 42" in p
    assert len(p) < RESPONSE_TAIL_CHARS + 5_000
    # unpaired surrogates would break JSON encoding for some servers
    assert render_prompt(DEFAULT_TEMPLATE, "q", "r", "bad \ud800 text").encode("utf-8")


def test_template_validation() -> None:
    with pytest.raises(ValueError, match="response"):
        validate_template("Q: {question} R: {reference}")
    with pytest.raises(ValueError):
        validate_template("")
    custom = "Q={question} R={reference} A={response}"
    p = render_prompt(custom, "a", "b", "c", "Be strict.")
    assert p.startswith("Additional grading guidance") and p.endswith("Q=a R=b A=c")


# --- helpers -------------------------------------------------------------------------------


@pytest.fixture()
def server():
    with FakeLLMServer(api_key="test-key") as srv:
        yield srv


@pytest.fixture(autouse=True)
def _test_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "test-key")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


def make_judge(provider: str, server: FakeLLMServer, tmp_path: Path | None, **settings) -> LLMJudge:
    defaults = {
        "timeout_s": 3.0, "max_retries": 2, "backoff_base_s": 0.01, "backoff_max_s": 0.05,
        "cache_dir": str(tmp_path / "cache") if tmp_path is not None else None,
    }
    defaults.update(settings)
    base = server.openai_base_url if provider == "openai" else server.anthropic_base_url
    return make_llm_judge(provider, model=f"fake-{provider}", base_url=base, api_key_env=KEY_ENV,
                          config=defaults)


both = pytest.mark.parametrize("provider", ["openai", "anthropic"])


# --- labels, headers, tokens ---------------------------------------------------------------


@both
def test_correct_labels_through_real_clients(provider: str, server: FakeLLMServer, tmp_path: Path) -> None:
    with make_judge(provider, server, tmp_path) as judge:
        assert isinstance(judge, Fallback)
        yes = judge.judge("What is 6*7?", "42", "6*7 = 42, so the answer is 42.")
        no = judge.judge("What is 6*7?", "42", "The answer is 48.")
    assert (yes.correct, yes.reason, yes.cached) == (True, "llm:yes", False)
    assert (no.correct, no.reason) == (False, "llm:no")
    assert "Final Judgment: Yes" in (yes.raw or "")
    assert yes.input_tokens > 0 and yes.output_tokens > 0
    assert server.count(PATHS[provider]) == 2
    req = server.requests[0]
    assert req["body"]["model"] == f"fake-{provider}"
    assert req["body"]["max_tokens"] == 1024
    if provider == "openai" or judge.adapter.sends_temperature:
        assert req["body"]["temperature"] == 0.0
    else:
        assert "temperature" not in req["body"]
    if provider == "anthropic":
        sent = {req["headers"].get("x-api-key"), req["headers"].get("authorization")}
        assert sent & {"test-key", "Bearer test-key"}
        assert req["headers"]["anthropic-version"]
    else:
        assert req["headers"]["authorization"] == "Bearer test-key"


@both
def test_token_accounting(provider: str, server: FakeLLMServer, tmp_path: Path) -> None:
    judge = make_judge(provider, server, tmp_path)
    results = [judge.judge("q", str(i), f"answer {i}") for i in range(3)]
    u = judge.usage()
    assert u["calls"] == 3 and u["requests"] == 3 and u["cache_hits"] == 0 and u["failures"] == 0
    assert u["input_tokens"] == sum(r.input_tokens for r in results) > 0
    assert u["output_tokens"] == sum(r.output_tokens for r in results) > 0
    judge.judge("q", "0", "answer 0")  # cached: no tokens paid, tokens saved
    u2 = judge.usage()
    assert u2["input_tokens"] == u["input_tokens"] and u2["cache_hits"] == 1
    assert u2["saved_input_tokens"] == results[0].input_tokens


# --- retries, back-off, time-outs ----------------------------------------------------------


@both
@pytest.mark.parametrize("status", [429, 500, 503])
def test_retryable_failures_then_success(provider: str, status: int, server: FakeLLMServer, tmp_path: Path) -> None:
    judge = make_judge(provider, server, tmp_path, max_retries=3, backoff_base_s=0.02, backoff_max_s=0.1)
    server.fail_next(2, status)
    t0 = time.monotonic()
    r = judge.judge("q", "7", "it is 7")
    elapsed = time.monotonic() - t0
    assert r.correct is True and r.reason == "llm:yes"
    assert server.count() == 3
    u = judge.usage()
    assert u["retries"] == 2 and u["requests"] == 3 and u["failures"] == 0
    assert elapsed >= 0.02 * 0.5 + 0.04 * 0.5  # two back-offs with jitter >= 0.5


@both
def test_retries_exhausted_gives_error_result(provider: str, server: FakeLLMServer, tmp_path: Path) -> None:
    judge = make_judge(provider, server, tmp_path, max_retries=2)
    server.fail_next(5, 500)
    r = judge.judge("q", "7", "it is 7")
    assert r == FallbackResult(None, "llm_error:server")
    assert server.count() == 3 and judge.usage()["failures"] == 1
    assert judge.judge("q", "7", "it is 7").correct is True  # failures were not cached


@both
@pytest.mark.parametrize(("status", "kind"), [(400, "http_400"), (404, "http_404"), (403, "auth")])
def test_client_errors_are_not_retried(provider: str, status: int, kind: str, server: FakeLLMServer,
                                       tmp_path: Path) -> None:
    judge = make_judge(provider, server, tmp_path, max_retries=3)
    server.fail_next(1, status)
    r = judge.judge("q", "7", "it is 7")
    assert (r.correct, r.reason) == (None, f"llm_error:{kind}")
    assert server.count() == 1 and judge.usage()["retries"] == 0


@both
def test_wrong_key_is_an_auth_error(provider: str, server: FakeLLMServer, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "wrong-key")
    r = make_judge(provider, server, tmp_path).judge("q", "7", "7")
    assert (r.correct, r.reason) == (None, "llm_error:auth")
    assert server.count() == 1


@both
def test_retry_after_header_is_honoured_within_cap(provider: str, server: FakeLLMServer, tmp_path: Path) -> None:
    judge = make_judge(provider, server, tmp_path, backoff_base_s=0.001, backoff_max_s=0.25)
    server.fail_next(1, 429, retry_after=0.2)
    t0 = time.monotonic()
    assert judge.judge("q", "1", "1").correct is True
    assert 0.2 <= time.monotonic() - t0 < 2.0


@both
def test_timeout_gives_error_within_bounded_time(provider: str, server: FakeLLMServer, tmp_path: Path) -> None:
    judge = make_judge(provider, server, tmp_path, timeout_s=0.2, max_retries=1)
    server.delay_s = 3.0
    t0 = time.monotonic()
    r = judge.judge("q", "1", "1")
    elapsed = time.monotonic() - t0
    assert (r.correct, r.reason) == (None, "llm_error:timeout")
    assert elapsed < 1.5  # two requests of 0.2 s and one short back-off, far below the server's 3 s
    assert judge.usage()["requests"] == 2 and judge.usage()["retries"] == 1


def test_connection_refused_gives_error(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:  # a port that nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    judge = make_llm_judge("openai", model="m", base_url=f"http://127.0.0.1:{port}/v1", api_key_env=KEY_ENV,
                           config={"max_retries": 1, "backoff_base_s": 0.01, "timeout_s": 1.0, "cache_dir": None})
    t0 = time.monotonic()
    r = judge.judge("q", "1", "1")
    assert (r.correct, r.reason) == (None, "llm_error:connection")
    assert time.monotonic() - t0 < 3.0


def test_backoff_is_exponential_capped_and_seeded(server: FakeLLMServer) -> None:
    a = make_judge("openai", server, None, backoff_base_s=1.0, backoff_max_s=5.0, seed=7)
    b = make_judge("openai", server, None, backoff_base_s=1.0, backoff_max_s=5.0, seed=7)
    da = [a._delay(k, None) for k in range(5)]
    assert da == [b._delay(k, None) for k in range(5)]
    for k, d in enumerate(da):
        nominal = min(5.0, 2.0**k)
        assert 0.5 * nominal <= d < nominal
    assert a._delay(0, 3.0) >= 3.0 and a._delay(0, 100.0) == 5.0


# --- unparseable replies -------------------------------------------------------------------


@both
@pytest.mark.parametrize(("policy", "expected"), [("incorrect", False), ("abstain", None)])
def test_unparseable_policy(provider: str, policy: str, expected: bool | None, server: FakeLLMServer,
                            tmp_path: Path) -> None:
    server.reply = lambda messages: "The answer seems plausible, hard to say."
    judge = make_judge(provider, server, tmp_path, unparseable=policy)
    r = judge.judge("q", "1", "1")
    assert (r.correct, r.reason) == (expected, "llm:unparseable")
    assert server.count() == 1 and judge.usage()["unparseable"] == 1


@both
@pytest.mark.parametrize(("second", "expected"), [("Final Judgment: Yes", True), ("Sorry, unsure.", False)])
def test_unparseable_retry_asks_once_more(provider: str, second: str, expected: bool, server: FakeLLMServer,
                                          tmp_path: Path) -> None:
    server.reply = lambda messages: "I am not sure." if len(messages) == 1 else second
    judge = make_judge(provider, server, tmp_path, unparseable="retry")
    r = judge.judge("q", "1", "1")
    assert r.correct is expected
    assert server.count() == 2
    follow = server.requests[1]["body"]["messages"]
    assert [m["role"] for m in follow] == ["user", "assistant", "user"]
    assert follow[1]["content"] == "I am not sure." and follow[2]["content"] == REASK_MESSAGE
    assert judge.usage()["reasks"] == 1
    # the final outcome is cached: a replay asks nothing
    again = judge.judge("q", "1", "1")
    assert again.cached and again.correct is expected and server.count() == 2


# --- the cache -----------------------------------------------------------------------------


@both
def test_cache_hit_sends_no_request(provider: str, server: FakeLLMServer, tmp_path: Path) -> None:
    judge = make_judge(provider, server, tmp_path)
    first = judge.judge("q", "42", "it is 42")
    second = judge.judge("q", "42", "it is 42")
    assert first.cached is False and second.cached is True
    assert second.correct is True and second.raw == first.raw
    assert (second.input_tokens, second.output_tokens) == (0, 0)
    assert server.count() == 1
    # another judge on the same folder (a later replay) reuses it too
    assert make_judge(provider, server, tmp_path).judge("q", "42", "it is 42").cached
    assert server.count() == 1
    # different guidance is a different prompt
    assert judge.judge("q", "42", "it is 42", guidance="Be strict about units.").cached is False
    assert server.count() == 2


def test_cache_disabled_asks_every_time(server: FakeLLMServer) -> None:
    judge = make_judge("openai", server, None)
    assert judge.cache is None
    judge.judge("q", "1", "1")
    judge.judge("q", "1", "1")
    assert server.count() == 2


def test_corrupted_cache_entry_is_asked_again(server: FakeLLMServer, tmp_path: Path) -> None:
    judge = make_judge("openai", server, tmp_path)
    judge.judge("q", "1", "1")
    files = list((tmp_path / "cache").glob("??/*.json"))
    assert len(files) == 1
    files[0].write_text('{"raw": "Final Judgment: Yes", "corr')  # a torn write from elsewhere
    r = judge.judge("q", "1", "1")
    assert r.cached is False and r.correct is True and server.count() == 2
    assert json.loads(files[0].read_text())["correct"] is True  # rewritten
    files[0].write_text(json.dumps({"raw": 3, "correct": "yes"}))  # wrong shape
    assert judge.judge("q", "1", "1").cached is False


def test_cache_key_ignores_base_url_but_not_model_or_prompt() -> None:
    k = cache_key("openai", "m", 0.0, 1024, "p")
    assert k == cache_key("openai", "m", 0.0, 1024, "p")
    assert len({k, cache_key("openai", "m2", 0.0, 1024, "p"), cache_key("anthropic", "m", 0.0, 1024, "p"),
                cache_key("openai", "m", 0.5, 1024, "p"), cache_key("openai", "m", 0.0, 512, "p"),
                cache_key("openai", "m", 0.0, 1024, "p2")}) == 6


def _write_entries(args: tuple[str, int]) -> int:
    directory, n = args
    cache = JudgeCache(directory)
    for i in range(n):
        cache.put(cache_key("p", "m", 0.0, 1, str(i % 5)), {"raw": f"r{i}" * 50, "correct": True,
                                                          "input_tokens": i, "output_tokens": 1})
    return n


def test_cache_is_safe_across_threads_and_processes(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path)
    threads = [threading.Thread(target=_write_entries, args=((str(tmp_path), 40),)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with ProcessPoolExecutor(max_workers=2) as pool:
        assert sum(pool.map(_write_entries, [(str(tmp_path), 40)] * 2)) == 80
    assert len(cache) == 5
    for i in range(5):
        entry = cache.get(cache_key("p", "m", 0.0, 1, str(i)))
        assert entry is not None and entry["correct"] is True
    assert not list(tmp_path.glob("??/.tmp-*"))  # no temporary file left behind
    with pytest.raises(ValueError):
        cache.put("ab" * 32, {"raw": "x"})


# --- batches and concurrency ---------------------------------------------------------------


@both
def test_batch_concurrency_is_bounded(provider: str, server: FakeLLMServer, tmp_path: Path) -> None:
    server.delay_s = 0.15
    judge = make_judge(provider, server, tmp_path, concurrency=2)
    rows = [("q", f"ref{i}", f"answer ref{i}" if i % 2 == 0 else "answer none") for i in range(8)]
    out = judge.judge_batch(rows, workers=8)
    assert [r.correct for r in out] == [True, False] * 4  # order kept
    assert server.max_concurrent == 2


def test_concurrency_bound_is_shared_across_batches(server: FakeLLMServer, tmp_path: Path) -> None:
    server.delay_s = 0.1
    judge = make_judge("openai", server, tmp_path, concurrency=3)
    outs: list[list[FallbackResult]] = []

    def run(offset: int) -> None:
        outs.append(judge.judge_batch([("q", str(i), str(i)) for i in range(offset, offset + 6)], workers=6))

    threads = [threading.Thread(target=run, args=(k * 100,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert server.max_concurrent == 3
    assert server.count() == 12 and all(r.correct for out in outs for r in out)


def test_batch_repeats_are_asked_once_and_bad_rows_abstain(server: FakeLLMServer, tmp_path: Path) -> None:
    judge = make_judge("openai", server, tmp_path)
    rows = [("q", "1", "1"), ("q", "2", "3"), ("q", "1", "1"), ("q", None, "x"), ("only two", "x")]
    out = judge.judge_batch(rows, workers=4)
    assert len(out) == 5 and server.count() == 2
    assert out[0].correct is True and out[0].cached is False
    assert out[2].correct is True and out[2].cached is True and out[2].input_tokens == 0
    assert out[1].correct is False
    assert out[3].correct is None and out[3].reason.startswith("bad_input")
    assert out[4].correct is None and out[4].reason.startswith("bad_input")
    assert judge.judge_batch([]) == []


# --- guidance, hostile input, never raising ------------------------------------------------


@both
def test_guidance_reaches_the_prompt(provider: str, server: FakeLLMServer, tmp_path: Path) -> None:
    judge = make_judge(provider, server, tmp_path)
    judge.judge("q", "1", "1", guidance="Treat 0.333 and 1/3 as equal when the question asks for 3 decimals.")
    judge.judge("q", "2", "2")
    with_g = server.requests[0]["body"]["messages"][0]["content"]
    without = server.requests[1]["body"]["messages"][0]["content"]
    assert "Treat 0.333 and 1/3 as equal" in with_g and "Additional grading guidance" in with_g
    assert "Additional grading guidance" not in without


@both
def test_hostile_inputs_do_not_break(provider: str, server: FakeLLMServer, tmp_path: Path) -> None:
    judge = make_judge(provider, server, tmp_path)
    huge = ("{" * 1000 + "\x00" + "}" * 1000 + "{question}{response}\n") * 480 + "final answer: {2, 3}"
    assert len(huge) >= 950_000
    r = judge.judge("Find {x | x^2 = 4}.\x00", "{2, 3}", huge)
    assert r.correct is True
    raw_body = server.requests[-1]["raw_body"]
    assert len(raw_body) < RESPONSE_TAIL_CHARS * 2 + 10_000
    content = server.requests[-1]["body"]["messages"][0]["content"]
    assert "\x00" not in content and "earlier characters cut" in content
    bad = judge.judge(None, "1", "1")  # type: ignore[arg-type]
    assert bad.correct is None and bad.reason.startswith("bad_input:question")
    assert judge.judge("q", "1", "1", guidance=5).reason.startswith("bad_input:guidance")  # type: ignore[arg-type]
    assert server.count() == 1


class _BrokenAdapter:
    provider = "broken"
    base_url = None

    def __init__(self, exc: Exception) -> None:
        self.exc = exc
        self.calls = 0

    def complete(self, messages, *, model, temperature, max_tokens, timeout_s) -> Completion:
        self.calls += 1
        raise self.exc

    def close(self) -> None:
        pass


def test_judge_never_raises(tmp_path: Path) -> None:
    judge = LLMJudge(_BrokenAdapter(KeyError("boom")), model="m", cache_dir=None)
    r = judge.judge("q", "1", "1")
    assert r.correct is None and r.reason == "llm_error:internal:KeyError"
    flaky = _BrokenAdapter(ProviderError("server", retryable=True))
    j2 = LLMJudge(flaky, model="m", cache_dir=None, max_retries=2, backoff_base_s=0.0)
    assert j2.judge_batch([("q", "1", "1")] * 2) == [FallbackResult(None, "llm_error:server"),
                                                      FallbackResult(None, "llm_error:server", cached=True)]
    assert flaky.calls == 3
    # a cache folder that cannot be written does not stop judging
    blocker = tmp_path / "file"
    blocker.write_text("x")
    j3 = LLMJudge(_BrokenAdapter(ProviderError("timeout", retryable=False)), model="m", cache_dir=blocker / "c")
    assert j3.judge("q", "1", "1").reason == "llm_error:timeout"


# --- the factory and the settings ----------------------------------------------------------


def test_missing_key_raises_naming_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(RuntimeError, match="OPENAI_API_KEY"):
        make_llm_judge("openai")
    with pytest.raises(RuntimeError, match="ANTHROPIC_API_KEY"):
        make_llm_judge("anthropic")
    with pytest.raises(RuntimeError, match="MY_KEY_VAR"):
        make_llm_judge("openai", api_key_env="MY_KEY_VAR", base_url="http://127.0.0.1:9/v1")


def test_factory_rejects_bad_settings() -> None:
    with pytest.raises(ValueError, match="provider"):
        make_llm_judge("gemini", api_key_env=KEY_ENV)
    with pytest.raises(ValueError, match="timeuot_s"):
        make_llm_judge("openai", api_key_env=KEY_ENV, config={"timeuot_s": 3})
    with pytest.raises(ValueError, match="unparseable"):
        make_llm_judge("openai", api_key_env=KEY_ENV, config={"unparseable": "guess"})
    with pytest.raises(ValueError, match="concurrency"):
        make_llm_judge("openai", api_key_env=KEY_ENV, config={"concurrency": 0})
    with pytest.raises(ValueError, match="placeholder"):
        make_llm_judge("openai", api_key_env=KEY_ENV, template="no placeholders")


def test_factory_uses_config_and_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "EMPTY")
    cfg = {"concurrency": 7, "cache_dir": None, "max_retries": 5,
           "openai": {"model": "qwen3-4b", "base_url": "http://127.0.0.1:9/v1", "max_retries": 1}}
    j = make_llm_judge("openai", config=cfg)
    s = j.settings()
    assert (s["model"], s["base_url"], s["concurrency"], s["max_retries"], s["cache_dir"]) == (
        "qwen3-4b", "http://127.0.0.1:9/v1", 7, 1, None)
    assert j.name == "openai:qwen3-4b" and "EMPTY" not in json.dumps(s)
    j2 = make_llm_judge("openai", model="other", config=cfg)
    assert j2.model == "other"


def test_config_file_matches_builtins_and_loads() -> None:
    with open(REPO / "configs" / "fallback.yaml", encoding="utf-8") as fh:
        on_disk = yaml.safe_load(fh)
    assert on_disk == BUILTIN_CONFIG
    assert load_fallback_config() == BUILTIN_CONFIG
    assert load_fallback_config(str(REPO / "configs" / "fallback.yaml")) == BUILTIN_CONFIG
    with pytest.raises(FileNotFoundError):
        load_fallback_config("configs/nope.yaml")


def test_partial_config_file_is_merged(tmp_path: Path) -> None:
    p = tmp_path / "fb.yaml"
    p.write_text("timeout_s: 5\nanthropic:\n  model: claude-x\n")
    cfg = load_fallback_config(p)
    assert cfg["timeout_s"] == 5 and cfg["max_retries"] == 3
    assert cfg["anthropic"] == {**BUILTIN_CONFIG["anthropic"], "model": "claude-x"}
    assert cfg["openai"] == BUILTIN_CONFIG["openai"]
    assert resolve_settings("anthropic", cfg)["timeout_s"] == 5
    p.write_text("- a list\n")
    with pytest.raises(ValueError):
        load_fallback_config(p)


# --- live providers (opt in) ---------------------------------------------------------------


@pytest.mark.live
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_live_provider(provider: str, tmp_path: Path) -> None:
    if not os.environ.get(f"{provider.upper()}_API_KEY"):
        pytest.skip(f"{provider.upper()}_API_KEY not set")
    judge = make_llm_judge(provider, config={**load_fallback_config(), "cache_dir": str(tmp_path)})
    assert judge.judge("What is 6 times 7?", "42", "6*7 = 42. The answer is 42.").correct is True
    assert judge.judge("What is 6 times 7?", "42", "6*7 = 48. The answer is 48.").correct is False


def test_verifier_factory_builds_the_llm_judge(server: FakeLLMServer) -> None:
    """The path the verifier takes: make_fallback(name, config=...) with flat settings."""
    from verifier_runtime.fallback import make_fallback

    fb = make_fallback("anthropic", config={"base_url": server.anthropic_base_url, "api_key_env": KEY_ENV,
                                            "model": "fake-claude", "cache_dir": None})
    assert isinstance(fb, LLMJudge) and fb.name == "anthropic:fake-claude"
    assert fb.judge("q", "5", "so 5").correct is True and server.count("/v1/messages") == 1
