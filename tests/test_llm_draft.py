"""The LLM drafter and the guidance path, through the real clients against the local fake server."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from tasks.construct.config import RoundConfig
from tasks.construct.llm_draft import DraftSchemaError, LLMDrafter, parse_card
from tasks.construct.state import PoolState
from tasks.data.schema import Example
from tests.fakes.llm_server import FakeLLMServer, message_text
from verifier_runtime.fallback.llm import make_llm_judge

ALIAS_CODE = (
    "from verifier_runtime.toolkit.text import contains_answer\n"
    "from verifier_runtime.types import Decision\n\n\n"
    "def decide(x):\n"
    "    if not x.answer or not x.ref or '/' not in x.ref:\n"
    "        return Decision.abstain('no_aliases')\n"
    "    for alias in x.ref.split('/'):\n"
    "        if len(alias.strip()) > 2 and contains_answer(x.answer, alias.strip()):\n"
    "            return Decision.passed('alias')\n"
    "    return Decision.abstain('none')\n"
)


def _card(path: str = "code", **extra) -> str:
    card = {"title": "Alias lists in references", "path": path, "group": "verdict_matching",
            "activation_region": "references with '/'-separated aliases",
            "comparison_procedure": "any alias inside the answer passes",
            "abstention_behaviour": "abstains without aliases", **extra}
    return "Here is the card:\n```json\n" + json.dumps(card) + "\n```"


def _pool() -> PoolState:
    exs = [Example(f"p{i}", f"Who wrote book {i}?", "Ann Lee/A. Lee", f"It was {'A. Lee' if i % 2 else 'Ann Lee'}.",
                   True, "t") for i in range(6)]
    exs += [Example(f"n{i}", f"Who wrote book {i}?", "Ann Lee/A. Lee", "It was Bo Chan.", False, "t")
            for i in range(4)]
    return PoolState(exs, None)


@pytest.fixture()
def server(monkeypatch):
    with FakeLLMServer() as s:
        monkeypatch.setenv("OPENAI_API_KEY", s.api_key)
        yield s


def _drafter(server) -> LLMDrafter:
    return LLMDrafter.from_config({"provider": "openai", "model": "fake-model", "base_url": server.openai_base_url})


def test_llm_drafter_code_card_is_policy_checked_and_runs(server) -> None:
    server.reply = lambda messages: _card(module_code=ALIAS_CODE)
    st = _pool()
    (draft,) = _drafter(server).draft({"cluster_id": "c0", "indices": list(range(6))}, [6, 7, 8, 9], st,
                                      RoundConfig(), "r01")
    assert draft.path == "code" and draft.decide is not None and draft.search["cluster_fixed"] == 6
    prompt = message_text(server.requests[-1]["body"]["messages"][0])
    assert "Counterexamples" in prompt and "Bo Chan" in prompt and "Ann Lee/A. Lee" in prompt


def test_llm_drafted_code_is_audited_before_anything_loads_it(server, monkeypatch) -> None:
    """Code that passes the static check but hangs on the cluster's inputs: the sandboxed audit
    refuses it, and it is never loaded into this process."""
    import tasks.construct.llm_draft as llm_draft

    loaded: list[str] = []
    real = llm_draft.load_module_source
    monkeypatch.setattr(llm_draft, "load_module_source", lambda src, **kw: loaded.append(src) or real(src, **kw))
    spin = ("from verifier_runtime.types import Decision\n\n\ndef decide(x):\n    n = 0\n"
            "    while 'Lee' in x.reference:\n        n += 1\n    return Decision.abstain('no')\n")
    server.reply = lambda messages: _card(module_code=spin)
    cfg = RoundConfig(audit_cpu_seconds=1)
    (draft,) = _drafter(server).draft({"cluster_id": "c0", "indices": [0, 1]}, [6], _pool(), cfg, "r01")
    assert draft.decide is None and draft.search["audit"]["stage"] == "sandbox"
    assert loaded == []


def test_audit_refuses_a_module_without_cases() -> None:
    from tasks.construct.audit import audit_module

    src = ('"""No cases."""\n\nfrom verifier_runtime.types import Decision\n\nMODULE = {"id": "m", "group": "g", '
           '"priority": 1, "card_id": "c", "description": "d"}\n\n\ndef decide(x):\n    return Decision.abstain("no")\n')
    res = audit_module(src, cases=[])
    assert not res.passed and res.stage == "static" and "no cases" in res.reason


def test_llm_drafter_refuses_hostile_code(server) -> None:
    server.reply = lambda messages: _card(module_code="import os\n\ndef decide(x):\n    return os.system('x')\n")
    (draft,) = _drafter(server).draft({"cluster_id": "c0", "indices": [0, 1, 2]}, [], _pool(), RoundConfig(), "r01")
    assert draft.decide is None and draft.search["policy_violations"]


def test_llm_drafter_bad_reply_is_recorded_not_raised(server) -> None:
    server.reply = lambda messages: "I think you should compare the answers carefully."
    (draft,) = _drafter(server).draft({"cluster_id": "c0", "indices": [0]}, [], _pool(), RoundConfig(), "r01")
    assert draft.decide is None and "no JSON object" in draft.search["error"]


def test_parse_card_schema() -> None:
    assert parse_card(_card(path="guidance", guidance="Accept any listed alias."))["path"] == "guidance"
    with pytest.raises(DraftSchemaError, match="group"):
        parse_card(_card(module_code="x").replace("verdict_matching", "misc"))
    with pytest.raises(DraftSchemaError, match="module_code"):
        parse_card(_card())
    with pytest.raises(DraftSchemaError, match="title"):
        parse_card(json.dumps({"path": "code"}))


def test_guidance_card_validated_by_replaying_the_llm_fallback(server) -> None:
    """The fallback accepts aliases only once the guidance says so: the card fixes the cluster."""
    from tasks.construct.round import validate_guidance

    def judge(messages):
        prompt = message_text(messages[0])
        yes = "listed alias" in prompt and "Bo Chan" not in prompt
        return f"Reasoning.\nFinal Judgment: {'Yes' if yes else 'No'}"

    server.reply = judge
    fb = make_llm_judge("openai", model="fake-model", base_url=server.openai_base_url, config={"cache_dir": None})
    st = _pool()
    st.fallback = fb
    ctx = SimpleNamespace(state=st, base=SimpleNamespace(guidance=""), round_no=1,
                          cfg=SimpleNamespace(construction=RoundConfig()))
    from tasks.construct.draft import Draft

    draft = Draft("r01-c0-llm", "c0", "residual", "guidance", "llm", None, {}, guidance="Accept any listed alias.")
    card = validate_guidance(ctx, draft, {"cluster_id": "c0", "indices": list(range(6)), "counterexamples": [6, 7]})
    assert card["status"] == "accepted", card["reason"]
    assert card["replay_evidence"]["guidance_replay"] == {"n": 8, "fixed": 6, "broken": 0}

    st_offline = _pool()
    from verifier_runtime.fallback.offline import OfflineJudge

    st_offline.fallback = OfflineJudge()
    ctx.state = st_offline
    card = validate_guidance(ctx, draft, {"cluster_id": "c0", "indices": list(range(6))})
    assert card["status"] == "rejected" and "needs an LLM fallback" in card["reason"]
