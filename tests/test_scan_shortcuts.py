"""The quick scans of responses and questions give what the patterns they stand for give, on
texts written here (random joins of the words, marks and look-alike letters the patterns read)."""

from __future__ import annotations

import random
import re

import pytest

from verifier_runtime.toolkit import choices, commit, criterion, cues, extract
from verifier_runtime.toolkit import text as text_module
from verifier_runtime.toolkit.text import CaseFolded, fold_in_place, line_start_matches, marker_matches

# letters a case-insensitive pattern takes for ASCII ones: dotted and dotless I, the long s, the Kelvin sign
_LOOKALIKES = ["\u0130", "\u0131", "\u017f", "\u212a", "\u00e9", "\u00df", "\u0663"]


def _joins(pieces: list[str], n: int, seed: int, most: int = 16) -> list[str]:
    rng = random.Random(seed)
    seps = ["", " ", " ", "\n", "\t", ", ", ". ", "-"]
    out = []
    for _ in range(n):
        words = [rng.choice(pieces) for _ in range(rng.randint(1, most))]
        words = [w.upper() if rng.random() < 0.15 else w.capitalize() if rng.random() < 0.15 else w for w in words]
        out.append("".join(w + rng.choice(seps) for w in words))
    return out


# --------------------------------------------------------------------------- markers begun by a word
_QUESTION_WORDS = ["find", "Find the", "calculate", "compute", "determine", "estimate", "what is", "what's",
                   "what would be", "what will be", "the value of", "the new", "pH", "pOH", "pKa", "K_a", "K_{sp}",
                   "Ksp", "K_{\\mathrm{b}}", "$", "of", "answer choices", "options", "choices", "Options:",
                   "Answer Choices\uff1a", "x", "refind", "whatis", "ph", "POH", "answer", "option", *_LOOKALIKES]


@pytest.mark.parametrize("regex,starts", [(cues._QUANTITY_ASKED_RE, cues._QUANTITY_ASK_STARTS),
                                          (choices._KEYWORD_RE, choices._KEYWORD_STARTS)])
def test_word_begun_marker_scans_are_the_full_scans(regex: re.Pattern[str], starts: tuple[str, ...]) -> None:
    found = 0
    for t in _joins(_QUESTION_WORDS, 4000, 11):
        full = [(m.span(), m.groups()) for m in regex.finditer(t)]
        assert [(m.span(), m.groups()) for m in marker_matches(regex, t, starts)] == full, t
        found += bool(full)
    assert found > 400


def test_the_quantity_cue_is_the_full_scans_last_symbol() -> None:
    for t in _joins(_QUESTION_WORDS, 3000, 12):
        full = cues._QUANTITY_ASKED_RE.findall(t)
        want = cues.quantity_symbol(full[-1]) if full and cues.Cues(t).has(*cues._QUANTITY_WORDS) else None
        assert cues.Cues(t).quantity == want, t


# --------------------------------------------------------------------------- "Answer:" lines
_LINE_PIECES = ["Answer:", "answer :", "ANS:", "A:", "a\uff1a", "**Answer:**", "__A__:", "  ", "\t", "\n", "\n\n",
                "B:", "Answer", "x", "42", "**", "__", ":", "The answer: 5", "Ans", "\u0130", "\u017f", "An", *_LOOKALIKES]


def test_answer_line_matches_are_the_full_scans() -> None:
    found = 0
    for t in _joins(_LINE_PIECES, 5000, 13, most=20):
        full = [m.span() for m in extract._ANSWER_COLON_RE.finditer(t)]
        assert [m.span() for m in extract._line_start_matches(t)] == full, t
        found += len(full) > 1
    assert found > 300


# --------------------------------------------------------------------------- the first option marker
_OPTION_PIECES = ["A.", "a)", "(A)", "[a]", "A:", "a\uff1a", "**A**.", "A **.", "data:", "formula.", "A", "a", "Ba.",
                  "(B)", "x", " ", "\t", "\n", "*", ".", ")", "]", "extra.", "ya)", *_LOOKALIKES]


def test_the_first_option_marker_is_the_patterns_first_match() -> None:
    found = 0
    for t in _joins(_OPTION_PIECES, 5000, 14):
        m = choices._FIRST_MARKER_RE.search(t)
        assert choices._first_marker(t) == (m.start() if m else -1), t
        found += m is not None
    assert found > 2000


