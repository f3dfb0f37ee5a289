"""The judgment golden suites, judged by the shipped verifier.

Every case under ``tests/golden/judgment/`` and ``tests/golden/hedges/`` is one test: the
shipped release with the offline judge must give ``verdict.correct == label``. For the hedge
suite the direct path (code modules alone) must also never say "correct" for a case labelled
incorrect; abstaining is fine. Cases marked ``known_failure`` (``known_failure_direct`` for the
direct check) run as strict xfails, so a fix that makes them pass is noticed.
The cases come from ``docs/criterion.md``; see ``tests/golden/README.md``.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from tests.golden_cases import GOLDEN_DIR, SUITES, load_suite, schema_problems
from verifier_runtime import load_verifier

CRITERION = Path(__file__).resolve().parent.parent / "docs" / "criterion.md"
CASES = {suite: load_suite(suite) for suite in SUITES}
ALL_CASES = [c for suite in SUITES for c in CASES[suite]]
MIN_CASES = {"judgment": 650, "hedges": 120}
MIN_HEDGE_CORRECT_SHARE = 0.35  # "reject everything" must fail the hedge suite badly


def _param(case: dict, key: str):
    marks = [pytest.mark.xfail(strict=True, reason=case[key])] if case.get(key) else []
    return pytest.param(case, id=str(case.get("id", f"{case['file']}:{case['line']}")), marks=marks)


@pytest.fixture(scope="session")
def offline_verifier():
    return load_verifier(fallback="offline")


@pytest.fixture(scope="session")
def direct_verifier():
    return load_verifier(fallback="none")


def _describe(case: dict, verdict, path: str) -> str:
    return (
        f"\n{case['id']} ({case['file']}.jsonl line {case['line']}, {case['rule']}) via {path}:"
        f" expected correct={case['label']}, got correct={verdict.correct}"
        f"\n  decided_by: {verdict.decided_by}\n  reason:     {verdict.reason}"
        f"\n  question:   {case['question']!r}\n  reference:  {case['reference']!r}"
        f"\n  response:   {case['response']!r}\n  why:        {case['why']}"
        + (f"\n  expected reason family: {case['reason_prefix']}" if case.get("reason_prefix") else "")
    )


# ---------------------------------------------------------------- the suites are well formed


def test_suites_are_well_formed() -> None:
    problems = [f"{c['file']}:{c['line']}: {p}" for c in ALL_CASES for p in schema_problems(c)]
    assert not problems, "\n".join(problems)


def test_ids_and_triples_are_unique_and_ids_name_their_file() -> None:
    ids = Counter(c["id"] for c in ALL_CASES)
    assert not [i for i, n in ids.items() if n > 1], "duplicate ids"
    triples = Counter((c["question"], c["reference"], c["response"]) for c in ALL_CASES)
    assert not [t for t, n in triples.items() if n > 1], "the same triple appears twice"
    wrong = [c["id"] for c in ALL_CASES if not c["id"].startswith(c["file"] + "-")]
    assert not wrong, f"ids must start with their file's name: {wrong[:10]}"


def test_rules_and_reason_families_exist_in_the_criterion() -> None:
    doc = CRITERION.read_text(encoding="utf-8")
    rules = set(re.findall(r"\*\*(R\d+\.\d+)", doc))
    assert rules, "no rule headings found in docs/criterion.md"
    bad_rules = sorted({c["rule"] for c in ALL_CASES} - rules)
    assert not bad_rules, f"rules not in docs/criterion.md: {bad_rules}"
    prefixes = {c["reason_prefix"] for c in ALL_CASES if c.get("reason_prefix")}
    bad_prefixes = sorted(p for p in prefixes if f"`{p}" not in doc and f"({p})" not in doc)
    assert not bad_prefixes, f"reason families not named in docs/criterion.md: {bad_prefixes}"


def test_every_file_has_both_labels_so_constant_answers_fail_it() -> None:
    labels: dict[str, set] = defaultdict(set)
    for c in ALL_CASES:
        labels[c["file"]].add(c["label"])
    one_sided = sorted(f for f, ls in labels.items() if ls != {True, False})
    assert not one_sided, f"files without both correct and incorrect cases: {one_sided}"


def test_suite_sizes() -> None:
    for suite, n in MIN_CASES.items():
        assert len(CASES[suite]) >= n, f"{suite}: {len(CASES[suite])} cases, at least {n} expected"
    hedges = CASES["hedges"]
    share = sum(c["label"] for c in hedges) / len(hedges)
    assert share >= MIN_HEDGE_CORRECT_SHARE, f"only {share:.0%} of the hedge suite is labelled correct"
    assert (GOLDEN_DIR / "README.md").is_file()


# ---------------------------------------------------------------- the verdicts


@pytest.mark.parametrize("case", [_param(c, "known_failure") for c in ALL_CASES])
def test_offline_verdict_matches_label(case: dict, offline_verifier) -> None:
    verdict = offline_verifier.verify(case["question"], case["reference"], case["response"])
    assert verdict.correct is case["label"], _describe(case, verdict, "offline judge")


@pytest.mark.parametrize("case", [_param(c, "known_failure_direct") for c in CASES["hedges"] if not c["label"]])
def test_hedge_direct_path_never_passes_an_incorrect_case(case: dict, direct_verifier) -> None:
    verdict = direct_verifier.verify(case["question"], case["reference"], case["response"])
    assert verdict.correct is not True, _describe(case, verdict, "direct path (fallback='none')")


@pytest.mark.parametrize("case", [_param(c, "known_failure_direct") for c in ALL_CASES
                                  if c.get("reason_prefix") == "ambiguous"])
def test_direct_path_leaves_ambiguous_cases_to_the_judge(case: dict, direct_verifier) -> None:
    """R5.2/R5.3: a coarser rounding and a bare number in an unstated unit are judged incorrect, but
    graders part ways there, so no module decides them (docs/criterion.md, section 5)."""
    verdict = direct_verifier.verify(case["question"], case["reference"], case["response"])
    assert verdict.correct is None, _describe(case, verdict, "direct path (fallback='none')")
