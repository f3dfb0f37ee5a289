"""Residuals (the examples the verifier gets wrong) and coverage groups (what the fallback decides right)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tasks.construct.features import residual_features
from tasks.construct.state import PoolState


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

