"""Final-answer extraction from model responses and from references.

>>> extract_final_answer("We add them.\\n\\nThe final answer is $\\\\boxed{3}$.").answer
'3'
>>> extract_reference("She has 5 + 4 = 9 apples.\\n#### 9").answer
'9'

All functions are pure and total: a non-string, NUL bytes or a megabyte of junk give an
empty/``None`` result, never an exception. Only the last ``RESPONSE_TAIL_CHARS`` characters
of a response are searched for an answer (``<think>`` removal sees the whole text). The
heuristics are listed in ``docs/toolkit-extraction.md``.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from verifier_runtime.limits import MAX_ANSWER_CHARS, RESPONSE_TAIL_CHARS, check_deadline
from verifier_runtime.toolkit._memo import memoize_text
from verifier_runtime.toolkit.numbers import SCALE_WORD_PATTERN, parse_number
from verifier_runtime.toolkit.text import (
    BELIEF_DENIED_BEFORE_MARKER_RE,
    _as_str,
    fold_in_place,
    led_by_newline,
    line_start_matches,
    marker_matches,
    normalize_text,
)

METHODS = ("tag", "json", "boxed", "final_answer", "answer_is", "bold", "hash", "answer_colon", "last_line", "whole", "none")
# Methods that rest on an explicit answer marker written by the model.
MARKER_METHODS = frozenset({"tag", "json", "boxed", "final_answer", "answer_is", "bold", "hash", "answer_colon"})


@dataclass(frozen=True, slots=True)
class Extracted:
    """The final answer found in a text, how it was found, and warning flags.

    ``echo`` (the response merely repeats the question) is worked out on first read: it
    normalises both texts, and most callers never ask.
    """

    answer: str | None
    method: str
    candidates: tuple[str, ...] = ()
    truncated: bool = False
    too_long: bool = False
    #: several final answers that state different values: boxes (a group or not: see
    #: :mod:`~verifier_runtime.toolkit.commit`), ``<answer>`` tags, or answer markers written one
    #: right after another ("Answer: 43\nAnswer: 42"); ``candidates`` holds them
    conflicting: bool = False
    #: the text right after the final answer (at most ``TAIL_CHARS``): where a retraction would be
    tail: str = ""
    #: for ``method == "boxed"``: every outermost box as (content, start, end) in the searched text,
    #: and the text between consecutive boxes (``len(boxes) - 1`` gaps, each cut to ``GAP_CHARS``)
    boxes: tuple[tuple[str, int, int], ...] = ()
    gaps: tuple[str, ...] = ()
    # (text, question) still to be compared for ``echo``, or the finished flag
    _echo: tuple[str, str | None] | bool = field(default=False, compare=False, repr=False)

    @property
    def echo(self) -> bool:
        e = self._echo
        if isinstance(e, tuple):
            e = _is_echo(*e)
            object.__setattr__(self, "_echo", e)
        return e


_NONE = Extracted(None, "none")
# --------------------------------------------------------------- escaped and listed text
_ODD_RUN_RE = re.compile(r"(?<!\\)(?:\\\\)*+\\(?!\\)")  # a run of backslashes of odd length
_DOUBLED_COMMAND_RE = re.compile(r"\\\\[A-Za-z,;:!]")


def undouble_backslashes(s: str) -> str:
    """``s`` with every backslash halved when it was written escaped once more, as JSON or a
    program's string literal does: every run of backslashes has even length and at least one
    pair starts a command (``\\\\frac``, ``\\\\,``). A text with a single backslash anywhere
    (``\\frac{1}{2} \\\\ 3``: a LaTeX line break) is kept as it is."""
    if "\\\\" not in s or not _DOUBLED_COMMAND_RE.search(s):
        return s
    if _ODD_RUN_RE.search(s):
        return s
    return s.replace("\\\\", "\\")


_LIST_ITEM_RE = re.compile(r"'((?:[^'\\]|\\.)*+)'" r'|"((?:[^"\\]|\\.)*+)"', re.DOTALL)
_LIST_GAP_CHARS = " \t\n,[]"
_MAX_LIST_ITEMS = 64


def unwrap_string_list(s: str) -> str | None:
    """The strings of a text that is a (nested) list of quoted strings, as a dataset writes a
    list-valued answer field: ``['2']`` is ``2``, ``[['10 A', '22.5 A']]`` is ``10 A, 22.5 A``
    (a string's own escapes undone: ``\\'`` and ``\\"``, and doubled backslashes by
    :func:`undouble_backslashes`); ``None`` for anything else (``[1, 2]`` is an interval or a
    vector, not a list of strings)."""
    if len(s) < 4 or s[0] != "[" or s[-1] != "]" or s[1] not in "[ '\"":
        return None
    if s[: len(s) - len(s.lstrip("[ \t\n"))].count("[") != s[len(s.rstrip("] \t\n")) :].count("]"):
        return None  # "[['a']": not a list as written
    items: list[str] = []
    pos = 0
    for m in _LIST_ITEM_RE.finditer(s):
        if s[pos : m.start()].strip(_LIST_GAP_CHARS) or len(items) >= _MAX_LIST_ITEMS:
            return None
        single = m.group(1) is not None
        item = m.group(1) if single else m.group(2)
        items.append(item.replace("\\'", "'") if single else item.replace('\\"', '"'))
        pos = m.end()
    if not items or s[pos:].strip(_LIST_GAP_CHARS):
        return None
    return ", ".join(undouble_backslashes(item).strip() for item in items)


# struck-through text ("~~43~~ 42", "<del>43</del> 42", "<s>43</s>"): what the writer crossed out
_STRUCK_RE = re.compile(r"~~(?=\S)[^~\n]{1,200}?(?<=\S)~~|<(s|del|strike)>[^<\n]{0,200}</\1>")



# characters that show nothing and join nothing: zero-width space, word joiner, byte-order mark,
# soft hyphen ("4\u200b2" is 42); the joiners of scripts and emoji (U+200C, U+200D) stay
_INVISIBLE = ("\u200b", "\u2060", "\ufeff", "\u00ad")


def _visible(s: str) -> str:
    """``s`` without the invisible characters above (searched first: ``str.translate`` with a
    table looks every character up, and almost no text holds one)."""
    for ch in _INVISIBLE:
        if ch in s:
            s = s.replace(ch, "")
    return s
#: how much text after the final answer is kept for the commitment analysis (retractions)
TAIL_CHARS = 1_200
#: how much of the text between two boxes is kept (a connective such as " or " is short)
GAP_CHARS = 200

# ---------------------------------------------------------------- <think> blocks
_THINK_OPEN_RE = re.compile(r"<think(?:ing)?\s*>", re.IGNORECASE)
_THINK_BLOCK_RE = re.compile(r"<think(?:ing)?\s*>.*?</think(?:ing)?\s*>", re.IGNORECASE | re.DOTALL)
_THINK_CLOSE_RE = re.compile(r"</think(?:ing)?\s*>", re.IGNORECASE)
_THINK_CLOSE_REVERSED_RE = re.compile(r">\s*(?:gni)?kniht/<", re.IGNORECASE)


def _without_blocks(text: str) -> str:
    """``_THINK_BLOCK_RE.sub("", text)``: each block runs from an opening tag to the first closing
    tag after it, found by a search that scans for the tag's "<" at once (the lazy ``.*?`` tests
    for the closing tag at every character); an opening tag with no close after it ends the work."""
    out: list[str] = []
    pos = 0
    while True:
        o = _THINK_OPEN_RE.search(text, pos)
        c = _THINK_CLOSE_RE.search(text, o.end()) if o is not None else None
        if c is None:
            break
        out.append(text[pos : o.start()])
        pos = c.end()
    if not out:
        return text
    out.append(text[pos:])
    return "".join(out)


def _last_close_end(text: str) -> int:
    """Index just after the last ``</think>`` tag, or -1 (one reversed search: linear)."""
    m = _THINK_CLOSE_REVERSED_RE.search(text[::-1])
    return -1 if m is None else len(text) - m.start()


def _strip_think(text: str) -> tuple[str, bool]:
    """(text without reasoning, whether a ``<think>`` was left open).

    Linear time: every ``<think>`` before the last ``</think>`` has a close after it, so the
    block search never rescans; opens after the last close are unclosed.
    """
    if "<" not in text:
        return text, False
    end = _last_close_end(text)
    head, tail = (text[:end], text[end:]) if end >= 0 else ("", text)
    opened = _THINK_OPEN_RE.search(tail)
    if opened:
        tail = tail[: opened.start()]
    if head:
        head = _without_blocks(head)
        lone = _last_close_end(head)  # a close without an open: everything before it is reasoning
        if lone >= 0:
            head = head[lone:]
    return (head + tail).strip(), opened is not None


def strip_think(text: str) -> str:
    """Remove ``<think>...</think>`` (or ``<thinking>``) reasoning blocks.

    A lone ``</think>`` means everything before it is reasoning. A ``<think>`` that never
    closes makes the rest of the text reasoning: a response that starts with an unclosed
    ``<think>`` is all reasoning and gives ``""``. A non-string gives ``""``.
    """
    s = _as_str(text)
    if not s:
        return ""
    return _strip_think(s)[0]


# ---------------------------------------------------------------- \boxed{...}
_BOX_RE = re.compile(r"\\(?:boxed|fbox)(?![A-Za-z])")
_SPACE_FORM_RE = re.compile(r"[^\s$]+")


# a backslash with the character it escapes, or a brace (what the brace matching looks at)
_BRACE_SCAN_RE = re.compile(r"\\.|[{}]", re.DOTALL)


_LOCAL_SCAN_STEPS = 4096  # braces a response's boxes may scan one by one before one whole-text match


def _brace_partner(text: str, k: int, steps_left: int) -> tuple[int | None, int]:
    """(the index of the ``}`` that closes the ``{`` at ``k`` or ``None`` when it is never closed,
    the steps used), scanning from ``k`` on (``\\{``, ``\\}`` are literal); ``(-1, steps)`` when
    ``steps_left`` ran out first. Only the text after ``k`` decides: braces left open before it
    close after its partner, and a box's brace is never escaped."""
    depth = 0
    steps = 0
    for m in _BRACE_SCAN_RE.finditer(text, k + 1):
        ch = m.group()
        if ch == "{":
            depth += 1
        elif ch == "}":
            if depth == 0:
                return m.start(), steps
            depth -= 1
        steps += 1
        if steps >= steps_left:
            return -1, steps
    return None, steps


