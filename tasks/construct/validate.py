"""Validation of a drafted card in six stages: support, counterexample, overlap, full replay on
the construction split, perturbation (metamorphic checks) and replay on the validation split.

Each stage stops the card with its reason when it fails; every stage's figures go on the card
(``replay_evidence``). The allowance rules are ``docs/construction.md``'s ("Validate").
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tasks.construct.config import RoundConfig
from tasks.construct.draft import Draft, _score
from tasks.construct.perturb import Perturbation, excerpt, other_answers, perturbations
from tasks.construct.promote import GROUP_BASE
from tasks.construct.render import load_template
from tasks.construct.replay import cascade, round_figures
from tasks.construct.state import PoolState, decisions_for
from verifier_runtime.cascade import run_decide
from verifier_runtime.triple import Triple
from verifier_runtime.types import ABSTAIN, PASS


@dataclass
class Validation:
    passed: bool
    stage: str  # the stage that failed, or "accepted"
    reason: str
    figures: dict[str, Any]
    decisions: list[str] | None = None
    revises: str | None = None
    validation_decisions: list[str] | None = None  # the candidate's labels on the validation split
    # wrong decisions by their text (never by pool position): the tolerated ones of an accepted
    # card, the ones that rejected it otherwise (each with its split and stage)
    errors: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class HeldOut:
    """The pool's validation split in memory: its examples with every module's labels, and the
    current cascade's verdicts on it (kept up to date as the round promotes modules)."""

    state: PoolState
    preds: list[bool] = field(default_factory=list)
    by: list[str] = field(default_factory=list)

    def refresh(self, order: list[str]) -> None:
        self.preds, self.by = cascade(order, self.state.decisions, self.state)


def _replay_effect(order: list[str], draft: Draft, dec: list[str], state: PoolState, revises: str | None,
                   module_templates: dict[str, str], current_preds: Sequence[bool], current_by: Sequence[str],
                   cfg: RoundConfig) -> tuple[dict[str, Any], list[int]]:
    """The candidate's cascade replayed on ``state`` against the current one: its new direct
    decisions and errors, regressions, corrections, fallback calls saved, the error allowance
    (figures) and the positions of its new direct errors."""
    new_order, decisions = insert_in_order(order, draft, dec, state, revises, module_templates)
    preds, by = cascade(new_order, decisions, state)
    before = round_figures(current_preds, current_by, state.labels)
    after = round_figures(preds, by, state.labels)
    new_direct = [i for i in range(len(state)) if by[i] == "__candidate__"]
    wrong = [i for i in new_direct if preds[i] != state.labels[i]]
    regressions = sum(1 for i in range(len(state))
                      if current_preds[i] == state.labels[i] and preds[i] != state.labels[i])
    corrections = sum(1 for i in range(len(state))
                      if current_preds[i] != state.labels[i] and preds[i] == state.labels[i])
    allowed = max(cfg.max_new_direct_errors, int(cfg.max_new_direct_error_rate * len(new_direct)))
    # a constructed label is set by a written rule, not by a person: an error on it is the
    # candidate's, never label noise, so the rate allowance does not cover it
    constructed = sum(1 for i in wrong if state.examples[i].label_provenance.startswith("constructed"))
    figs = {"n": len(state), "new_direct_decisions": len(new_direct), "new_direct_errors": len(wrong),
            "new_direct_errors_on_constructed_labels": constructed,
            "allowed_errors_on_constructed_labels": cfg.max_new_direct_errors,
            "new_direct_error_ids": [state.examples[i].id for i in wrong[:50]], "allowed_errors": allowed,
            "regressions": regressions, "corrections": corrections,
            "fallback_calls_saved": before["fallback_calls"] - after["fallback_calls"], "before": before,
            "after": after}
    return figs, wrong


def _records(state: PoolState, idx: Sequence[int], dec: Sequence[str], split: str, stage: str,
             limit: int | None = None) -> list[dict[str, Any]]:
    """Wrong decisions as example records by their text, with the split, the stage and the decision."""
    from tasks.construct.promote import example_record

    chosen = list(idx) if limit is None else list(idx)[:limit]
    return [{**example_record(state, state.examples[i].id), "split": split, "stage": stage, "decision": dec[i]}
            for i in chosen]


