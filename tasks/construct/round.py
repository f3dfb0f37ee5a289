"""A construction round as plain step functions over one :class:`RoundContext`.

``flows/construct.py`` wraps each step in a Prefect task and calls them in order; tests call
them directly::

    ctx = prepare_round("configs/demo.yaml")           # lock, recover a stopped round, plan, load
    chunks, rows = chunk_rows(ctx)
    collect_replay(ctx, chunks, [replay_chunk(replay_spec(ctx), r) for r in rows])
    find_round_residuals(ctx); cluster_round(ctx); draft_round(ctx); validate_round(ctx)
    freeze_round(ctx); summary, trace = record_round(ctx)
    close_round(ctx)

(:func:`run_round` does exactly that.) Rounds are numbered per rule bank and never reuse a
number or a round build name; a round's rows reach the store in one transaction at freeze,
and a round stopped at any step is rolled back or forward by the next one (see
``tasks/construct/journal.py``).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tasks.construct.config import ConstructConfig
from tasks.construct.draft import Draft, OfflineDrafter
from tasks.construct.journal import RoundJournal, RoundLedger, RoundLock, clean_temporaries
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
from tasks.construct.validate import HeldOut, Validation, validate_draft
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
    release_version,
    releases_under,
    shipped_release,
    write_release,
)
from verifier_runtime.fallback import make_fallback
from verifier_runtime.types import ABSTAIN
from verifier_runtime.verifier import Verifier


class RoundContext:
    """One round's in-memory state, handed from step to step (a plain object: Prefect passes it
    by reference between tasks of the round's flow run and does not try to serialise it).

    ``state`` holds the pool's triples with their cached parses, every module's decision on
    every example and the fallback's verdicts; the other fields are what the steps produce.
    """

    def __init__(self, cfg: ConstructConfig, round_no: int, base: Artifact, verifier: Verifier, state: PoolState,
                 store: Any, *, pool_report: dict[str, Any] | None = None, plan: RoundPlan | None = None,
                 lock: RoundLock | None = None) -> None:
        self.cfg = cfg
        self.round_no = round_no
        self.base = base
        self.plan = plan
        self.lock = lock
        self.started_at = datetime.now(UTC).isoformat(timespec="seconds")
        self.recovered: list[str] = []  # what preparing this round did about a round stopped earlier
        # the round's rows, written to the store in one transaction at freeze (table -> rows)
        self.rows: dict[str, list[dict[str, Any]]] = {"replays": [], "residuals": [], "clusters": []}
        self.build: str | None = None  # the round build this round froze (None: it accepted nothing)
        self.summary: dict[str, Any] = {}
        self.verifier = verifier
        self.state = state
        self.store = store
        self.store_lock = threading.Lock()
        self.pool_report: dict[str, Any] = dict(pool_report or {})
        self.preds: list[bool] = []
        self.by: list[str] = []
        # the pool's validation split (never drafted from, never clustered), replayed once per round
        self.validation: HeldOut | None = None
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


def round_name(cfg_name: str, round_no: int) -> str:
    """A round's name, the same in the Prefect UI, the logs and the store: ``<config>-round-<NNN>``."""
    return f"{slug(cfg_name)}-round-{round_no:03d}"


def slug(name: str) -> str:
    """A config name as Prefect artifact keys allow it (lowercase letters, digits, dashes)."""
    s = re.sub(r"[^a-z0-9-]+", "-", str(name).lower()).strip("-")
    return s or "construct"


def _progress(ctx: RoundContext, step: str, message: str) -> None:
    """One INFO line per step: what it did, with its time."""
    secs = ctx.timings.get(step)
    took = f" in {secs:,.1f} s" if secs is not None else ""
    _logger().info("%s · %s: %s%s", round_name(ctx.cfg.name, ctx.round_no), step, message, took)


def _n(x: Any) -> str:
    """A count with thousands separators."""
    return "-" if x is None else f"{int(x):,}"


def load_pool_examples(cfg: ConstructConfig, store: Any) -> tuple[list[Example], dict, list[Example]]:
    """The construction split of the configured pool (deterministic: every round builds the same),
    its report, and its validation split (empty when the construction split is the whole pool)."""
    from tasks.data.pool import build_pool

    res = build_pool(cfg.path(cfg.pool), store=store)
    construction = res.split("construction")
    return construction or res.examples, res.report, res.split("validation") if construction else []


def start_artifact(cfg: ConstructConfig) -> tuple[str, Artifact]:
    """Where a config starts (its first round, or ``--fresh``), by ``start_from``: the empty
    library, the rule bank's newest release (``newest``), or a given release. Returns the
    state (``empty`` or a path) and the artifact."""
    bank_root = cfg.path(cfg.rulebank)
    if cfg.start_from == "empty":
        return "empty", empty_release_manifest()
    if cfg.start_from == "newest":
        newest = newest_release(bank_root)
        path = newest if newest is not None else shipped_release()
        return _state_of(bank_root, path), load_artifact(path)
    path = cfg.path(cfg.start_from)
    return _state_of(bank_root, path), load_artifact(path)


