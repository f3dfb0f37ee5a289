"""The two validation stages beyond the construction split: perturbation (metamorphic rewrites of
the support examples) and replay on the validation split; the guards the drafter searches; the
wrong decisions on a card by their text."""

from __future__ import annotations

from pathlib import Path

import yaml

from tasks.construct.config import RoundConfig
from tasks.construct.draft import Draft, OfflineDrafter
from tasks.construct.perturb import MUST_NOT_PASS, PRESERVING, perturbations
from tasks.construct.promote import card_record, rejected_card, source_card
from tasks.construct.replay import cascade
from tasks.construct.state import PoolState
from tasks.construct.validate import HeldOut, validate_draft
from tasks.data.schema import Example
from verifier_runtime.toolkit.criterion import compare_numbers, pass_guard
from verifier_runtime.toolkit.text import normalize_text
from verifier_runtime.triple import Triple
from verifier_runtime.types import Decision, FallbackResult


class TableFallback:
    """A fallback answering from a table of responses (default: incorrect)."""

    name = "table"
    local = True

    def __init__(self, table: dict[str, bool] | None = None) -> None:
        self.table = table or {}

    def judge(self, question, reference, response, *, guidance=""):
        return FallbackResult(self.table.get(response, False), "table")

    def judge_batch(self, rows, *, guidance="", workers=4):
        return [self.judge(*r) for r in rows]


def ex(i: int, q: str, ref: str, resp: str, label: bool, split: str = "construction", **meta) -> Example:
    return Example(id=f"{split[0]}{i:02d}", question=q, reference=ref, response=resp, label=label, source="t",
                   domain="math", split=split, meta={"label_provenance": "human", **meta})


def draft(decide, template: str | None = None) -> Draft:
    return Draft("card-x", "c0", "residual", "code", "test", template, {}, decide=decide)


def run(state: PoolState, decide, cluster, counter, *, validation: HeldOut | None = None, **cfg):
    preds, by = cascade([], state.decisions, state)
    if validation is not None:
        validation.refresh([])
    return validate_draft(draft(decide), cluster, counter, state, [], {}, RoundConfig(**cfg), preds, by,
                          validation=validation)


# ------------------------------------------------------------------ the validation split


CAPITALS = [("France", "Paris"), ("Italy", "Rome"), ("Spain", "Madrid"), ("Peru", "Lima"), ("Kenya", "Nairobi"),
            ("Chile", "Santiago")]


def capitals_pool() -> PoolState:
    """Capitals answered in another letter case (the judge misses them) and wrong capitals."""
    exs = [ex(k, f"What is the capital of {c}?", city, f"The answer is {city.lower()}.", True)
           for k, (c, city) in enumerate(CAPITALS)]
    exs += [ex(10 + k, f"What is the capital of {c}?", city, "The answer is Berlin.", False)
            for k, (c, city) in enumerate(CAPITALS[:3])]
    return PoolState(exs, TableFallback())


def case_blind(x):
    """Case-insensitive text equality: right for ordinary words, wrong where case carries meaning."""
    if x.answer and x.ref and normalize_text(x.answer) == normalize_text(x.ref):
        return Decision.passed("text:equal_ignoring_case")
    return Decision.abstain("text:different")


def formula_split() -> HeldOut:
    """Held-out questions the draft never saw: a chemical formula whose case carries meaning."""
    exs = [ex(0, "What is the chemical formula of carbon monoxide?", "CO", "The answer is Co.", False, "validation"),
           ex(1, "What is the capital of Norway?", "Oslo", "The answer is oslo.", True, "validation"),
           ex(2, "What is the capital of Egypt?", "Cairo", "The answer is Lima.", False, "validation")]
    return HeldOut(PoolState(exs, TableFallback({"The answer is oslo.": True})))