def validate_draft(draft: Draft, cluster_idx: Sequence[int], counter_idx: Sequence[int], state: PoolState,
                   order: list[str], module_templates: dict[str, str], cfg: RoundConfig,
                   current_preds: Sequence[bool], current_by: Sequence[str], *,
                   validation: HeldOut | None = None) -> Validation:
    """The six validation stages; stops at the first that fails and says why.

    ``validation``: the pool's validation split (never drafted from, never clustered) with every
    module's labels and the current cascade's verdicts; ``None`` or empty when the pool has none
    (the stage then records that it had nothing to replay)."""
    figs: dict[str, Any] = {}
    dec = decisions_for(draft.decide, state, None, cfg.module_budget_s)
    # Stage 1: support.
    good, bad = _score([dec[i] for i in cluster_idx], cluster_idx, state)
    figs["support"] = {"cluster_size": len(cluster_idx), "decided_correctly": good, "decided_wrongly": bad}
    if good < cfg.min_support or bad:
        return Validation(False, "support", f"decides {good} of {len(cluster_idx)} support examples correctly "
                          f"and {bad} wrongly (needs >= {cfg.min_support}, 0 wrong)", figs, dec)
    # Stage 2: counterexamples.
    c_good, c_bad = _score([dec[i] for i in counter_idx], counter_idx, state)
    figs["counterexample"] = {"n": len(counter_idx), "fired": c_good + c_bad, "wrong": c_bad}
    if c_bad > cfg.max_counterexample_errors:
        wrong = [i for i in counter_idx if dec[i] != ABSTAIN and (dec[i] == PASS) != state.labels[i]]
        return Validation(False, "counterexample", f"{c_bad} wrong direct decisions on {len(counter_idx)} "
                          "counterexamples", figs, dec, errors=_records(state, wrong, dec, "construction",
                                                                        "counterexample", 20))
    # Stage 3: overlap with existing modules where both fire.
    fired = [i for i, lab in enumerate(dec) if lab != ABSTAIN]
    conflicts: Counter[str] = Counter()
    overlap: Counter[str] = Counter()
    covered_by_existing = 0
    for i in fired:
        hit = False
        for mid in order:
            lab = state.decisions[mid][i]
            if lab == ABSTAIN:
                continue
            hit = True
            overlap[mid] += 1
            if lab != dec[i]:
                conflicts[mid] += 1
        covered_by_existing += hit
    figs["overlap"] = {"fired": len(fired), "overlap": dict(overlap), "conflicts": dict(conflicts)}
    if conflicts:
        mid, n = conflicts.most_common(1)[0]
        return Validation(False, "overlap", f"conflicts with {mid} on {n} examples where both fire", figs, dec)
    revises = None
    for mid in order:  # merge: a wider revision of an existing module from the same template
        if module_templates.get(mid) == draft.template:
            old = state.decisions[mid]
            old_fired = {i for i, lab in enumerate(old) if lab != ABSTAIN}
            if old_fired and old_fired <= set(fired):
                revises = mid
                break
    if covered_by_existing == len(fired) and revises is None:
        return Validation(False, "overlap", "redundant: every example it decides is already decided by "
                          "existing modules", figs, dec)
    # Stage 4: full replay of the new cascade on the construction split.
    full, wrong = _replay_effect(order, draft, dec, state, revises, module_templates, current_preds, current_by,
                                 cfg)
    figs["full_replay"] = full
    allowed, regressions, corrections = full["allowed_errors"], full["regressions"], full["corrections"]
    errors = _records(state, wrong, dec, "construction", "full_replay", None if len(wrong) <= allowed else 50)
    if len(wrong) > allowed or regressions > allowed or (regressions and corrections < 3 * regressions):
        return Validation(False, "full_replay", f"{len(wrong)} new direct errors and {regressions} "
                          f"regressions on the construction pool (allowed {allowed})", figs, dec, revises,
                          errors=errors)
    if full["new_direct_errors_on_constructed_labels"] > cfg.max_new_direct_errors:
        return Validation(False, "full_replay", f"{full['new_direct_errors_on_constructed_labels']} new direct "
                          "errors on constructed labels of the construction pool (a written rule set them: "
                          f"allowed {cfg.max_new_direct_errors})", figs, dec, revises, errors=errors)
    if corrections + max(0, full["fallback_calls_saved"]) < cfg.min_gain:
        return Validation(False, "full_replay", "no gain: corrects nothing and saves no fallback call", figs,
                          dec, revises)
    # Stage 5: perturbation (metamorphic checks on the support examples).
    support = [i for i in cluster_idx if dec[i] != ABSTAIN]
    failed = perturbation_failures(draft, support, dec, state, cfg, figs)
    if failed:
        p, got = failed[0]
        return Validation(False, "perturbation", perturbation_reason(p, got, state, len(failed)), figs, dec,
                          revises, errors=[perturbation_record(q, g, state) for q, g in failed[:20]])
    # Stage 6: replay on the validation split (examples the draft never saw).
    val_dec = None
    if validation is None or not len(validation.state):
        figs["validation_split"] = {"n": 0, "note": "the pool has no validation split: nothing to replay"}
    else:
        vs = validation.state
        if len(validation.by) != len(vs):
            raise ValueError("the validation split has no current verdicts: replay the base on it first "
                             "(HeldOut.refresh after the replay)")
        val_dec = decisions_for(draft.decide, vs, None, cfg.module_budget_s)
        held, val_wrong = _replay_effect(order, draft, val_dec, vs, revises, module_templates, validation.preds,
                                         validation.by, cfg)
        figs["validation_split"] = held
        v_allowed = held["allowed_errors"]
        v_errors = _records(vs, val_wrong, val_dec, "validation", "validation_split",
                            None if len(val_wrong) <= v_allowed else 50)
        if (len(val_wrong) > v_allowed or held["regressions"] > v_allowed
                or held["new_direct_errors_on_constructed_labels"] > cfg.max_new_direct_errors):
            first = vs.examples[val_wrong[0]] if val_wrong else None
            example = (f"; e.g. {val_dec[val_wrong[0]]} on {excerpt(first.question, 100)!r} -> "
                       f"{excerpt(first.response, 100, tail=True)!r} (labelled "
                       f"{'correct' if first.label else 'incorrect'}, reference {excerpt(first.reference, 60)!r})"
                       if first is not None else "")
            return Validation(False, "validation_split", f"{len(val_wrong)} new direct errors and "
                              f"{held['regressions']} regressions on the validation split of "
                              f"{_n(held['n'])} examples (allowed {v_allowed}; on constructed labels "
                              f"{held['new_direct_errors_on_constructed_labels']}, allowed "
                              f"{cfg.max_new_direct_errors}){example}", figs, dec, revises,
                              val_dec, errors=v_errors)
        errors += v_errors
    n_err = len(wrong) + (figs["validation_split"].get("new_direct_errors") or 0)
    saved = full["fallback_calls_saved"]
    tolerated = f"{n_err} new direct errors (within the allowances, listed on the card)" if n_err \
        else "no new direct error"
    val = figs["validation_split"]
    on_val = (f"; on the validation split {_n(val['new_direct_decisions'])} new direct decisions, "
              f"{val['corrections']} corrections" if val.get("n") else "; no validation split")
    return Validation(True, "accepted", f"corrects {corrections}, saves {saved} fallback calls, {tolerated}{on_val}",
                      figs, dec, revises, val_dec, errors=errors)