def state_artifact(bank_root: Path, state: str) -> Artifact:
    """The artifact a ledger ``state`` names (``empty``, a path relative to the rule bank, or absolute)."""
    if state == "empty":
        return empty_release_manifest()
    p = Path(state)
    return load_artifact(p if p.is_absolute() else bank_root / p)


def _state_of(bank_root: Path, path: str | Path) -> str:
    p = Path(path)
    try:
        return p.resolve().relative_to(bank_root.resolve()).as_posix()
    except ValueError:
        return str(p)


def base_artifact(cfg: ConstructConfig) -> Artifact:
    """Where the config's next round starts (see :func:`plan_round`)."""
    plan = plan_round(cfg)
    return state_artifact(cfg.path(cfg.rulebank), plan.base)


def source_rounds(bank: RuleBank, *, skip: int | None = None) -> int:
    """The last construction round the rule bank's source records (modules and rejected cards),
    leaving out round ``skip`` (a stopped round about to be rolled back)."""
    rounds = [int((m.card.get("learned") or {}).get("round") or 0) for m in bank.modules()]
    rounds += [int(r.card.get("round") or 0) for r in bank.rejected()]
    return max((r for r in rounds if r != skip), default=0)


@dataclass(frozen=True)
class RoundPlan:
    """What the next round of a config will be: its number, the state it starts from (``base``:
    ``empty`` or a path), that state's version, and what recovery will do about a round that was
    stopped (``pending``: its journal; ``action``: ``roll-forward`` or ``roll-back``)."""

    round_no: int
    base: str
    base_version: str
    fresh: bool = False
    pending: dict[str, Any] | None = None
    action: str | None = None
    root: str | None = None  # the release (or empty library) this line of rounds started from

    @property
    def name_suffix(self) -> str:
        return f"round-{self.round_no:03d}"


def _recovery_action(bank_root: Path, journal: RoundJournal, ledger: RoundLedger) -> str | None:
    if not journal.exists():
        return None
    info = journal.info()
    if ledger.has(int(info["round"])):
        return "roll-forward"
    if info.get("sources_done"):
        build = info.get("build")
        if build is None or (bank_root / "rounds" / build / "manifest.json").is_file():
            return "roll-forward"
    return "roll-back"


def plan_round(cfg: ConstructConfig, *, fresh: bool = False) -> RoundPlan:
    """The next round of ``cfg``, read from the rule bank without changing anything.

    Numbering: after every round the ledger, the source and the round builds record (a round
    number is never used twice; a round that was stopped and is rolled back runs again under
    its own number). Base: the state the last finished round left (its build, or its base when
    it accepted nothing); the config's ``start_from`` for the first round or with ``fresh``.
    """
    bank_root = cfg.path(cfg.rulebank)
    bank = RuleBank(bank_root)
    ledger, journal = RoundLedger(bank_root), RoundJournal(bank_root)
    action = _recovery_action(bank_root, journal, ledger)
    pending = journal.info() if action else None
    done = ledger.entries()
    if action == "roll-forward" and not ledger.has(int(pending["round"])):
        done = [*done, pending]
    builds = round_builds(bank)
    newer = None
    if done and not fresh and cfg.start_from == "newest":
        # a release built since this line of rounds started (a reviewed rules build): start from it
        newest = newest_release(bank_root)
        root = done[-1].get("root")
        if newest is not None and root and newest.name != root:
            newer = newest
    if fresh or newer is not None:
        base, art = start_artifact(cfg)
        root = art.version
    elif done:
        base = str(done[-1]["state"])
        art = state_artifact(bank_root, base)
        root = done[-1].get("root") or art.version
    elif builds:  # a rule bank from before the ledger: continue from its newest round build
        base, art = _state_of(bank_root, builds[-1]), load_artifact(builds[-1])
        root = str(art.manifest.get("provenance", {}).get("base_release") or art.version)
    else:
        base, art = start_artifact(cfg)
        root = art.version
    if action == "roll-back":
        n = int(pending["round"])
    else:
        recorded = [int(e["round"]) for e in done]
        recorded += [int(load_artifact(b).manifest.get("provenance", {}).get("round", 0) or 0) for b in builds[-1:]]
        recorded.append(int(art.manifest.get("provenance", {}).get("round", 0) or 0))
        n = next_round(max(recorded, default=0), source_rounds(bank))
    return RoundPlan(n, base, art.version, fresh, pending, action, root)


