"""A construction round as plain step functions over one :class:`RoundContext`.

``flows/construct.py`` wraps each step in a Prefect task and calls them in order; tests call
them directly::

    ctx = prepare_round("configs/demo.yaml")
    chunks, rows = chunk_rows(ctx)
    collect_replay(ctx, chunks, [replay_chunk(replay_spec(ctx), r) for r in rows])
    find_round_residuals(ctx); cluster_round(ctx); draft_round(ctx); validate_round(ctx)
    freeze_round(ctx); summary, trace = record_round(ctx, started_at)
"""

from __future__ import annotations

import json
import re
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tasks.construct.config import ConstructConfig
from tasks.construct.draft import Draft, OfflineDrafter
from tasks.construct.promote import (
    card_record,
    existing_modules,
    module_cases,
    module_priority,
    next_module_id,
    next_round,
    next_version,
    rejected_card,
    retire_replaced,
    revision_after,
    source_card,
)
from tasks.construct.render import module_code
from tasks.construct.replay import absorb_replay, cascade, chunk_indices, replay_rows, round_figures
from tasks.construct.residuals import coverage_groups, find_residuals
from tasks.construct.state import PoolState
from tasks.construct.validate import Validation, validate_draft
from tasks.data.schema import Example
from tasks.rulebank.build import card_for_release
from tasks.rulebank.source import RuleBank, RuleBankError, SourceModule, compose_module, module_metadata
from verifier_runtime.artifact import (
    Artifact,
    ModuleEntry,
    ReleaseSpec,
    empty_release_manifest,
    load_artifact,
    newest_release,
    releases_under,
    shipped_release,
    write_release,
)
from verifier_runtime.fallback import make_fallback
from verifier_runtime.verifier import Verifier


class RoundContext:
    """One round's in-memory state, handed from step to step (a plain object: Prefect passes it
    by reference between tasks of the round's flow run and does not try to serialise it).

    ``state`` holds the pool's triples with their cached parses, every module's decision on
    every example and the fallback's verdicts; the other fields are what the steps produce.
    """

    def __init__(self, cfg: ConstructConfig, round_no: int, base: Artifact, verifier: Verifier, state: PoolState,
                 store: Any, *, pool_report: dict[str, Any] | None = None) -> None:
        self.cfg = cfg
        self.round_no = round_no
        self.base = base
        self.verifier = verifier
        self.state = state
        self.store = store
        self.store_lock = threading.Lock()
        self.pool_report: dict[str, Any] = dict(pool_report or {})
        self.preds: list[bool] = []
        self.by: list[str] = []
        self.residuals: list[dict] = []
        self.clusters: list[dict] = []
        self.drafts: list[tuple[Draft, dict]] = []
        self.accepted: list[dict] = []
        self.rejected: list[dict] = []
        self.figures: dict[str, Any] = {}
        self.timings: dict[str, float] = {}
        self.release: str | None = None
        self.guidance: list[str] = []
        self.embeddings: Any = None
        self.promoted: tuple[dict, dict] | None = None  # (modules, cards) after validation, for freeze
        self.objects: list[str] | None = None
        self.proposals: dict[str, SourceModule] = {}  # module id -> the preview module freeze writes
        self.replaced: list[str] = []  # modules a proposal revises under a new id
        self.source_ids: list[str] = []  # module ids already in the rule bank's source
        self.source_status: dict[str, list[str]] = {}


def _logger():
    """Prefect's run logger inside a run; the module logger when a step is called directly (tests)."""
    import logging

    try:
        from prefect import get_run_logger

        return get_run_logger()
    except Exception:
        return logging.getLogger("autoverifier.construct")


def _timed(ctx: RoundContext, name: str, t0: float) -> None:
    ctx.timings[name] = round(ctx.timings.get(name, 0.0) + time.perf_counter() - t0, 3)


def load_pool_examples(cfg: ConstructConfig, store: Any) -> tuple[list[Example], dict]:
    """The construction split of the configured pool (deterministic: every round builds the same)."""
    from tasks.data.pool import build_pool

    res = build_pool(cfg.path(cfg.pool), store=store)
    return res.split("construction") or res.examples, res.report


