"""The construction round's pure functions: templates, cascade, figures, the first four validation stages (the last two: tests/test_validation_stages.py)."""

from __future__ import annotations

import pytest

from tasks.construct.config import RoundConfig
from tasks.construct.draft import Draft, OfflineDrafter, grid
from tasks.construct.features import answer_object, error_type, shape
from tasks.construct.promote import next_version
from tasks.construct.render import instantiate, load_template, render_module
from tasks.construct.replay import cascade, chunk_indices, round_figures
from tasks.construct.residuals import find_residuals
from tasks.construct.state import PoolState
from tasks.construct.templates import TEMPLATE_NAMES
from tasks.construct.validate import validate_draft
from tasks.data.schema import Example
from verifier_runtime.sandbox import check_module_source, load_module_source
from verifier_runtime.triple import Triple
from verifier_runtime.types import Decision, FallbackResult


class LabelFallback:
    """A fallback that answers from a fixed table (index -> verdict) for hand-computed tests."""

    name = "table"
    local = True

    def __init__(self, table: dict[str, bool]) -> None:
        self.table = table

    def judge(self, question, reference, response, *, guidance=""):
        return FallbackResult(self.table.get(response, False), "table")

    def judge_batch(self, rows, *, guidance="", workers=4):
        return [self.judge(*r) for r in rows]


def ex(i: int, ref: str, resp: str, label: bool, q: str = "What is it?") -> Example:
    return Example(id=f"e{i:02d}", question=q, reference=ref, response=resp, label=label, source="t", domain="d")


@pytest.mark.parametrize("name", TEMPLATE_NAMES)
def test_every_template_renders_to_a_policy_clean_module(name: str) -> None:
    t = load_template(name)
    assert t.group and t.grid and set(t.grid) <= set(t.defaults)
    params = {k: v[-1] for k, v in t.grid.items()}
    src = render_module(name, params, module_id=f"m001_{name}", priority=10, card_id="c1", description="d",
                        why="w", support=[], counterexamples=[])
    assert check_module_source(src) == []
    ns = load_module_source(src, filename=name)
    cand = instantiate(name, params)
    for q, r, s in [("What is 2+2?", "4", "The answer is 4."), ("Pick one. (A) x (B) y", "B", "(A)"),
                    ("Who?", "Ann Lee/A. Lee", "It was A. Lee."), ("", "", "")]:
        x1, x2 = Triple(q, r, s), Triple(q, r, s)
        assert ns.decide(x1) == cand.decide(x2)


def test_render_refuses_unknown_parameters() -> None:
    with pytest.raises(ValueError, match="unknown parameters"):
        render_module("numeric_match", {"nope": 1}, module_id="m", priority=1, card_id="c", description="d",
                      why="w", support=[], counterexamples=[])


def test_grid_is_the_product_of_values() -> None:
    t = load_template("boolean_match")
    assert len(grid("boolean_match")) == len(t.grid["on_mismatch"]) * len(t.grid["on_guard"])
    n = 1
    for v in load_template("numeric_match").grid.values():
        n *= len(v)
    assert len(grid("numeric_match")) == n


def test_cascade_and_figures_hand_computed() -> None:
    exs = [ex(0, "1", "a", True), ex(1, "1", "b", False), ex(2, "1", "c", True), ex(3, "1", "d", False)]
    st = PoolState(exs, LabelFallback({"c": True, "d": True}))
    st.decisions = {"m1": ["PASS", "ABSTAIN", "ABSTAIN", "ABSTAIN"], "m2": ["FAIL", "PASS", "ABSTAIN", "ABSTAIN"]}
    preds, by = cascade(["m1", "m2"], st.decisions, st)
    assert preds == [True, True, True, True] and by == ["m1", "m2", "fallback", "fallback"]
    f = round_figures(preds, by, st.labels)
    assert f["direct"] == 2 and f["coverage"] == 0.5 and f["direct_errors"] == 1
    assert f["direct_precision"] == 0.5 and f["accuracy"] == 0.5 and f["fallback_calls"] == 2
    res = find_residuals(st, preds, by)
    assert [r["example_id"] for r in res] == ["e01", "e03"]
    assert res[0]["error_type"] == "direct_false_pass" and res[1]["error_type"] == "fallback_false_pass"


