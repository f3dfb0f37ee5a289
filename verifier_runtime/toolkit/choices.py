"""Multiple choice: option lists in questions, chosen letters in answers.

>>> parse_options("Which is a prime? (A) 4 (B) 7 (C) 9")
{'A': '4', 'B': '7', 'C': '9'}
>>> parse_choice("the answer is (b)")
'B'
>>> choice_matches("7", "B", {"A": "4", "B": "7"})
True
"""

from __future__ import annotations

import bisect
import re

from verifier_runtime.limits import MAX_ANSWER_CHARS, MAX_QUESTION_CHARS, check_deadline
from verifier_runtime.toolkit._memo import memoize_text
from verifier_runtime.toolkit.extract import clean_answer
from verifier_runtime.toolkit.text import (
    _as_str,
    led_by_newline,
    line_start_matches,
    marker_matches,
    normalize_text,
)

LETTERS = "ABCDEFGHIJ"
_MIN_OPTIONS = 2

# Marker layouts. Each regex captures the letter in group "L".
# (A) foo (B) bar   /   (a) foo (b) bar   /   [A] foo
_PAREN_RE = re.compile(r"[(\[](?<![\w(].)(?P<L>[A-Ja-j])[)\]](?!\w)")  # the bracket first, then its look back
# A. foo / A) foo / A: foo / **A.** foo at the start of a line
_LINE_RE = re.compile(r"^[ \t>*-]*(?:\*\*)?(?P<L>[A-J])(?:\*\*)?[ \t]*[.):：](?:\*\*)?(?=[ \t]|$)", re.MULTILINE)
# a) foo at the start of a line (lowercase needs the closing parenthesis)
_LINE_LOWER_RE = re.compile(r"^[ \t]*(?P<L>[a-j])\)(?=[ \t])", re.MULTILINE)
# the two line layouts after a line break, to find the lines they start (see line_start_matches)
_LINE_NL_RE, _LINE_LOWER_NL_RE = led_by_newline(_LINE_RE), led_by_newline(_LINE_LOWER_RE)
_LED = {_LINE_RE: _LINE_NL_RE, _LINE_LOWER_RE: _LINE_LOWER_NL_RE}
# Options: A: foo, B: bar  (inline, after an "options"/"choices" keyword)
# (the letter first, then a look back that lets only the start, a space or ",;:" come before it)
_INLINE_RE = re.compile(r"(?P<L>[A-J])(?<![^\s,;:].)[ \t]*[.):：](?=[ \t])")
# Every layout's run starts at an "A"/"a" marker, and each marker is the letter followed by one
# of these closers: text without such an "A" lists no options, and skips the scans below.
# Every layout's letter follows a non-word character, so "formula." or "data:" is no marker.
# The letter comes first and the look back after it ("(?<!\w)[Aa]" written the other way round):
# a pattern that starts with its letters is searched for them, not tried at every position.
_FIRST_MARKER_RE = re.compile(r"[Aa](?<!\w.)(?:\*\*)?[ \t]*[.)\]:\uff1a]")
# the same marker, one pattern for each case of its letter: a pattern that starts with one literal
# character is scanned for it at once, where a class ("[Aa]") is tested character by character
_FIRST_MARKER_LOWER_RE = re.compile("a" + _FIRST_MARKER_RE.pattern.removeprefix("[Aa]"))
_FIRST_MARKER_UPPER_RE = re.compile("A" + _FIRST_MARKER_RE.pattern.removeprefix("[Aa]"))
_FIRST_MARKER_CASES = (_FIRST_MARKER_LOWER_RE, _FIRST_MARKER_UPPER_RE)


def _first_marker(text: str) -> int:
    """Where ``_FIRST_MARKER_RE.search(text)`` begins, or -1: the first match of either case."""
    found = [m.start() for m in (rx.search(text) for rx in _FIRST_MARKER_CASES) if m is not None]
    return min(found) if found else -1


_BARE_INLINE_RE = re.compile(r"(?P<L>[A-J])(?<=[ \t][A-J])[.)](?=[ \t]+\S)")  # the letter first: scanned for fast
_AFTER_QUESTION_RE = re.compile(r"[?:][ \t]*$")
_KEYWORD_RE = re.compile(r"\b(?:answer\s+choices|options|choices)\b\s*[:：]?", re.IGNORECASE)
_KEYWORD_STARTS = ("answer", "options", "choices")  # the words every match begins with