def recover_round(cfg: ConstructConfig, store: Any) -> list[str]:
    """Finish or undo a round of this rule bank that was stopped, and remove stale temporary
    files. Call it holding the rule bank's :class:`RoundLock`. Returns what it did."""
    bank_root = cfg.path(cfg.rulebank)
    ledger, journal = RoundLedger(bank_root), RoundJournal(bank_root)
    done: list[str] = []
    action = _recovery_action(bank_root, journal, ledger)
    if action is not None:
        info = journal.info()
        n, config = int(info["round"]), str(info.get("config") or cfg.name)
        if action == "roll-forward":
            if not ledger.has(n):
                ledger.append(_ledger_entry(info))
            changed = store.set_round_status(config, n, "complete")
            done.append(f"round {n} had frozen {info.get('build') or 'nothing'} when it stopped: its record is "
                        "completed" + ("" if changed else " in the rule bank (the store lost its rows)"))
        else:
            touched = journal.rollback()
            store.delete_round(config, n)
            done.append(f"round {n} stopped before it froze: rolled back ({len(touched)} source folder(s) "
                        "restored, its store rows deleted); it runs again under its number")
        journal.finish()
    removed = clean_temporaries(bank_root)
    if removed:
        done.append(f"removed {len(removed)} temporary file(s) left by an interrupted write: "
                    + ", ".join(removed[:5]) + (" ..." if len(removed) > 5 else ""))
    return done


def _ledger_entry(info: dict[str, Any]) -> dict[str, Any]:
    keys = ("round", "config", "base", "build", "state", "root", "accepted", "rejected", "fresh")
    return {k: info.get(k) for k in keys}


def archive_fresh(cfg: ConstructConfig) -> str | None:
    """``--fresh``: move the rule bank's ``preview`` proposals and rejected cards aside (to
    ``<rulebank>/archive/before-round-<NNN>/``) so the fresh lineage does not propose them
    again under new ids. Active and retired modules, releases and round builds stay."""
    import shutil

    bank_root = cfg.path(cfg.rulebank)
    bank = RuleBank(bank_root)
    plan = plan_round(cfg, fresh=True)
    dest = bank_root / "archive" / f"before-round-{plan.round_no:03d}"
    moved = 0
    for m in bank.modules("preview"):
        (dest / "modules").mkdir(parents=True, exist_ok=True)
        shutil.move(str(bank.modules_dir / m.id), str(dest / "modules" / m.id))
        moved += 1
    for r in bank.rejected():
        (dest / "rejected").mkdir(parents=True, exist_ok=True)
        shutil.move(str(bank.rejected_dir / r.id), str(dest / "rejected" / r.id))
        moved += 1
    return str(dest) if moved else None


# --------------------------------------------------------------------------------------
# The steps, in the order the round flow calls them
# --------------------------------------------------------------------------------------


def prepare_round(config_path: str, round_no: int | None = None, *, fresh: bool = False) -> RoundContext:
    """Lock the rule bank, finish or undo a round that was stopped, plan this one (number and
    base), and load the pool and the base; returns the round's state.

    ``round_no``, when given, must be the planned number (a number is never used twice).
    """
    from tasks.data.store import Store

    t0 = time.perf_counter()
    cfg = ConstructConfig.from_yaml(config_path)
    bank_root = cfg.path(cfg.rulebank)
    lock = RoundLock(bank_root).acquire()
    store = None
    try:
        db = cfg.path(cfg.db)
        db.parent.mkdir(parents=True, exist_ok=True)
        store = Store(db).connect()
        recovered = recover_round(cfg, store)
        plan = plan_round(cfg, fresh=fresh)
        if round_no is not None and round_no != plan.round_no:
            raise ValueError(f"{cfg.name}: the next round is {plan.round_no}, not {round_no} "
                             "(round numbers are never reused or skipped)")
        examples, report, validation = load_pool_examples(cfg, store)
        base = state_artifact(bank_root, plan.base)
        bank = RuleBank(bank_root)
        verifier = replay_verifier(base, cfg.fallback, fallback_config=cfg.fallback_config,
                                   module_budget_s=cfg.construction.module_budget_s)
        state = PoolState(examples, verifier.fallback, guidance=base.guidance)
        held = HeldOut(PoolState(validation, verifier.fallback, guidance=base.guidance)) if validation else None
    except BaseException:
        if store is not None:
            store.close()
        lock.release()
        raise
    ctx = RoundContext(cfg, plan.round_no, base, verifier, state, store, pool_report=report, plan=plan, lock=lock)
    ctx.recovered = recovered
    ctx.validation = held
    ctx.source_ids = bank.module_ids()
    ctx.source_status = {s: [m.id for m in bank.modules(s)] for s in ("preview", "active", "retired")}
    _timed(ctx, "prepare", t0)
    for line in recovered:
        _logger().warning("%s: %s", cfg.name, line)
    if held is None:
        _logger().warning("%s: the pool has no validation split; candidates are validated on the construction "
                          "split only", cfg.name)
    _progress(ctx, "prepare", f"{_n(len(examples))} pool examples ({report.get('data')}), "
                              f"{_n(len(validation))} validation examples, base "
                              f"{base.version} with {len(verifier.modules)} modules"
                              + (" (fresh start)" if fresh else ""))
    return ctx