def test_a_candidate_the_construction_split_accepts_is_rejected_on_the_validation_split() -> None:
    state = capitals_pool()
    cluster, counter = list(range(6)), [6, 7, 8]
    old = run(state, case_blind, cluster, counter)  # stages 1-5: what the construction split can show
    assert old.passed, old.reason
    assert old.figures["full_replay"]["new_direct_errors"] == 0 and old.figures["validation_split"]["n"] == 0
    held = formula_split()
    new = run(state, case_blind, cluster, counter, validation=held)
    assert not new.passed and new.stage == "validation_split"
    assert "1 new direct errors" in new.reason and "carbon monoxide" in new.reason and "Co." in new.reason
    val = new.figures["validation_split"]
    assert val["n"] == 3 and val["new_direct_decisions"] == 2 and val["new_direct_errors"] == 1
    assert val["new_direct_error_ids"] == ["v00"]
    # the construction split's figures stay on the card beside the validation split's
    assert new.figures["full_replay"]["new_direct_errors"] == 0
    # the error that rejected it, by its text, with its split: the rejected card's cases
    (err,) = new.errors
    assert err["split"] == "validation" and err["question"].startswith("What is the chemical formula")
    assert err["label"] is False and err["decision"] == "PASS" and err["label_provenance"].endswith("label as given by the source")
    card = rejected_card(card_record(draft(case_blind), new, round_no=1, status="rejected", stage=new.stage,
                                     reason=new.reason, cluster={"cluster_id": "c0"}), state)
    assert card["stage"] == "validation_split" and card["errors"][0]["response"] == "The answer is Co."
    assert "new_direct_error_ids" not in card["evidence"]["validation_split"]


def test_validation_split_allowance_is_the_full_replays_and_tolerated_errors_are_listed_by_text() -> None:
    state = capitals_pool()
    held = formula_split()
    # 1 error among 2 new direct decisions is 50%: within a 50% allowance, as on the construction split
    v = run(state, case_blind, list(range(6)), [6, 7, 8], validation=held, max_new_direct_error_rate=0.5)
    assert v.passed and v.figures["validation_split"]["allowed_errors"] == 1
    assert "on the validation split 2 new direct decisions" in v.reason
    assert v.validation_decisions == ["PASS", "PASS", "ABSTAIN"]
    record = card_record(draft(case_blind), v, round_no=1, status="accepted", stage="accepted", reason=v.reason,
                         cluster={"cluster_id": "c0", "size": 6})
    card = source_card(record, module_id="m001_x", status="preview", group="verdict_matching", priority=301,
                       revision=1, state=state)
    (tol,) = card["tolerated_errors"]
    assert tol["question"] == "What is the chemical formula of carbon monoxide?" and tol["reference"] == "CO"
    assert tol["response"] == "The answer is Co." and tol["label"] is False and tol["split"] == "validation"
    assert tol["label_provenance"].endswith("label as given by the source") and "index" not in tol
    assert card["evidence"]["validation_split"]["new_direct_errors"] == 1
    assert "new_direct_error_ids" not in card["evidence"]["validation_split"]


# ------------------------------------------------------------------ perturbation


def fractions_pool() -> PoolState:
    """Fractions boxed in worked answers (the judge misses them), and wrong fractions."""
    qs = [("What is 3 divided by 4?", "3/4"), ("What is 2 divided by 5?", "2/5"), ("What is 5 divided by 7?", "5/7"),
          ("What is 1 divided by 3?", "1/3"), ("What is 4 divided by 9?", "4/9")]
    exs = [ex(k, q, r, f"Dividing the two numbers, the answer is $\\boxed{{{r}}}$.", True)
           for k, (q, r) in enumerate(qs)]
    exs += [ex(10 + k, q, r, "Dividing the two numbers, the answer is $\\boxed{7/8}$.", False)
            for k, (q, r) in enumerate(qs[:3])]
    return PoolState(exs, TableFallback())


def by_value(x):
    """Numbers equal in value PASS, with no regard for the form the question asks for."""
    a, r = x.number_answer, x.number_ref
    if a is None or r is None:
        return Decision.abstain("not_numbers")
    return Decision.passed("number:equal") if compare_numbers(a, r, x.cues, x).correct else Decision.abstain("x")


def by_value_guarded(x):
    d = by_value(x)
    return Decision.abstain(pass_guard(x)) if d.label == "PASS" and pass_guard(x) else d


