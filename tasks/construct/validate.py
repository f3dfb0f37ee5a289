"""Validation of a drafted card in four stages: support, counterexample, overlap, full replay."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tasks.construct.config import RoundConfig
from tasks.construct.draft import Draft, _score
from tasks.construct.promote import GROUP_BASE
from tasks.construct.render import load_template
from tasks.construct.replay import cascade, round_figures
from tasks.construct.state import PoolState, decisions_for
from verifier_runtime.types import ABSTAIN


@dataclass
class Validation:
    passed: bool
    stage: str  # the stage that failed, or "accepted"
    reason: str
    figures: dict[str, Any]
    decisions: list[str] | None = None
    revises: str | None = None


def validate_draft(draft: Draft, cluster_idx: Sequence[int], counter_idx: Sequence[int], state: PoolState,
                   order: list[str], module_templates: dict[str, str], cfg: RoundConfig,
                   current_preds: Sequence[bool], current_by: Sequence[str]) -> Validation:
    """The four validation stages; stops at the first that fails and says why."""
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
        return Validation(False, "counterexample", f"{c_bad} wrong direct decisions on {len(counter_idx)} "
                          "counterexamples", figs, dec)
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
    # Stage 4: full replay of the new cascade on the whole pool.
    new_order, decisions = insert_in_order(order, draft, dec, state, revises, module_templates)
    preds, by = cascade(new_order, decisions, state)
    before = round_figures(current_preds, current_by, state.labels)
    after = round_figures(preds, by, state.labels)
    new_direct = [i for i in range(len(state)) if by[i] == "__candidate__"]
    error_ids = [state.examples[i].id for i in new_direct if preds[i] != state.labels[i]]
    new_direct_errors = len(error_ids)
    regressions = sum(1 for i in range(len(state))
                      if current_preds[i] == state.labels[i] and preds[i] != state.labels[i])
    allowed = max(cfg.max_new_direct_errors, int(cfg.max_new_direct_error_rate * len(new_direct)))
    corrections = sum(1 for i in range(len(state))
                      if current_preds[i] != state.labels[i] and preds[i] == state.labels[i])
    saved = before["fallback_calls"] - after["fallback_calls"]
    figs["full_replay"] = {"new_direct_decisions": len(new_direct), "new_direct_errors": new_direct_errors,
                           "new_direct_error_ids": error_ids[:50], "allowed_errors": allowed,
                           "regressions": regressions, "corrections": corrections, "fallback_calls_saved": saved,
                           "before": before, "after": after}
    if new_direct_errors > allowed or regressions > allowed or (regressions and corrections < 3 * regressions):
        return Validation(False, "full_replay", f"{new_direct_errors} new direct errors and {regressions} "
                          f"regressions on the construction pool (allowed {allowed})", figs, dec, revises)
    if corrections + max(0, saved) < cfg.min_gain:
        return Validation(False, "full_replay", "no gain: corrects nothing and saves no fallback call", figs,
                          dec, revises)
    errors = f"{new_direct_errors} new direct errors (within the allowed {allowed}, listed on the card)" \
        if new_direct_errors else "no new direct error"
    return Validation(True, "accepted", f"corrects {corrections}, saves {saved} fallback calls, {errors}",
                      figs, dec, revises)


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