def close_round(ctx: RoundContext) -> None:
    """Close the store and release the rule bank's lock (safe to call twice)."""
    try:
        ctx.store.close()
    finally:
        if ctx.lock is not None:
            ctx.lock.release()


def run_round(config_path: str, *, fresh: bool = False) -> dict[str, Any]:
    """One round without Prefect: the steps in the flow's order, replay chunks in this thread."""
    ctx = prepare_round(config_path, fresh=fresh)
    try:
        chunks, rows = chunk_rows(ctx)
        spec = replay_spec(ctx)
        collect_replay(ctx, chunks, [replay_chunk(spec, r) for r in rows])
        find_round_residuals(ctx)
        cluster_round(ctx)
        draft_round(ctx)
        validate_round(ctx)
        freeze_round(ctx)
        summary, _ = record_round(ctx)
        return summary
    finally:
        close_round(ctx)


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
            rows.append({"artifact_version": ctx.base.version, "example_id": r.example_id,
                         "decision": None if r.predicted is None else ("PASS" if r.predicted else "FAIL"),
                         "correct": r.correct, "decided_by": r.decided_by, "reason": r.reason,
                         "fallback_called": r.fallback_called, "latency_ms": r.latency_ms})
    ctx.rows["replays"] = rows  # written with the rest of the round at freeze
    # the whole replay: from handing out the chunks (workers run in parallel) to merging them
    ctx.timings["replay"] = round(time.perf_counter() - ctx.timings.pop("replay_started", t0), 3)
    direct = sum(1 for r in rows if r["decision"] is not None and not r["fallback_called"])
    _progress(ctx, "replay", f"{_n(len(rows))} examples replayed in {len(chunks)} chunk(s): {_n(direct)} decided "
                             f"by modules, {_n(sum(1 for r in rows if r['fallback_called']))} fallback calls")
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
    rows = [{"example_id": r["example_id"], "error_type": r["error_type"],
             "answer_object": r["answer_object"], "surface_form": r["surface_form"], "domain": r["domain"],
             "features": {k: r[k] for k in ("cues", "text", "decided_by", "label", "predicted")}}
            for r in ctx.residuals]
    ctx.rows["residuals"] = rows
    _timed(ctx, "residuals", t0)
    kinds = Counter(r["error_type"] for r in ctx.residuals)
    _progress(ctx, "residuals", f"{_n(len(rows))} wrong verdicts"
                                + (" (" + ", ".join(f"{k} {_n(v)}" for k, v in kinds.most_common()) + ")" if kinds else ""))
    return len(rows)


def cluster_round(ctx: RoundContext) -> int:
    """Cluster the residuals (embeddings, UMAP, HDBSCAN) and add coverage groups; rank them."""
    from tasks.construct.cluster import cluster_residuals
    from tasks.construct.embed import cached_embedder, make_embedder

    t0 = time.perf_counter()
    rc = ctx.cfg.construction
    result = cluster_residuals(ctx.residuals, embedder=cached_embedder(make_embedder(rc.embedder)),
                               min_cluster_size=rc.min_cluster_size, seed=rc.seed)
    index_of = {r["example_id"]: r["index"] for r in ctx.residuals}
    clusters = []
    for c in result.clusters[: rc.max_clusters]:
        clusters.append({"cluster_id": c.cluster_id, "indices": [index_of[e] for e in c.example_ids],
                         "size": c.size, "score": c.score, "kind": "residual", "method": c.method,
                         "key_summary": c.key_summary})
    clusters += coverage_groups(ctx.state, ctx.preds, ctx.by, top=rc.coverage_groups, min_size=rc.min_support)
    ctx.clusters = clusters
    ctx.rows["clusters"] = [{"cluster_id": c["cluster_id"], "size": c["size"],
                             "score": float(c.get("score") or c["size"]),
                             "label_summary": json.dumps(c["key_summary"], default=str, sort_keys=True),
                             "example_ids": [ctx.state.examples[i].id for i in c["indices"]]}
                            for c in clusters]
    _timed(ctx, "cluster", t0)
    residual = sum(1 for c in clusters if c.get("kind") == "residual")
    _progress(ctx, "cluster", f"{residual} residual cluster(s) and {len(clusters) - residual} coverage group(s) "
                              f"to draft from (sizes {', '.join(str(c['size']) for c in clusters[:12]) or 'none'})")
    return len(clusters)


