"""Evaluation metrics: pure functions over per-example results.

Everything here works on plain Python values (no numpy needed), so the figures in a report
can be recomputed by hand. A prediction of ``None`` (an abstention the caller surfaced)
counts as *incorrect*, the way the benchmarks count an unparseable judge output.

    >>> [round(x, 4) for x in wilson_interval(8, 10)]
    [0.4902, 0.9433]
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

FALLBACK_PREFIX = "fallback:"


@dataclass(slots=True)
class ExampleResult:
    """One verifier's verdict on one labelled example.

    ``pred`` is the verifier's ``correct`` (``None`` = no decision); ``decided_by`` is a module
    id or ``fallback:<name>``; ``group`` is the deciding module's group ("" for the fallback).
    """

    example_id: str
    benchmark: str
    verifier: str
    pred: bool | None
    label: bool
    decided_by: str = ""
    fallback_called: bool = False
    group: str = ""
    reason: str = ""
    answer_type: str = ""
    domain: str = ""
    elapsed_ms: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def is_correct(self) -> bool:
        """True when the verdict matches the human label (an abstention never does)."""
        return self.pred is not None and self.pred == self.label

    @property
    def direct(self) -> bool:
        """True when a code module (not the fallback) made the decision."""
        return bool(self.decided_by) and not self.decided_by.startswith(FALLBACK_PREFIX) and self.pred is not None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def is_direct(decided_by: str) -> bool:
    """Whether a ``decided_by`` value names a code module rather than the fallback."""
    return bool(decided_by) and not decided_by.startswith(FALLBACK_PREFIX)


# --------------------------------------------------------------------------- basic rates


def accuracy(results: Sequence[ExampleResult]) -> float:
    """Share of results whose verdict matches the label; 0.0 for an empty list."""
    return sum(r.is_correct for r in results) / len(results) if results else 0.0


def wilson_interval(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for ``k`` successes out of ``n``; ``(0.0, 1.0)`` when ``n == 0``."""
    if n < 0 or k < 0 or k > n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def macro_accuracy(per_benchmark: Mapping[str, float]) -> float:
    """Unweighted mean of per-benchmark accuracies (the paper's headline figure)."""
    return sum(per_benchmark.values()) / len(per_benchmark) if per_benchmark else 0.0


def micro_accuracy(counts: Mapping[str, tuple[int, int]]) -> float:
    """Pooled accuracy from per-benchmark ``(correct, n)`` counts."""
    k = sum(c for c, _ in counts.values())
    n = sum(n for _, n in counts.values())
    return k / n if n else 0.0


def direct_coverage(results: Sequence[ExampleResult]) -> float:
    """Share of examples decided by a code module."""
    return sum(r.direct for r in results) / len(results) if results else 0.0


def direct_precision(results: Sequence[ExampleResult]) -> float | None:
    """Accuracy of the direct (code-module) decisions; ``None`` when there are none."""
    direct = [r for r in results if r.direct]
    return sum(r.is_correct for r in direct) / len(direct) if direct else None


def direct_errors(results: Sequence[ExampleResult]) -> int:
    """Number of wrong direct decisions."""
    return sum(1 for r in results if r.direct and not r.is_correct)


def fallback_calls(results: Sequence[ExampleResult]) -> int:
    """How many examples needed the fallback judge."""
    return sum(1 for r in results if r.fallback_called)


def fallback_calls_avoided(calls: int, baseline_calls: int) -> float | None:
    """Share of the baseline's fallback calls that were avoided (``None`` if the baseline made none)."""
    return (baseline_calls - calls) / baseline_calls if baseline_calls else None


# --------------------------------------------------------------------------- paired comparisons


def _align(a: Sequence[ExampleResult], b: Sequence[ExampleResult]) -> list[tuple[bool, bool]]:
    """Pairs of correctness flags for the examples both lists hold (matched by benchmark and id)."""
    bmap = {(r.benchmark, r.example_id): r for r in b}
    if len(bmap) != len(b):
        raise ValueError("duplicate example ids in a result list")
    pairs = [(r.is_correct, bmap[(r.benchmark, r.example_id)].is_correct) for r in a if (r.benchmark, r.example_id) in bmap]
    if len(pairs) != len(a) or len(pairs) != len(b):
        raise ValueError("the two result lists do not cover the same examples")
    return pairs


@dataclass(frozen=True, slots=True)
class Corrections:
    """Per-example changes of a verifier against a baseline on the same examples."""

    corrected: int  # baseline wrong, verifier right
    new_errors: int  # baseline right, verifier wrong
    both_right: int
    both_wrong: int

    @property
    def net(self) -> int:
        return self.corrected - self.new_errors


