"""Drafting: the offline drafter instantiates parametric templates over their grids and keeps the best."""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tasks.construct.config import RoundConfig
from tasks.construct.render import instantiate, load_template, template_names
from tasks.construct.state import PoolState, decisions_for
from verifier_runtime.types import ABSTAIN, PASS


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


#: Template parameters that guard a PASS: what a value match gives when the criterion forbids it
#: (``on_guard``: ABSTAIN or FAIL, from ``toolkit.criterion.pass_guard``: a form the question asks
#: for, a restatement, meaningful case), question cues that switch a module off or to FAIL, the
#: commitment checks (hedges, retractions, negations) and where a phrase counts as stated. The grid
#: search treats them like every other parameter; a draft's card names the values it chose.
GUARD_PARAMETERS = ("on_guard", "skip_cued", "exact_cue_fails_decimal", "stated_only", "commitment", "echo",
                    "truncated")


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
                        "counterexample_errors": c_bad, "candidates_tried": len(self._candidates),
                        "guards": {k: params[k] for k in GUARD_PARAMETERS if k in params}},
            ))
        return drafts