def base_artifact(cfg: ConstructConfig) -> Artifact:
    """Where a round starts: this run's newest round build; else, by ``start_from``, the empty
    library, the rule bank's newest release (``newest``), or a given release."""
    bank = RuleBank(cfg.path(cfg.rulebank))
    builds = round_builds(bank)
    if builds:  # continue this run
        return load_artifact(builds[-1])
    if cfg.start_from == "empty":
        return empty_release_manifest()
    if cfg.start_from == "newest":
        newest = newest_release(bank.root)
        return load_artifact(newest if newest is not None else shipped_release())
    return load_artifact(cfg.path(cfg.start_from))


def source_rounds(bank: RuleBank) -> int:
    """The last construction round the rule bank's source records (modules and rejected cards)."""
    rounds = [int((m.card.get("learned") or {}).get("round") or 0) for m in bank.modules()]
    rounds += [int(r.card.get("round") or 0) for r in bank.rejected()]
    return max(rounds, default=0)


# --------------------------------------------------------------------------------------
# The steps, in the order the round flow calls them
# --------------------------------------------------------------------------------------


def prepare_round(config_path: str, round_no: int | None = None) -> RoundContext:
    """Load the config, the pool and the current release; returns the round's state."""
    from tasks.data.store import Store

    t0 = time.perf_counter()
    cfg = ConstructConfig.from_yaml(config_path)
    db = cfg.path(cfg.db)
    db.parent.mkdir(parents=True, exist_ok=True)
    store = Store(db).connect()
    examples, report = load_pool_examples(cfg, store)
    base = base_artifact(cfg)
    bank = RuleBank(cfg.path(cfg.rulebank))
    rn = round_no if round_no is not None else next_round(int(base.manifest.get("provenance", {}).get("round", 0) or 0),
                                                          source_rounds(bank))
    verifier = replay_verifier(base, cfg.fallback, fallback_config=cfg.fallback_config,
                               module_budget_s=cfg.construction.module_budget_s)
    state = PoolState(examples, verifier.fallback, guidance=base.guidance)
    ctx = RoundContext(cfg, rn, base, verifier, state, store, pool_report=report)
    ctx.source_ids = bank.module_ids()
    ctx.source_status = {s: [m.id for m in bank.modules(s)] for s in ("preview", "active", "retired")}
    _timed(ctx, "prepare", t0)
    _logger().info("round %s: %d pool examples, base release %s with %d modules",
                          rn, len(examples), base.version, len(verifier.modules))
    return ctx


def replay_verifier(artifact: Artifact | str | None, fallback: str, *, fallback_config: dict[str, Any] | None = None,
                    **options: Any) -> Verifier:
    """The replay's verifier: the release ``artifact`` (an :class:`Artifact` or a path), or the
    empty library when ``None``, with the named fallback."""
    if isinstance(artifact, Artifact):
        art = artifact
    else:
        art = load_artifact(artifact) if artifact else empty_release_manifest()
    fb = make_fallback(fallback, template=art.template, config=dict(fallback_config or {}))
    return Verifier(art, fb, **options)


def replay_spec(ctx: RoundContext) -> dict[str, Any]:
    """What a replay worker needs to rebuild the round's verifier: small and serialisable."""
    source = ctx.base.source
    return {"artifact": None if source.startswith("<") else source, "fallback": ctx.cfg.fallback,
            "fallback_config": ctx.cfg.fallback_config, "module_budget_s": ctx.cfg.construction.module_budget_s}


def replay_chunk(spec: dict[str, Any], rows: list[tuple[str, str, str]]) -> list[dict[str, Any]]:
    """Replay the round's release on one chunk of triples (runs on threads or on Dask workers);
    the verifier is built once per worker process (the runtime's verifier cache)."""
    from verifier_runtime.integrations.rewards import get_verifier

    verifier = get_verifier(spec["artifact"], spec["fallback"], loader=replay_verifier,
                            fallback_config=spec["fallback_config"], module_budget_s=spec["module_budget_s"])
    return replay_rows(verifier, rows)