def pool_embeddings(ctx: RoundContext):
    """Embeddings of every pool example (reference, answer, question head), fitted once per round."""
    import numpy as np

    from tasks.construct.embed import cached_embedder, make_embedder

    if ctx.embeddings is None:  # the same pool every round: cached on disk (embed.CachedEmbedder)
        texts = [f"{x.ref} || {x.answer} || {x.question[:120]}" for x in ctx.state.triples]
        ctx.embeddings = np.asarray(cached_embedder(make_embedder(ctx.cfg.construction.embedder)).embed(texts))
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
    undrafted = sum(1 for c in ctx.rejected if c["stage"] == "draft")
    _progress(ctx, "draft", f"{_n(len(ctx.drafts))} draft(s) from {len(ctx.clusters)} cluster(s); "
                            f"{undrafted} cluster(s) without a draft")
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
    """Audit each draft's code in the sandbox, validate it in six stages, promote the survivors
    (as ``preview`` proposals: :func:`freeze_round` writes them into the rule bank's source)."""
    replay_validation(ctx)
    t0 = time.perf_counter()
    rc = ctx.cfg.construction
    modules, templates, cards = existing_modules(ctx.base)
    order = [m.id for m in ctx.verifier.modules]
    preds, by = list(ctx.preds), list(ctx.by)
    held = ctx.validation
    accepted_keys: set[str] = set()
    rejected_before = len(ctx.rejected)
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
                                       order, templates, rc, preds, by, validation=held)
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
        if held is not None:
            held.state.decisions[module_id] = v.validation_decisions or [ABSTAIN] * len(held.state)
            held.refresh(order)
        accepted_keys.add(dkey)
        record["audit"] = audit
        cards[draft.card_id] = card_for_release(proposal)
        ctx.proposals[module_id] = proposal
        ctx.accepted.append(record)
    ctx.figures["after"] = round_figures(preds, by, ctx.state.labels)
    if held is not None:
        ctx.figures["validation_after"] = round_figures(held.preds, held.by, held.state.labels)
    ctx.preds, ctx.by = preds, by
    ctx.promoted = (modules, cards)
    _timed(ctx, "validate", t0)
    stages = Counter(c["stage"] for c in ctx.rejected[rejected_before:])
    _progress(ctx, "validate", f"{len(ctx.accepted)} accepted, {sum(stages.values())} rejected"
                               + (" (" + ", ".join(f"{k} {v}" for k, v in stages.most_common()) + ")" if stages else ""))
    return len(ctx.accepted)


def replay_validation(ctx: RoundContext) -> int:
    """The round's base on the pool's validation split, once per round, through the same cascade
    as the construction split's replay (every module's label recorded, the fallback where all
    abstain); its figures are the round's ``validation_before``."""
    held = ctx.validation
    if held is None or held.by:
        return 0
    t0 = time.perf_counter()
    module_ids = [m.id for m in ctx.verifier.modules]
    ex = held.state.examples
    results = replay_rows(ctx.verifier, [(e.question, e.reference, e.response) for e in ex])
    absorb_replay(held.state, module_ids, list(range(len(ex))), results, ctx.verifier.fallback_name)
    held.refresh(module_ids)
    ctx.figures["validation_before"] = round_figures(held.preds, held.by, held.state.labels)
    _timed(ctx, "validation_replay", t0)
    f = ctx.figures["validation_before"]
    _progress(ctx, "validation_replay", f"{_n(len(ex))} validation examples replayed: {_n(f['direct'])} decided by "
                                        f"modules, {_n(f['direct_errors'])} direct errors")
    return len(ex)


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
    """Freeze the round: its rows in the store, its proposals in the rule bank's source, its
    round build, its ledger line, in the order that makes a stop at any point recoverable
    (``tasks/construct/journal.py``). Returns the round build's name, or the base's version
    when the round accepted nothing (then nothing is frozen: no duplicate build).

    Accepted modules become ``preview`` modules in the source and rejected cards go beside them;
    the round build (the base plus the proposals) is what the next round continues from. Nothing
    here is a release: only a reviewed ``rules activate`` and ``rules build`` make one."""
    t0 = time.perf_counter()
    modules, cards = ctx.promoted if ctx.promoted is not None else (None, None)
    bank = RuleBank(ctx.cfg.path(ctx.cfg.rulebank))
    if modules is None:
        modules, _, cards = existing_modules(ctx.base)
    for proposal in ctx.proposals.values():
        if proposal.id in bank.module_ids() and bank.module(proposal.id).status == "active":
            raise RuleBankError(f"{proposal.id} is active in {bank.modules_dir}: a proposal never overwrites it")
    build = next_build_name(bank, ctx.base.version) if ctx.accepted else None
    state = _state_of(bank.root, bank.root / "rounds" / build) if build else ctx.plan.base if ctx.plan else "empty"
    ctx.build = build
    ctx.release = build or ctx.base.version
    summary = round_summary(ctx)
    journal = RoundJournal(bank.root)
    # 1. the journal: what this round is about to write
    journal.start(round=ctx.round_no, config=ctx.cfg.name, base=ctx.base.version, build=build, state=state,
                  root=(ctx.plan.root if ctx.plan else None) or ctx.base.version, accepted=len(ctx.accepted),
                  rejected=len(ctx.rejected), fresh=bool(ctx.plan and ctx.plan.fresh))
    # 2. the store: every row of the round in one transaction (a rerun replaces them)
    round_row = {"artifact_version": ctx.release, "base_release": ctx.base.version, "status": "freezing",
                 "started_at": ctx.started_at, "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
                 **{k: summary["after"].get(k) for k in ("coverage", "direct_errors", "direct_precision",
                                                         "accuracy", "fallback_calls")},
                 "accepted": len(ctx.accepted), "rejected": len(ctx.rejected), "figures": summary}
    tables = {**ctx.rows, "cards": [_card_row(c) for c in ctx.accepted + ctx.rejected],
              "validations": [{"card_id": c["card_id"], "stage": st,
                               "passed": c["status"] == "accepted" or st != c["stage"], "figures": figs}
                              for c in ctx.accepted + ctx.rejected
                              for st, figs in (c.get("replay_evidence") or {}).items()],
              "rounds": [round_row]}
    with ctx.store_lock:
        ctx.store.replace_round(ctx.cfg.name, ctx.round_no, tables)
    # 3. the source: proposals and rejected cards, each folder journaled before it is written
    for proposal in ctx.proposals.values():
        journal.before_write(bank.modules_dir / proposal.id)
        bank.save(proposal)
    for record in ctx.rejected:
        card = rejected_card(record, ctx.state)  # a template draft is its template, version and parameters
        code = _proposal_code_of_record(record) if not record.get("template") and record.get("source") else None
        journal.before_write(bank.rejected_dir / card["id"])
        bank.save_rejected(SourceModule(card["id"], card, code, tuple(_error_cases(card))))
    journal.update(sources_done=True)
    # 4. the round build (temporary directory, then one rename)
    if build:
        from verifier_runtime.fallback.prompt import DEFAULT_TEMPLATE

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
        guidance = "\n\n".join(g for g in [ctx.base.guidance.strip(), *ctx.guidance] if g)
        spec = ReleaseSpec(version=build, modules=list(modules.values()), cards=cards,
                           template=ctx.base.template or DEFAULT_TEMPLATE, guidance=guidance,
                           fallback_defaults=ctx.base.fallback_defaults or {"name": "offline"}, provenance=provenance)
        write_release(spec, bank.root / "rounds" / build)
    # 5. the ledger (the commit point), then the store's record marked complete
    RoundLedger(bank.root).append(_ledger_entry(journal.info()))
    with ctx.store_lock:
        ctx.store.set_round_status(ctx.cfg.name, ctx.round_no, "complete")
    journal.finish()
    _timed(ctx, "freeze", t0)
    if build:
        _progress(ctx, "freeze", f"round build {build} ({len(modules)} modules); {len(ctx.proposals)} preview "
                                 f"proposal(s) and {len(ctx.rejected)} rejected card(s) in {bank.root}")
    else:
        _progress(ctx, "freeze", f"nothing accepted, nothing frozen: {nothing_accepted_reason(ctx)}")
    return ctx.release


