"""One construction round as pure functions over an in-memory pool state.

replay -> residuals -> cluster -> draft -> audit -> validate (4 stages) -> promote -> freeze.
The Prefect flow in ``flows/construct.py`` calls these in order; tests call them directly.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tasks.features import residual_features
from tasks.render import instantiate, load_template, template_names
from tasks.schema import Example
from verifier_runtime.artifact import Artifact, ModuleEntry, ReleaseSpec, write_release
from verifier_runtime.fallback.base import Fallback
from verifier_runtime.triple import Triple
from verifier_runtime.types import ABSTAIN, PASS
from verifier_runtime.verifier import Verifier, judge_with_fallback, run_decide

GROUP_BASE = {
    "invalid_answer_guard": 100,
    "answer_extraction": 150,
    "closed_choice": 200,
    "verdict_matching": 300,
    "numeric_unit": 400,
}


@dataclass
class RoundConfig:
    """Thresholds and sizes of a round (``construction:`` section of the config YAML)."""

    max_clusters: int = 8
    coverage_groups: int = 6
    candidates_per_cluster: int = 3
    min_support: int = 3
    max_counterexample_errors: int = 0
    max_new_direct_errors: int = 0
    # Tolerated share of wrong decisions among the candidate's new direct decisions (label noise in
    # human-judged data); 0.0 means none. The wrong examples are listed on the card for audit.
    max_new_direct_error_rate: float = 0.0
    min_gain: int = 1
    counterexamples_k: int = 40
    module_budget_s: float = 0.5
    min_cluster_size: int = 5
    embedder: str = "tfidf"
    audit: bool = True
    audit_cpu_seconds: int = 10
    audit_memory_mb: int = 1024
    cases_per_module: int = 4
    search_sample: int = 60  # cluster examples the drafter's grid search looks at (validation sees all)
    search_counterexamples: int = 150
    search_sentinels: int = 400  # a fixed pool sample every candidate must not err on
    seed: int = 0

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> RoundConfig:
        d = dict(d or {})
        known = {f for f in cls.__dataclass_fields__}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown construction settings: {sorted(unknown)}")
        return cls(**d)


# --------------------------------------------------------------------------------------
# Pool state: triples with cached views, module decisions, fallback verdicts
# --------------------------------------------------------------------------------------


class PoolState:
    """The construction pool in memory. Triples cache their parsed views across all steps."""

    def __init__(self, examples: Sequence[Example], fallback: Fallback | None, guidance: str = "",
                 fallback_budget_s: float = 2.0) -> None:
        self.examples = list(examples)
        self.triples = [Triple(e.question, e.reference, e.response) for e in self.examples]
        self.labels = [bool(e.label) for e in self.examples]
        self.index = {e.id: i for i, e in enumerate(self.examples)}
        self.fallback = fallback
        self.guidance = guidance
        self.fallback_budget_s = fallback_budget_s
        self._fallback: dict[int, bool] = {}
        self._lock = threading.Lock()
        self.decisions: dict[str, list[str]] = {}  # module id -> label per example

    def __len__(self) -> int:
        return len(self.examples)

    def fallback_verdict(self, i: int) -> bool:
        """The fallback's verdict on example ``i`` (computed once; undecided counts as incorrect)."""
        v = self._fallback.get(i)
        if v is not None:
            return v
        v = self.fallback is not None and bool(judge_with_fallback(
            self.fallback, self.triples[i], guidance=self.guidance, budget_s=self.fallback_budget_s).correct)
        with self._lock:
            self._fallback[i] = v
        return v

    def pool_hash(self) -> str:
        h = hashlib.sha256()
        for e in sorted(self.examples, key=lambda e: e.id):
            h.update(e.id.encode())
            h.update(b"1" if e.label else b"0")
        return h.hexdigest()[:16]


def decisions_for(decide: Callable, state: PoolState, indices: Sequence[int] | None = None,
                  budget_s: float = 0.5) -> list[str]:
    """One module's labels (PASS/FAIL/ABSTAIN) on the pool (or on ``indices``)."""
    idx = range(len(state)) if indices is None else indices
    return [run_decide(decide, state.triples[i], budget_s).label for i in idx]


# --------------------------------------------------------------------------------------
# 1. Replay
# --------------------------------------------------------------------------------------


@dataclass
class ReplayRecord:
    example_id: str
    predicted: bool | None
    decided_by: str
    reason: str
    fallback_called: bool
    correct: bool
    latency_ms: float


