"""The hot path's shortcuts give exactly what the long way gives: per-triple memos, the marker
scan that tries only the places a marker can start, and the pattern-free case-insensitive find."""

from __future__ import annotations

import random
import re

import pytest

from verifier_runtime.toolkit import criterion
from verifier_runtime.toolkit import extract as ex
from verifier_runtime.toolkit.criterion import compare_candidate, pass_guard
from verifier_runtime.toolkit.cues import Cues
from verifier_runtime.toolkit.text import CaseFolded, fold_in_place, marker_matches
from verifier_runtime.triple import Triple

# --- per-triple memos ------------------------------------------------------------------------


def test_the_guard_memo_is_keyed_by_the_answer_and_kept_per_triple() -> None:
    x = Triple("Find x if 2x = 10.", "5", "The answer is 5.")
    assert pass_guard(x) is None
    assert pass_guard(x, "5 \\pm 1") == "hedge:plus_minus"  # another answer: its own result, not the first one's
    assert pass_guard(x, "") == "invalid:no_final_answer"
    assert pass_guard(x) is None and pass_guard(x, "5 \\pm 1") == "hedge:plus_minus"
    y = Triple("Find x if 2x = 10.", "5", "")  # the same strings elsewhere: that triple's own answer
    assert pass_guard(y) == "invalid:no_final_answer" and pass_guard(x) is None


def test_a_comparison_is_kept_only_under_the_triples_own_cues() -> None:
    x = Triple("What is pi?", "3.14159", "3.14")
    loose = compare_candidate("3.14", "3.14159", x.cues, x)
    two_places = compare_candidate("3.14", "3.14159", Cues(decimal_places=2), x)
    assert loose is not None and two_places is not None
    assert loose.correct is False and two_places.correct is True  # other cues: computed, not the kept one
    assert compare_candidate("3.14", "3.14159", x.cues, x) == loose
    assert compare_candidate("3.14159", "3.14159", x.cues, x).correct is True  # another answer, its own result


def test_the_memo_keeps_no_error(monkeypatch) -> None:
    x = Triple("q", "r", "s")
    calls = []

    def failing() -> None:
        calls.append(1)
        raise ValueError("boom")

    for _ in range(2):
        with pytest.raises(ValueError):
            x.memo(("k",), failing)
    assert len(calls) == 2  # raised both times: an error is never a kept result
    assert x.memo(("k",), lambda: 7) == 7 and x.memo(("k",), lambda: 8) == 7


def test_a_guard_given_a_non_string_answer_is_not_memoised() -> None:
    x = Triple("q", "5", "5")
    assert pass_guard(x, ["5"]) == pass_guard(x, ["5"])  # unhashable: computed as before, no TypeError


def test_custom_views_are_computed_once() -> None:
    x = Triple("q", "r", "s")
    calls = []
    assert x.view("k", lambda: calls.append(1) or 3) == 3 and x.view("k", lambda: 4) == 3 and calls == [1]


# --- marker scan: only where a marker can begin ---------------------------------------------

_WORDS = ["answer", "Answer", "ANSWER", "is", "would be", "=", "correct", "right", "best", "option", "choice",
          "final", "Final answer:", "isn't", "x", "\n", " ", "-", "'", "\u2019", "**", ":", "\uff1a", "the",
          "bestanswer", "answers", "is.", "\u0130", "\u0131", "\u017f", "\u212a", "ANSWER\u0130S", "an\u017fwer i\u017f",
          "answer \u0131s", "\u00e9", "\u00df", "\u0130\u0130answer is", "FINAL \u0130S"]


@pytest.mark.parametrize("regex,starts", [(ex._ANSWER_IS_RE, ex._ANSWER_IS_STARTS), (ex._FINAL_RE, ex._FINAL_STARTS)])
def test_marker_matches_are_the_full_scans_matches(regex: re.Pattern[str], starts: tuple[str, ...]) -> None:
    rng = random.Random(7)
    texts = ["", "The answer is 4.", "answer is answer is", "The BEST option is (B). Final answer: 3",
             "Right choice is C; the correct option is D"]
    texts += ["".join(rng.choice(_WORDS) + rng.choice(["", " ", "\n"]) for _ in range(rng.randint(1, 25)))
              for _ in range(3000)]
    found = 0
    for t in texts:
        full = [(m.span(), m.group()) for m in regex.finditer(t)]
        assert [(m.span(), m.group()) for m in marker_matches(regex, t, starts)] == full, t
        found += bool(full)
    assert found > 500  # the generator writes markers, in every case and spelling


