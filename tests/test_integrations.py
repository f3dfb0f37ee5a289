"""verl and TRL adapters and reward shaping, called exactly as those frameworks call them."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from tests.fake_verifier import LOADS, FakeVerifier, make_fake_verifier
from verifier_runtime.integrations import rewards as rewards_mod
from verifier_runtime.integrations import trl as trl_adapter
from verifier_runtime.integrations import verl as verl_adapter
from verifier_runtime.integrations.rewards import RewardConfig, is_invalid, verdict_to_reward
from verifier_runtime.types import Verdict

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def fake_loader(monkeypatch):
    """Route the per-process cache to the scripted verifier and start each test with it empty."""
    monkeypatch.setattr(rewards_mod, "_default_loader", make_fake_verifier)
    rewards_mod.clear_verifier_cache()
    LOADS.clear()
    yield
    rewards_mod.clear_verifier_cache()


def _v(correct, by="m", reason=""):
    return Verdict(correct, by, reason, False, "r", 0.1)


# --- reward shaping --------------------------------------------------------------------------

def test_reward_config_file_matches_defaults_and_overrides():
    cfg = RewardConfig.from_yaml(REPO / "configs" / "rewards.yaml")
    assert cfg == RewardConfig()
    assert RewardConfig.resolve(None, correct=2, invalid=-1.0) == RewardConfig(2.0, 0.0, -1.0, None)
    assert RewardConfig.resolve({"rewards": {"abstain": 0.5}}).abstain == 0.5


@pytest.mark.parametrize("bad", [{"corect": 1.0}, {"correct": "high"}, {"incorrect": float("nan")},
                                 {"abstain": True}])
def test_reward_config_rejects_bad_values(bad):
    with pytest.raises(ValueError):
        RewardConfig.from_mapping(bad)


def test_verdict_to_reward_kinds():
    cfg = RewardConfig(correct=1.0, incorrect=-0.5, invalid=-1.0, abstain=None)
    assert verdict_to_reward(_v(True), cfg) == 1.0
    assert verdict_to_reward(_v(False, reason="different"), cfg) == -0.5
    assert verdict_to_reward(_v(False, reason="invalid:no_boxed"), cfg) == -1.0
    assert verdict_to_reward(_v(False, by="guard.x"), cfg, frozenset({"guard.x"})) == -1.0
    assert verdict_to_reward(_v(None), cfg) is None
    assert verdict_to_reward(_v(None), RewardConfig(abstain=0.25)) == 0.25
    # a positive verdict is never "invalid", whatever its reason says
    assert not is_invalid(_v(True, reason="invalid:whatever"))


def test_invalid_module_ids_reads_groups():
    ids = rewards_mod.invalid_module_ids(FakeVerifier.modules)
    assert ids == frozenset({"guard.no_answer"})


# --- verl ------------------------------------------------------------------------------------

KW = {"artifact": "rulebank/releases/r-test", "fallback": "offline", "incorrect": -0.5}


def test_verl_compute_score_as_naive_reward_manager_calls_it():
    # NaiveRewardManager: keyword call with data_source, solution_str, ground_truth, extra_info,
    # plus custom_reward_function.reward_kwargs.
    out = verl_adapter.compute_score(data_source="gsm8k", solution_str="so the answer is 42.",
                                     ground_truth="42", extra_info={"question": "6*7?", "index": 3}, **KW)
    assert out["score"] == 1.0 and out["acc"] == 1.0 and out["decided_by"] == "match.last_token"
    assert out["pred"] == "42"
    wrong = verl_adapter.compute_score(data_source="gsm8k", solution_str="it is 41", ground_truth="42",
                                       extra_info=None, **KW)
    assert wrong["score"] == -0.5 and wrong["acc"] == 0.0
    empty = verl_adapter.compute_score(data_source="gsm8k", solution_str="   ", ground_truth="42", **KW,
                                       invalid=-1.0)
    assert empty["score"] == -1.0 and empty["invalid"] == 1.0
    # every result has the same keys (verl appends each key's value per sample)
    assert set(out) == set(wrong) == set(empty)
    assert isinstance(out["score"], float)


def test_verl_extra_keys_survive_validation_metrics():
    # verl averages every non-string reward_extra_info value; None would break np.mean.
    np = pytest.importorskip("numpy")
    outs = [verl_adapter.compute_score("x", s, "?7", {}, fallback="none") for s in ("7", "8")]
    for key in outs[0]:
        vals = [o[key] for o in outs]
        if not isinstance(vals[0], str):
            assert np.isfinite(np.mean(vals)), key
    assert outs[0]["decided_by"] == "none" and outs[0]["score"] == 0.0  # abstain unset -> incorrect value


def test_verl_question_and_ground_truth_shapes():
    q = verl_adapter.question_from_extra_info
    assert q({"question": "Q1"}) == "Q1"
    assert q({"prompt": [{"role": "system", "content": "sys"}, {"role": "user", "content": "Q2"}]}) == "Q2"
    assert q({"problem": "Q3"}) == "Q3"
    assert q(None) == "" and q({"index": 1}) == ""
    r = verl_adapter.reference_text
    assert r(["12"]) == "12" and r(["1", "2"]) == "1" and r(7) == "7" and r({"target": ["x"]}) == "x"
    np = pytest.importorskip("numpy")
    assert r(np.array(["5"], dtype=object)) == "5" and r(np.int64(3)) == "3"


def test_verl_verifier_cached_per_configuration_and_thread_safe():
    barrier = threading.Barrier(8)

    def call():
        barrier.wait()
        verl_adapter.compute_score("d", "1", "1", None, artifact="a", fallback="offline", budget_s=1.0)

    threads = [threading.Thread(target=call) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(LOADS) == 1 and LOADS[0] == ("a", "offline", {"budget_s": 1.0})
    verl_adapter.compute_score("d", "1", "1", None, artifact="a", fallback="offline", budget_s=1.0, correct=5)
    assert len(LOADS) == 1  # reward values are not verifier options
    verl_adapter.compute_score("d", "1", "1", None, artifact="a", fallback="none", budget_s=1.0)
    verl_adapter.compute_score("d", "1", "1", None, artifact="a", fallback="offline",
                               exclude_groups={"verdict matching"})
    assert len(LOADS) == 3


def test_verl_batch_as_batch_reward_manager_calls_it():
    sols = ["answer: 3", "answer: 4", "", "maybe 9"]
    gts = ["3", "5", "1", "?9"]
    infos = [{"question": f"q{i}"} for i in range(4)]
    batch = verl_adapter.compute_score_batch(data_sources=["d"] * 4, solution_strs=sols, ground_truths=gts,
                                             extra_infos=infos, **KW)
    single = [verl_adapter.compute_score("d", s, g, i, **KW) for s, g, i in zip(sols, gts, infos, strict=True)]
    strip = lambda d: {k: v for k, v in d.items() if k != "elapsed_ms"}  # noqa: E731
    assert [strip(b) for b in batch] == [strip(s) for s in single]
    assert [b["score"] for b in batch] == [1.0, -0.5, 0.0, 1.0]
    assert batch[3]["fallback_called"] == 1.0
    bad = verl_adapter.compute_score_batch(["d"], ["a", "b"], ["1", "2"], None, **KW)  # lengths differ
    assert [b["decided_by"] for b in bad] == ["error:ValueError"] * 2


# --- TRL -------------------------------------------------------------------------------------

class _Log:
    def __init__(self):
        self.extra: dict[str, list] = {}
        self.metrics: dict[str, float] = {}

    def log_extra(self, column, values):
        self.extra[column] = values

    def log_metric(self, name, value):
        self.metrics[name] = value


def test_trl_plain_strings_with_grpo_calling_convention():
    fn = trl_adapter.make_reward_function(artifact="a", rewards={"incorrect": -1.0})
    log = _Log()
    out = fn(prompts=["What is 1+1?", "Capital of France?"], completions=["It is 2", "Lyon"],
             completion_ids=[[1, 2], [3]], trainer_state=object(), solution=["2", "Paris"],
             log_extra=log.log_extra, log_metric=log.log_metric)
    assert out == [1.0, -1.0]
    assert fn.__name__ == "autoverifier"
    assert log.extra["autoverifier_decided_by"] == ["match.last_token", "match.last_token"]
    assert log.extra["autoverifier_reason"] == ["equal", "different"]
    assert log.metrics["autoverifier/fallback_rate"] == 0.0


def test_trl_conversational_prompts_and_completions():
    captured = []

    class Spy(FakeVerifier):
        def verify_batch(self, rows, workers=4):
            rows = list(rows)
            captured.extend(rows)
            return super().verify_batch(rows, workers)

    fn = trl_adapter.make_reward_function(verifier=Spy(), reference_column="answer")
    prompts = [[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "2+2?"}]]
    completions = [[{"role": "assistant", "content": [{"type": "text", "text": "The answer is 4"}]}]]
    assert fn(prompts=prompts, completions=completions, answer=["4"]) == [1.0]
    assert captured == [{"question": "2+2?", "reference": "4", "response": "The answer is 4"}]


def test_trl_question_column_abstentions_and_errors():
    fn = trl_adapter.make_reward_function(fallback="none", question_column="problem", abstain_as_none=True)
    out = fn(prompts=["p1", "p2"], completions=["x 3", "x 3"], solution=["?3", "3"], problem=["a", "b"])
    assert out == [None, 1.0]
    fn2 = trl_adapter.make_reward_function(fallback="none", rewards={"abstain": 0.5})
    assert fn2(prompts=["p"], completions=["3"], solution=["?3"]) == [0.5]
    fn3 = trl_adapter.make_reward_function(fallback="none")
    assert fn3(prompts=["p"], completions=["3"], solution=["?3"]) == [0.0]
    with pytest.raises(KeyError, match="solution"):
        fn(prompts=["p"], completions=["c"], reference=["x"])
    with pytest.raises(ValueError, match="3 values for 2"):
        fn3(prompts=["p", "q"], completions=["a", "b"], solution=["1", "2", "3"])
    assert fn3(prompts=[], completions=[], solution=[]) == []


def test_real_runtime_through_verl_adapter_when_available():
    """With the real runtime and a frozen release present, the adapter runs end to end."""
    rt = pytest.importorskip("verifier_runtime")
    if not hasattr(rt, "load_verifier"):
        pytest.skip("verifier_runtime.load_verifier not available yet")
    if not any((REPO / "rulebank" / "releases").glob("*")):
        pytest.skip("no frozen release under rulebank/releases")
    rewards_mod.clear_verifier_cache()
    out = verl_adapter.compute_score(data_source="t", solution_str="The answer is \\boxed{4}.", ground_truth="4",
                                     extra_info={"question": "What is 2+2?"}, fallback="offline",
                                     verifier=rt.load_verifier(fallback="offline"))
    assert out["score"] == 1.0 and out["pred"] == "4"


# --- today's call shapes -------------------------------------------------------------------

def test_verl_ignores_the_keywords_verl_adds():
    # a generative reward model makes the reward loop pass these; DAPO passes strict_box_verify
    out = verl_adapter.compute_score(data_source="d", solution_str="so 42", ground_truth="42", extra_info={},
                                     reward_router_address="127.0.0.1:9000", reward_model_tokenizer=object(),
                                     strict_box_verify=False, some_future_key=1, **KW)
    assert out["score"] == 1.0
    assert LOADS == [("rulebank/releases/r-test", "offline", {})]  # none of them reached load_verifier


def test_verl_never_raises_and_keys_are_always_the_same(monkeypatch):
    ok = verl_adapter.compute_score("d", "so 42", "42", {}, **KW)
    truncated = verl_adapter.compute_score("d", "so 42", "42", {"truncated": True}, **KW, invalid=-1.0)
    missing = verl_adapter.compute_score("d", "so 42", None, {}, **KW)

    def broken(*a, **k):
        raise FileNotFoundError("no such release")

    monkeypatch.setattr(rewards_mod, "_default_loader", broken)
    rewards_mod.clear_verifier_cache()
    error = verl_adapter.compute_score("d", "so 42", "42", {}, **KW)
    for out in (ok, truncated, missing, error):
        assert tuple(out) == verl_adapter.RESULT_KEYS and all(v is not None for v in out.values())
    assert truncated["score"] == -1.0 and truncated["reason"] == "invalid:truncated" and truncated["invalid"] == 1.0
    assert missing["reason"] == "invalid:reference_missing" and missing["score"] == -0.5
    assert error["decided_by"] == "error:FileNotFoundError" and error["score"] == -0.5


def test_verl_async_variant_is_a_coroutine_function_and_runs_concurrently():
    import asyncio
    import inspect
    import time

    assert inspect.iscoroutinefunction(verl_adapter.compute_score_async)

    async def run():
        t0 = time.perf_counter()
        outs = await asyncio.gather(*(verl_adapter.compute_score_async(
            data_source="d", solution_str=f"SLEEP {i}", ground_truth=str(i), extra_info={}, **KW) for i in range(4)))
        return outs, time.perf_counter() - t0

    outs, took = asyncio.run(run())
    assert [o["score"] for o in outs] == [1.0] * 4
    assert took < 4 * 0.3 * 0.8, took  # four 0.3 s verifications overlapped


def test_verl_multiple_references_any_matches():
    gts = [["41", "42"], ("x", "42"), {"answer": ["7", "42"]}]
    for gt in gts:
        assert verl_adapter.compute_score("d", "so 42", gt, {}, **KW)["score"] == 1.0
    assert verl_adapter.compute_score("d", "so 43", ["41", "42"], {}, **KW)["score"] == -0.5
    batch = verl_adapter.compute_score_batch(["d"] * 3, ["so 42", "so 5", "so 6"], [["1", "42"], None, ["6"]],
                                             [{}, {}, {"truncated": True}], **KW)
    assert [b["score"] for b in batch] == [1.0, -0.5, 0.0] and [b["reason"] for b in batch][1:] == [
        "invalid:reference_missing", "invalid:truncated"]


def test_trl_none_reference_gives_none_and_one_warning(caplog):
    fn = trl_adapter.make_reward_function(artifact="a")
    with caplog.at_level("WARNING"):
        out = fn(prompts=["p"] * 3, completions=["x 1", "x 2", "x 3"], solution=["1", None, ["9", "3"]])
        fn(prompts=["p"], completions=["x 1"], solution=[None])
    assert out == [1.0, None, 1.0]
    warnings = [r for r in caplog.records if "solution" in r.getMessage()]
    assert len(warnings) == 1


def test_trl_missing_column_raises_before_the_first_step():
    class Dataset:
        column_names = ["prompt", "answer"]

    with pytest.raises(KeyError, match="solution"):
        trl_adapter.make_reward_function(artifact="a", dataset=Dataset())
    fn = trl_adapter.make_reward_function(artifact="a", reference_column="answer", dataset=Dataset())
    assert fn(prompts=["p"], completions=["x 1"], answer=["1"]) == [1.0]


def test_trl_async_reward_function_awaited_together():
    import asyncio
    import inspect
    import time

    fn = trl_adapter.make_async_reward_function(artifact="a")
    assert inspect.iscoroutinefunction(fn) and fn.__name__ == "autoverifier"

    async def run():
        t0 = time.perf_counter()
        outs = await asyncio.gather(*(fn(prompts=["p"], completions=[f"SLEEP {i}"], solution=[str(i)],
                                         trainer_state=None) for i in range(4)))
        return outs, time.perf_counter() - t0

    outs, took = asyncio.run(run())
    assert outs == [[1.0]] * 4 and took < 4 * 0.3 * 0.8, took


def test_openrlhf_python_file_form(monkeypatch):
    import importlib.util

    path = REPO / "verifier_runtime" / "integrations" / "openrlhf.py"
    spec = importlib.util.spec_from_file_location("custom_reward", path)  # as OpenRLHF loads it
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    monkeypatch.setenv("AUTOVERIFIER_ARTIFACT", "a")
    out = mod.reward_func(["Q: 2+2? A: so 4</s>", "Q x 5", "Q x 6"], ["Q: 2+2? A:", "Q", "Q"], ["4", None, ["1", "6"]],
                          n_samples_per_prompt=1)
    rewards = out["rewards"].tolist() if hasattr(out["rewards"], "tolist") else out["rewards"]
    assert rewards == [1.0, 0.0, 1.0]
    flags = out["extra_logs"]["label_missing"]
    assert (flags.tolist() if hasattr(flags, "tolist") else flags) == [0.0, 1.0, 0.0]