def _chain(markers: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """The longest A, B, C, ... run (by position) among ``(letter_index, start, end)`` markers.

    From each ``A`` the run takes the first marker of the next letter after the previous one;
    ties go to the run that starts latest (option lists sit near the end of a question).
    """
    starts: dict[int, list[int]] = {}
    picks: dict[int, list[tuple[int, int, int]]] = {}
    for mk in markers:
        starts.setdefault(mk[0], []).append(mk[1])
        picks.setdefault(mk[0], []).append(mk)
    best: list[tuple[int, int, int]] = []
    for first in picks.get(0, []):
        check_deadline()
        run = [first]
        pos = first[2]
        for letter in range(1, len(LETTERS)):
            if letter not in starts:
                break
            k = bisect.bisect_left(starts[letter], pos)
            if k >= len(starts[letter]):
                break
            run.append(picks[letter][k])
            pos = run[-1][2]
        if len(run) >= len(best):
            best = run
    return best if len(best) >= _MIN_OPTIONS else []


def _drop_trailing_joiner(chunk: str) -> str:
    """``"6, or"`` -> ``"6"``: separators and a dangling "or"/"and" before the next option."""
    chunk = chunk.strip().rstrip(",;").rstrip()
    low = chunk.lower()
    for joiner in ("or", "and"):
        if low.endswith(joiner) and len(chunk) > len(joiner) and chunk[-len(joiner) - 1] in " \t\n,;":
            return chunk[: -len(joiner)].strip().rstrip(",;").rstrip()
    return chunk


_TRAILING_QUESTION_RE = re.compile(r"(?<=[.;])[^\S\n]++[A-Z][^.?!\n]{0,200}\?[^\S\n]*$"
                                   r"|(?<=\S),[^\S\n]++(?:which|what|who|how|where|when|why)\b[^.?!\n]{0,200}\?[^\S\n]*$")


def _option_texts(text: str, run: list[tuple[int, int, int]]) -> dict[str, str]:
    """Text between consecutive markers; the last option runs to the end of its line."""
    out: dict[str, str] = {}
    for i, (letter, _start, end) in enumerate(run):
        if i + 1 < len(run):
            chunk = text[end : run[i + 1][1]]
        else:
            nl = text.find("\n", end)
            chunk = text[end:] if nl < 0 else text[end:nl]
            # inline options end where the question goes on: "(d) None of the above. Which is correct?"
            chunk = _TRAILING_QUESTION_RE.sub("", chunk)
        chunk = _drop_trailing_joiner(chunk)
        out[LETTERS[letter]] = chunk.strip("*").strip()
    return out


def _markers(regex: re.Pattern[str], text: str, base: int = 0, pos: int = 0) -> list[tuple[int, int, int]]:
    """Markers from ``pos`` on (``^`` and lookbehinds still see the whole text)."""
    out = []
    led = _LED.get(regex)
    for m in (line_start_matches(regex, led, text, pos) if led is not None else regex.finditer(text, pos)):
        out.append((LETTERS.index(m.group("L").upper()), base + m.start(), base + m.end()))
        if len(out) % 1024 == 0:
            check_deadline()
    return out


def parse_options(question: str) -> dict[str, str]:
    """Option letter -> option text (a fresh dict; see :func:`_parse_options`)."""
    return dict(_options_cached(question)) if type(question) is str else _parse_options(question)


@memoize_text(maxsize=1024, max_chars=8000)
def _options_cached(question: str) -> tuple[tuple[str, str], ...]:
    return tuple(_parse_options(question).items())


def _parse_options(question: str) -> dict[str, str]:
    """Option letter -> option text, or ``{}`` when the question lists no options.

    Layouts: ``(A) foo (B) bar``, ``A. foo`` / ``A) foo`` / ``A: foo`` on their own lines,
    ``a) foo`` lines, and ``Options: A: foo, B: bar`` / ``Answer Choices: (a) ...`` inline.
    Only a run of consecutive letters starting at ``A`` (at least two, at most ``J``) counts.
    """
    text = _as_str(question)
    if not text:
        return {}
    if len(text) > MAX_QUESTION_CHARS:
        text = text[-MAX_QUESTION_CHARS:]
    first = _first_marker(text)
    if first < 0:
        return {}
    # A run starts at an "A" marker, and none starts before the line of the first possible one;
    # markers of later letters further up can never join a run. Scan from that line on.
    start = text.rfind("\n", 0, first) + 1
    best: tuple[int, int, dict[str, str]] = (0, -1, {})
    layouts: list[list[tuple[int, int, int]]] = [_markers(_LINE_RE, text, pos=start),
                                                 _markers(_LINE_LOWER_RE, text, pos=start)]
    paren = _markers(_PAREN_RE, text, pos=start)
    # one case per run: (A)(B) and (a)(b) are different lists
    upper = [m for m in paren if text[m[1] + 1].isupper()]
    lower = [m for m in paren if text[m[1] + 1].islower()]
    layouts += [upper, lower]
    keywords = marker_matches(_KEYWORD_RE, text, _KEYWORD_STARTS)
    if keywords:
        kw = keywords[-1]  # the last "Options:" / "Answer choices:" heads the list
        layouts.append(_markers(_INLINE_RE, text[kw.end() :], kw.end()))
    # "Which is correct? A. red B. blue C. green": inline after the question itself, three
    # options at least, "A." or "A)" markers (no "A:", which labels points and cases in prose)
    bare = len(layouts)
    layouts.append(_markers(_BARE_INLINE_RE, text, pos=start))
    for k, markers in enumerate(layouts):
        run = _chain(markers)
        if not run or (k == bare and (len(run) < 3 or not _AFTER_QUESTION_RE.search(text, 0, run[0][1])
                                      or sum(1 for m in markers if m[0] == 0) > 1)):
            continue  # (several inline lists: sub-questions, each with its own options, not one list)
        options = _option_texts(text, run)
        if sum(1 for v in options.values() if v) < _MIN_OPTIONS:
            continue
        key = (len(run), run[0][1])
        if key > best[:2]:
            best = (key[0], key[1], options)
    return best[2]


# ---------------------------------------------------------------- chosen letter
_BARE_LETTER_RE = re.compile(
    r"^(?:(?:option|choice)\s*)?(?:[(\[]\s*)?([A-Ja-j])(?:\s*[)\]])?(?:\s*[.:)])?$", re.IGNORECASE
)
_LETTER_THEN_TEXT_RE = re.compile(r"^(?:[(\[]([A-Ja-j])[)\]]|([A-J])\s*[.:)：])\s+(\S.*)$", re.DOTALL)
# "Option B, i.e. Jupiter", "B, that is 42", "(B), namely Jupiter": the letter, then its text restated
_LETTER_RESTATED_RE = re.compile(r"^(?:(?:option|choice)\s+)?(?:[(\[]([A-Ja-j])[)\]]|([A-J]))\s*+,?\s*+"
                                 r"(?:i\.\s?e\.|ie\b|that\s+is|namely|which\s+is)[\s,:]*+(\S.*)$", re.IGNORECASE | re.DOTALL)
_MENTION_RES = (
    re.compile(
        r"\b(?:option|choice|answer(?:\s+is)?|answer\s*[:：]|correct\s+(?:one|option|choice)\s+is)"
        r"(?:\s*[:：])?\s*(?:\*\*\s*)?[(\[]?([A-Ja-j])[)\]]?(?![\w(])",
        re.IGNORECASE,
    ),
    re.compile(r"(?<![\w(])\(([A-Ja-j])\)(?!\w)"),
    re.compile(r"\b([A-J])\b\s+is\s+(?:the\s+)?(?:correct|right)\b"),
)


def _mentions(s: str) -> set[str]:
    """Letters mentioned as answers: "option B", "(C)", "D is correct"."""
    return {g.upper() for rx in _MENTION_RES for g in rx.findall(s)}


def _letter_for_text(answer: str, options: dict[str, str]) -> str | None:
    """The one option letter whose normalised text equals the answer's."""
    norm = normalize_text(answer)
    if not norm:
        return None
    hits = [k for k, v in options.items() if isinstance(k, str) and isinstance(v, str) and normalize_text(v) == norm]
    if len(hits) == 1:
        return hits[0].upper()
    if hits:
        return None
    return _letter_for_distinct_part(norm, options)


def _letter_for_distinct_part(norm: str, options: dict[str, str]) -> str | None:
    """The option whose text, less the words every option begins (or ends) with, is the answer:
    "3" (or "bay 3") for "(C) bay 3" among "bay 1" ... "bay 4"; ``None`` where the options share
    no such words or the parts left are not all different."""
    texts = [(k, normalize_text(v).split()) for k, v in options.items() if isinstance(k, str) and isinstance(v, str)]
    if len(texts) < 2 or any(not w for _, w in texts):
        return None
    words = [w for _, w in texts]
    head = 0
    while all(len(w) > head + 1 for w in words) and len({w[head] for w in words}) == 1:
        head += 1
    tail = 0
    while all(len(w) > head + tail + 1 for w in words) and len({w[-1 - tail] for w in words}) == 1:
        tail += 1
    if not head and not tail:
        return None
    parts = {k: " ".join(w[head : len(w) - tail]) for k, w in texts}
    if len(set(parts.values())) != len(parts):
        return None
    shared_head, shared_tail = " ".join(words[0][:head]), " ".join(words[0][len(words[0]) - tail :])
    got = norm
    if shared_head and got.startswith(shared_head + " "):
        got = got[len(shared_head) + 1 :]
    if shared_tail and got.endswith(" " + shared_tail):
        got = got[: -len(shared_tail) - 1]
    hits = [k for k, part in parts.items() if part == got]
    return hits[0].upper() if len(hits) == 1 else None


def parse_choice(answer: str, options: dict[str, str] | None = None) -> str | None:
    """The letter chosen by ``answer`` ("B", "(B)", "Option B", "the answer is (b)", "B: 42"), or ``None``.

    With ``options``, an answer equal (after :func:`normalize_text`) to exactly one option's
    text gives that letter, a letter outside the options gives ``None``, and "B: 42" where
    "42" is another option's text is ambiguous (``None``). Two different letters mentioned
    as answers ("A or B", "(A) ... (C)") give ``None``.
    """
    raw = _as_str(answer)
    if raw is None or len(raw) > MAX_ANSWER_CHARS:
        return None
    opts = options if isinstance(options, dict) and options else None
    valid = {k.upper() for k in opts if isinstance(k, str)} if opts else set(LETTERS)
    s = clean_answer(raw)
    if not s:
        return None
    letter: str | None = None
    m = _BARE_LETTER_RE.match(s)
    if m:
        letter = m.group(1).upper()
    else:
        m = _LETTER_THEN_TEXT_RE.match(s)
        if m:
            letter = (m.group(1) or m.group(2)).upper()
            rest = clean_answer(m.group(3))
            if _mentions(rest) - {letter}:
                return None  # "(A) or (C)": two letters offered
            if opts:
                other = _letter_for_text(rest, opts)
                if other is not None and other != letter:
                    return None  # the letter and the text point at different options
    if letter is None and opts:
        letter = _letter_for_text(s, opts)
    if letter is None:
        mentioned = _mentions(s)
        if len(mentioned) == 1:
            letter = mentioned.pop()
    return letter if letter in valid else None


def letter_and_text(answer: str) -> tuple[str, str] | None:
    """``(letter, text)`` of an answer that writes an option letter and then some text
    ("(C) The nonzero integers", "B: 42"), else ``None``."""
    raw = _as_str(answer)
    if raw is None or len(raw) > MAX_ANSWER_CHARS:
        return None
    m = _LETTER_THEN_TEXT_RE.match(clean_answer(raw)) or _LETTER_RESTATED_RE.match(clean_answer(raw))
    if m is None:
        return None
    rest = clean_answer(m.group(3))
    return ((m.group(1) or m.group(2)).upper(), rest) if rest else None


def choice_matches(answer: str, reference: str, options: dict[str, str]) -> bool | None:
    """True/False when both ``answer`` and ``reference`` resolve to a letter, else ``None``.

    The reference may be a letter or one option's text.
    """
    if not isinstance(options, dict) or not options:
        return None
    ref = parse_choice(reference, options)
    if ref is None:
        return None
    got = parse_choice(answer, options)
    if got is None:
        return None
    return got == ref
