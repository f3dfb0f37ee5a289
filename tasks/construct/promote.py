"""Promotion and freezing: module cases, rule cards, priorities, the next release."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tasks.construct.render import load_template
from tasks.construct.state import PoolState
from verifier_runtime.artifact import Artifact, ModuleEntry, ReleaseSpec, write_release
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