def test_the_fold_keeps_every_index_class_and_letter_of_every_code_point() -> None:
    """What a case-insensitive ASCII letter matches is exactly what folds to it, and no character
    changes its class or length: the premise of running folded patterns case-sensitively."""
    import string
    import sys

    word, space, digit = re.compile(r"\w"), re.compile(r"\s"), re.compile(r"\d")
    equivalents = {c: {c} for c in string.ascii_lowercase}
    for o in range(sys.maxunicode + 1):
        ch = chr(o)
        low = fold_in_place(ch)
        assert low is not None and len(low) == 1, hex(o)
        for rx in (word, space, digit):
            assert bool(rx.match(ch)) == bool(rx.match(low)), hex(o)
        if low in equivalents:
            equivalents[low].add(ch)
    for letter, chars in equivalents.items():
        assert {ch for ch in chars if re.fullmatch(letter, ch, re.IGNORECASE)} == chars, letter
        assert all(fold_in_place(ch) == letter for ch in chars)
    assert fold_in_place("\u0130S") == "is" and fold_in_place("AN\u017fWER") == "answer"


@pytest.mark.parametrize("name", ["_STRONG_RE", "_SOFT_RE", "_ANY_MARKER_RE", "_HEDGE_WORDS_RE"])
def test_case_folded_patterns_find_what_the_case_insensitive_ones_find(name: str) -> None:
    from verifier_runtime.toolkit import commit

    rx = getattr(commit, name)
    folded = CaseFolded(rx)
    rng = random.Random(11)
    words = ["wait", "WAIT", "no", "No,", "NO!", "actually", "Actually", "hmmm", "sorry:", "oh", "oops", "that's",
             "wrong", "THAT IS INCORRECT", "i made a big mistake", "I MADE AN ERROR", "correction:", "scratch that",
             "on second thought", "let me redo", "my bad", "i was wrong", "or rather", "make that", "i mean",
             "instead", "rather", "maybe", "PERHAPS", "could be", "one of", "not sure", "either", "\u0130", "\u0131",
             "\u017f", "\u212a", "wa\u0130t", "\u017forry", "\u00e9", "-", "\u2014", ",", ".", " ", "\n", "x", "12"]
    texts = ["".join(rng.choice(words) + rng.choice([" ", "", ", "]) for _ in range(rng.randint(1, 12)))
             for _ in range(4000)]
    hits = 0
    for t in texts:
        low = fold_in_place(t)
        assert folded.spans_in(t, low) == [m.span() for m in rx.finditer(t)], t
        assert folded.search_in(t, low) == bool(rx.search(t)), t
        hits += bool(rx.search(t))
    assert hits > 1000


def test_a_pattern_that_cannot_be_folded_is_refused() -> None:
    for rx in (re.compile("answer"), re.compile("Answer", re.IGNORECASE), re.compile("caf\u00e9", re.IGNORECASE)):
        with pytest.raises(ValueError):
            CaseFolded(rx)


def _global_partners(text: str) -> dict[int, int]:
    """Every brace's partner by one stack over the whole text (the plain definition)."""
    partners, stack, i = {}, [], 0
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            stack.append(i)
        elif ch == "}" and stack:
            partners[stack.pop()] = i
        i += 1
    return partners


def test_a_boxs_brace_partner_is_the_one_the_whole_text_gives() -> None:
    rng = random.Random(5)
    pieces = ["{", "}", "\\{", "\\}", "\\\\", "\\", "\\boxed{", "\\boxed {", "x", " ", "\\frac{1}{2}", "}}"]
    for _ in range(4000):
        t = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 16)))
        whole = _global_partners(t)
        for m in ex._BOX_RE.finditer(t):
            k = m.end()
            while k < len(t) and t[k] in " \t":
                k += 1
            if k < len(t) and t[k] == "{":
                assert ex._brace_partner(t, k, 10_000)[0] == whole.get(k), (t, k)
                close, _ = ex._brace_partner(t, k, 2)
                assert close in (-1, whole.get(k)), (t, k)  # out of steps, or the same partner
        assert ex._brace_partners(t) == whole, t


def test_many_unclosed_boxes_take_one_pass() -> None:
    """Scanning each box from its brace stops after a fixed number of steps; the boxes are then
    read from one whole-text match (linear, whatever the number of boxes)."""
    import time

    text = "\\boxed{" * 5000 + "x"
    t0 = time.perf_counter()
    found, unclosed = ex._boxed_spans(text)
    assert found == [] and unclosed and time.perf_counter() - t0 < 0.5
    text = "\\boxed{1} " * 3000 + "\\boxed{\\frac{1}{2}}"
    found, unclosed = ex._boxed_spans(text)
    assert len(found) == 3001 and found[-1][0] == "\\frac{1}{2}" and not unclosed


# --- case-insensitive find without a pattern --------------------------------------------------


def test_find_ignoring_case_agrees_with_the_regular_expression() -> None:
    rng = random.Random(3)
    alphabet = ["a", "A", "b", "B", "Paris", "PARIS", " ", "-", ".", "(", "?", "\u0130", "\u0131", "i", "I", "s",
                "\u017f", "k", "\u212a", "\u00df", "SS"]
    for _ in range(4000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        needle = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 3)))
        m = re.search(re.escape(needle), text, flags=re.IGNORECASE)
        assert criterion._find_ignoring_case(text, needle) == (None if m is None else m.span()), (text, needle)