def test_a_candidate_that_passes_every_replay_is_rejected_by_perturbation_with_the_rewrite_named() -> None:
    state = fractions_pool()
    cluster, counter = list(range(5)), [5, 6, 7]
    old = run(state, by_value, cluster, counter, perturbation_examples=0)  # the stage switched off
    assert old.passed, old.reason
    v = run(state, by_value, cluster, counter)
    assert not v.passed and v.stage == "perturbation"
    assert v.reason.startswith("form.")
    assert "divided by" in v.reason and "must not PASS" in v.reason
    p = v.figures["perturbation"]
    assert p["support_examples"] == 5 and p["failures"] >= 1 and p["failed_must_not_pass"] == p["failures"]
    assert "form.lowest_terms" in p["failed_rewrites"] and "validation_split" not in v.figures
    err = next(e for e in v.errors if e["rewrite"] == "form.lowest_terms")
    assert "lowest terms" in err["question"] and err["label"] is False and err["decision"] == "PASS"
    assert err["stage"] == "perturbation" and err["label_provenance"].startswith("perturbation 'form.lowest_terms'")
    # the same rule with the criterion's guard before it PASSes survives every rewrite
    g = run(state, by_value_guarded, cluster, counter)
    assert g.passed, g.reason
    assert g.figures["perturbation"]["failures"] == 0 and g.figures["perturbation"]["rewrites"] >= 10


def test_a_value_preserving_rewrite_must_not_flip_the_decision() -> None:
    state = fractions_pool()

    def fails_decimals(x):  # PASS the reference as written; FAIL any decimal (0.75 for 3/4 too)
        if x.answer and x.ref and x.answer.replace(" ", "") == x.ref:
            return Decision.passed("same")
        return Decision.failed("decimal") if x.answer and "." in x.answer else Decision.abstain("x")

    v = run(state, fails_decimals, list(range(5)), [5, 6, 7])
    assert not v.passed and v.stage == "perturbation"
    assert v.figures["perturbation"]["failed_preserving"] >= 1
    assert "equiv.number_form" in v.figures["perturbation"]["failed_rewrites"]
    assert v.reason.startswith("equiv.") and "must not flip its decision" in v.reason


def test_perturbations_are_written_into_the_support_response_and_seeded() -> None:
    e = ex(0, "What is 3 divided by 4?", "3/4", "Dividing the two numbers, the answer is $\\boxed{3/4}$.", True)
    x = Triple(e.question, e.reference, e.response)
    first = perturbations(e, 0, "PASS", x.answer, seed=3, ctx={})
    again = perturbations(e, 0, "PASS", x.answer, seed=3, ctx={})
    assert first == again and first
    kinds = {p.variant for p in first}
    assert kinds & set(PRESERVING) and kinds & set(MUST_NOT_PASS)
    for p in first:
        assert p.response.startswith("Dividing the two numbers, the answer is")  # the real response, rewritten
        assert p.forbidden == ("FAIL" if p.label else "PASS")
    lowest = next(p for p in first if p.variant == "form.lowest_terms")
    assert "lowest terms" in lowest.question and lowest.written != "3/4"
    # a wrong answer FAILed: its own value rewritten exactly, still wrong, must not be PASSed
    w = ex(1, "What is 3 divided by 4?", "3/4", "Dividing the two numbers, the answer is $\\boxed{7/8}$.", False)
    wrong = perturbations(w, 1, "FAIL", "7/8", seed=3, ctx={})
    rewrites = [p for p in wrong if p.variant.startswith("equiv.")]
    assert rewrites and all(p.forbidden == "PASS" and p.label is False for p in rewrites)
    assert all("3/4" not in p.written for p in rewrites)


# ------------------------------------------------------------------ guards searched by the drafter


def test_the_drafter_learns_to_fail_an_unreduced_fraction_when_lowest_terms_are_asked() -> None:
    q = "What is {} divided by {}? Express your answer as a fraction in lowest terms."
    pairs = [(3, 4, 6, 8), (2, 5, 4, 10), (5, 7, 10, 14), (1, 3, 2, 6), (4, 9, 8, 18), (3, 5, 9, 15)]
    exs = [ex(k, q.format(a, b), f"{a}/{b}", f"The answer is {c}/{d}.", False) for k, (a, b, c, d) in enumerate(pairs)]
    exs += [ex(10 + k, q.format(a, b), f"{a}/{b}", f"The answer is {a}/{b}.", True)
            for k, (a, b, _, _) in enumerate(pairs[:3])]
    # the judge passes the unreduced fractions (it ignores the form): the residual cluster
    state = PoolState(exs, TableFallback({e.response: True for e in exs}))
    drafts = OfflineDrafter(["numeric_match", "final_number"]).draft(
        {"cluster_id": "c0", "indices": list(range(6))}, [6, 7, 8], state, RoundConfig(search_sentinels=0), "r01")
    assert drafts, "no template instance fixes the cluster"
    best = drafts[0]
    assert best.params["on_guard"] == "FAIL" and best.search["cluster_fixed"] == 6
    assert best.search["guards"]["on_guard"] == "FAIL"
    assert best.decide(state.triples[0]).reason == "form:not_lowest_terms"
    assert best.decide(state.triples[6]).label == "PASS"  # the reduced fraction still passes


