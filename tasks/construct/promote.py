"""Promotion and freezing: module cases, rule cards, priorities, the next release."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from tasks.construct.render import load_template
from tasks.construct.state import PoolState
from verifier_runtime.artifact import Artifact, ModuleEntry
from verifier_runtime.types import ABSTAIN, PASS

if TYPE_CHECKING:
    from tasks.construct.draft import Draft
    from tasks.construct.validate import Validation

GROUP_BASE = {
    "invalid_answer_guard": 100,
    "answer_extraction": 150,
    "closed_choice": 200,
    "verdict_matching": 300,
    "numeric_unit": 400,
}


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
        # wrong decisions by their text: tolerated (accepted) or the reason it was rejected
        "wrong_decisions": list(validation.errors) if validation else [],
        "audit": audit or {},
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def next_version(current: str) -> str:
    n = int(current[1:5]) if current[1:5].isdigit() else 0
    return f"r{n + 1:04d}"


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



# --------------------------------------------------------------------------------------
# Promotion decisions, as pure functions
# --------------------------------------------------------------------------------------


def module_number(module_id: str) -> int:
    """The sequence number of a module id (``m012_text_match`` -> 12; 0 for other ids)."""
    head = module_id.split("_", 1)[0]
    return int(head[1:]) if head[:1] == "m" and head[1:].isdigit() else 0


def next_module_id(existing: Sequence[str], template: str | None) -> str:
    """A new module's id: the next number after every id in use, then its template's name."""
    n = max((module_number(m) for m in existing), default=0) + 1
    return f"m{n:03d}_{template or 'llm'}"


def module_priority(group: str, module_id: str) -> int:
    """Where a new module sits in the cascade: its group's base (guards first, then extraction,
    closed choice, verdict matching, numeric and unit normalisation), then its number."""
    return GROUP_BASE.get(group, 500) + module_number(module_id)


def next_round(base_round: int, source_round: int) -> int:
    """The next round's number: after both the base's round and every round the source records."""
    return max(int(base_round), int(source_round)) + 1


def revision_after(card: dict[str, Any] | None) -> int:
    """The revision number of a card that revises ``card`` (1 for a new module)."""
    return int((card or {}).get("revision", 0) or 0) + 1


def retire_replaced(cards: dict[str, dict], old_card_id: str, new_card_id: str) -> dict[str, dict]:
    """``cards`` with the card a revision replaces marked retired (a new dict; the rest unchanged)."""
    if old_card_id not in cards:
        return dict(cards)
    return {**cards, old_card_id: {**cards[old_card_id], "status": "retired", "reason": f"revised by {new_card_id}"}}


# --------------------------------------------------------------------------------------
# The source layout: what construction proposes (rulebank/modules/<id>/, as preview)
# --------------------------------------------------------------------------------------


def example_record(state: PoolState, example_id: str) -> dict[str, Any]:
    """A pool example by its text (never by position): question, reference, response, label, provenance."""
    from tasks.data.provenance import label_provenance

    e = state.examples[state.index[example_id]]
    return {"example_id": e.id, "source": e.source, "question": e.question, "reference": e.reference,
            "response": e.response, "label": bool(e.label), "label_provenance": label_provenance(e)}


def module_cases(state: PoolState, dec: Sequence[str], preferred: Sequence[int], *, n: int,
                 abstain_from: Sequence[int] = ()) -> list[dict[str, Any]]:
    """Gold-labelled cases for a module: up to ``n`` correct PASS and ``n`` correct FAIL
    decisions (the ``preferred`` examples first, then the rest of the pool) and up to ``n``
    abstentions (from ``abstain_from``, then the pool's opposite-label examples), shortest first.

    ``expected`` is the module's decision; for PASS and FAIL it agrees with the example's
    label, whose origin each case names.
    """
    def size(i: int) -> tuple[int, str]:
        e = state.examples[i]
        return len(e.question) + len(e.reference) + len(e.response), e.id

    pref = set(preferred)
    everyone = sorted(range(len(state)), key=lambda i: (i not in pref, size(i)))
    out: list[dict[str, Any]] = []
    for want in ("PASS", "FAIL"):
        picked = [i for i in everyone if dec[i] == want and (want == PASS) == state.labels[i]][:n]
        out += [_case(state, i, want, "fired and agrees with the label") for i in picked]
    fired_labels = {state.labels[i] for i in range(len(state)) if dec[i] == PASS}
    near = sorted(abstain_from, key=size) + [i for i in everyone if state.labels[i] not in fired_labels]
    seen: set[int] = set()
    for i in near:
        if len([c for c in out if c["expected"] == ABSTAIN]) >= n:
            break
        if dec[i] == ABSTAIN and i not in seen:
            seen.add(i)
            out.append(_case(state, i, ABSTAIN, "outside the module's region: it leaves this to later modules"))
    return out


def _case(state: PoolState, i: int, expected: str, why: str) -> dict[str, Any]:
    rec = example_record(state, state.examples[i].id)
    return {"expected": expected, "question": rec["question"], "reference": rec["reference"],
            "response": rec["response"], "label": rec["label"], "why": why, "example_id": rec["example_id"],
            "source": rec["source"], "label_provenance": rec["label_provenance"]}


REPLAY_STAGES = ("full_replay", "validation_split")  # the stages that replay a split (their errors by id)


def _evidence(figures: dict[str, Any]) -> dict[str, Any]:
    """Replay evidence as figures only (the ids of tolerated errors become their text elsewhere)."""
    out = {k: v for k, v in figures.items()}
    for stage in REPLAY_STAGES:
        if stage in out:
            out[stage] = {k: v for k, v in out[stage].items() if k != "new_direct_error_ids"}
    return out


def wrong_decisions(record: dict[str, Any], state: PoolState | None) -> list[dict[str, Any]]:
    """A card record's wrong decisions by their text: as validation recorded them (both splits,
    every stage), else looked up by the full replay's ids in ``state``."""
    if record.get("wrong_decisions"):
        return [dict(e) for e in record["wrong_decisions"]]
    if state is None:
        return []
    ids = ((record.get("replay_evidence") or {}).get("full_replay") or {}).get("new_direct_error_ids") or []
    return [{**example_record(state, i), "split": "construction", "stage": "full_replay"}
            for i in ids if i in state.index]


