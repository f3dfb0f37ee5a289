"""Metric functions against hand-computed cases."""

from __future__ import annotations

import math

import pytest

from tasks.evaluate.metrics import (
    ExampleResult,
    accuracy,
    corrections,
    direct_coverage,
    direct_errors,
    direct_precision,
    fallback_calls,
    fallback_calls_avoided,
    macro_accuracy,
    mcnemar_exact,
    micro_accuracy,
    paired_comparison,
    removal_ablation,
    removal_ablations,
    summary,
    wilson_interval,
)


def R(i: int, pred: bool | None, label: bool, by: str = "fallback:offline", group: str = "", v: str = "x"):
    return ExampleResult(
        example_id=f"e{i}",
        benchmark="b",
        verifier=v,
        pred=pred,
        label=label,
        decided_by=by,
        fallback_called=by.startswith("fallback:"),
        group=group,
    )


@pytest.mark.parametrize(
    ("k", "n", "lo", "hi"),
    [
        # p=0.8, z^2=3.8416: centre=(0.8+0.19208)/1.38416=0.71673, half=1.96*sqrt(0.016+0.009604)/1.38416
        (8, 10, 0.4902, 0.9433),
        # k=0: upper = z^2/n / (1+z^2/n) = 0.38416/1.38416
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
        (81, 263, 0.2553, 0.3662),
    ],
)
def test_wilson_known_values(k, n, lo, hi):
    got = wilson_interval(k, n)
    assert round(got[0], 4) == lo
    assert round(got[1], 4) == hi


def test_wilson_edge_cases():
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(5, 3)
    # a wider z gives a wider interval
    a, b = wilson_interval(5, 10), wilson_interval(5, 10, z=2.576)
    assert b[0] < a[0] and b[1] > a[1]


def test_accuracy_counts_abstention_as_wrong():
    rs = [R(0, True, True), R(1, False, True), R(2, None, False), R(3, False, False)]
    assert accuracy(rs) == 0.5
    assert accuracy([]) == 0.0


def test_macro_and_micro():
    per = {"a": 0.9, "b": 0.5}
    assert macro_accuracy(per) == pytest.approx(0.7)
    # 9/10 and 50/100: micro = 59/110
    assert micro_accuracy({"a": (9, 10), "b": (50, 100)}) == pytest.approx(59 / 110)
    assert macro_accuracy({}) == 0.0 and micro_accuracy({}) == 0.0


def test_direct_coverage_precision_and_fallback():
    rs = [
        R(0, True, True, by="m1", group="g1"),
        R(1, True, False, by="m2", group="g2"),  # direct error
        R(2, False, False, by="m1", group="g1"),
        R(3, True, True),
        R(4, None, True, by="fallback:none"),
    ]
    assert direct_coverage(rs) == pytest.approx(3 / 5)
    assert direct_precision(rs) == pytest.approx(2 / 3)
    assert direct_errors(rs) == 1
    assert fallback_calls(rs) == 2
    assert direct_precision([R(0, True, True)]) is None
    assert fallback_calls_avoided(2, 5) == pytest.approx(0.6)
    assert fallback_calls_avoided(0, 0) is None
    s = summary(rs)
    assert s["n"] == 5 and s["correct"] == 3 and s["abstentions"] == 1
    assert s["accuracy_ci"] == list(wilson_interval(3, 5))


def test_corrections_and_mcnemar():
    labels = [True, True, False, False, True, False]
    base = [R(i, p, lab) for i, (p, lab) in enumerate(zip([True, False, True, False, False, True], labels, strict=True))]
    new = [R(i, p, lab) for i, (p, lab) in enumerate(zip([True, True, False, True, True, True], labels, strict=True))]
    c = corrections(new, base)
    # e1, e2, e4 corrected; e3 new error; e0 both right; e5 both wrong
    assert (c.corrected, c.new_errors, c.both_right, c.both_wrong) == (3, 1, 1, 1)
    assert c.net == 2
    # n=10 discordant, min=2: 2*(1+10+45)/1024
    assert mcnemar_exact(2, 8) == pytest.approx(0.109375)
    assert mcnemar_exact(8, 2) == pytest.approx(0.109375)
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(3, 3) == 1.0


