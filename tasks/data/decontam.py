"""Decontamination audit: evaluation sets against a construction pool.

Per evaluation set, :func:`audit` finds

- exact matches of the normalised (question, reference, response) triple, of (question,
  reference), and of the question alone;
- fuzzy question matches: character 3-gram Jaccard >= ``fuzzy_threshold``, found with an
  inverted index and prefix filtering (exact: no pair above the threshold is missed);
- word n-gram overlap statistics (default 5-grams): the share of evaluation questions sharing
  any n-gram with the pool's questions, and the mean share of each question's n-grams found.

Exact and fuzzy matches are *decisive*; :func:`enforce` drops the pool examples involved
(policy ``drop``) or raises :class:`ContaminationError` (policy ``fail``). The n-gram figures
are reported only: short common phrases are shared by unrelated questions.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

from tasks.data.schema import Example

__all__ = ["ContaminationError", "DecontamReport", "SetAudit", "audit", "enforce", "normalize_text"]

_NON_ALNUM = re.compile(r"[^0-9a-z]+")


@lru_cache(maxsize=1 << 16)
def normalize_text(text: str) -> str:
    """NFKC, lower case, every run of non-alphanumerics collapsed to one space."""
    t = unicodedata.normalize("NFKC", text or "").lower()
    return _NON_ALNUM.sub(" ", t).strip()


class ContaminationError(RuntimeError):
    """Raised by :func:`enforce` with policy ``fail`` when a decisive match exists."""


@dataclass(slots=True)
class SetAudit:
    """The audit of one evaluation set."""

    name: str
    n_eval: int
    exact_triple: int = 0  # evaluation examples with a pool example of the same triple
    exact_question_reference: int = 0
    exact_question: int = 0
    fuzzy_question: int = 0  # matched only fuzzily (not exactly)
    ngram_share: float = 0.0
    ngram_mean_overlap: float = 0.0
    matches: list[tuple[str, str, str, float]] = field(default_factory=list)  # (kind, eval_id, pool_id, score)

    @property
    def contaminated_eval(self) -> int:
        return len({m[1] for m in self.matches})

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "n_eval": self.n_eval,
            "exact_triple": self.exact_triple,
            "exact_question_reference": self.exact_question_reference,
            "exact_question": self.exact_question,
            "fuzzy_question": self.fuzzy_question,
            "contaminated_eval": self.contaminated_eval,
            "ngram_share": round(self.ngram_share, 4),
            "ngram_mean_overlap": round(self.ngram_mean_overlap, 4),
            "examples": [list(m) for m in self.matches[:10]],
        }


@dataclass(slots=True)
class DecontamReport:
    """The audit over all evaluation sets; keeps the audited pool for :func:`enforce`."""

    n_pool: int
    fuzzy_threshold: float
    ngram: int
    sets: dict[str, SetAudit]
    pool: list[Example] = field(default_factory=list, repr=False)

    @property
    def decisive_pool_ids(self) -> set[str]:
        return {m[2] for s in self.sets.values() for m in s.matches}

    def to_dict(self) -> dict[str, Any]:
        return {
            "n_pool": self.n_pool,
            "fuzzy_threshold": self.fuzzy_threshold,
            "ngram": self.ngram,
            "contaminated_pool_examples": len(self.decisive_pool_ids),
            "sets": {k: v.to_dict() for k, v in self.sets.items()},
        }

    def to_markdown(self, items: str = "examples") -> str:
        """The audit as a Markdown table; ``items`` names what the pool side holds."""
        head = (f"| eval set | n | exact triple | exact q+ref | exact q | fuzzy q (J>={self.fuzzy_threshold}) "
                f"| {self.ngram}-gram share | mean {self.ngram}-gram overlap |")
        lines = [head, "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for s in self.sets.values():
            lines.append(f"| {s.name} | {s.n_eval} | {s.exact_triple} | {s.exact_question_reference} | "
                         f"{s.exact_question} | {s.fuzzy_question} | {s.ngram_share:.1%} | "
                         f"{s.ngram_mean_overlap:.1%} |")
        lines.append(f"\nPool: {self.n_pool} {items}, {len(self.decisive_pool_ids)} with a decisive match.")
        return "\n".join(lines)


def _grams3(t: str) -> frozenset[str]:
    t = f" {t} "
    return frozenset({t[i : i + 3] for i in range(len(t) - 2)}) if len(t) >= 3 else frozenset([t])


def _word_ngrams(t: str, n: int) -> set[tuple[str, ...]]:
    w = t.split()
    if not w:
        return set()
    if len(w) < n:
        return {tuple(w)}
    return {tuple(w[i : i + n]) for i in range(len(w) - n + 1)}


def _fuzzy_pairs(pool_q: list[str], eval_q: list[str], t: float) -> list[tuple[int, int, float]]:
    """All (eval index, pool index, jaccard) with char-3-gram Jaccard >= t (prefix filtering).

    The evaluation questions (the smaller side) are indexed by the prefixes of their gram sets
    under one global order (rarest in the evaluation sets first); a pool question is probed
    with its own prefix under the same order. Two sets with Jaccard >= t share a gram within
    both prefixes, whatever the order, so no pair is missed. A pool question whose prefix holds
    only grams no evaluation question has cannot match and is skipped by a set difference.
    """
    eg = [_grams3(q) for q in eval_q]
    freq: Counter[str] = Counter()
    for g in eg:
        freq.update(g)
    # the global order: grams of no evaluation question first (none is indexed), then by
    # frequency in the evaluation sets, ties by the gram; ranks make the sorting integer-only
    rank = {x: r for r, x in enumerate(sorted(freq, key=lambda x: (freq[x], x)))}
    vocab = frozenset(rank)

    def prefix_len(n: int) -> int:
        return n - math.ceil(t * n) + 1

    index: dict[int, list[int]] = defaultdict(list)
    for i, g in enumerate(eg):
        for r in sorted(map(rank.__getitem__, g))[: prefix_len(len(g))]:
            index[r].append(i)
    out = []
    for j, q in enumerate(pool_q):
        g = _grams3(q)
        m = len(g)
        known = g & vocab
        k = prefix_len(m) - (m - len(known))  # prefix places left after the unindexed grams
        if k <= 0:
            continue
        cands: set[int] = set()
        for r in sorted(map(rank.__getitem__, known))[:k]:
            cands.update(index.get(r, ()))
        for i in cands:
            n = len(eg[i])
            if m < t * n or n < t * m:
                continue
            inter = len(g & eg[i])
            jac = inter / (n + m - inter)
            if jac >= t:
                out.append((i, j, jac))
    return out


def audit(
    pool: Iterable[Example],
    eval_sets: dict[str, list[Example]],
    *,
    fuzzy_threshold: float = 0.9,
    ngram: int = 5,
) -> DecontamReport:
    """Audit ``pool`` (a list of examples, or a pool result) against each evaluation set."""
    pool = list(getattr(pool, "examples", pool))
    if not 0.0 < fuzzy_threshold <= 1.0:
        raise ValueError(f"fuzzy_threshold must be in (0, 1], got {fuzzy_threshold}")
    if ngram < 1:
        raise ValueError(f"ngram must be >= 1, got {ngram}")
    nq = [normalize_text(e.question) for e in pool]
    by_q: dict[str, list[int]] = defaultdict(list)
    for k, q in enumerate(nq):
        by_q[q].append(k)
    by_qr: dict[tuple[str, str], list[int]] = defaultdict(list)
    by_tri: dict[tuple[str, str, str], list[int]] = defaultdict(list)
    for k, e in enumerate(pool):
        r = normalize_text(e.reference)
        by_qr[(nq[k], r)].append(k)
        by_tri[(nq[k], r, normalize_text(e.response))].append(k)
    uniq_pool_q = [q for q in by_q if q]
    pool_ngrams: set[tuple[str, ...]] = set()
    for q in uniq_pool_q:
        pool_ngrams |= _word_ngrams(q, ngram)

    # Fuzzy pairs once over the distinct questions of every evaluation set together.
    enq_by_set = {name: [normalize_text(e.question) for e in ev] for name, ev in eval_sets.items()}
    all_eval_q = sorted({q for qs in enq_by_set.values() for q in qs if q})
    fuzzy_by_eq: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for i, j, jac in _fuzzy_pairs(uniq_pool_q, all_eval_q, fuzzy_threshold):
        if all_eval_q[i] != uniq_pool_q[j]:  # identical questions are exact matches
            fuzzy_by_eq[all_eval_q[i]].append((uniq_pool_q[j], jac))

    sets: dict[str, SetAudit] = {}
    for name, ev in eval_sets.items():
        sa = SetAudit(name=name, n_eval=len(ev))
        matched: set[tuple[str, str]] = set()
        enq = enq_by_set[name]
        for e, q in zip(ev, enq, strict=True):
            r = normalize_text(e.reference)
            tri = by_tri.get((q, r, normalize_text(e.response)), [])
            qr = by_qr.get((q, r), [])
            qo = by_q.get(q, []) if q else []
            sa.exact_triple += bool(tri)
            sa.exact_question_reference += bool(qr)
            sa.exact_question += bool(qo)
            for kind, ks in (("triple", tri), ("question_reference", qr), ("question", qo)):
                for k in ks:
                    if (e.id, pool[k].id) not in matched:
                        matched.add((e.id, pool[k].id))
                        sa.matches.append((kind, e.id, pool[k].id, 1.0))
        fuzzy_eval: set[int] = set()
        for ei, q in enumerate(enq):
            for pq, jac in fuzzy_by_eq.get(q, ()):
                fuzzy_eval.add(ei)
                for k in by_q[pq]:
                    if (ev[ei].id, pool[k].id) not in matched:
                        matched.add((ev[ei].id, pool[k].id))
                        sa.matches.append(("fuzzy_question", ev[ei].id, pool[k].id, round(jac, 4)))
        sa.fuzzy_question = len(fuzzy_eval)
        # n-gram overlap statistics over evaluation examples.
        hits, overlaps = 0, []
        for q in enq:
            grams = _word_ngrams(q, ngram)
            if not grams:
                overlaps.append(0.0)
                continue
            shared = len(grams & pool_ngrams)
            hits += shared > 0
            overlaps.append(shared / len(grams))
        sa.ngram_share = hits / len(ev) if ev else 0.0
        sa.ngram_mean_overlap = sum(overlaps) / len(overlaps) if overlaps else 0.0
        sets[name] = sa
    return DecontamReport(n_pool=len(pool), fuzzy_threshold=fuzzy_threshold, ngram=ngram, sets=sets, pool=pool)


def enforce(report: DecontamReport, policy: Literal["drop", "fail", "report"] = "drop") -> list[Example]:
    """Apply a policy to the audited pool: ``drop`` contaminated examples, ``fail`` on any
    decisive match, or ``report`` (keep everything)."""
    bad = report.decisive_pool_ids
    if policy == "drop":
        return [e for e in report.pool if e.id not in bad]
    if policy == "fail":
        if bad:
            summary = ", ".join(f"{s.name}: {s.contaminated_eval}" for s in report.sets.values() if s.matches)
            raise ContaminationError(f"{len(bad)} pool examples match evaluation items ({summary})")
        return list(report.pool)
    if policy == "report":
        return list(report.pool)
    raise ValueError(f"unknown policy {policy!r}; expected drop, fail or report")