def corrections(verifier: Sequence[ExampleResult], baseline: Sequence[ExampleResult]) -> Corrections:
    """Count corrections and new errors of ``verifier`` relative to ``baseline``."""
    pairs = _align(verifier, baseline)
    return Corrections(
        corrected=sum(1 for v, b in pairs if v and not b),
        new_errors=sum(1 for v, b in pairs if b and not v),
        both_right=sum(1 for v, b in pairs if v and b),
        both_wrong=sum(1 for v, b in pairs if not v and not b),
    )


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts ``b`` and ``c`` (binomial, p=1/2)."""
    if b < 0 or c < 0:
        raise ValueError("discordant counts must be non-negative")
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(b, c) + 1)) / 2.0**n
    return min(1.0, 2.0 * tail)


def normal_two_sided_p(z: float) -> float:
    """Two-sided p-value of a standard normal statistic."""
    return math.erfc(abs(z) / math.sqrt(2.0))


@dataclass(frozen=True, slots=True)
class PairedComparison:
    """A vs B on the same examples: accuracy difference with its uncertainty."""

    n: int
    accuracy_a: float
    accuracy_b: float
    mean_diff: float  # accuracy_a - accuracy_b
    se: float
    z: float
    p_normal: float
    ci_low: float
    ci_high: float
    a_only_correct: int  # McNemar b
    b_only_correct: int  # McNemar c
    p_mcnemar: float

    def to_dict(self) -> dict[str, Any]:
        return {k: (None if isinstance(v, float) and math.isinf(v) else v) for k, v in asdict(self).items()}


def paired_comparison(
    a: Sequence[ExampleResult], b: Sequence[ExampleResult], z_crit: float = 1.96
) -> PairedComparison:
    """Paired normal approximation on per-example correctness differences, plus exact McNemar.

    With ``d_i = correct_a(i) - correct_b(i)``: mean ``d``, ``SE = sd(d, ddof=1) / sqrt(n)``,
    ``z = mean / SE``, a two-sided normal p-value and ``mean +- z_crit * SE``. When every
    difference is equal (SE 0) the z is 0 for a zero mean and infinite otherwise.
    """
    pairs = _align(a, b)
    n = len(pairs)
    if n == 0:
        raise ValueError("no paired examples")
    d = [int(x) - int(y) for x, y in pairs]
    mean = sum(d) / n
    var = sum((x - mean) ** 2 for x in d) / (n - 1) if n > 1 else 0.0
    se = math.sqrt(var / n)
    if se > 0:
        z = mean / se
        p = normal_two_sided_p(z)
    else:
        z = 0.0 if mean == 0 else math.copysign(math.inf, mean)
        p = 1.0 if mean == 0 else 0.0
    a_only = sum(1 for x, y in pairs if x and not y)
    b_only = sum(1 for x, y in pairs if y and not x)
    return PairedComparison(
        n=n,
        accuracy_a=sum(x for x, _ in pairs) / n,
        accuracy_b=sum(y for _, y in pairs) / n,
        mean_diff=mean,
        se=se,
        z=z,
        p_normal=p,
        ci_low=mean - z_crit * se,
        ci_high=mean + z_crit * se,
        a_only_correct=a_only,
        b_only_correct=b_only,
        p_mcnemar=mcnemar_exact(a_only, b_only),
    )


# --------------------------------------------------------------------------- breakdowns and ablations


def breakdown(
    results: Iterable[ExampleResult], key: Callable[[ExampleResult], str]
) -> dict[str, dict[str, float | int]]:
    """Accuracy, count and direct coverage per value of ``key`` (e.g. answer type, domain)."""
    groups: dict[str, list[ExampleResult]] = defaultdict(list)
    for r in results:
        groups[key(r) or "unknown"].append(r)
    return {
        name: {
            "n": len(rs),
            "accuracy": accuracy(rs),
            "direct_coverage": direct_coverage(rs),
        }
        for name, rs in sorted(groups.items())
    }


@dataclass(frozen=True, slots=True)
class Ablation:
    """Removing one module group: its decisions replaced by the fallback-only verdicts."""

    group: str
    replaced: int  # examples the group had decided
    accuracy: float
    delta: float  # ablated accuracy - full accuracy (negative = the group helps)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def removal_ablation(
    full: Sequence[ExampleResult], fallback_only: Sequence[ExampleResult], group: str
) -> Ablation:
    """Accuracy with group ``group``'s decisions replaced by the fallback-only verdicts.

    Every other module's decision and every fallback call stays as it was, so the delta is the
    group's marginal contribution, not its firing frequency.
    """
    fmap = {(r.benchmark, r.example_id): r for r in fallback_only}
    base = accuracy(full)
    if not full:
        return Ablation(group, 0, 0.0, 0.0)
    correct = 0
    replaced = 0
    for r in full:
        if r.direct and r.group == group:
            key = (r.benchmark, r.example_id)
            if key not in fmap:
                raise ValueError(f"no fallback-only verdict for example {r.example_id}")
            replaced += 1
            correct += fmap[key].is_correct
        else:
            correct += r.is_correct
    acc = correct / len(full)
    return Ablation(group=group, replaced=replaced, accuracy=acc, delta=acc - base)


def removal_ablations(
    full: Sequence[ExampleResult], fallback_only: Sequence[ExampleResult], groups: Iterable[str] | None = None
) -> list[Ablation]:
    """:func:`removal_ablation` for every group (default: every group that decided something)."""
    if groups is None:
        groups = sorted({r.group for r in full if r.direct and r.group})
    return [removal_ablation(full, fallback_only, g) for g in groups]


def summary(results: Sequence[ExampleResult]) -> dict[str, Any]:
    """The per-(benchmark, verifier) figures of the evaluation JSON."""
    k = sum(r.is_correct for r in results)
    n = len(results)
    lo, hi = wilson_interval(k, n)
    return {
        "n": n,
        "accuracy": k / n if n else 0.0,
        "accuracy_ci": [lo, hi],
        "direct_coverage": direct_coverage(results),
        "direct_precision": direct_precision(results),
        "fallback_calls": fallback_calls(results),
        "correct": k,
        "direct_decisions": sum(r.direct for r in results),
        "direct_errors": direct_errors(results),
        "abstentions": sum(1 for r in results if r.pred is None),
    }