def _brace_partners(text: str) -> dict[int, int]:
    """Map each ``{`` index to its matching ``}`` index in one pass (``\\{``, ``\\}`` are literal)."""
    partners: dict[int, int] = {}
    stack: list[int] = []
    steps = 0
    for m in _BRACE_SCAN_RE.finditer(text):
        ch = m.group()
        if ch == "{":
            stack.append(m.start())
        elif ch == "}" and stack:
            partners[stack.pop()] = m.start()
        steps += 1
        if steps % 4096 == 0:
            check_deadline()
    return partners


def _boxed_spans(text: str) -> tuple[list[tuple[str, int, int]], bool]:
    """(outermost boxes in order as (content, start, end), whether a ``\\boxed{`` is left unclosed)."""
    if "\\boxed" not in text and "\\fbox" not in text:
        return [], False
    found: list[tuple[str, int, int]] = []
    unclosed = False
    covered_until = -1
    partners: dict[int, int] | None = None
    steps_left = _LOCAL_SCAN_STEPS
    for m in _BOX_RE.finditer(text):
        if m.start() < covered_until:
            continue  # nested inside an earlier box
        k = m.end()
        while k < len(text) and text[k] in " \t":
            k += 1
        if k < len(text) and text[k] == "{":
            if partners is None:  # boxes near the end, with short contents: scan each from its brace
                close, used = _brace_partner(text, k, steps_left)
                steps_left -= used
                if close == -1:  # many boxes, or long ones (an unclosed box scans to the end): one pass
                    partners = _brace_partners(text)
            if partners is not None:
                close = partners.get(k)
            if close is None:
                unclosed = True
                continue
            found.append((text[k + 1 : close], m.start(), close + 1))
            covered_until = close
        elif k > m.end() and k < len(text) and text[k] != "\n":  # the space form: \boxed 5
            sm = _SPACE_FORM_RE.match(text, k)
            if sm:
                found.append((sm.group(0), m.start(), sm.end()))
                covered_until = sm.end()
    return found, unclosed


_BOX_SUFFIX_RE = re.compile(r"(?:[\^_]\s*+(?:\{(?:[^{}]|\{[^{}]*\})*\}|\\[A-Za-z]+|[A-Za-z0-9])|!++(?!=))")


def _box_suffix(text: str, end: int) -> str:
    """What a box's value is raised to, indexed by or followed by as its own operation right after
    the box closes (``\\boxed{12}^2`` states 144, ``\\boxed{101}_2`` a base-2 numeral,
    ``\\boxed{30}^\\circ`` thirty degrees, ``\\boxed{5}!`` 120): the box alone is not the answer then."""
    if end >= len(text) or text[end] not in "^_!":
        return ""
    m = _BOX_SUFFIX_RE.match(text, end)
    return m.group(0) if m else ""


# a box that is one operand of a larger expression: an operator binds it from before or after
# a relation sign: `$x \\ge \\boxed{2}$` and `$\\boxed{2} < x$` state a bound, not the value (R2.1)
_BOX_RELATION = (r"(?:\\[gl]eq?(?:slant)?(?![A-Za-z])|\\[gl]t(?![A-Za-z])|>=|<=|[<>\u2264\u2265\u2266\u2267\u2272\u2273\u226a\u226b\u2a7d\u2a7e]"
                 r"|\\(?:gtrsim|lesssim|gtrapprox|lessapprox|geqq|leqq|ngtr|nless|ngeq|nleq|gg|ll)(?![A-Za-z]))")
_OPERAND_BEFORE_RE = re.compile(r"(?:[=(${]\s*+[-+\u2212]\s*+|(?:^|(?<=[\s=(${]))[-+\u2212]|[*/]\s*+|\\cdot\s*+|\\times\s*+"
                                r"|\\frac\s*+\{\s*+|\\sqrt\s*+(?:\[[^\]]{0,8}\])?\s*+\{\s*+)$")
_OPERAND_AFTER_RE = re.compile(
    r"^\s*+(?:\\?%|(?:[-+*/\u2212]|\\cdot|\\times)\s*+(?:[\d\\(]|[A-Za-z](?![A-Za-z]))|\}\s*+\{)")