def replay_rows(verifier: Verifier, rows: Sequence[Sequence[str]]) -> list[dict[str, Any]]:
    """Replay on raw ``(question, reference, response)`` rows: every module's label, and the
    fallback's verdict where all abstain. Pure and self-contained, so it runs in any worker."""
    mods = verifier.module_callables()
    out = []
    for q, r, s in rows:
        t0 = time.perf_counter()
        x = Triple(q, r, s)
        labels, first, reason = [], None, ""
        for info, decide in mods:
            d = run_decide(decide, x, verifier.module_budget_s, module_id=info.id)
            labels.append(d.label)
            if first is None and d.direct:
                first, reason = info.id, d.reason
        fallback = None
        if first is None and verifier.fallback is not None:
            fallback = bool(verifier._fallback_result(x).correct)
        out.append({"labels": labels, "decided_by": first, "reason": reason, "fallback": fallback,
                    "latency_ms": (time.perf_counter() - t0) * 1000.0})
    return out


def absorb_replay(state: PoolState, module_ids: Sequence[str], indices: Sequence[int],
                  results: Sequence[dict[str, Any]], fallback_name: str) -> list[ReplayRecord]:
    """Merge one chunk's replay results into the pool state; one record per example."""
    for mid in module_ids:
        with state._lock:
            state.decisions.setdefault(mid, [ABSTAIN] * len(state))
    out = []
    for i, res in zip(indices, results, strict=True):
        for mid, lab in zip(module_ids, res["labels"], strict=True):
            state.decisions[mid][i] = lab
        if res["decided_by"] is not None:
            predicted, by, reason, called = res["labels"][module_ids.index(res["decided_by"])] == PASS, \
                res["decided_by"], res["reason"], False
        else:
            if res["fallback"] is not None:
                with state._lock:
                    state._fallback[i] = res["fallback"]
            predicted, by, reason, called = state.fallback_verdict(i), f"fallback:{fallback_name}", "fallback", True
        out.append(ReplayRecord(state.examples[i].id, predicted, by, reason, called, predicted == state.labels[i],
                                res["latency_ms"]))
    return out


def chunk_indices(n: int, chunk_size: int) -> list[list[int]]:
    return [list(range(s, min(n, s + chunk_size))) for s in range(0, n, max(1, chunk_size))]


def cascade(order: Sequence[str], decisions: dict[str, list[str]], state: PoolState,
            indices: Sequence[int] | None = None) -> tuple[list[bool], list[str]]:
    """Final verdicts and deciders for modules in ``order`` over the pool (first direct decision wins)."""
    idx = range(len(state)) if indices is None else indices
    preds, by = [], []
    for i in idx:
        for mid in order:
            lab = decisions[mid][i]
            if lab != ABSTAIN:
                preds.append(lab == PASS)
                by.append(mid)
                break
        else:
            preds.append(state.fallback_verdict(i))
            by.append("fallback")
    return preds, by


def round_figures(preds: Sequence[bool], by: Sequence[str], labels: Sequence[bool]) -> dict[str, Any]:
    n = len(labels)
    direct = [i for i in range(n) if by[i] != "fallback"]
    direct_correct = sum(1 for i in direct if preds[i] == labels[i])
    correct = sum(1 for i in range(n) if preds[i] == labels[i])
    return {
        "n": n,
        "direct": len(direct),
        "coverage": len(direct) / n if n else 0.0,
        "direct_errors": len(direct) - direct_correct,
        "direct_precision": direct_correct / len(direct) if direct else None,
        "accuracy": correct / n if n else 0.0,
        "fallback_calls": n - len(direct),
        "errors": n - correct,
    }


# --------------------------------------------------------------------------------------
# 2. Residuals
# --------------------------------------------------------------------------------------


def find_residuals(state: PoolState, preds: Sequence[bool], by: Sequence[str]) -> list[dict[str, Any]]:
    """Wrong decisions (direct and fallback) with their features."""
    out = []
    for i, (p, b) in enumerate(zip(preds, by, strict=True)):
        if p == state.labels[i]:
            continue
        e = state.examples[i]
        feats = residual_features(state.triples[i], decided_by=b if b != "fallback" else "fallback:",
                                  predicted=p, label=state.labels[i], domain=e.domain or e.source)
        out.append({"example_id": e.id, "index": i, "label": state.labels[i], "predicted": p,
                    "decided_by": b, **feats})
    return out