def next_build_name(bank: RuleBank, base_version: str) -> str:
    """The next round build's name: after the base, every round build and every release of the
    rule bank, and every build the ledger names (a name is never used twice)."""
    seen = [release_version(base_version) or 0]
    seen += [release_version(p.name) or 0 for p in [*round_builds(bank), *releases_under(bank.releases_dir)]]
    seen += [release_version(str(e.get("build") or "")) or 0 for e in RoundLedger(bank.root).entries()]
    return next_version(f"r{max(seen):04d}")


def nothing_accepted_reason(ctx: RoundContext) -> str:
    """Why a round accepted nothing, from what it saw and rejected."""
    if not ctx.residuals and not ctx.clusters:
        return "the base makes no error on the pool and no coverage group was large enough to draft from"
    if not ctx.clusters:
        return f"{_n(len(ctx.residuals))} residual(s) formed no cluster to draft from"
    stages = Counter(c["stage"] for c in ctx.rejected)
    parts = [f"{v} at {k}" for k, v in stages.most_common()]
    why = f"all {len(ctx.rejected)} card(s) were rejected ({', '.join(parts)})" if parts else "no card was drafted"
    return why + "; another round on the same base and pool would repeat this"


def _proposal_code_of_record(record: dict[str, Any]) -> str:
    """A rejected drafted (not templated) card's code, as ``module.py``."""
    return f'"""{record.get("card_id")}: drafted code, rejected at {record.get("stage")}.\n"""\n\n{record["source"]}\n'


