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
    assert out["score"] == 1.0 and out["correct"] == 1.0 and out["decided_by"] == "match.last_token"
    wrong = verl_adapter.compute_score(data_source="gsm8k", solution_str="it is 41", ground_truth="42",
                                       extra_info=None, **KW)
    assert wrong["score"] == -0.5 and wrong["correct"] == 0.0
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
    assert outs[0]["abstained"] == 1.0 and outs[0]["score"] == 0.0  # abstain unset -> incorrect value


def test_verl_question_and_ground_truth_shapes():
    q = verl_adapter.question_from_extra_info
    assert q({"question": "Q1"}) == "Q1"
    assert q({"prompt": [{"role": "system", "content": "sys"}, {"role": "user", "content": "Q2"}]}) == "Q2"
    assert q({"problem": "Q3"}) == "Q3"
    assert q(None) == "" and q({"index": 1}) == ""
    r = verl_adapter.reference_text
    assert r(["12"]) == "12" and r(["1", "2"]) == "1, 2" and r(7) == "7" and r({"target": ["x"]}) == "x"
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
    with pytest.raises(ValueError, match="lengths differ"):
        verl_adapter.compute_score_batch(["d"], ["a", "b"], ["1", "2"], None, **KW)


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
    assert out["score"] == 1.0 and out["artifact_version"]