def collect_replay(ctx: RoundContext, chunks: list[list[int]], results: list[list[dict[str, Any]]]) -> int:
    """Merge the chunks' decisions into the round state and store every decision."""
    t0 = time.perf_counter()
    module_ids = [m.id for m in ctx.verifier.modules]
    rows = []
    for indices, res in zip(chunks, results, strict=True):
        for r in absorb_replay(ctx.state, module_ids, indices, res, ctx.verifier.fallback_name):
            rows.append({"round": ctx.round_no, "artifact_version": ctx.base.version, "example_id": r.example_id,
                         "decision": None if r.predicted is None else ("PASS" if r.predicted else "FAIL"),
                         "correct": r.correct, "decided_by": r.decided_by, "reason": r.reason,
                         "fallback_called": r.fallback_called, "latency_ms": r.latency_ms})
    with ctx.store_lock:
        ctx.store.add_replays(rows)
    # the whole replay: from handing out the chunks (workers run in parallel) to merging them
    ctx.timings["replay"] = round(time.perf_counter() - ctx.timings.pop("replay_started", t0), 3)
    return len(rows)


def chunk_rows(ctx: RoundContext) -> tuple[list[list[int]], list[list[tuple[str, str, str]]]]:
    """The pool in chunks: indices (kept here) and raw triples (sent to the replay workers)."""
    ctx.timings["replay_started"] = time.perf_counter()
    chunks = chunk_indices(len(ctx.state), ctx.cfg.chunk_size)
    ex = ctx.state.examples
    return chunks, [[(ex[i].question, ex[i].reference, ex[i].response) for i in c] for c in chunks]


def find_round_residuals(ctx: RoundContext) -> int:
    """Collect the wrong decisions (direct and fallback) with their features."""
    t0 = time.perf_counter()
    order = [m.id for m in ctx.verifier.modules]
    ctx.preds, ctx.by = cascade(order, ctx.state.decisions, ctx.state)
    ctx.figures["before"] = round_figures(ctx.preds, ctx.by, ctx.state.labels)
    ctx.residuals = find_residuals(ctx.state, ctx.preds, ctx.by)
    rows = [{"round": ctx.round_no, "example_id": r["example_id"], "error_type": r["error_type"],
             "answer_object": r["answer_object"], "surface_form": r["surface_form"], "domain": r["domain"],
             "features": {k: r[k] for k in ("cues", "text", "decided_by", "label", "predicted")}}
            for r in ctx.residuals]
    with ctx.store_lock:
        ctx.store.add_residuals(rows)
    _timed(ctx, "residuals", t0)
    return len(rows)


def cluster_round(ctx: RoundContext) -> int:
    """Cluster the residuals (embeddings, UMAP, HDBSCAN) and add coverage groups; rank them."""
    from tasks.construct.cluster import cluster_residuals
    from tasks.construct.embed import make_embedder

    t0 = time.perf_counter()
    rc = ctx.cfg.construction
    result = cluster_residuals(ctx.residuals, embedder=make_embedder(rc.embedder),
                               min_cluster_size=rc.min_cluster_size, seed=rc.seed)
    index_of = {r["example_id"]: r["index"] for r in ctx.residuals}
    clusters = []
    for c in result.clusters[: rc.max_clusters]:
        clusters.append({"cluster_id": c.cluster_id, "indices": [index_of[e] for e in c.example_ids],
                         "size": c.size, "score": c.score, "kind": "residual", "method": c.method,
                         "key_summary": c.key_summary})
    clusters += coverage_groups(ctx.state, ctx.preds, ctx.by, top=rc.coverage_groups, min_size=rc.min_support)
    ctx.clusters = clusters
    with ctx.store_lock:
        ctx.store.add_clusters([{"round": ctx.round_no, "cluster_id": c["cluster_id"], "size": c["size"],
                                 "score": float(c.get("score") or c["size"]),
                                 "label_summary": json.dumps(c["key_summary"], default=str, sort_keys=True),
                                 "example_ids": [ctx.state.examples[i].id for i in c["indices"]]}
                                for c in clusters])
    _timed(ctx, "cluster", t0)
    return len(clusters)


def pool_embeddings(ctx: RoundContext):
    """Embeddings of every pool example (reference, answer, question head), fitted once per round."""
    import numpy as np

    from tasks.construct.embed import make_embedder

    if ctx.embeddings is None:
        texts = [f"{x.ref} || {x.answer} || {x.question[:120]}" for x in ctx.state.triples]
        ctx.embeddings = np.asarray(make_embedder(ctx.cfg.construction.embedder).embed(texts))
    return ctx.embeddings