def test_paired_normal_approximation_hand_computed():
    # d = [1, 1, 1, 0, 0, -1, 0, 0]: mean 0.25, sample var = (3*0.5625 + 4*0.0625 + 1.5625)/7 = 0.5
    a_pred = [True, True, True, True, False, False, True, False]
    b_pred = [False, False, False, True, False, True, True, False]
    labels = [True] * 8
    a = [R(i, p, lab) for i, (p, lab) in enumerate(zip(a_pred, labels, strict=True))]
    b = [R(i, p, lab) for i, (p, lab) in enumerate(zip(b_pred, labels, strict=True))]
    pc = paired_comparison(a, b)
    se = math.sqrt(0.5 / 8)
    assert pc.n == 8
    assert pc.mean_diff == pytest.approx(0.25)
    assert pc.se == pytest.approx(se)  # 0.25
    assert pc.z == pytest.approx(1.0)
    assert pc.p_normal == pytest.approx(0.3173, abs=1e-4)
    assert pc.ci_low == pytest.approx(0.25 - 1.96 * 0.25)
    assert pc.ci_high == pytest.approx(0.25 + 1.96 * 0.25)
    assert (pc.a_only_correct, pc.b_only_correct) == (3, 1)
    assert pc.p_mcnemar == pytest.approx(2 * (1 + 4) / 16)
    assert pc.accuracy_a - pc.accuracy_b == pytest.approx(pc.mean_diff)


def test_paired_degenerate_and_mismatch():
    a = [R(i, True, True) for i in range(4)]
    pc = paired_comparison(a, a)
    assert pc.mean_diff == 0 and pc.z == 0 and pc.p_normal == 1.0
    b = [R(i, False, True) for i in range(4)]
    pc2 = paired_comparison(a, b)
    assert pc2.mean_diff == 1.0 and math.isinf(pc2.z) and pc2.p_normal == 0.0
    assert pc2.to_dict()["z"] is None
    with pytest.raises(ValueError):
        paired_comparison(a, b[:3])


def test_removal_ablation_arithmetic():
    labels = [True, False, True, False, True, True]
    full = [
        R(0, True, True, by="m_ext", group="extraction"),  # right
        R(1, False, False, by="m_ext", group="extraction"),  # right
        R(2, True, True, by="m_num", group="numeric"),  # right
        R(3, True, False, by="m_num", group="numeric"),  # direct error
        R(4, False, True),  # fallback wrong
        R(5, True, True),  # fallback right
    ]
    fb_pred = [False, False, True, False, False, True]  # fallback-only verdicts
    fb = [R(i, p, lab) for i, (p, lab) in enumerate(zip(fb_pred, labels, strict=True))]
    assert accuracy(full) == pytest.approx(4 / 6)
    ext = removal_ablation(full, fb, "extraction")
    # e0 -> fb wrong, e1 -> fb right: correct = 1 + 1 (e2) + 0 + 0 + 1 = 3
    assert ext.replaced == 2 and ext.accuracy == pytest.approx(3 / 6)
    assert ext.delta == pytest.approx(-1 / 6)
    num = removal_ablation(full, fb, "numeric")
    # e2 -> fb right, e3 -> fb right: correct = 2 + 2 + 0 + 1 = 5
    assert num.replaced == 2 and num.accuracy == pytest.approx(5 / 6)
    assert num.delta == pytest.approx(1 / 6)
    groups = [a.group for a in removal_ablations(full, fb)]
    assert groups == ["extraction", "numeric"]
    assert removal_ablation(full, fb, "unused").delta == 0.0


def test_pairing_uses_benchmark_and_id():
    a = [R(0, True, True), ExampleResult("e0", "other", "x", False, True)]
    b = [R(0, False, True), ExampleResult("e0", "other", "x", False, True)]
    pc = paired_comparison(a, b)  # same id in two benchmarks is two examples
    assert pc.n == 2 and (pc.a_only_correct, pc.b_only_correct) == (1, 0)
    full = [R(0, True, True, by="m", group="g"), ExampleResult("e0", "other", "x", True, True, "m", group="g")]
    assert removal_ablation(full, b, "g").accuracy == pytest.approx(0.0)