def _n(x: int) -> str:
    return f"{int(x):,}"


def perturbation_failures(draft: Draft, support: Sequence[int], dec: Sequence[str], state: PoolState,
                          cfg: RoundConfig, figs: dict[str, Any]) -> list[tuple[Perturbation, str]]:
    """The candidate's decisions on the rewrites of (a seeded sample of) its support examples;
    the rewrites that got the decision they must not get. Figures go to ``figs["perturbation"]``."""
    sample = sorted(support, key=lambda i: hashlib.sha256(f"{cfg.seed}:{state.examples[i].id}".encode()).digest())
    sample = sample[: cfg.perturbation_examples]
    counts: Counter[str] = Counter()
    failed: list[tuple[Perturbation, str]] = []
    examples_with = 0
    for i in sample:
        ps = support_perturbations(state, i, dec[i], cfg.seed)
        examples_with += bool(ps)
        for p in ps:
            counts[p.kind] += 1
            got = run_decide(draft.decide, Triple(p.question, p.reference, p.response), cfg.module_budget_s).label
            if got == p.forbidden:
                failed.append((p, got))
                counts[f"failed_{p.kind}"] += 1
    figs["perturbation"] = {"support_examples": len(sample), "examples_rewritten": examples_with,
                            "rewrites": counts["preserving"] + counts["must_not_pass"],
                            "preserving": counts["preserving"], "must_not_pass": counts["must_not_pass"],
                            "failures": len(failed), "failed_preserving": counts["failed_preserving"],
                            "failed_must_not_pass": counts["failed_must_not_pass"],
                            "failed_rewrites": sorted({p.variant for p, _ in failed})}
    return failed