def nearest_opposite(ctx: RoundContext, idx: list[int], opposite: list[int], k: int) -> list[int]:
    """The ``k`` examples of ``opposite`` closest to any cluster member, on the round's embeddings."""
    from tasks.construct.cluster import rank_by_similarity

    emb = pool_embeddings(ctx)
    ranked = rank_by_similarity(emb[idx], emb[opposite], [ctx.state.examples[i].id for i in opposite], k)
    return [opposite[j] for j, _ in ranked]


def _counterexamples(ctx: RoundContext, cluster: dict) -> list[int]:
    """Near neighbours of the cluster with the opposite label, plus same-object opposite-label examples."""
    from tasks.construct.features import answer_object

    idx = cluster["indices"]
    labels = ctx.state.labels
    majority = sum(labels[i] for i in idx) * 2 >= len(idx)
    opposite = [i for i in range(len(ctx.state)) if labels[i] != majority]
    if not opposite:
        return []
    if ctx.objects is None:
        ctx.objects = [answer_object(x) for x in ctx.state.triples]
    objs = {ctx.objects[i] for i in idx}
    same_obj = [i for i in opposite if ctx.objects[i] in objs]
    k = ctx.cfg.construction.counterexamples_k
    near = nearest_opposite(ctx, idx, opposite, k)
    same_obj = sorted(same_obj, key=lambda i: ctx.state.examples[i].id)[: 4 * k]  # a deterministic sample
    return sorted(set(near) | set(same_obj))


def draft_round(ctx: RoundContext) -> int:
    """Draft rule cards for the top clusters (offline templates; an LLM drafter when configured)."""
    t0 = time.perf_counter()
    drafters: list[Any] = [OfflineDrafter()]
    if ctx.cfg.llm_drafter:
        from tasks.construct.llm_draft import LLMDrafter

        drafters.append(LLMDrafter.from_config(ctx.cfg.llm_drafter))
    prefix = f"r{ctx.round_no:02d}"
    for cluster in ctx.clusters:
        counter = _counterexamples(ctx, cluster)
        cluster["counterexamples"] = counter
        found = False
        for d in drafters:
            for draft in d.draft(cluster, counter, ctx.state, ctx.cfg.construction, prefix):
                ctx.drafts.append((draft, cluster))
                found = True
        if not found:
            ctx.rejected.append(card_record(
                Draft(f"{prefix}-{cluster['cluster_id']}-none", cluster["cluster_id"], cluster.get("kind", "residual"),
                      "guidance", "offline-templates", None, {}),
                None, round_no=ctx.round_no, status="rejected", stage="draft",
                reason="no template instance covers the cluster without counterexample errors; "
                       "a guidance card needs an LLM drafter and an LLM fallback to validate it",
                cluster=cluster))
    _timed(ctx, "draft", t0)
    return len(ctx.drafts)


def _proposal_code(draft: Draft) -> str:
    """``module.py`` of an accepted draft: the template's documented code, or the drafter's code."""
    if draft.template:
        return module_code(draft.template)
    card = draft.search.get("card", {})
    code = (draft.source or "").split('"""', 2)[-1].split("\n\n\nMODULE = ")[0]
    code = re.sub(r"^```(?:python)?\s*|```\s*$", "", code.strip(), flags=re.MULTILINE).strip()
    doc = " ".join(str(card.get("comparison_procedure") or card.get("title") or "A drafted rule.").split())
    return f'"""{doc.replace(chr(34) * 3, "")}\n"""\n\n{code}\n'


def _audit(ctx: RoundContext, proposal: SourceModule) -> dict[str, Any]:
    """The composed module file (what a release ships) through the audit, on the module's cases:
    static policy, sandbox, determinism, and the same decisions as the replay."""
    from tasks.construct.audit import audit_module

    rc = ctx.cfg.construction
    if not rc.audit:
        return {"passed": True, "stage": "skipped", "reason": "audit disabled in config"}
    cases = [{k: c[k] for k in ("question", "reference", "response", "expected")} for c in proposal.cases]
    res = audit_module(compose_module(proposal), cases=cases, cpu_seconds=rc.audit_cpu_seconds,
                       memory_mb=rc.audit_memory_mb)
    audit = {"passed": res.passed, "stage": res.stage, "reason": res.reason, "violations": list(res.violations)[:20]}
    if res.passed:
        expected = [c["expected"] for c in cases]
        got = [o.get("label") if isinstance(o, dict) else o for o in (res.outputs or [])][: len(expected)]
        if got != expected:
            audit = {"passed": False, "stage": "sandbox",
                     "reason": f"sandbox decisions differ from replay: {got} vs {expected}"}
    return audit