# --------------------------------------------------------------------------- rounding and significant-figure cues
_COUNT_PIECES = ["2", "12", "123", "3.", "x2", ".5", "two", "three", "ten", "seven", "eight", "nine", "zero", "one",
                 "four", "five", "six", "atwo", "decimal places", "decimal digit", "decimals", "d.p.", "d. p", "dp",
                 "dps", "d.p's", "significant figures", "sig figs", "sig. fig", "s.f.", "s. f", "sfs", "sf", "rounded",
                 "round", "correct", "accurate", "to", "it to", "places", "place", "-", "  ", "sft", "wrounded",
                 "\u0663", *_LOOKALIKES]


def test_the_folded_count_patterns_read_what_the_case_blind_ones_read() -> None:
    found_dp = found_sf = 0
    for t in _joins(_COUNT_PIECES, 6000, 15):
        c = cues.Cues(t)
        assert c._fold is not None or fold_in_place(t) is None
        want_dp = [m.group(1) or m.group(2) for m in cues._DP_RE.finditer(t)]
        assert cues._dp_counts(c) == want_dp, t
        want_sf = cues._SF_RE.findall(t)
        assert c.sig_figs == ((cues._count(want_sf[-1]) or None) if want_sf and c.has("sig", "s.f", "sf") else None), t
        if c._fold is not None:
            assert [t[m.start(1) : m.end(1)] for m in cues._SF_FOLDED_RE.finditer(c._fold)] == want_sf, t
        found_dp += bool(want_dp)
        found_sf += bool(want_sf)
    assert found_dp > 700 and found_sf > 700


# --------------------------------------------------------------------------- alternatives offered
_ALT_PIECES = ["also", "equally", "plausible", "possible", "correct", "valid", "works", "would also work", "is",
               "alternatively", "otherwise", "or it could also be", "if", "if zero counts", "then it would be",
               "it might be", "but it could instead be", "second guess", "other answer", "backup choice", "in which case",
               "in that case", "the answer", "\\boxed{4}", "$x$", "(B)", "D", "4", "13", "Paris", "Lyon", "may", "will",
               "could", "might", ";", ",", ".", "next best candidate", "D is also plausible", "13 also possible",
               "4 would also work", "Lyon is equally valid", "(C) seems also correct", *_LOOKALIKES]


def test_the_offer_patterns_are_skipped_only_where_they_match_nothing() -> None:
    found_before = found_after = 0
    for t in _joins(_ALT_PIECES, 6000, 16, most=12):
        fold = fold_in_place(t)
        if fold is None:
            continue
        before = list(commit._ALT_BEFORE_RE.finditer(t))
        after = list(commit._ALT_AFTER_RE.finditer(t))
        if "also" not in fold and "equally" not in fold:
            assert not before, t
        if not commit._after_offer_possible(fold):
            assert not after, t
        found_before += bool(before)
        found_after += bool(after)
    assert found_before > 500 and found_after > 800


_PAREN_PIECES = ["12", "(or 13)", "(maybe 4)", "(13 if you count it)", "apples", "(", ")", " ", "\n", "\u2003", "x",
                 "(possibly B)", "(alternatively, 5)", "(72 when full)"]


def test_the_parenthesised_alternative_needs_a_closing_parenthesis_at_the_end() -> None:
    found = 0
    for t in _joins(_PAREN_PIECES, 5000, 17, most=6):
        if commit._PAREN_ALT_RE.match(t):
            assert t.rstrip().endswith(")"), t
            found += 1
    assert found > 500


# --------------------------------------------------------------------------- prose words
def test_the_prose_word_pattern_is_the_look_back_first_one() -> None:
    long_way = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{4,}")
    pieces = ["\\frac", "\\text", "text", "word", "ab", "abcd", "\\", "x", "1", "_", " ", "\n", "December", "é", "\\sqrt"]
    for t in _joins(pieces, 4000, 18):
        assert commit._PROSE_WORD_RE.findall(t) == long_way.findall(t), t


# --------------------------------------------------------------------------- option layouts
_LAYOUT_PIECES = ["A.", "B)", "C:", "D\uff1a", "**A.**", "> B.", "- C)", "* D.", "a)", "b)", "  c)", "(A)", "[b]", "((C)",
                  "x(D)", "(e)x", "Options:", "A:", "B.", "\n", "\n", "\t", " ", "text", "7", "**", "?", ",", ";", ":",
                  *_LOOKALIKES]