def support_perturbations(state: PoolState, i: int, decision: str, seed: int) -> list[Perturbation]:
    """The rewrites of pool example ``i`` (computed once per example, decision and seed)."""
    key = (i, decision, seed)
    cache = state.perturbations
    if key not in cache:
        if "other_answers" not in state.perturbation_context:
            state.perturbation_context["other_answers"] = other_answers(state.examples)
        x = state.triples[i]
        cache[key] = perturbations(state.examples[i], i, decision, x.answer, seed=seed,
                                   ctx=state.perturbation_context)
    return cache[key]


def perturbation_reason(p: Perturbation, got: str, state: PoolState, n_failed: int) -> str:
    ex = state.examples[p.index]
    what = ("a value-preserving rewrite must not flip its decision" if p.kind == "preserving"
            else "a hedged, restated, case-flipped or form-violating version must not PASS")
    more = f" ({n_failed} rewrites failed in all)" if n_failed > 1 else ""
    return (f"{p.variant} ({p.detail or 'rewrite'}) of support example {excerpt(ex.question, 100)!r} "
            f"(reference {excerpt(ex.reference, 60)!r}): answer written as {excerpt(p.written, 80)!r} "
            + (f"under the question {excerpt(p.question, 120, tail=True)!r} " if p.question != ex.question else "")
            + f"was decided {got}; {what}{more}")


def perturbation_record(p: Perturbation, got: str, state: PoolState) -> dict[str, Any]:
    """A failed rewrite by its text, as a rejected card's error (the case it must not get)."""
    from tasks.data.variants import variant_type

    ex = state.examples[p.index]
    vt = variant_type(p.variant)
    provenance = (f"perturbation '{p.variant}' of support example {ex.id}: label set by the variant's rule "
                  f"({vt.rule}, {vt.code or 'correct'}) in docs/criterion.md")
    return {"example_id": f"{ex.id}~{p.variant}", "source": "perturbation", "question": p.question,
            "reference": p.reference, "response": p.response, "label": p.label,
            "label_provenance": provenance, "split": "construction", "stage": "perturbation",
            "decision": got, "rewrite_of": ex.id, "rewrite": p.variant, "written_answer": p.written}


def insert_in_order(order: list[str], draft: Draft, dec: list[str], state: PoolState, revises: str | None,
                    module_templates: dict[str, str]) -> tuple[list[str], dict[str, list[str]]]:
    """The module order with the candidate placed by its group priority (or replacing ``revises``)."""
    decisions = dict(state.decisions)
    decisions["__candidate__"] = dec
    if revises:
        return [("__candidate__" if m == revises else m) for m in order], decisions
    group = load_template(draft.template).group if draft.template else "verdict_matching"
    base = GROUP_BASE.get(group, 500)
    pos = len(order)
    for k, mid in enumerate(order):
        mgroup = load_template(module_templates[mid]).group if mid in module_templates else ""
        if GROUP_BASE.get(mgroup, 500) > base:
            pos = k
            break
    return order[:pos] + ["__candidate__"] + order[pos:], decisions