def source_card(record: dict[str, Any], *, module_id: str, status: str, group: str, priority: int, revision: int,
                state: PoolState | None = None, revisions: Sequence[dict[str, Any]] = (),
                history: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """A module's ``card.yaml`` from construction's card record: template and version, the
    parameters with their meaning, priority, group, status, why it exists, the replay evidence
    as figures, and the tolerated errors by their text (looked up in ``state``)."""
    t = load_template(record["template"]) if record.get("template") else None
    params = {k: {"value": v, "meaning": (t.meaning.get(k, "") if t else "")}
              for k, v in sorted({**(t.defaults if t else {}), **(record.get("params") or {})}.items())}
    cluster = record.get("cluster") or {}
    figures = record.get("replay_evidence") or {}
    card: dict[str, Any] = {
        "id": module_id,
        "status": status,
        "title": (record.get("template") or "llm rule").replace("_", " "),
        "template": record.get("template"),
        "template_version": t.version if t else None,
        "group": group,
        "priority": int(priority),
        "revision": int(revision),
        "card_id": record["card_id"],
        "parameters": params,
        "why": _why(record),
        "region": (t.doc.split("\n\n")[0] if t else record.get("activation_region", "")),
        "learned": {"round": record.get("round"), "drafter": record.get("drafter"),
                    "cluster": {"id": cluster.get("cluster_id", record.get("cluster_id")), "kind": cluster.get("kind"),
                                "size": cluster.get("size"), "summary": cluster.get("key_summary")},
                    "search": record.get("search") or {}},
        "evidence": _evidence(figures),
        "tolerated_errors": wrong_decisions(record, state),
        "audit": record.get("audit") or {},
    }
    if state is not None:
        card["learned"]["pool"] = {"hash": state.pool_hash(), "size": len(state)}
    if revisions:
        card["revisions"] = list(revisions)
    card["history"] = list(history) or [{"status": status, "from": None,
                                         "why": f"proposed by construction round {record.get('round')} "
                                                f"(card {record['card_id']})"}]
    return card


def _why(record: dict[str, Any]) -> str:
    """Why the module exists: what it did on the pool, and the recurring pattern it was learned from."""
    cluster = record.get("cluster") or {}
    summary = ", ".join(f"{k} {v}" for k, v in sorted((cluster.get("key_summary") or {}).items())
                        if isinstance(v, str | int | float))
    kind = cluster.get("kind", "residual")
    what = ("examples the verifier got wrong" if kind == "residual"
            else "examples the judge decided correctly, which a module can take over without a judge call")
    return (f"{record.get('reason', '')}. Learned in round {record.get('round')} from cluster "
            f"{cluster.get('cluster_id', record.get('cluster_id'))}: {cluster.get('size')} {what}"
            + (f" ({summary})" if summary else "") + ".")


def rejected_card(record: dict[str, Any], state: PoolState | None = None) -> dict[str, Any]:
    """A rejected card in the source layout (``rulebank/rejected/<card_id>/card.yaml``)."""
    t = load_template(record["template"]) if record.get("template") else None
    cluster = record.get("cluster") or {}
    figures = record.get("replay_evidence") or {}
    return {
        "id": record["card_id"],
        "status": "rejected",
        "stage": record.get("stage"),
        "why": record.get("reason", ""),
        "template": record.get("template"),
        "template_version": t.version if t else None,
        "drafter": record.get("drafter"),
        "parameters": {k: {"value": v, "meaning": (t.meaning.get(k, "") if t else "")}
                       for k, v in sorted((record.get("params") or {}).items())},
        "round": record.get("round"),
        "cluster": {"id": cluster.get("cluster_id", record.get("cluster_id")), "kind": cluster.get("kind"),
                    "size": cluster.get("size"), "summary": cluster.get("key_summary")},
        "evidence": _evidence(figures),
        "errors": wrong_decisions(record, state),
        "audit": record.get("audit") or {},
    }