# ------------------------------------------------------------------ a round with a validation split


def test_a_round_replays_the_validation_split_once_and_reports_both_splits(tmp_path: Path) -> None:
    from tasks.construct.round import run_round
    from tasks.rulebank.source import RuleBank
    from tests.helpers import small_construct_config

    cfg = small_construct_config(tmp_path)
    pool_cfg = tmp_path / "pool.yaml"
    data = yaml.safe_load(pool_cfg.read_text())
    data["pool"]["split"] = {"construction": 0.7, "validation": 0.3}
    pool_cfg.write_text(yaml.safe_dump(data))
    c = yaml.safe_load(cfg.read_text())
    c["construction"]["audit"] = False
    cfg.write_text(yaml.safe_dump(c))
    summary = run_round(str(cfg))
    val = summary["validation_split"]
    assert val["before"]["n"] > 0 and summary["pool"] + val["before"]["n"] == 36
    assert "validation_replay" in summary["timings_s"]
    assert summary["accepted"] + summary["rejected"] > 0
    bank = RuleBank(tmp_path / "rulebank")
    cards = [m.card for m in bank.modules()] + [r.card for r in bank.rejected()]
    stages = {k for card in cards for k in (card.get("evidence") or {})}
    assert {"support", "full_replay"} <= stages
    for m in bank.modules():  # an accepted card went through every stage, both splits' figures on it
        assert {"perturbation", "validation_split"} <= set(m.card["evidence"])
        assert m.card["evidence"]["validation_split"]["n"] == val["before"]["n"]
    assert summary["accepted"] >= 1 and bank.modules()
    # the promoted modules' labels on the validation split enter its figures after the round
    assert val["after"]["n"] == val["before"]["n"] and val["after"]["direct"] > val["before"]["direct"] == 0
    # the round's markdown and the CLI's table show the validation split beside the construction split
    from autoverifier.cmd_construct import ROUND_COLUMNS, round_rows
    from tasks.construct.round import round_artifacts

    md = round_artifacts(summary, [], [], [])["markdown"]
    assert f"On the validation split ({val['before']['n']:,} examples, never drafted from)" in md
    (row,) = round_rows([summary])
    assert len(row) == len(ROUND_COLUMNS) and row[ROUND_COLUMNS.index("validation coverage")].endswith("%")


def test_an_error_on_a_constructed_label_is_never_tolerated_as_label_noise() -> None:
    # the same tolerated error as above, once with a human label and once with a constructed one
    def pool(provenance: str) -> PoolState:
        exs = [ex(k, f"What is the capital of {c}?", city, f"The answer is {city.lower()}.", True)
               for k, (c, city) in enumerate(CAPITALS)]
        exs.append(Example(id="c20", question="What is the chemical formula of carbon monoxide?", reference="CO",
                           response="The answer is Co.", label=False, source="t", domain="chemistry",
                           split="construction", meta={"label_provenance": provenance}))
        return PoolState(exs, TableFallback())

    human = run(pool("human"), case_blind, list(range(6)), [], max_new_direct_error_rate=0.5)
    assert human.passed and human.figures["full_replay"]["new_direct_errors"] == 1
    assert human.figures["full_replay"]["new_direct_errors_on_constructed_labels"] == 0
    made = run(pool("constructed:case.symbol"), case_blind, list(range(6)), [], max_new_direct_error_rate=0.5)
    assert not made.passed and made.stage == "full_replay"
    assert "1 new direct errors on constructed labels" in made.reason and "allowed 0" in made.reason
    assert made.errors and made.errors[0]["response"] == "The answer is Co."