def _draft(decide, template: str | None = "numeric_match") -> Draft:
    return Draft("card", "c0", "residual", "code", "test", template, {}, decide=decide)


@pytest.fixture()
def pool() -> PoolState:
    # 0-5: the cluster (numbers the fallback misjudges); 6-8: counterexamples; 9: elsewhere.
    exs = [ex(i, "5", "five" if i % 2 else "5.0", True) for i in range(6)]
    exs += [ex(6, "5", "6", False), ex(7, "5", "7", False), ex(8, "5", "5.0x", False), ex(9, "zz", "zz", True)]
    return PoolState(exs, LabelFallback({"zz": True}))


CLUSTER, COUNTER = [0, 1, 2, 3, 4, 5], [6, 7, 8]


def _validate(pool: PoolState, decide, order=(), templates=None, **cfg):
    preds, by = cascade(list(order), pool.decisions, pool)
    return validate_draft(_draft(decide), CLUSTER, COUNTER, pool, list(order), templates or {},
                          RoundConfig(**cfg), preds, by)


def test_accepts_a_rule_that_fixes_the_cluster(pool: PoolState) -> None:
    v = _validate(pool, lambda x: Decision.passed() if x.reference == "5" and x.response in ("5.0", "five")
                  else Decision.abstain())
    assert v.passed and v.stage == "accepted"
    assert v.figures["full_replay"]["corrections"] == 6 and v.figures["full_replay"]["new_direct_errors"] == 0


def test_support_stage(pool: PoolState) -> None:
    v = _validate(pool, lambda x: Decision.passed() if x.response == "5.0" else Decision.abstain(), min_support=4)
    assert not v.passed and v.stage == "support" and "3 of 6" in v.reason
    v = _validate(pool, lambda x: Decision.failed() if x.response == "five" else Decision.passed())
    assert not v.passed and v.stage == "support"


def test_counterexample_stage(pool: PoolState) -> None:
    v = _validate(pool, lambda x: Decision.passed() if x.reference == "5" else Decision.abstain())
    assert not v.passed and v.stage == "counterexample" and "3 wrong" in v.reason


def test_overlap_conflict_and_redundancy(pool: PoolState) -> None:
    pool.decisions["old"] = ["FAIL"] * 6 + ["ABSTAIN"] * 4
    v = _validate(pool, lambda x: Decision.passed() if x.reference == "5" and x.response in ("5.0", "five")
                  else Decision.abstain(), order=["old"])
    assert not v.passed and v.stage == "overlap" and "conflicts with old on 6" in v.reason
    pool.decisions["old"] = ["PASS"] * 6 + ["ABSTAIN"] * 4
    v = _validate(pool, lambda x: Decision.passed() if x.reference == "5" and x.response in ("5.0", "five")
                  else Decision.abstain(), order=["old"])
    assert not v.passed and v.stage == "overlap" and v.reason.startswith("redundant")


def test_full_replay_stage_and_error_rate(pool: PoolState) -> None:
    def rule(x):
        if x.reference == "5" and x.response in ("5.0", "five"):
            return Decision.passed()
        return Decision.failed() if x.response == "zz" else Decision.abstain()

    v = _validate(pool, rule)
    assert not v.passed and v.stage == "full_replay" and "1 new direct errors" in v.reason
    assert v.figures["full_replay"]["new_direct_error_ids"] == ["e09"]
    v = _validate(pool, rule, max_new_direct_error_rate=0.2)  # 1 error in 7 decisions is within 20%
    assert v.passed and "1 new direct errors" in v.reason