# an unknown and a relation sign binding the box: `x \\ge \\boxed{2}`, `\\boxed{2} < x`
_RELATION_BEFORE_BOX_RE = re.compile(r"(?:(?<![A-Za-z\\])([A-Za-z])\s*+)?(" + _BOX_RELATION + r")\s*+$")
_RELATION_AFTER_BOX_RE = re.compile(r"^\s*+(" + _BOX_RELATION + r")\s*+([A-Za-z])(?![A-Za-z])")
# a bound in words right before the box: "at least $\\boxed{2}$" states a bound, not the value (R2.1)
_BOUND_BEFORE_BOX_RE = re.compile(
    r"\b(at[ \t]++(?:least|most)|(?:no[ \t]++)?(?:more|less|fewer|greater)[ \t]++than|up[ \t]++to|nearly|almost)[ \t]*+(?:\$|\\\(|\\\[)?[ \t]*+$",
    re.IGNORECASE)
_SCALE_AFTER_BOX_RE = re.compile(r"(?:\$|\\\))?[^\S\n]*+(" + SCALE_WORD_PATTERN + r")\b", re.IGNORECASE)
_MATH_OPEN = {"$": "$", "\\(": "\\)", "\\[": "\\]"}


def _box_value(text: str, box: tuple[str, int, int]) -> str:
    """The value a box states where it stands: its content, with what follows it at once as its
    own operation (:func:`_box_suffix`); or, where the box is one operand of a larger expression
    in its math span (``$-\\boxed{12}$``, ``\\boxed{12} \\cdot 2``, ``\\frac{\\boxed{12}}{2}``, ``\\boxed{3}\\%``,
    ``\\boxed{3} thousand``), that whole expression with the box unwrapped: the box alone is not the
    answer then."""
    content, start, end = box
    scaled = _SCALE_AFTER_BOX_RE.match(text, end)
    if scaled:
        return f"{content} {scaled.group(1)}"
    before = text[max(0, start - 24) : start]
    after = text[end : end + 40]
    if "t" in before or "p" in before or "y" in before:  # (a cheap test before the pattern)
        bound = _BOUND_BEFORE_BOX_RE.search(before)
        if bound:
            return f"{bound.group(1)} {content}"
    if "<" in before or ">" in before or "\\" in before or any(ord(ch) > 0x2200 for ch in before):
        rel = _RELATION_BEFORE_BOX_RE.search(before)
        if rel:
            return f"{rel.group(1) or ''} {rel.group(2)} {content}".lstrip()
    if "<" in after or ">" in after or "\\" in after or any(ord(ch) > 0x2200 for ch in after):
        rel = _RELATION_AFTER_BOX_RE.match(after)
        if rel:
            return f"{content} {rel.group(1)} {rel.group(2)}"
    if not (_OPERAND_BEFORE_RE.search(before) or _OPERAND_AFTER_RE.match(after)):
        return content + _box_suffix(text, end)
    lo = max(text.rfind("$", 0, start), text.rfind("\\(", 0, start), text.rfind("\\[", 0, start), text.rfind("\n", 0, start))
    if lo >= 0 and text[lo] != "\n":
        opener = "$" if text[lo] == "$" else text[lo : lo + 2]
        hi = text.find(_MATH_OPEN[opener], end)
        nl = text.find("\n", end)
        if hi >= 0 and (nl < 0 or hi < nl) and hi - lo <= MAX_ANSWER_CHARS:
            return text[lo + len(opener) : start] + content + text[end:hi]
    # no math span around it: the operator and the operand next to the box
    m = _OPERAND_BEFORE_RE.search(before)
    head = before[m.start() :].lstrip("=(${ \t") if m else ""
    tail = re.match(r"^\s*+\S+(?:\s*+[\d\w\\{}]+)?", after)
    return head + content + (tail.group(0) if tail and _OPERAND_AFTER_RE.match(after) else "")


def find_boxed(text: str) -> list[str]:
    """Contents of every outermost ``\\boxed{...}``, ``\\boxed 5`` and ``\\fbox{...}``, in order.

    Nested braces are matched; an occurrence whose brace never closes is skipped; a box
    inside another box is part of the outer one's content. Like all response searches, only
    the last ``RESPONSE_TAIL_CHARS`` characters are looked at.
    """
    s = _as_str(text)
    if not s:
        return []
    if len(s) > RESPONSE_TAIL_CHARS:
        s = s[-RESPONSE_TAIL_CHARS:]
    return [b[0] for b in _boxed_spans(s)[0]]