def validate_round(ctx: RoundContext) -> int:
    """Audit each draft's code in the sandbox, validate it in four stages, promote the survivors
    (as ``preview`` proposals: :func:`freeze_round` writes them into the rule bank's source)."""
    t0 = time.perf_counter()
    rc = ctx.cfg.construction
    modules, templates, cards = existing_modules(ctx.base)
    order = [m.id for m in ctx.verifier.modules]
    preds, by = list(ctx.preds), list(ctx.by)
    accepted_keys: set[str] = set()
    active_in_source = set(ctx.source_status.get("active", ()))
    for draft, cluster in ctx.drafts:
        dkey = f"{draft.template}:{json.dumps(draft.params, sort_keys=True)}:{draft.source or ''}"
        if draft.path == "guidance":
            card = validate_guidance(ctx, draft, cluster)
            if card["status"] == "accepted":
                ctx.guidance.append(draft.guidance or "")
                cards[draft.card_id] = card
                ctx.accepted.append(card)
            else:
                ctx.rejected.append(card)
            continue
        if draft.decide is None:
            why_not = draft.search.get("error") or f"policy: {draft.search.get('policy_violations')}"
            ctx.rejected.append(card_record(draft, None, round_no=ctx.round_no, status="rejected",
                                            stage="draft" if "error" in draft.search else "audit:static",
                                            reason=str(why_not)[:500], cluster=cluster))
            continue
        if dkey in accepted_keys:
            ctx.rejected.append(card_record(draft, None, round_no=ctx.round_no, status="rejected", stage="overlap",
                                            reason="duplicate of a card accepted earlier this round", cluster=cluster))
            continue
        v: Validation = validate_draft(draft, cluster["indices"], cluster.get("counterexamples", []), ctx.state,
                                       order, templates, rc, preds, by)
        if not v.passed:
            ctx.rejected.append(card_record(draft, v, round_no=ctx.round_no, status="rejected", stage=v.stage,
                                            reason=v.reason, cluster=cluster))
            continue
        # Promotion: the module's id, place in the cascade and revision (pure functions, promote.py).
        group = draft_group(draft)
        in_use = sorted(set(modules) | set(ctx.source_ids))
        old_card = cards.get(modules[v.revises][0].card_id) if v.revises else None
        if v.revises and v.revises not in active_in_source:
            module_id = v.revises  # a revision of this run's own proposal replaces it
        else:  # new, or a revision of a reviewed (active) module: a new proposal that says what it revises
            module_id = next_module_id(in_use, draft.template)
        priority = modules[v.revises][0].priority if v.revises else module_priority(group, module_id)
        revision = revision_after(old_card) if v.revises else 1
        record = card_record(draft, v, round_no=ctx.round_no, status="accepted", stage="accepted", reason=v.reason,
                             cluster=cluster, module_id=module_id)
        record["revision"] = revision
        earlier = ctx.proposals[v.revises].card if v.revises in ctx.proposals else old_card
        revisions = [*((earlier or {}).get("revisions") or []),
                     *([_revision_summary(old_card, draft.card_id)] if old_card else [])]
        scard = source_card(record, module_id=module_id, status="preview", group=group, priority=priority,
                            revision=revision, state=ctx.state, revisions=revisions)
        if v.revises and module_id != v.revises:
            scard["revises"] = v.revises
        cases = module_cases(ctx.state, v.decisions, cluster["indices"], n=rc.cases_per_module,
                             abstain_from=cluster.get("counterexamples", []))
        proposal = SourceModule(module_id, scard, _proposal_code(draft), tuple(cases))
        audit = _audit(ctx, proposal)
        if not audit["passed"]:
            ctx.rejected.append(card_record(draft, v, round_no=ctx.round_no, status="rejected",
                                            stage=f"audit:{audit['stage']}", reason=audit["reason"],
                                            cluster=cluster, audit=audit))
            continue
        proposal = proposal.with_card({**scard, "audit": audit})
        # Promote: the module joins the cascade for the rest of this round's validations.
        entry = ModuleEntry(module_id, group, priority, draft.card_id, module_metadata(proposal)["description"])
        if v.revises:
            cards = retire_replaced(cards, modules[v.revises][0].card_id, draft.card_id)
            if module_id != v.revises:
                modules.pop(v.revises)
                order = [module_id if m == v.revises else m for m in order]
                ctx.replaced.append(v.revises)
        modules[module_id] = (entry, compose_module(proposal))
        if draft.template:
            templates[module_id] = draft.template
        ctx.state.decisions[module_id] = v.decisions
        if not v.revises:
            order = sorted([*order, module_id], key=lambda m: (modules[m][0].priority, m))
        preds, by = cascade(order, ctx.state.decisions, ctx.state)
        accepted_keys.add(dkey)
        record["audit"] = audit
        cards[draft.card_id] = card_for_release(proposal)
        ctx.proposals[module_id] = proposal
        ctx.accepted.append(record)
    ctx.figures["after"] = round_figures(preds, by, ctx.state.labels)
    ctx.preds, ctx.by = preds, by
    ctx.promoted = (modules, cards)
    _timed(ctx, "validate", t0)
    return len(ctx.accepted)


