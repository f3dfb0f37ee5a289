"""Carriers: real responses whose final answer span a constructed variant replaces.

A carrier is a real response text (a ZeroEval or MMLU-Pro model response, a GSM8K model
solution, a source's own worked solution, an EVOUNA system answer) with the span of its final
answer located by the toolkit's extraction (:func:`verifier_runtime.toolkit.extract.extract_final_answer`)
and checked against the answer the source records for that response (ZeroEval's ``answer``
field, MMLU-Pro's ``pred``, GSM8K's ``A:`` line, the solution's box). :func:`write` puts a
variant's answer into that span, so the variant's final answer sits where the real one was,
inside real prose. A reply rendered from its fields ("<reasoning>\n\nAnswer: <answer>") whose
reasoning boxes the answer is carried without its last line, which would state the old answer
after the new box.

The toolkit only *locates* the answer; a variant's label comes from its variant type's rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from tasks.data.schema import ResponseText

__all__ = ["Carrier", "in_math", "locate", "truncate", "write"]

#: a tail longer than this after the final answer is too long for text inserted after it
MAX_TAIL_AFTER = 240
#: a response that goes on for longer than this after its located answer is not a carrier: its
#: final commitment would not be unambiguous (a solution that states the answer, then proves it)
MAX_TAIL = 400


@dataclass(slots=True)
class Carrier:
    """A response text with the span ``[start, end)`` of its final answer."""

    id: str
    text: str
    start: int
    end: int
    method: str  # the toolkit's extraction method: boxed, final_answer, answer_is, answer_colon, hash, ...
    answer: str  # the text at the span
    source: str
    model: str
    kind: str  # model_response | solution | labelled_response | seed_response
    question_key: str
    domain: str
    box: tuple[int, int] | None = None  # the whole \boxed{...} around the span
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def tail(self) -> str:
        return self.text[self.end :]

    @property
    def choice_like(self) -> bool:
        """The original final answer is an option letter ("(B)")."""
        return bool(re.fullmatch(r"\(?[A-Ja-j]\)?", self.answer.strip()))


def _norm(s: str) -> str:
    return re.sub(r"[\s$.,;:*`]+|\\[,!;:]|\\text\{|\\mathrm\{|[{}()]", "", s).lower()


def _agrees(found: str, known: str, reference: str) -> bool:
    """The extracted answer is the one the source records for this response."""
    if _norm(found) == _norm(known):
        return True
    if re.fullmatch(r"\(?[A-Ja-j]\)?\.?", found.strip()) or re.fullmatch(r"\(?[A-Ja-j]\)?", known.strip()):
        return found.strip().strip("().").upper() == known.strip().strip("().").upper()
    from tasks.data.answers import equivalent

    return equivalent(known, found)


_ANSWER_LINE_RE = re.compile(r"\n[ \t]*+Answer:[ \t]*+(?P<v>[^\n]+?)[ \t]*+$")
_GAP_RE = re.compile(r"^[\s$*`.,;:!)\]}]*$|^\\\)|^\\\]")


def locate(resp: ResponseText, *, kind: str | None = None) -> Carrier | None:
    """The carrier of ``resp`` with its final answer span, or ``None`` when the answer cannot be
    located with confidence (no marked answer, cut off, a think block, an extraction that
    disagrees with the answer the source records)."""
    from verifier_runtime.limits import RESPONSE_TAIL_CHARS
    from verifier_runtime.toolkit.extract import (
        MARKER_METHODS,
        RUN_METHODS,
        TAIL_CHARS,
        extract_final_answer,
        strip_think,
    )

    text = resp.text
    if not text or not text.strip() or strip_think(text) != text:
        return None
    ex = extract_final_answer(text, resp.question)
    if ex.answer is None or ex.truncated or ex.too_long:
        return None
    if ex.method == "boxed" and len({_norm(c) for c in ex.candidates}) > 1:
        return None  # several different boxes: which one (or which union) is final is not clean
    if ex.method in RUN_METHODS and len(ex.candidates) > 1:
        return None  # answer lines one right after another: a new last one would be a second final answer
    short = ex.method == "whole" and len(text) <= 300
    if ex.method not in MARKER_METHODS and not short:
        return None
    known = resp.answer
    if not known and ex.method not in MARKER_METHODS:
        return None
    offset = max(0, len(text) - RESPONSE_TAIL_CHARS)
    t = text[offset:]
    box = None
    if ex.method == "boxed":
        raw, bs, be = ex.boxes[-1]
        if be >= 1 and t[be - 1] == "}" and t[be - 1 - len(raw): be - 1] == raw:
            start, end = be - 1 - len(raw), be - 1
        elif t[be - len(raw): be] == raw:
            start, end = be - len(raw), be
        else:
            return None
        box = (offset + bs, offset + be)
        # the span is the box content; trim surrounding spaces
        while start < end and t[start].isspace():
            start += 1
        while end > start and t[end - 1].isspace():
            end -= 1
    else:
        if ex.method in ("whole", "last_line"):
            stop = len(t)
        elif ex.tail and len(ex.tail) < TAIL_CHARS:
            stop = len(t) - len(ex.tail)
        elif ex.tail:
            stop = t.rfind(ex.tail)
        else:
            stop = len(t)
        if stop < 0:
            return None
        start = t.rfind(ex.answer, 0, stop)
        if start < 0:
            return None
        end = start + len(ex.answer)
        if not _GAP_RE.match(t[end:stop]):
            return None
    found = t[start:end]
    if len(t[end:].strip()) > MAX_TAIL:
        return None
    if known and not _agrees(found, known, resp.reference):
        return None
    if ex.method != "answer_colon":
        # A reply rendered from its fields ends with "Answer: <answer field>" after the reasoning's
        # box or its "the final answer is ..." sentence. A variant written into that span alone
        # would leave the old answer stated after it: two final answers (criterion R2.2). The span
        # carries the answer, so the line goes; a line that states another answer leaves the
        # response without one clean final answer, and it is no carrier.
        line = _ANSWER_LINE_RE.search(text, box[1] if box is not None else offset + end)
        if line is not None:
            if not _agrees(line.group("v"), found, resp.reference):
                return None
            text = text[: line.start()].rstrip()
    return Carrier(
        id=resp.id, text=text, start=offset + start, end=offset + end, method=ex.method, answer=found,
        source=resp.source, model=resp.model, kind=kind or str(resp.meta.get("kind") or "model_response"),
        question_key=resp.question_key, domain=resp.domain, box=box,
        meta={"rendering": "zeroeval_fields" if "raw_reply" in resp.meta else "as_written",
              "located_by": "toolkit+source_answer" if known else "toolkit"},
    )


def in_math(text: str, pos: int) -> bool:
    """Whether ``pos`` is inside inline or display math (``$..$``, ``\\(..\\)``, ``\\[..\\]``)."""
    before = text[:pos]
    dollars = len(re.findall(r"(?<!\\)\$", before.replace("$$", "$")))
    if dollars % 2 == 1:
        return True
    for op, cl in (("\\(", "\\)"), ("\\[", "\\]")):
        if before.rfind(op) > before.rfind(cl):
            return True
    return False


def _as_prose(answer: str) -> str:
    """An answer written into running text: LaTeX wrapped in ``$..$`` (an answer that already
    has words or ``$`` is left as it is)."""
    return f"${answer}$" if re.search(r"[\\^_{}]", answer) and pure_math(answer) else answer


_WORD_RE = re.compile(r"[A-Za-z]{3,}")


def pure_math(answer: str) -> bool:
    """No words and no ``$`` in the answer: it can stand inside math delimiters."""
    body = re.sub(r"\\[A-Za-z]+(?:\{[^{}]*\})?", " ", answer)
    return "$" not in answer and not _WORD_RE.search(body)


def write(c: Carrier, answer: str, *, after: str = "", boxes: list[str] | None = None) -> str | None:
    """The carrier with ``answer`` at its final answer span (``boxes``: several boxes written in
    place of the final box; ``after``: text added after the answer's sentence). An answer with
    words written where the carrier's answer sits inside ``$..$`` replaces the delimiters too
    (its math parts get their own); ``None`` when that cannot be done cleanly."""
    text = c.text
    start, end = c.start, c.end
    if boxes is None and c.box is None and in_math(text, start) and not pure_math(answer):
        if text[start - 1: start] == "$" and text[end: end + 1] == "$" and text[start - 2: start] != "$$":
            start, end = start - 1, end + 1
        else:
            return None
    if boxes is not None and c.box is not None:
        math = in_math(text, c.box[0])
        joiner = " \\text{ or } " if math else " or "
        new = joiner.join(f"\\boxed{{{b}}}" for b in boxes)
        start, end = c.box
        out = text[:start] + new + text[end:]
        span_end = start + len(new)
    else:
        value = answer if c.box is not None or in_math(text, start) else _as_prose(answer)
        out = text[:start] + value + text[end:]
        span_end = start + len(value)
    if after:
        m = re.compile(r"(?<=[.!?])[\s]|\n|$").search(out, span_end)
        # close any math opened around the answer before the sentence ends
        cut = m.start() if m else len(out)
        while cut < len(out) and in_math(out, cut) and out[cut] not in "\n":
            cut += 1
        head = out[:cut].rstrip()
        if head and head[-1] not in ".!?":
            head += "."
        out = head + " " + after + out[cut:]
    return out


def truncate(c: Carrier, cut_at: float) -> str | None:
    """The carrier cut off mid-sentence before its final answer (at about ``cut_at`` of the way to
    it), with no answer marker left in the kept text; ``None`` if no such cut exists."""
    from verifier_runtime.toolkit.extract import MARKER_METHODS, extract_final_answer

    limit = c.box[0] if c.box is not None else c.start
    # before the sentence holding the answer
    sent = max(c.text.rfind(". ", 0, limit), c.text.rfind("\n", 0, limit))
    limit = sent if sent > 0 else limit
    if limit < 120:
        return None
    pos = int(limit * cut_at)
    for _ in range(4):
        # cut inside a word: between two letters, so the text ends mid-word
        m = re.compile(r"[A-Za-z]{4,}").search(c.text, max(60, pos), limit)
        if m is None:
            return None
        cut = c.text[: m.start() + 2]
        if extract_final_answer(cut).method not in MARKER_METHODS:
            return cut
        pos = int(pos * 0.6)
    return None