# ---------------------------------------------------------------- answer cleaning
_WRAPPERS = (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"), ("**", "**"), ("__", "__"), ("`", "`"))
_CMD_WRAPPER_RE = re.compile(r"\\(?:boxed|fbox|text|textbf|mathrm|mathbf|displaystyle)\s*\{")
_TRAIL_PUNCT = ".,;:"
_MAX_CLEAN_ROUNDS = 10


def _whole_command_content(s: str) -> str | None:
    """``\\text{abc}`` -> ``abc`` when the command's braces span the whole string."""
    if not s.startswith("\\") or not s.endswith("}"):
        return None  # what the match below needs first, tested without the engine
    m = _CMD_WRAPPER_RE.match(s)
    if not m or not s.endswith("}"):
        return None
    depth = 0
    i = m.end() - 1
    n = len(s)
    while i < n:
        ch = s[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return s[m.end() : i] if i == n - 1 else None
        i += 1
    return None


def clean_answer(raw: str) -> str:
    """Strip math delimiters, markdown emphasis, a whole-answer ``\\text{}``/``\\boxed{}`` and trailing punctuation.

    >>> clean_answer("$\\\\boxed{\\\\text{(B)}}$.")
    '(B)'
    """
    s = _as_str(raw)
    if s is None:
        return ""
    s = s.strip()
    if s and s[0] not in _WRAPPER_FIRST and s[-1] not in _TRAIL_PUNCT and "**" not in s:
        return s  # no delimiter, emphasis, command or end punctuation to strip: a round would change nothing
    return _cleaned(s)


_WRAPPER_FIRST = "$\\*_`"  # the first characters of every wrapper, of a command and of \displaystyle


def _rstrip_punct(s: str) -> str:
    """``s.rstrip(_TRAIL_PUNCT)``, except that a LaTeX space command (``\\,``, ``\\;``, ``\\:``)
    at the end goes whole: "42\\," is 42, not "42\\"."""
    while s and s[-1] in _TRAIL_PUNCT:
        if len(s) >= 2 and s[-2] == "\\" and (len(s) < 3 or s[-3] != "\\"):
            s = s[:-2].rstrip()
        else:
            s = s[:-1]
    return s


_DOTS_END_RE = re.compile(r"(?<![\d.])(\d{1,20}\.\d{3,40})(?:\.\.\.|\u2026)\.?$")


def _repeating_end(s: str) -> str | None:
    """``s`` ending on a repeating decimal written out then "..." ("0.333...", "0.1666...."), with
    its dots kept and a full stop after them dropped; ``None`` for other dots ("3.14159...")."""
    m = _DOTS_END_RE.search(s)
    if m is None or parse_number(m.group(1) + "...") is None:
        return None
    return s[: m.end(1)] + "..."


def _cleaned(s: str) -> str:
    """:func:`clean_answer`'s rounds on a stripped string (the long way)."""
    for _ in range(_MAX_CLEAN_ROUNDS):
        old = s
        s = s.strip()
        kept = _repeating_end(s) if s.endswith(("..", "\u2026")) else None
        if kept is not None:
            s = kept  # "0.333...": the dots are the number's (a repeating decimal), not the sentence's
        else:
            s = (_rstrip_punct(s) if "\\" in s[-8:] else s.rstrip(_TRAIL_PUNCT)).strip()
        if s.startswith("\\displaystyle"):
            s = s[len("\\displaystyle") :]
        if s.count("**") % 2 == 1:  # a dangling bold marker left by the answer marker's line
            s = s[2:] if s.startswith("**") else s[:-2] if s.endswith("**") else s
        for left, right in _WRAPPERS:
            if len(s) >= len(left) + len(right) and s.startswith(left) and s.endswith(right):
                inner = s[len(left) : len(s) - len(right)]
                if left == "$" and "$" in inner:
                    continue  # "$a$ and $b$" is not one wrapped expression
                s = inner
                break
        inner = _whole_command_content(s)
        if inner is not None:
            s = inner
        if s == old:
            break
    return s.strip()


# ---------------------------------------------------------------- marker patterns
_FINAL_RE = re.compile(
    r"final\s+answer(?:\s+is)?[ \t]*(?:\*\*|__)?[ \t]*[:：]?[ \t]*(?:\*\*|__)?[ \t]*[:：=]?", re.IGNORECASE
)
_ANSWER_IS_RE = re.compile(
    r"\banswer\s+(?:is(?![\w'\u2019])|would\s+be|should\s+be|will\s+be|=)|\b(?:correct|right|best)\s+(?:option|choice)\s+is\b"
    # "I choose B.", "I'll go with (C)", "I'll go with 14.", "I'm going with $x = 3$": a value picked
    r"|\b(?:i(?:\s+would|\s+will|'ll|\u2019ll|'d)?\s+(?:choose|pick|select|go\s+with|go\s+for|stick\s+with|settle\s+on)"
    r"|i(?:'m|\u2019m|\s+am)\s+going\s+with)(?:\s+(?:option|answer|choice))?"
    # (a value other than a letter only where it ends the sentence: "I'll pick 3 balls" picks none)
    r"(?=\s+(?:\(?(?-i:[A-J])\)?(?:[\s.,:;!)]|$)|\\boxed\b|(?:[-+\u2212]?\d++(?:[.,/]\d++)*+|\$[^$\n]{1,60}\$)\s*+(?:\.|\n|$)"
    r"|(?-i:[a-z])\s*+=\s*+[^.\n]{1,30}(?:\.|\n|$)))",
    re.IGNORECASE,
)
_ANSWER_COLON_RE = re.compile(
    r"^[ \t]*(?:(?:\*\*|__)[ \t]*)?(?:A|Ans|Answer)(?:[ \t]*(?:\*\*|__))?[ \t]*[:：](?:[ \t]*(?:\*\*|__))?",
    re.IGNORECASE | re.MULTILINE,
)
_ANSWER_COLON_NL_RE = led_by_newline(_ANSWER_COLON_RE)  # (see line_start_matches)
_OPTION_B_LINE_RE = re.compile(r"^[ \t]*(?:\*\*)?B[ \t]*[:：]", re.MULTILINE)
_HASH_RE = re.compile(r"^[ \t]*####[ \t]*([^\n]*)$", re.MULTILINE)
_BOLD_RE = re.compile(r"\*\*([^*\n]+)\*\*")
_LEAD_FILLER_RE = re.compile(
    r"^(?:(?:so|therefore|thus|hence|finally|in\s+conclusion|in\s+summary|overall|in\s+total|answer)\b"
    r"(?:[ \t]*+[,:]|[ \t]++[-\u2013\u2014](?=[ \t]))?[ \t]*"  # ("Answer - 72": a spaced dash separates, no minus sign)
    r"|(?:=>|->|\u2192|\u21d2)[ \t]*+(?=\S))",  # ("=> 72" with nothing before the arrow: "so 72", no bound)
    re.IGNORECASE,
)
# every character the filler pattern's first letters (s, t, h, f, i, o, a; and the arrows) match case-insensitively
_FILLER_FIRST = "sStThHfFiIoOaA\u017f\u0130\u0131=-\u2192\u21d2"
_SENTENCE_END_RE = re.compile(r"\.\s+(?=[A-Z])")
_SEP_LEAD = " \t:：="
_ANS_LEAD_RE = re.compile(r"(?<!\s)\s*+(?:Ans|Answer)\b", re.IGNORECASE)


def _rest_of_answer(text: str, start: int) -> tuple[str, int]:
    """(the answer text after a marker ending at ``start``, where it ends): the rest of the line
    up to a sentence break, or the next non-empty line."""
    end = text.find("\n", start)
    line_end = len(text) if end < 0 else end
    raw = text[start:line_end]
    line = raw.strip().lstrip(_SEP_LEAD).strip()
    if line:
        m = _SENTENCE_END_RE.search(line)
        if m:
            cut = raw.find(line) + m.start()
            return line[: m.start()], start + cut + 1
        return line, line_end
    if end < 0:
        return "", len(text)
    pos = end + 1
    for nxt in text[end + 1 :].split("\n", 8)[:8]:
        if nxt.strip():
            return nxt.strip(), pos + len(nxt)
        pos += len(nxt) + 1
    return "", pos


_MAX_CANDIDATES = 16


def _line_start_matches(text: str) -> list[re.Match[str]]:
    """``list(_ANSWER_COLON_RE.finditer(text))``: a match begins at the start of a line and ends
    within it (:func:`~verifier_runtime.toolkit.text.line_start_matches`)."""
    return line_start_matches(_ANSWER_COLON_RE, _ANSWER_COLON_NL_RE, text)


# the words every match of a marker begins with (see text.marker_matches)
_FINAL_STARTS = ("final",)
_ANSWER_IS_STARTS = ("answer", "correct", "right", "best", "i")


def _last_marker(regex: re.Pattern[str], text: str, skip_options_list: bool = False,
                 starts: tuple[str, ...] = (), line_starts: bool = False,
                 low: str | None | bool = False) -> list[tuple[str, int, int]]:
    """(cleaned answer, end, start of the marker) after the last (up to 16) matches of
    ``regex``, in order; empty ones dropped. ``line_starts``: ``regex`` is the ``Answer:`` line
    marker, found by :func:`_line_start_matches`. ``low``: the text's :func:`fold_in_place`, when known."""
    matches = _line_start_matches(text) if line_starts else marker_matches(regex, text, starts, low)
    out: list[tuple[str, int]] = []
    for m in reversed(matches):
        if len(out) >= _MAX_CANDIDATES:
            break
        check_deadline()
        if skip_options_list:
            nl = text.find("\n", m.end())
            if nl >= 0 and _OPTION_B_LINE_RE.match(text, nl + 1):
                continue  # "A: ...\nB: ..." is an options list, not an answer line
        rest, end = _rest_of_answer(text, m.end())
        ans = clean_answer(rest)
        if ans and not line_starts and _belief_denied_before(text, m.start()):
            ans = "not " + ans  # "I don't think the answer is 42": the value is denied, as "the answer is not 42"
        if ans:
            out.append((ans, end, m.start()))
    out.reverse()
    return out


_SENTENCE_BREAK_CHARS = ".!?\n"


def _belief_denied_before(text: str, start: int) -> bool:
    """Whether the marker at ``start`` follows a denied belief in its own sentence ("I don't think
    the answer is", "I doubt the final answer is")."""
    window = text[max(0, start - 80):start]
    if "n't" not in window and "n\u2019t" not in window and "not" not in window.lower() \
            and "doubt" not in window.lower() and "unlikely" not in window.lower() and "improbable" not in window.lower():
        return False
    cut = max(window.rfind(c) for c in _SENTENCE_BREAK_CHARS)
    return BELIEF_DENIED_BEFORE_MARKER_RE.search(window[cut + 1:]) is not None


_FENCE_RE = re.compile(r"^(?:```|~~~)[\w+-]{0,20}$")


def _nonempty_lines(text: str, limit: int) -> list[str]:
    """The last ``limit`` non-empty lines of ``text``, in order."""
    lines: list[str] = []
    end = len(text)
    while end > 0 and len(lines) < limit:
        start = text.rfind("\n", 0, end) + 1
        line = text[start:end].strip()
        if line and not _FENCE_RE.match(line):  # a code fence's own line is no answer line
            lines.append(line)
        end = start - 1
    lines.reverse()
    return lines


def _bold_candidates(text: str) -> list[tuple[str, int]]:
    """(cleaned bold span, end) in the last three non-empty lines, in order."""
    out: list[tuple[str, int]] = []
    lines = _nonempty_lines(text, 3)
    pos = text.rfind(lines[0]) if lines else len(text)
    for line in lines:
        at = text.find(line, pos)
        base = at if at >= 0 else pos
        for m in _BOLD_RE.finditer(line):
            span = m.group(1).strip()
            if span.endswith((":", "\uff1a")):
                continue  # a heading such as **Final Answer:** or **Step 2:**
            ans = clean_answer(span)
            if ans:
                out.append((ans, base + m.end()))
        pos = base + len(line)
    return out


# "43. Because 6 times 7 is 42.": a short value (up to four words), then its reason
_VALUE_THEN_REASON_RE = re.compile(r"^(?P<v>[^\s.,](?:[^.,;!?\s]|\.(?=\d)){0,40}+(?:\s++(?:[^.,;!?\s]|\.(?=\d)){1,40}+){0,3})"
                                   r"[.!]\s++(?:because|this\s+is\s+because|the\s+reason\s+is|reason:|explanation:)(?=[\s,:])",
                                   re.IGNORECASE)


def _strip_filler(line: str) -> str:
    """Drop a leading "So," / "Therefore," etc. (a few rounds)."""
    for _ in range(3):
        if line[:1] not in _FILLER_FIRST:
            break  # no filler word starts the line
        new = _LEAD_FILLER_RE.sub("", line, count=1)
        if new == line:
            break
        line = new
    return line


# ---------------------------------------------------------------- flags
_TERMINAL_CHARS = ".!?)]}$*\"'`\u3002>"
_DANGLING_CHARS = ",:;=+-*/^_({[\\"
_SHORT_LIMIT = 2_000  # responses up to this long may be answered by their last line
_ECHO_MIN_TOKENS = 4
_TOKEN_RE = re.compile(r"\w+")
_ASCII_TOKEN_RE = re.compile(r"[A-Za-z0-9_]+")  # _TOKEN_RE on ASCII text, as a character set


def _tokens(text: str) -> list[str]:
    """``_TOKEN_RE.findall(text)``; on ASCII text (known at once) by the character-set pattern,
    which the engine tests faster than the Unicode word class."""
    return (_ASCII_TOKEN_RE if text.isascii() else _TOKEN_RE).findall(text)


# A sentence that stops on a word that cannot end one (a conjunction, a preposition, an article,
# a verb of conclusion) or on the first letters of "that", "the", "thus", "therefore".
_DANGLING_WORD_RE = re.compile(
    r"(?<![\w\\])(?:which(?:\s+is)?|equal\s+to|thus|hence|therefore|implies|gives|yields|equals|the|of|and|we|with|from|th|tha|thu"
    r"|thi|ther|therefor|thereb)$", re.IGNORECASE)


def _looks_truncated(text: str, method: str, unclosed_box: bool) -> bool:
    """Conservative cut-off heuristic (see docs): unclosed box, dangling operator, or long and unterminated."""
    if unclosed_box:
        return True
    tail = text.rstrip()
    if not tail:
        return False
    last = tail[-1]
    if len(tail) > 200 and last in _DANGLING_CHARS and not tail.endswith(("**", "\\]", "\\)")):
        return True
    if method not in MARKER_METHODS and _open_math_at_end(tail):
        return True
    if method not in MARKER_METHODS and last.isalpha() and _DANGLING_WORD_RE.search(tail[-40:]) and tail.count(" ") >= 2:
        return True  # "x^2 = 0, which implies th": the sentence stops on a word that needs more
    return method not in MARKER_METHODS and len(tail) >= _SHORT_LIMIT and last not in _TERMINAL_CHARS


_DOLLAR_RE = re.compile(r"\$(?<!\\\$)")  # a "$" not escaped (the look back after it: scanned for at once)
_OPEN_MATH_TAIL = 200


def _open_math_at_end(text: str) -> bool:
    """The text stops inside a math span it opened: an odd ``$`` whose body starts like math
    (``$\\ov``, not the price ``$5``), or a ``\\[`` never closed, near the end."""
    end = text[-4 * _OPEN_MATH_TAIL:]
    k = end.rfind("\\[")
    if k >= 0 and "\\]" not in end[k:] and len(end) - k <= _OPEN_MATH_TAIL:
        return True
    if "$" not in end[-_OPEN_MATH_TAIL:]:
        return False
    dollars = [m.start() for m in _DOLLAR_RE.finditer(text[-RESPONSE_TAIL_CHARS:])]
    if len(dollars) % 2 == 0:
        return False
    body = text[-RESPONSE_TAIL_CHARS:][dollars[-1] + 1:]
    return len(body) <= _OPEN_MATH_TAIL and bool(body) and (body[0] == "\\" or body[0].isalpha())


_ECHO_COPY_TOKENS = 25


_FEW_TOKENS_CHARS = 200  # how long a text the quick token count below looks at


def _too_few_tokens(text: str) -> bool:
    """``text`` surely has fewer than ``_ECHO_MIN_TOKENS`` words once normalised, decided without
    normalising it: on ASCII text every step of :func:`normalize_text` only removes characters
    (controls, ``$``, command names, end punctuation, an article) or exchanges one white space
    for another, so it never makes more ``\\w+`` runs than the raw text has."""
    return len(text) <= _FEW_TOKENS_CHARS and text.isascii() and len(_ASCII_TOKEN_RE.findall(text)) < _ECHO_MIN_TOKENS


def _is_echo(text: str, question: str | None) -> bool:
    """The response merely repeats (most of) the question."""
    q = _as_str(question)
    if not q or not text or _too_few_tokens(text):
        return False  # most answers read from the whole text: "42", "x = 5" (and no question normalised)
    return _echo_compared(text, q)


def _echo_compared(text: str, q: str) -> bool:
    """:func:`_is_echo` by normalising both texts (the long way)."""
    nq = normalize_text(q)
    if not nq or len(text) > 4 * (2 * len(nq) + 32):
        # An echo is at most about twice the question once normalised; normalising cannot shrink
        # ordinary text fourfold, so a longer response is not read at all (it is most responses).
        return False
    nr = normalize_text(text[-4 * len(q) - 64 :] if len(text) > 4 * len(q) + 64 else text)
    if not nr:
        return False
    if len(nr) > 2 * len(nq) + 32:
        return False
    r_tokens, q_tokens = _tokens(nr), _tokens(nq)
    if len(r_tokens) < _ECHO_MIN_TOKENS or not q_tokens:
        return False
    if nr in nq and (len(nr) >= 0.6 * len(nq) or len(r_tokens) >= _ECHO_COPY_TOKENS):
        return True  # most of the question, or a long stretch of it copied word for word
    q_set = set(q_tokens)
    shared = sum(1 for t in r_tokens if t in q_set)
    return shared >= 0.9 * len(r_tokens) and len(r_tokens) >= 0.8 * len(q_tokens) and len(r_tokens) <= 1.25 * len(
        q_tokens
    )


def _ws_key(s: str) -> str:
    return "".join(s.split())


def _result(answer: str | None, method: str, candidates: list[str], truncated: bool,
            echo_of: tuple[str, str | None] | None = None, tail: str = "",
            boxes: tuple[tuple[str, int, int], ...] = (), gaps: tuple[str, ...] = ()) -> Extracted:
    """``echo_of``: the (text, question) pair whose echo test runs if ``.echo`` is read; an
    answer found behind an explicit marker is never an echo."""
    several = method in ("boxed", "tag", "json") or method in RUN_METHODS
    conflicting = several and len({_ws_key(c) for c in candidates}) > 1
    return Extracted(
        answer=answer,
        method=method,
        candidates=tuple(candidates),
        truncated=truncated,
        too_long=answer is not None and len(answer) > MAX_ANSWER_CHARS,
        conflicting=conflicting,
        tail=tail,
        boxes=boxes,
        gaps=gaps,
        _echo=echo_of if echo_of is not None and method not in MARKER_METHODS else False,
    )


_Found = tuple  # (answer, method, candidates, unclosed_box, end, boxes)

# ---------------------------------------------------------------- <answer> tags
_TAG_OPEN_RE = re.compile(r"<[ \t]*answer[ \t]*>", re.IGNORECASE)
_TAG_CLOSE_RE = re.compile(r"<[ \t]*/[ \t]*answer[ \t]*>", re.IGNORECASE)
_MAX_TAGS = 16


def _answer_tags(text: str) -> list[tuple[int, int, int]]:
    """(content start, content end, end) of the last (up to 16) ``<answer>...</answer>`` spans,
    in order. A tag opened again before it closes starts at the later opening; the last tag may
    be left open and then runs to the end (generation is often stopped at ``</answer>``)."""
    opens = [m.span() for m in _TAG_OPEN_RE.finditer(text)]
    if not opens:
        return []
    closes = [m.span() for m in _TAG_CLOSE_RE.finditer(text)]
    out: list[tuple[int, int, int]] = []
    c = 0
    for k, (_o0, o1) in enumerate(opens):
        while c < len(closes) and closes[c][0] < o1:
            c += 1  # a close before this opening closes nothing
        if k + 1 < len(opens) and (c >= len(closes) or opens[k + 1][0] < closes[c][0]):
            continue  # opened again before it closes
        if c >= len(closes):
            out.append((o1, len(text), len(text)))
            break
        out.append((o1, closes[c][0], closes[c][1]))
        c += 1
    return out[-_MAX_TAGS:]


def _from_tags(text: str, tags: list[tuple[int, int, int]], reference: bool) -> _Found:
    """The answer inside the last tag, read as a text of its own (a box or "The answer is" in
    it still counts); every tag's answer is a candidate, and tags that state different values
    are several final answers (``conflicting``)."""
    inner = [(s, _extract(text[s:e], reference=reference)) for s, e, _end in tags]
    values = [f[0] for _s, f in inner if f[0]]
    s, (answer, method, _cands, unclosed_box, end, boxes) = inner[-1]
    if answer is None:
        return None, "none", [], unclosed_box, tags[-1][2], ()
    if method == "boxed" and len({_ws_key(v) for v in values}) <= 1:
        return answer, "boxed", _cands, unclosed_box, s + end, tuple((c, s + b0, s + b1) for c, b0, b1 in boxes)
    return answer, "tag", values, unclosed_box, s + end, ()


# ---------------------------------------------------------------- a JSON object with an answer
_JSON_FENCE_RE = re.compile(r"^```(?:json)?[ \t]*\n(?P<body>.*)\n[ \t]*```$", re.DOTALL | re.IGNORECASE)
_JSON_ANSWER_KEYS = ("final_answer", "answer", "final answer")
_MAX_JSON_CHARS = 20_000


def _json_answer(text: str) -> tuple[str, list[str]] | None:
    """The answer of a response that is one JSON object (optionally in a code fence) with an
    ``answer`` or ``final_answer`` key (any case): its value as text, and the values of keys that
    offer other answers (``alternative``, ``other_answer``, ``second_answer`` ...); ``None``
    otherwise (not JSON, no such key, or a value that is no string, number, boolean or short
    list of them)."""
    import json

    body = text.strip()
    if len(body) > _MAX_JSON_CHARS:
        return None
    fence = _JSON_FENCE_RE.match(body)
    if fence:
        body = fence.group("body").strip()
    if not (body.startswith("{") and body.endswith("}")):
        return None
    try:
        obj = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if not isinstance(obj, dict):
        return None
    keys = {k.lower(): k for k in obj if isinstance(k, str)}
    for key in _JSON_ANSWER_KEYS:
        if key in keys:
            value = _json_text(obj[keys[key]])
            if value is None:
                return None
            others = [_json_text(v) for k, v in obj.items() if isinstance(k, str) and _JSON_ALT_KEY_RE.search(k)]
            return value, [o for o in others if o]
    return None


_JSON_ALT_KEY_RE = re.compile(r"alternat|^candidates$|^(?:other|second|backup|possible)[_\s-]*+(?:answer|solution|result|value|option)s?$",
                              re.IGNORECASE)
_MAX_JSON_LIST = 8


def _json_text(value: object) -> str | None:
    """A JSON answer value as text: a string, a number or a boolean as written, a short list of
    them joined by ", " (a list, read as such); ``None`` for anything else."""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, (int, float, str)):
        return str(value)
    if isinstance(value, list) and 0 < len(value) <= _MAX_JSON_LIST and all(
            isinstance(v, (int, float, str)) and not isinstance(v, bool) for v in value):
        return ", ".join(str(v) for v in value)
    return None


def _extract(text: str, *, reference: bool) -> _Found:
    """(answer, method, candidates, unclosed_box, end of the answer in ``text``, boxes) for an
    already think-stripped text."""
    if "<" in text:
        tags = _answer_tags(text)
        if tags:
            return _from_tags(text, tags, reference)
    if not reference and "{" in text and text.lstrip()[:1] in "{`":
        found = _json_answer(text)
        if found is not None:
            value, others = found
            answer = _extract(value, reference=False)[0] if value.strip() else None
            if answer is None:
                return None, "none", [], False, len(text), ()
            return answer, "json", [*others, answer], False, len(text), ()  # the answer key's value last
    boxes, unclosed_box = _boxed_spans(text)
    kept = [(c, b) for c, b in ((clean_answer(_box_value(text, b)), b) for b in boxes) if c]
    if kept:
        return kept[-1][0], "boxed", [c for c, _ in kept], unclosed_box, kept[-1][1][2], tuple(b for _, b in kept)
    multiline = "\n" in text.strip()
    if reference:
        order = ("hash", "answer_colon", "final_answer", "answer_is")
    else:
        order = ("final_answer", "answer_is", "answer_colon", "bold", "hash")
    # Cheap literal tests first (each marker regex scans the whole text). Case-insensitive
    # matching also lets dotless/dotted I (\u0131, \u0130) stand for "i": both folds map them too.
    # The index-keeping fold serves the marker scans as well; where it cannot keep the indices,
    # the casefold decides the literal tests.
    low = fold_in_place(text)
    folded = low if low is not None else text.casefold().replace("\u0131", "i").replace("\u0307", "")
    for method in order:
        found: list[tuple[str, int]] | list[tuple[str, int, int]]
        if method == "final_answer":
            found = _last_marker(_FINAL_RE, text, starts=_FINAL_STARTS, low=low) if "final" in folded else []
        elif method == "answer_is":
            maybe = ("answer" in folded or "option" in folded or "choice" in folded or "choose" in folded
                     or "pick" in folded or "select" in folded or "go with" in folded or "go for" in folded
                     or "stick with" in folded or "settle on" in folded or "going with" in folded)
            found = _last_marker(_ANSWER_IS_RE, text, starts=_ANSWER_IS_STARTS, low=low) if maybe else []
        elif method == "answer_colon":
            if reference and not multiline and not _ANS_LEAD_RE.match(text):
                continue  # a one-line reference "A: Paris" is an option, not a GSM8K answer line
            maybe = ":" in text or "\uff1a" in text
            found = _last_marker(_ANSWER_COLON_RE, text, skip_options_list=True, line_starts=True) if maybe else []
        elif method == "bold":
            found = _bold_candidates(text) if "**" in text else []
        else:
            found = [(a, m.end()) for a, m in ((clean_answer(m.group(1)), m) for m in _HASH_RE.finditer(text))
                     if a] if "####" in text else []
        if found:
            return found[-1][0], method, _marked_run(text, found), unclosed_box, found[-1][1], ()
    stripped = text.strip()
    end = len(text)
    if not stripped or (unclosed_box and not reference):
        return None, "none", [], unclosed_box, end, ()  # a response cut inside \boxed{ has no usable answer
    if not reference and multiline:
        # "Answer: 42\nDone.": a closing line that states nothing leaves the line before it the last
        signed = _without_sign_off(stripped)
        if signed != stripped:
            stripped = signed
            text = text[: text.find(stripped) + len(stripped)]
            multiline = "\n" in stripped
    if not reference and (":" in stripped or "\uff1a" in stripped):
        inline, inline_end = _inline_answer_colon(text)
        if inline:  # "We get 42. Answer: 41": the answer line written after a sentence, in the same line
            return inline, "answer_colon", [inline], unclosed_box, inline_end, ()
    if not multiline and (reference or len(stripped) <= _SHORT_LIMIT):
        reasoned = _VALUE_THEN_REASON_RE.match(stripped) if not reference else None
        if reasoned:  # "43. Because 6 times 7 is 42.": the value first, its reason after (the tail:
            # a correction there still counts)
            end = len(text) - len(text.lstrip()) + reasoned.end("v")
            stripped = reasoned.group("v")
        ans = clean_answer(stripped if reference else _strip_filler(stripped))
        return (ans, "whole", [ans], unclosed_box, end, ()) if ans else (None, "none", [], unclosed_box, end, ())
    if reference and len(stripped) < 200:
        ans = clean_answer(stripped)
        return (ans, "whole", [ans], unclosed_box, end, ()) if ans else (None, "none", [], unclosed_box, end, ())
    if multiline and (len(stripped) <= _SHORT_LIMIT or reference):
        last = _nonempty_lines(stripped, 1)
        ans = clean_answer(_strip_filler(last[0])) if last else ""
        if ans:
            return ans, "last_line", [ans], unclosed_box, end, ()
    return None, "none", [], unclosed_box, end, ()


# a closing line that states no answer: "Done.", "Hope this helps!", "QED", "\u220e"
_SIGN_OFF_RE = re.compile(r"\n[ \t*_]*+(?:done|that'?s[ \t]++it|that[ \t]++is[ \t]++all|(?:i[ \t]++)?hope[ \t]++(?:this|that|it)"
                          r"[ \t]++helps|good[ \t]++luck|cheers|thanks|thank[ \t]++you|q\.?e\.?d\.?|\u220e|\u25a1|\\blacksquare"
                          r"|\$\\blacksquare\$|end)[ \t]*+[.!]*+[ \t*_]*+$", re.IGNORECASE)


def _without_sign_off(text: str) -> str:
    """``text`` (stripped, several lines) without closing lines that state nothing (``_SIGN_OFF_RE``)."""
    for _ in range(3):
        m = _SIGN_OFF_RE.search(text, max(0, len(text) - 60))
        if m is None:
            break
        text = text[: m.start()].rstrip()
    return text


# "We get 42. Answer: 41": an answer mark after a sentence's end, inside a line
_INLINE_ANSWER_COLON_RE = re.compile(r"(?<=[.!?])[ \t]++(?:(?:\*\*|__)[ \t]*+)?(?:final[ \t]++)?(?:ans|answer)"
                                     r"(?:[ \t]*+(?:\*\*|__))?[ \t]*+[:\uff1a](?:[ \t]*+(?:\*\*|__))?", re.IGNORECASE)


def _inline_answer_colon(text: str) -> tuple[str, int]:
    """(the value after the last answer mark that follows a sentence inside the last line of
    ``text``, up to its sentence's end, where it ends): "We get 42. Answer: 41" -> ``41``;
    ``("", 0)`` when there is none. Only the last line is searched."""
    body = text.rstrip()
    line_start = body.rfind("\n") + 1
    found = list(_INLINE_ANSWER_COLON_RE.finditer(body, line_start))
    if not found:
        return "", 0
    start = found[-1].end()
    rest = text[start:]
    lead = len(rest) - len(rest.lstrip())
    m = _SENTENCE_END_RE.search(rest, lead)
    stop = m.start() if m else len(rest.rstrip())
    value = clean_answer(rest[lead:stop])
    return (value, start + stop) if value else ("", 0)


_RUN_GAP_CHARS = " \t\r\n*_"
#: marker methods whose answers written one right after another are several final answers
RUN_METHODS = frozenset({"final_answer", "answer_is", "answer_colon"})


def _marked_run(text: str, found: list[tuple[str, int]] | list[tuple[str, int, int]]) -> list[str]:
    """The answers of the markers written one right after another up to the last one
    ("Answer: 43\nAnswer: 42": nothing but white space or emphasis between an answer and the
    next marker), in order; the last answer alone when the one before is further up."""
    run = [found[-1][0]]
    for k in range(len(found) - 1, 0, -1):
        cur, prev = found[k], found[k - 1]
        if len(cur) < 3 or prev[1] > cur[2]:
            break
        gap = text[prev[1] : cur[2]]  # type: ignore[misc]
        if gap.strip(_RUN_GAP_CHARS) and not (_numbers_differ(prev[0], cur[0]) and _sentence_gap(text, prev[1], gap)):
            break  # sentences in a row are a run only for two different numbers: "... is boundary checks. The answer is (G)." is not
        run.insert(0, prev[0])
    return run


# the end of one sentence and the start of the next marker's: ". The ", ".\n\nSo the "
_SENTENCE_GAP_RE = re.compile(r"[ \t*_]*+[.!;][ \t\r\n*_]*+(?:(?:so|thus|hence|therefore)[ \t,]++)?(?:the|my|our)?[ \t]*+",
                              re.IGNORECASE)
_PLAIN_NUMBER_RE = re.compile(r"\$?[-+\u2212]?\d[\d,]*+(?:\.\d++)?\$?")


def _sentence_gap(text: str, end: int, gap: str) -> bool:
    """``gap`` (after an answer ending at ``end``) closes its sentence and opens the next marker's."""
    if end > 0 and text[end - 1] in ".!;":  # the answer's own span took the full stop
        gap = text[end - 1] + gap
    return bool(_SENTENCE_GAP_RE.fullmatch(gap))


def _numbers_differ(a: str, b: str) -> bool:
    """Both answers are plain numbers, and they differ ("43" and "42")."""
    return bool(_PLAIN_NUMBER_RE.fullmatch(a) and _PLAIN_NUMBER_RE.fullmatch(b)) and a.strip("$") != b.strip("$")


def _gaps(text: str, boxes: tuple[tuple[str, int, int], ...]) -> tuple[str, ...]:
    out = []
    for (_, _s0, e0), (_, s1, _e1) in itertools.pairwise(boxes):
        gap = text[e0:s1]
        out.append(gap if len(gap) <= GAP_CHARS else gap[: GAP_CHARS // 2] + " \u2026 " + gap[-GAP_CHARS // 2 :])
    return tuple(out)


# a sub- or superscript alone in inline math, glued to the letters or digits before it ("H$_2$O",
# "SO$_4^{2-}$", "10$^{-3}$")
_GLUED_SCRIPT_RE = re.compile(r"(?<=[A-Za-z0-9)\]])\$((?:[_^](?:\{[^{}$\n]{1,8}\}|[0-9A-Za-z+\-]))++)\$")


def _in_bullet_list(text: str, end: int) -> bool:
    """The line that ends at ``end`` is an item of a Markdown list: the line before it is another
    item ("- ...", "* ...", "\u2022 ...") or introduces one (it ends with a colon)."""
    start = text.rfind("\n", 0, end) + 1
    if start == 0:
        return False
    prev = text[:start - 1].rstrip().rpartition("\n")[2].strip()
    return prev.endswith(":") or prev.startswith(("- ", "* ", "\u2022 "))


def extract_final_answer(response: str, question: str | None = None) -> Extracted:
    """The final answer of a model response.

    Priority: the last ``<answer>...</answer>`` tag (its content read by these same rules) >
    the ``answer`` of a response that is one JSON object >
    last ``\\boxed{}`` > "final answer is/:" > "the answer is" > an ``Answer:`` /
    ``A:`` line > ``**bold**`` in the last three lines > GSM8K ``#### 42`` > the whole
    response when it is one line > the last line of a short (<= 2,000 chars) response.
    Reasoning in ``<think>`` blocks is removed first. With ``question``, ``echo`` tells
    whether the response merely repeats it. ``tail`` keeps the text after the answer, and
    ``boxes``/``gaps`` the boxes' places, for :mod:`~verifier_runtime.toolkit.commit`.
    """
    s = _as_str(response)
    if s is None:
        return _NONE
    if not s.isascii():
        s = _visible(s)
    if "\\\\" in s:
        s = undouble_backslashes(s)
    if "~~" in s or "<s>" in s or "<del>" in s or "<strike>" in s:
        s = _STRUCK_RE.sub(" ", s)
    if "$_" in s or "$^" in s:
        s = _GLUED_SCRIPT_RE.sub(r"\1", s)  # "H$_2$O": a subscript in math inside a word, not a math span
    text, open_think = _strip_think(s)
    if open_think and not text:
        return Extracted(None, "none", truncated=True)
    if len(text) > RESPONSE_TAIL_CHARS:
        text = text[-RESPONSE_TAIL_CHARS:]
    answer, method, candidates, unclosed_box, end, boxes = _extract(text, reference=False)
    if answer and answer[:2] in ("- ", "\u2022 ") and _in_bullet_list(text, end):
        answer = answer[2:].strip()  # "Steps:\n- 6*12 = 72\n- 72": a list item's marker, not a minus sign
        candidates = [answer]
    if method == "last_line" and question and ":" in answer:
        asked = _asked_label_line(text, question)
        if asked is not None:
            answer, candidates = asked, [asked]
    truncated = open_think or _looks_truncated(text, method, unclosed_box)
    tail = text[end : end + TAIL_CHARS] if method not in ("whole", "last_line", "none") or end < len(text) else ""
    return _result(answer, method, candidates, truncated, (text, question), tail, boxes, _gaps(text, boxes))


_LABEL_LINE_RE = re.compile(r"^[ \t*#>-]*+(?P<label>[A-Za-z][A-Za-z ]{0,24}?)[ \t*]*+[:=][ \t*]*+(?P<value>\S[^\n]{0,60})$")
_MAX_LABEL_LINES = 6


def _asked_label_line(text: str, question: str) -> str | None:
    """The line the question asks for among labelled lines that end the response ("Remainder:
    2" above "Quotient: 14" for "What is the remainder ...?"): the only one whose label the
    question names; ``None`` when none, or more than one, is named."""
    lines = _nonempty_lines(text.strip(), _MAX_LABEL_LINES)
    run = []
    for line in reversed(lines):
        m = _LABEL_LINE_RE.match(line.strip())
        if m is None or "=" in m.group("value") or len(m.group("value").split()) > 3:
            break  # "Speed = 400 m / 50 s = 8 m/s": working, not a labelled result
        run.append((m.group("label").strip().lower(), clean_answer(line.strip())))
    if len(run) < 2:
        return None
    q = question.lower()
    named = [ans for label, ans in run if re.search(r"(?<![a-z])" + re.escape(label) + r"(?![a-z])", q)]
    return named[0] if len(named) == 1 and named[0] != run[0][1] else None


@memoize_text()
def extract_reference(reference: str) -> Extracted:
    """The answer inside a reference: a bare answer (``"3/4"``) or a worked solution.

    Priority: last ``\\boxed{}`` > ``#### 42`` > an ``A:``/``Answer:`` line (``A:`` only in a
    multi-line reference) > "final answer" > "the answer is" > the whole reference when it is
    one line or shorter than 200 characters > its last line.
    """
    s = _as_str(reference)
    if s is None:
        return _NONE
    text = (s if s.isascii() else _visible(s)).strip()
    if text.startswith("["):
        text = unwrap_string_list(text) or text
    if "\\" in text:
        text = undouble_backslashes(text)
    if len(text) > RESPONSE_TAIL_CHARS:
        text = text[-RESPONSE_TAIL_CHARS:]
    answer, method, candidates, unclosed_box, _end, boxes = _extract(text, reference=True)
    return _result(answer, method, candidates, unclosed_box, boxes=boxes, gaps=_gaps(text, boxes))