def _revision_summary(card: dict[str, Any], by_card: str) -> dict[str, Any]:
    params = card.get("params")
    if params is None:
        params = {k: v.get("value") for k, v in (card.get("parameters") or {}).items()}
    return {"revision": int(card.get("revision", 1)), "card_id": card.get("card_id"), "round": card.get("round")
            or (card.get("learned") or {}).get("round"), "parameters": params, "why": f"revised by {by_card}"}


def draft_group(draft: Draft) -> str:
    from tasks.construct.render import load_template

    if draft.template:
        return load_template(draft.template).group
    return str(draft.search.get("card", {}).get("group", "verdict_matching"))


def validate_guidance(ctx: RoundContext, draft: Draft, cluster: dict) -> dict:
    """Guidance cards: validated by replaying the LLM fallback with the guidance added.

    Without an LLM fallback there is nothing to replay, so the card is kept as rejected with
    that reason (the offline judge does not read guidance).
    """
    fb = ctx.state.fallback
    if fb is None or getattr(fb, "local", False):
        return card_record(draft, None, round_no=ctx.round_no, status="rejected", stage="guidance",
                           reason="guidance needs an LLM fallback to be validated by replay", cluster=cluster)
    idx = list(cluster["indices"]) + list(cluster.get("counterexamples", []))[:40]
    guidance = (ctx.base.guidance + "\n\n" + (draft.guidance or "")).strip()
    fixed = broken = 0
    for i in idx:
        x = ctx.state.triples[i]
        before = ctx.state.fallback_verdict(i) == ctx.state.labels[i]
        res = fb.judge(x.question, x.reference, x.response, guidance=guidance)
        after = bool(res.correct) == ctx.state.labels[i]
        fixed += after and not before
        broken += before and not after
    figs = {"guidance_replay": {"n": len(idx), "fixed": fixed, "broken": broken}}
    ok = fixed >= ctx.cfg.construction.min_support and broken == 0
    v = Validation(ok, "accepted" if ok else "guidance", f"guidance replay fixes {fixed} and breaks {broken} "
                   f"of {len(idx)}", figs)
    return card_record(draft, v, round_no=ctx.round_no, status="accepted" if ok else "rejected", stage=v.stage,
                       reason=v.reason, cluster=cluster)