def coverage_groups(state: PoolState, preds: Sequence[bool], by: Sequence[str], *, top: int,
                    min_size: int) -> list[dict[str, Any]]:
    """Groups of fallback-decided *correct* examples by answer object and surface form.

    A module that takes such a group over with no error saves fallback calls, the second
    way a module earns its place.
    """
    groups: dict[tuple[str, str], list[int]] = {}
    for i, (p, b) in enumerate(zip(preds, by, strict=True)):
        if b != "fallback" or p != state.labels[i]:
            continue
        f = residual_features(state.triples[i], decided_by="fallback:", predicted=p, label=state.labels[i],
                              domain=state.examples[i].domain)
        groups.setdefault((f["answer_object"], f["surface_form"].split("|")[0]), []).append(i)
    ranked = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    return [
        {"cluster_id": f"cov{k}", "indices": idx, "size": len(idx), "kind": "coverage",
         "key_summary": {"answer_object": key[0], "extraction": key[1]}}
        for k, (key, idx) in enumerate(ranked[:top]) if len(idx) >= min_size
    ]


# --------------------------------------------------------------------------------------
# 4. Draft (offline drafter: parametric templates, guards and parameters searched)
# --------------------------------------------------------------------------------------


@dataclass
class Draft:
    """A drafted rule card before audit and validation."""

    card_id: str
    cluster_id: str
    kind: str  # residual | coverage
    path: str  # code | guidance
    drafter: str
    template: str | None
    params: dict[str, Any]
    source: str | None = None
    guidance: str | None = None
    search: dict[str, Any] = field(default_factory=dict)
    decide: Any = None


def _score(labels_on: list[str], idx: Sequence[int], state: PoolState) -> tuple[int, int]:
    good = bad = 0
    for lab, i in zip(labels_on, idx, strict=True):
        if lab == ABSTAIN:
            continue
        if (lab == PASS) == state.labels[i]:
            good += 1
        else:
            bad += 1
    return good, bad


def _sample(idx: Sequence[int], n: int, state: PoolState) -> list[int]:
    """A deterministic sample of at most ``n`` indices (by example id), in index order."""
    if len(idx) <= n:
        return list(idx)
    return sorted(sorted(idx, key=lambda i: state.examples[i].id)[:n])


def grid(template: str) -> list[dict[str, Any]]:
    t = load_template(template)
    keys = sorted(t.grid)
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*(t.grid[k] for k in keys))]


class OfflineDrafter:
    """Instantiates every template over its parameter grid and keeps the best candidates.

    A candidate qualifies when it decides at least ``min_support`` cluster examples
    correctly, makes no wrong direct decision on the cluster, and no more than the allowed
    errors on the counterexamples. Ranking: most cluster examples fixed, then fewest
    counterexample fires (the narrowest rule that covers the cluster).
    """

    name = "offline-templates"

    def __init__(self, templates: Sequence[str] | None = None) -> None:
        self.templates = tuple(templates or template_names())
        self._candidates = [(t, p) for t in self.templates for p in grid(t)]

    def draft(self, cluster: dict[str, Any], counter_idx: Sequence[int], state: PoolState, cfg: RoundConfig,
              card_prefix: str) -> list[Draft]:
        idx = _sample(cluster["indices"], cfg.search_sample, state)
        counter_idx = _sample(counter_idx, cfg.search_counterexamples, state)
        sentinels = _sample(range(len(state)), cfg.search_sentinels, state)
        scored = []
        seen_behaviour: set[tuple] = set()
        for template, params in self._candidates:
            cand = instantiate(template, params)
            on_cluster = decisions_for(cand.decide, state, idx, cfg.module_budget_s)
            good, bad = _score(on_cluster, idx, state)
            if good < cfg.min_support or bad:
                continue
            on_counter = decisions_for(cand.decide, state, counter_idx, cfg.module_budget_s)
            c_good, c_bad = _score(on_counter, counter_idx, state)
            if c_bad > cfg.max_counterexample_errors:
                continue
            behaviour = (template, tuple(on_cluster), tuple(on_counter))
            if behaviour in seen_behaviour:  # same behaviour as a simpler grid point already kept
                continue
            seen_behaviour.add(behaviour)
            # Sentinels: a fixed sample of the whole pool, catching rules that over-fire elsewhere
            # (a FAIL rule's errors sit on examples of the cluster's own label, not the opposite one).
            s_good, s_bad = _score(decisions_for(cand.decide, state, sentinels, cfg.module_budget_s), sentinels, state)
            if s_bad > int(cfg.max_new_direct_error_rate * (s_good + s_bad)):
                continue
            scored.append((-good, c_good + c_bad, template, params, good, c_good, c_bad, cand))
        scored.sort(key=lambda s: (s[0], s[1], s[2], json.dumps(s[3], sort_keys=True)))
        drafts = []
        for k, (_, _, template, params, good, c_good, c_bad, cand) in enumerate(scored[: cfg.candidates_per_cluster]):
            drafts.append(Draft(
                card_id=f"{card_prefix}-{cluster['cluster_id']}-{k}", cluster_id=cluster["cluster_id"],
                kind=cluster.get("kind", "residual"), path="code", drafter=self.name, template=template,
                params=params, decide=cand.decide,
                search={"cluster_fixed": good, "counterexample_fires": c_good + c_bad,
                        "counterexample_errors": c_bad, "candidates_tried": len(self._candidates)},
            ))
        return drafts