def test_revision_of_an_existing_module_from_the_same_template(pool: PoolState) -> None:
    pool.decisions["m001_numeric_match"] = ["PASS", "ABSTAIN"] * 3 + ["ABSTAIN"] * 4
    v = _validate(pool, lambda x: Decision.passed() if x.reference == "5" and x.response in ("5.0", "five")
                  else Decision.abstain(), order=["m001_numeric_match"],
                  templates={"m001_numeric_match": "numeric_match"})
    assert v.passed and v.revises == "m001_numeric_match"


def test_offline_drafter_finds_the_narrow_rule() -> None:
    exs = [ex(i, "Ann Lee/A. Lee", f"It was {'A. Lee' if i % 2 else 'Ann Lee'}.", True, q=f"Who did {i}?")
           for i in range(8)]
    exs += [ex(10 + i, "Ann Lee/A. Lee", "It was Bo Chan.", False, q=f"Who did {i}?") for i in range(4)]
    st = PoolState(exs, LabelFallback({}))
    drafts = OfflineDrafter().draft({"cluster_id": "c0", "indices": list(range(8))}, list(range(8, 12)), st,
                                    RoundConfig(), "r01")
    assert drafts and drafts[0].template == "alias_match"
    assert drafts[0].search["cluster_fixed"] == 8 and drafts[0].search["counterexample_errors"] == 0


def test_small_helpers() -> None:
    assert next_version("r0000") == "r0001" and next_version("r0041") == "r0042"
    assert chunk_indices(5, 2) == [[0, 1], [2, 3], [4]]
    assert shape("x = 12.5 cm") == "a = 9.9 a"
    assert error_type("m1", True, False) == "direct_false_pass"
    assert error_type("fallback:offline", False, True) == "fallback_false_fail"
    assert answer_object(Triple("q", "3/4", "x")) == "number"
    assert answer_object(Triple("Pick. (A) x (B) y", "B", "x")) == "choice"
    assert answer_object(Triple("q", "", "x")) == "none"


def test_promotion_decisions_are_pure_functions() -> None:
    from tasks.construct.promote import (
        module_number,
        module_priority,
        next_module_id,
        next_round,
        retire_replaced,
        revision_after,
    )

    assert module_number("m012_text_match") == 12 and module_number("other") == 0
    assert next_module_id([], "alias_match") == "m001_alias_match"
    assert next_module_id(["m001_a", "m007_b", "m003_c"], None) == "m008_llm"
    assert module_priority("answer_extraction", "m004_final_number") == 154
    assert module_priority("invalid_answer_guard", "m002_x") < module_priority("numeric_unit", "m001_y")
    assert module_priority("unknown_group", "m003_z") == 503
    assert revision_after(None) == 1 and revision_after({"revision": 2}) == 3
    cards = {"c1": {"card_id": "c1", "status": "accepted"}, "c2": {"card_id": "c2"}}
    new = retire_replaced(cards, "c1", "c9")
    assert new["c1"] == {"card_id": "c1", "status": "retired", "reason": "revised by c9"}
    assert cards["c1"]["status"] == "accepted" and new["c2"] is cards["c2"]  # the input is unchanged
    assert retire_replaced(cards, "missing", "c9") == cards
    assert next_round(3, 4) == 5 and next_round(0, 0) == 1


def test_module_cases_are_gold_labelled_with_provenance() -> None:
    from tasks.construct.promote import module_cases

    exs = [ex(0, "5", "5.0", True), ex(1, "5", "6", False), ex(2, "5", "five", True), ex(3, "zz", "zz", False)]
    st = PoolState(exs, LabelFallback({}))
    dec = ["PASS", "FAIL", "ABSTAIN", "PASS"]  # the PASS on e03 disagrees with its label: never a case
    cases = module_cases(st, dec, [0, 1], n=2, abstain_from=[2])
    assert [(c["example_id"], c["expected"]) for c in cases] == [("e00", "PASS"), ("e01", "FAIL"), ("e02", "ABSTAIN")]
    assert all(c["label_provenance"] and c["question"] for c in cases)