def freeze_round(ctx: RoundContext) -> str:
    """Write the round's proposals into the rule bank's source as ``preview`` modules and its
    rejected cards beside them; freeze the round's state (the base plus the proposals) as a
    round build under ``<rulebank>/rounds/`` for the next round to continue from. Nothing here
    is a release: only a reviewed ``rules activate`` and ``rules build`` make one."""
    t0 = time.perf_counter()
    modules, cards = ctx.promoted if ctx.promoted is not None else (None, None)
    bank = RuleBank(ctx.cfg.path(ctx.cfg.rulebank))
    if modules is None:
        modules, _, cards = existing_modules(ctx.base)
    for proposal in ctx.proposals.values():
        current = bank.module_ids()
        if proposal.id in current and bank.module(proposal.id).status == "active":
            raise RuleBankError(f"{proposal.id} is active in {bank.modules_dir}: a proposal never overwrites it")
        bank.save(proposal)
    for record in ctx.rejected:
        card = rejected_card(record, ctx.state)  # a template draft is its template, version and parameters
        code = _proposal_code_of_record(record) if not record.get("template") and record.get("source") else None
        bank.save_rejected(SourceModule(card["id"], card, code, tuple(_error_cases(card))))
    provenance = {
        "round": ctx.round_no,
        "pool_hash": ctx.state.pool_hash(),
        "pool_size": len(ctx.state),
        "config": ctx.cfg.name,
        "base_release": ctx.base.version,
        "metrics": ctx.figures.get("after", {}),
        "accepted": [c["card_id"] for c in ctx.accepted],
        "rejected": len(ctx.rejected),
        "note": "a construction round build (active modules plus this run's preview proposals), not a release",
    }
    if ctx.accepted or not round_builds(bank):
        from verifier_runtime.fallback.prompt import DEFAULT_TEMPLATE

        version = next_version(ctx.base.version)
        while (bank.root / "rounds" / version).exists():
            version = next_version(version)
        guidance = "\n\n".join(g for g in [ctx.base.guidance.strip(), *ctx.guidance] if g)
        spec = ReleaseSpec(version=version, modules=list(modules.values()), cards=cards,
                           template=ctx.base.template or DEFAULT_TEMPLATE, guidance=guidance,
                           fallback_defaults=ctx.base.fallback_defaults or {"name": "offline"}, provenance=provenance)
        ctx.release = write_release(spec, bank.root / "rounds" / version).name
    else:
        ctx.release = ctx.base.version
    with ctx.store_lock:
        ctx.store.upsert_cards([_card_row(c) for c in ctx.accepted + ctx.rejected])
        ctx.store.add_validations([{"card_id": c["card_id"], "round": ctx.round_no, "stage": st,
                                    "passed": c["status"] == "accepted" or st != c["stage"], "figures": figs}
                                   for c in ctx.accepted + ctx.rejected
                                   for st, figs in (c.get("replay_evidence") or {}).items()])
    _timed(ctx, "freeze", t0)
    return ctx.release


def _proposal_code_of_record(record: dict[str, Any]) -> str:
    """A rejected drafted (not templated) card's code, as ``module.py``."""
    return f'"""{record.get("card_id")}: drafted code, rejected at {record.get("stage")}.\n"""\n\n{record["source"]}\n'


def _error_cases(card: dict[str, Any]) -> list[dict[str, Any]]:
    """A rejected card's cases: the examples it decided wrongly, with the decision they needed."""
    return [{"expected": "PASS" if e["label"] else "FAIL", "question": e["question"], "reference": e["reference"],
             "response": e["response"], "label": e["label"], "why": "the card decided this wrongly in full replay",
             "example_id": e["example_id"], "source": e["source"], "label_provenance": e["label_provenance"]}
            for e in card.get("errors") or []]


def round_builds(bank: RuleBank) -> list[Path]:
    """This rule bank's round builds, oldest first (``<rulebank>/rounds/rNNNN``)."""
    return releases_under(bank.root / "rounds")


def _card_row(c: dict) -> dict:
    return {"card_id": c["card_id"], "round": c["round"], "cluster_id": str(c["cluster_id"]), "status": c["status"],
            "path": c["path"], "drafter": c["drafter"], "template": c.get("template"), "params": c.get("params") or {},
            "stage": c["stage"], "reason": c["reason"], "figures": c.get("replay_evidence") or {},
            "created_at": c["created_at"]}