# --------------------------------------------------------------------------------------
# 6. Validate (support, counterexample, overlap, full replay)
# --------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------
# 7-8. Promote and freeze
# --------------------------------------------------------------------------------------


def case_of(state: PoolState, i: int, expected: str) -> dict[str, str]:
    e = state.examples[i]
    return {"question": e.question, "reference": e.reference, "response": e.response, "expected": expected}


def pick_cases(state: PoolState, dec: Sequence[str], pool_idx: Sequence[int], *, n: int, want_fired: bool) -> list[dict]:
    """Short cases for the module file: fired-and-correct (support) or abstained neighbours (counterexamples)."""
    chosen = []
    for i in sorted(pool_idx, key=lambda i: (len(state.examples[i].response) + len(state.examples[i].reference)
                                              + len(state.examples[i].question), state.examples[i].id)):
        lab = dec[i]
        fired = lab != ABSTAIN
        if fired != want_fired:
            continue
        if fired and (lab == PASS) != state.labels[i]:
            continue
        chosen.append(case_of(state, i, lab))
        if len(chosen) >= n:
            break
    return chosen


def card_record(draft: Draft, validation: Validation | None, *, round_no: int, status: str, stage: str, reason: str,
                cluster: dict[str, Any], module_id: str | None = None, audit: dict | None = None) -> dict[str, Any]:
    """The rule card: activation region, procedure, abstention, evidence, status and provenance."""
    t = load_template(draft.template) if draft.template else None
    return {
        "card_id": draft.card_id,
        "round": round_no,
        "cluster_id": draft.cluster_id,
        "kind": draft.kind,
        "status": status,
        "path": draft.path,
        "drafter": draft.drafter,
        "template": draft.template,
        "params": draft.params,
        "module_id": module_id,
        "activation_region": (t.doc.split("\n\n")[0] if t else "") + f" Parameters: {json.dumps(draft.params, sort_keys=True)}",
        "comparison_procedure": t.doc if t else (draft.guidance or ""),
        "abstention_behaviour": "abstains outside its activation region and whenever parsing fails",
        "cluster": {k: v for k, v in cluster.items() if k not in ("indices",)},
        "search": draft.search,
        "stage": stage,
        "reason": reason,
        "replay_evidence": validation.figures if validation else {},
        "audit": audit or {},
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def next_version(current: str) -> str:
    n = int(current[1:5]) if current[1:5].isdigit() else 0
    return f"r{n + 1:04d}"


def freeze_release(rulebank: Path, base: Artifact, modules: dict[str, tuple[ModuleEntry, str]],
                   cards: dict[str, dict], guidance: str, template: str | None, provenance: dict[str, Any],
                   version: str | None = None) -> Path:
    """Write the next release atomically under ``rulebank/releases`` (it becomes the default)."""
    version = version or next_version(base.version)
    spec = ReleaseSpec(version=version, modules=list(modules.values()), cards=cards, template=template,
                       guidance=guidance, fallback_defaults=base.fallback_defaults or {"name": "offline"},
                       provenance=provenance)
    return write_release(spec, Path(rulebank) / "releases" / version)


def existing_modules(artifact: Artifact) -> tuple[dict[str, tuple[ModuleEntry, str]], dict[str, str], dict[str, dict]]:
    """The base release's modules (entry, source), their templates, and their cards."""
    mods: dict[str, tuple[ModuleEntry, str]] = {}
    templates: dict[str, str] = {}
    for entry in artifact.modules:
        mods[entry.id] = (entry, artifact.files[entry.file])
    cards: dict[str, dict] = {}
    for rel, text in artifact.files.items():
        if rel.startswith("cards/"):
            card = json.loads(text)
            cards[card["card_id"]] = card
            if card.get("module_id") and card.get("template"):
                templates[card["module_id"]] = card["template"]
    return mods, templates, cards