def _error_cases(card: dict[str, Any]) -> list[dict[str, Any]]:
    """A rejected card's cases: the examples it decided wrongly, with the decision they needed."""
    return [{"expected": "PASS" if e["label"] else "FAIL", "question": e["question"], "reference": e["reference"],
             "response": e["response"], "label": e["label"],
             "why": f"the card decided this wrongly at {e.get('stage') or 'full_replay'} "
                    f"({e.get('split') or 'construction'} split)",
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


def round_summary(ctx: RoundContext) -> dict[str, Any]:
    """The round's figures and counts (what the store's ``rounds.figures`` and the artifacts hold)."""
    before, after = ctx.figures.get("before", {}), ctx.figures.get("after", ctx.figures.get("before", {}))
    stages = Counter(c["stage"] for c in ctx.rejected)
    return {
        "config": ctx.cfg.name,
        "name": round_name(ctx.cfg.name, ctx.round_no),
        "round": ctx.round_no,
        "release": ctx.release,  # the state after the round: its build, or the base when it froze nothing
        "build": ctx.build,
        "build_path": str(ctx.cfg.path(ctx.cfg.rulebank) / "rounds" / ctx.build) if ctx.build else None,
        "base_release": ctx.base.version,
        "fresh": bool(ctx.plan and ctx.plan.fresh),
        "rulebank": str(ctx.cfg.path(ctx.cfg.rulebank)),
        "db": str(ctx.cfg.path(ctx.cfg.db)),
        "drafter": drafter_names(ctx.cfg),
        "pool": len(ctx.state),
        "data": ctx.pool_report.get("data"),
        "residuals": len(ctx.residuals),
        "clusters": len(ctx.clusters),
        "drafts": len(ctx.drafts),
        "accepted": len(ctx.accepted),
        "rejected": len(ctx.rejected),
        "rejected_by_stage": dict(stages.most_common()),
        "proposals": sorted(ctx.proposals),
        "nothing_accepted": None if ctx.accepted else nothing_accepted_reason(ctx),
        "recovered": list(ctx.recovered),
        "before": before,
        "after": after,
        "validation_split": {"before": ctx.figures.get("validation_before", {}),
                             "after": ctx.figures.get("validation_after", ctx.figures.get("validation_before", {}))},
        "timings_s": dict(ctx.timings),
    }


def drafter_names(cfg: ConstructConfig) -> str:
    """The round's drafters, as its tag says: ``offline`` or ``offline+llm:<model>``."""
    if not cfg.llm_drafter:
        return "offline"
    return f"offline+llm:{cfg.llm_drafter.get('model') or cfg.llm_drafter.get('provider') or 'llm'}"


def record_round(ctx: RoundContext, started_at: str | None = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The round's summary (with every timing) and the config's trace of finished rounds; the
    round's record itself was written at freeze, with what it froze."""
    summary = round_summary(ctx)
    ctx.summary = summary
    with ctx.store_lock:
        ctx.store.con.execute("UPDATE rounds SET figures = ? WHERE config = ? AND round = ?",
                              [json.dumps(summary, default=str, sort_keys=True), ctx.cfg.name, ctx.round_no])
        trace = ctx.store.rounds(ctx.cfg.name)
    total = sum(v for k, v in ctx.timings.items() if k != "replay_started")
    _progress(ctx, "publish", f"coverage {_pct(summary['after'].get('coverage'))}, direct errors "
                              f"{_n(summary['after'].get('direct_errors'))}, accuracy "
                              f"{_pct(summary['after'].get('accuracy'))}, fallback calls "
                              f"{_n(summary['after'].get('fallback_calls'))}; round took {total:,.1f} s")
    return summary, trace


def artifact_keys(cfg_name: str) -> dict[str, str]:
    """The Prefect artifact keys of a config's rounds: one history per config, never mixed."""
    k = slug(cfg_name)
    return {"round": f"{k}-round", "cards": f"{k}-cards", "trace": f"{k}-trace", "eval": f"{k}-eval",
            "eval_table": f"{k}-eval-accuracy"}


def round_artifacts(summary: dict[str, Any], accepted: list[dict], rejected: list[dict],
                    trace: list[dict]) -> dict[str, Any]:
    """What the round publishes where a person looks: a markdown summary, the cards table with
    their full reasons, and the trace over the config's rounds (numbers formatted)."""
    cards = [{"card": c["card_id"], "status": c["status"], "stage": c["stage"], "template": c.get("template") or "",
              "module": c.get("module_id") or "", "reason": " ".join(str(c["reason"]).split())}
             for c in accepted + rejected] or [{"card": "", "status": "no card was drafted", "stage": "",
                                                "template": "", "module": "", "reason": ""}]
    return {"markdown": round_markdown(summary, accepted, rejected, trace), "cards": cards,
            "trace": trace_rows(trace)}


def trace_rows(trace: list[dict]) -> list[dict[str, str]]:
    """The trace table: one row per finished round, numbers as people read them."""
    out = []
    for r in trace:
        f = r.get("figures") or {}
        out.append({"round": f"{int(r['round']):03d}", "base": str(r.get("base_release") or f.get("base_release") or ""),
                    "froze": str(f.get("build") or "nothing") if "build" in f else str(r["artifact_version"]),
                    "coverage": _pct(r.get("coverage")), "direct errors": _n(r.get("direct_errors")),
                    "direct precision": _pct(r.get("direct_precision")), "accuracy": _pct(r.get("accuracy")),
                    "fallback calls": _n(r.get("fallback_calls")), "accepted": _n(r.get("accepted")),
                    "rejected": _n(r.get("rejected"))})
    return out


def _pct(x: Any) -> str:
    return "-" if x is None else f"{100 * x:.2f}%"


def _line(x: Any) -> str:
    """Text on one line, whole (never cut)."""
    return " ".join(str(x if x is not None else "").split())


def _delta(b: Any, a: Any, pct: bool) -> str:
    if a is None or b is None:
        return ""
    d = a - b
    return f"{100 * d:+.2f} pts" if pct else f"{int(d):+,}"


def round_markdown(summary: dict, accepted: list[dict], rejected: list[dict], trace: list[dict]) -> str:
    b, a = summary["before"], summary["after"]
    keys = artifact_keys(summary.get("config") or "construct")
    name = summary.get("name") or f"round {summary['round']}"
    if summary.get("build"):
        head = f"# {name}: froze round build {summary['build']}"
        froze = (f"Froze round build **{summary['build']}** at [`{summary['build_path']}`]"
                 f"(file://{summary['build_path']}/manifest.json), the base {summary['base_release']} plus this "
                 f"round's proposals. Preview modules written to `{summary.get('rulebank')}/modules/`: "
                 + (", ".join(f"`{m}`" for m in summary.get("proposals") or []) or "none (revisions in place)")
                 + ". A round build is not a release: review with `autoverifier rules list --status preview`.")
    else:
        head = f"# {name}: nothing accepted ({summary['base_release']} unchanged)"
        froze = (f"**Nothing accepted, nothing frozen**: {summary.get('nothing_accepted')}. The next round "
                 f"starts from {summary['base_release']} again.")
    lines = [head, "",
             f"Config `{summary.get('config')}`, base **{summary['base_release']}**"
             + (" (fresh start)" if summary.get("fresh") else "") + f", drafter {summary.get('drafter')}; pool "
             f"{_n(summary['pool'])} examples ({summary['data']}); store `{summary.get('db')}`.", "",
             froze, ""]
    for line in summary.get("recovered") or []:
        lines += [f"> Recovered before this round: {line}", ""]
    rows = [("direct coverage", "coverage", True), ("direct errors", "direct_errors", False),
            ("direct precision", "direct_precision", True), ("accuracy", "accuracy", True),
            ("fallback calls", "fallback_calls", False)]
    lines += ["| figure | before | after | change |", "|---|---:|---:|---:|"]
    for label, k, pct in rows:
        fmt = _pct if pct else _n
        lines.append(f"| {label} | {fmt(b.get(k))} | {fmt(a.get(k))} | {_delta(b.get(k), a.get(k), pct)} |")
    vb, va = (summary.get("validation_split") or {}).get("before"), (summary.get("validation_split") or {}).get("after")
    if vb:
        lines += ["", f"On the validation split ({_n(vb.get('n'))} examples, never drafted from):", "",
                  "| figure | before | after | change |", "|---|---:|---:|---:|"]
        for label, k, pct in rows:
            fmt = _pct if pct else _n
            lines.append(f"| {label} | {fmt(vb.get(k))} | {fmt(va.get(k))} | {_delta(vb.get(k), va.get(k), pct)} |")
    by_stage = summary.get("rejected_by_stage") or {}
    lines += ["", f"Residuals {_n(summary['residuals'])}, clusters {_n(summary['clusters'])}, drafts "
              f"{_n(summary['drafts'])}, accepted {_n(summary['accepted'])}, rejected {_n(summary['rejected'])}"
              + (" (" + ", ".join(f"{k}: {v}" for k, v in by_stage.items()) + ")" if by_stage else "") + ".",
              "", f"Every card with its full reason: the [`{keys['cards']}`](/artifacts/key/{keys['cards']}) table.",
              "", "## Accepted cards", ""]
    # cards as a list, not a table: a list item wraps, so every reason is read whole on the page
    lines += [f"- **{_line(c['card_id'])}** → `{_line(c.get('module_id'))}` ({_line(c.get('template'))}): "
              f"{_line(c['reason'])}" for c in accepted] or ["None."]
    lines += ["", "## Rejected cards", ""]
    lines += [f"- **{_line(c['card_id'])}** at *{_line(c['stage'])}*"
              + (f" ({_line(c.get('template'))})" if c.get("template") else "") + f": {_line(c['reason'])}"
              for c in rejected] or ["None."]
    lines += ["", f"## Trace over the rounds of `{summary.get('config')}`", "",
              "| round | base | froze | coverage | direct errors | direct precision | accuracy | fallback calls "
              "| accepted | rejected |", "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    lines += ["| " + " | ".join(r.values()) + " |" for r in trace_rows(trace)]
    t = {k: v for k, v in (summary.get("timings_s") or {}).items() if k != "replay_started"}
    lines += ["", "## Step timings", "", "| step | seconds |", "|---|---:|"]
    lines += [f"| {k} | {v:,.1f} |" for k, v in t.items()]
    lines.append(f"| total | {sum(t.values()):,.1f} |")
    return "\n".join(lines) + "\n"