def record_round(ctx: RoundContext, started_at: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Record the round's figures in the store (and close it); returns the round's summary and
    the trace of every round recorded so far."""
    before, after = ctx.figures.get("before", {}), ctx.figures.get("after", ctx.figures.get("before", {}))
    summary = {
        "round": ctx.round_no,
        "release": ctx.release,
        "base_release": ctx.base.version,
        "pool": len(ctx.state),
        "data": ctx.pool_report.get("data"),
        "residuals": len(ctx.residuals),
        "clusters": len(ctx.clusters),
        "drafts": len(ctx.drafts),
        "accepted": len(ctx.accepted),
        "rejected": len(ctx.rejected),
        "before": before,
        "after": after,
        "timings_s": dict(ctx.timings),
    }
    row = {"round": ctx.round_no, "artifact_version": ctx.release, "started_at": started_at,
           "finished_at": datetime.now(UTC).isoformat(timespec="seconds"), "coverage": after.get("coverage"),
           "direct_errors": after.get("direct_errors"), "direct_precision": after.get("direct_precision"),
           "accuracy": after.get("accuracy"), "fallback_calls": after.get("fallback_calls"),
           "accepted": len(ctx.accepted), "rejected": len(ctx.rejected), "figures": summary}
    with ctx.store_lock:
        ctx.store.upsert_round(row)
        trace = ctx.store.rounds()
    ctx.store.close()
    return summary, trace


def round_artifacts(summary: dict[str, Any], accepted: list[dict], rejected: list[dict],
                    trace: list[dict]) -> dict[str, Any]:
    """What the round publishes where a person looks: a markdown summary, the cards table with
    reasons, and the replay trace over rounds."""
    cards = [{"card": c["card_id"], "status": c["status"], "stage": c["stage"], "template": c.get("template") or "",
              "reason": c["reason"][:160]} for c in accepted + rejected] or [{"card": "", "status": "none"}]
    rounds = [{"round": r["round"], "release": r["artifact_version"], "coverage": r["coverage"],
               "direct_errors": r["direct_errors"], "accuracy": r["accuracy"], "fallback_calls": r["fallback_calls"],
               "accepted": r["accepted"], "rejected": r["rejected"]} for r in trace]
    return {"markdown": round_markdown(summary, accepted, rejected, trace), "cards": cards, "trace": rounds}


def _pct(x: Any) -> str:
    return "-" if x is None else f"{100 * x:.2f}%"


def round_markdown(summary: dict, accepted: list[dict], rejected: list[dict], trace: list[dict]) -> str:
    b, a = summary["before"], summary["after"]
    lines = [
        f"# Construction round {summary['round']}: release {summary['release']}",
        "",
        f"Pool: {summary['pool']} examples ({summary['data']}); base release {summary['base_release']}.",
        "",
        "| figure | before | after |",
        "|---|---|---|",
        f"| direct coverage | {_pct(b.get('coverage'))} | {_pct(a.get('coverage'))} |",
        f"| direct errors | {b.get('direct_errors')} | {a.get('direct_errors')} |",
        f"| direct precision | {_pct(b.get('direct_precision'))} | {_pct(a.get('direct_precision'))} |",
        f"| accuracy | {_pct(b.get('accuracy'))} | {_pct(a.get('accuracy'))} |",
        f"| fallback calls | {b.get('fallback_calls')} | {a.get('fallback_calls')} |",
        "",
        f"Residuals {summary['residuals']}, clusters {summary['clusters']}, drafts {summary['drafts']}, "
        f"accepted {summary['accepted']}, rejected {summary['rejected']}.",
        "",
        "## Accepted cards",
        "",
        "| card | module | template | reason |",
        "|---|---|---|---|",
        *[f"| {c['card_id']} | {c.get('module_id')} | {c.get('template')} | {c['reason']} |" for c in accepted],
        "",
        "## Rejected cards",
        "",
        "| card | stage | reason |",
        "|---|---|---|",
        *[f"| {c['card_id']} | {c['stage']} | {c['reason'][:200]} |" for c in rejected],
        "",
        "## Trace over rounds",
        "",
        "| round | release | coverage | direct errors | accuracy | fallback calls |",
        "|---|---|---|---|---|---|",
        *[f"| {r['round']} | {r['artifact_version']} | {_pct(r['coverage'])} | {r['direct_errors']} | "
          f"{_pct(r['accuracy'])} | {r['fallback_calls']} |" for r in trace],
        "",
        f"Stage timings (s): {summary['timings_s']}",
    ]
    return "\n".join(lines)