@pytest.mark.parametrize("name", ["_LINE_RE", "_LINE_LOWER_RE"])
def test_line_layout_matches_are_the_full_scans_from_any_start(name: str) -> None:
    regex = getattr(choices, name)
    rng = random.Random(21)
    texts = _joins(_LAYOUT_PIECES, 2000, 21, most=20)
    for _ in range(3000):  # lines that start with a marker, or nearly
        lines = [rng.choice(["", " ", "\t", "> ", "- ", "**", "x"]) + rng.choice(_LAYOUT_PIECES[:12])
                 + rng.choice([" foo", "\tbar", "", "x", " ", "\u0130"]) for _ in range(rng.randint(1, 8))]
        texts.append(rng.choice(["", "\n", "Q?\n"]) + "\n".join(lines))
    found = 0
    for t in texts:
        for pos in {0, t.find("\n") + 1, len(t) // 2}:
            full = [(m.span(), m.group("L")) for m in regex.finditer(t, pos)]
            got = [(m.span(), m.group("L")) for m in line_start_matches(regex, choices._LED[regex], t, pos)]
            assert got == full, (t, pos)
            found += len(full) > 1
    assert found > 150  # several markers in one text


@pytest.mark.parametrize("name,long_way", [
    ("_PAREN_RE", r"(?<![\w(])[(\[](?P<L>[A-Ja-j])[)\]](?!\w)"),
    ("_INLINE_RE", r"(?:(?<=[\s,;:])|^)(?P<L>[A-J])[ \t]*[.):：](?=[ \t])"),
])
def test_letter_first_layouts_are_the_look_back_first_ones(name: str, long_way: str) -> None:
    fast, slow = getattr(choices, name), re.compile(long_way)
    found = 0
    for t in _joins(_LAYOUT_PIECES, 4000, 22):
        full = [(m.span(), m.group("L")) for m in slow.finditer(t)]
        assert [(m.span(), m.group("L")) for m in fast.finditer(t)] == full, t
        found += bool(full)
    assert found > 1000


# --------------------------------------------------------------------------- first-character and word tests
def test_the_filler_letters_are_every_character_its_first_letters_match() -> None:
    import sys

    first = re.compile(r"[sthfioa=\-\u2192\u21d2]", re.IGNORECASE)  # (the filler words' letters and the arrows')
    matched = "".join(chr(o) for o in range(sys.maxunicode + 1) if first.match(chr(o)))
    assert sorted(matched) == sorted(extract._FILLER_FIRST)


def test_the_filler_strip_is_the_patterns_rounds() -> None:
    pieces = ["So", "so,", "Therefore", "thus:", "HENCE", "finally", "in conclusion", "In summary,", "overall", "in total",
              "answer", "Answer:", "x", "42", " ", "\u017fo", "\u0130n total", "sox", "the", "Answer -", "=>", "\u2192", "-"]

    def long_way(line: str) -> str:
        for _ in range(3):
            new = extract._LEAD_FILLER_RE.sub("", line, count=1)
            if new == line:
                break
            line = new
        return line

    for t in _joins(pieces, 3000, 23, most=5):
        assert extract._strip_filler(t) == long_way(t), t


def test_the_ascii_token_pattern_is_the_word_pattern_on_ascii_text() -> None:
    rng = random.Random(24)
    for _ in range(3000):
        t = "".join(chr(rng.randrange(128)) for _ in range(rng.randint(0, 60)))
        assert extract._ASCII_TOKEN_RE.findall(t) == extract._TOKEN_RE.findall(t), t


_HEDGE_PIECES = ["either", "maybe", "perhaps", "possibly", "probably", "could be", "might be", "may be", "or maybe",
                 "alternatively", "not sure", "unsure", "one of", "none", "12", "or", "x", "sure", "could", "oneof",
                 "neither", *_LOOKALIKES]


def test_the_hedge_words_are_searched_only_where_a_needed_word_is() -> None:
    plain = CaseFolded(commit._HEDGE_WORDS_RE)
    found = 0
    for t in _joins(_HEDGE_PIECES, 5000, 25, most=6):
        low = fold_in_place(t)
        want = bool(commit._HEDGE_WORDS_RE.search(t))
        assert commit._HEDGE_WORDS.search_in(t, low) == plain.search_in(t, low) == want, t
        assert commit._HEDGE_WORDS.spans_in(t, low) == plain.spans_in(t, low), t
        found += want
    assert found > 1500


def test_the_significant_figure_words_are_in_every_match() -> None:
    found = 0
    for t in _joins(_COUNT_PIECES, 6000, 26):
        fold = fold_in_place(t)
        if fold is not None and cues._SF_RE.search(t):
            assert any(w in fold for w in cues._SF_NEEDS), t
            found += 1
    assert found > 700


def test_the_new_answer_statement_is_found_where_its_first_words_are() -> None:
    regex, starts = commit._NEW_ANSWER_RES[1], commit._NEW_ANSWER_STARTS[1]
    pieces = ["the", "The correct", "right", "final", "actual", "true", "answer", "answer is", "ANSWER SHOULD BE", "= 5",
              "would be", "must be", "is", ":", "6", "theanswer is", "x", *_LOOKALIKES]
    found = 0
    for t in _joins(pieces, 4000, 27):
        full = [m.span() for m in regex.finditer(t)]
        assert [m.span() for m in marker_matches(regex, t, starts)] == full, t
        found += bool(full)
    assert found > 800


def test_the_article_is_dropped_only_from_text_that_starts_with_its_letters() -> None:
    for t in _joins(["a", "an", "the", "x", "ant", "them", "A", " ", "\t"], 2000, 28, most=4):
        if not t.startswith(("a", "t")):
            assert text_module._ARTICLE_RE.sub("", t, count=1) == t


# --------------------------------------------------------------------------- look backs moved after the first character
@pytest.mark.parametrize("module,name,long_way,pieces", [
    (extract, "_DOLLAR_RE", r"(?<!\\)\$", ["$", "\\$", "\\\\$", "x", "$$", " ", "\\"]),
    (commit, "_LATEX_SPACE_RE", r"(?<!\\)\\(?:quad|qquad|[,;:! ])|~",
     ["\\quad", "\\qquad", "\\,", "\\;", "\\:", "\\!", "\\ ", "\\\\,", "~", "x", "\\", "quad", " "]),
    (commit, "_DIGIT_GROUP_RE", r"(?<=\d)(?:,\s*\\[!,;: ]\s*|\{,\})(?=\d{3}(?!\d))",
     ["1", "12", "345", "3456", ",", ", ", "\\!", "\\,", "{,}", "{", "}", "x", "\u0663"]),
    (criterion, "_NUM_RE", r"(?<![\w.])[-+\u2212]?\d[\d,]*+(?:\.\d+)?(?![\d])",
     ["-", "+", "\u2212", "1", "23", ",", ".", "x", " ", "_", "a1", ".5", "--", "\u0663", "(", "$"]),
])
def test_look_back_after_the_first_character_is_the_look_back_first(module, name: str, long_way: str,
                                                                      pieces: list[str]) -> None:
    fast, slow = getattr(module, name), re.compile(long_way)
    rng = random.Random(name)
    found = 0
    for _ in range(5000):
        t = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        full = [(m.span(), m.group()) for m in slow.finditer(t)]
        assert [(m.span(), m.group()) for m in fast.finditer(t)] == full, t
        assert fast.sub("#", t) == slow.sub("#", t), t
        found += bool(full)
    assert found > 50


def test_the_strong_marker_with_its_word_boundary_is_the_pattern_without_it() -> None:
    """The "\\b" before the branch "no" opens after a sentence end (or at the start) changes no match:
    a space or the start is before that "no", a word boundary there already."""
    rx = commit._STRONG_RE
    bare = rx.pattern.replace(r"|\b(?:(?<=[.!?]\s)|(?<=^\s)|^)no", r"|(?:(?<=[.!?]\s)|(?<=^\s)|^)no")
    assert bare != rx.pattern
    slow = re.compile(bare, rx.flags)
    pieces = ["no", "No", "NO", "no,", "no:", "no;", "No, 5.", "no, 43", "noted", "ano", "piano", "x", "7", "-4", "$6$",
              ".", ". ", "? ", "! ", " ", "\n", "\t", ",", "=", ":", "is", "wait", "actually", "oops", "it's", "the answer",
              "that's wrong", "i mean", "\u0130", "\u017f", *_LOOKALIKES]
    rng = random.Random(41)
    found = 0
    for _ in range(8000):
        t = "".join(rng.choice(pieces) + rng.choice(["", "", " "]) for _ in range(rng.randint(0, 10)))
        full = [(m.span(), m.group()) for m in slow.finditer(t)]
        assert [(m.span(), m.group()) for m in rx.finditer(t)] == full, t
        assert rx.split(t, maxsplit=1) == slow.split(t, maxsplit=1), t
        low = fold_in_place(t)
        assert commit._STRONG.spans_in(t, low) == [m.span() for m in slow.finditer(t)], t
        found += bool(full)
    assert found > 2000


def test_a_printable_text_has_no_control_character() -> None:
    import sys

    for o in range(sys.maxunicode + 1):
        if text_module._CONTROL_RE.match(chr(o)):
            assert not chr(o).isprintable()


def test_think_blocks_are_removed_as_the_block_pattern_removes_them() -> None:
    pieces = ["<think>", "<THINKING >", "<thinking>", "</think>", "</thinking\n>", "</Think>", "<think", "</think ", "x",
              "42", "\n", " ", "<", ">", "<thinkin>", "</thinkingg>", "\u0130", "\u017f"]
    rng = random.Random(32)
    found = 0
    for _ in range(6000):
        t = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        want = extract._THINK_BLOCK_RE.sub("", t)
        assert extract._without_blocks(t) == want, t
        found += want != t
    assert found > 1500
