"""Constructed diagnostic examples: labelled variants written into real response text.

:func:`generate_diagnostics` draws a deterministic set of constructed examples, balanced over
answer object x variant type x base source. Each variant's answer is made by its variant type
(:mod:`tasks.data.variants`, the label is the type's rule) and written into a real response
(:mod:`tasks.data.carriers`): a response to the same question when the pool has one (ZeroEval,
MMLU-Pro, GSM8K, the source's own worked solution, an EVOUNA system answer), else a response
to a similar question in the same split (same domain), else a short template.

Every constructed example has ``source="constructed"``, ``meta["label_provenance"] =
"constructed:<variant type>"``, and records in ``meta`` what it was made from (``made_from``,
``base_source``, ``base_answer``, ``answer_object``), the ``variant`` type, the criterion
``rule`` and ``code``, any ``cue`` added to the question, and its ``carrier``.

Answer forms (:func:`answer_form`) are a cheap regex signature of a reference:
``integer | decimal | fraction | latex | choice | short_text | long_text``.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from tasks.data.carriers import Carrier, locate, pure_math, truncate, write
from tasks.data.schema import Example, QuestionItem, ResponseText, stable_id
from tasks.data.variants import VARIANT_TYPES, Base, Made, VariantType

__all__ = [
    "SEED_FILE",
    "Base",
    "CarrierBank",
    "answer_form",
    "base_from_example",
    "base_from_item",
    "carrier_from_example",
    "final_answer_text",
    "generate_diagnostics",
    "load_seed_examples",
    "make_variant",
]

SEED_FILE = Path(__file__).resolve().parent / "seed_examples.jsonl"

_INT = re.compile(r"^[-+]?\d{1,3}(,\d{3})+$|^[-+]?\d+$")
_DEC = re.compile(r"^[-+]?(\d+\.\d*|\.\d+)$|^[-+]?\d+(\.\d+)?[eE][-+]?\d+$")
_FRAC = re.compile(r"^[-+]?\d+\s*/\s*\d+$|^[-+]?\\[dt]?frac\{\d+\}\{\d+\}$")
_CHOICE = re.compile(r"^\(?[A-J]\)?\.?$")
_LATEX = re.compile(r"\\[a-zA-Z]+|[\^_{}]|\d[a-rt-z]\b|[=<>≤≥]")
_BOXED = re.compile(r"\\boxed\{((?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*)\}")


def final_answer_text(reference: str) -> str:
    """The final answer inside a reference: the last ``\\boxed{}``, a ``#### N`` / ``A: N``
    last line, else the whole stripped text."""
    boxes = _BOXED.findall(reference)
    if boxes:
        return boxes[-1].strip()
    m = re.search(r"(?:####|(?:^|\n)A:)\s*([^\n]+?)\s*$", reference.strip())
    if m:
        return m.group(1).strip()
    return reference.strip()


def answer_form(reference: str) -> str:
    """A cheap answer-form signature of a reference (see module docstring)."""
    t = final_answer_text(reference).strip().strip("$").strip()
    if _CHOICE.match(t):
        return "choice"
    if _INT.match(t):
        return "integer"
    if _DEC.match(t):
        return "decimal"
    if _FRAC.match(t):
        return "fraction"
    if _LATEX.search(t):
        return "latex"
    return "short_text" if len(t.split()) <= 6 and len(t) <= 60 else "long_text"


# --------------------------------------------------------------------------- bases and carriers


def base_from_item(item: QuestionItem) -> Base:
    """A base from a question item (a copy: the variants never change the item)."""
    return Base(item.id, item.question, item.reference, item.answer, item.answer_object, item.source, item.domain,
                dict(item.meta) | {"question_key": item.question_key})


def base_from_example(ex: Example) -> Base:
    """A base from a labelled example: GSM8K's ``final_answer`` (the reference is the bare answer),
    EVOUNA's golden answer with its aliases, MMLU-Pro's letter with its options, a seed's answer."""
    from tasks.data.answers import answer_object

    m = ex.meta or {}
    ans = m.get("final_answer") or m.get("answer") or m.get("base_answer")
    ref = ex.reference
    meta: dict[str, Any] = {}
    if m.get("final_answer"):
        ref = str(m["final_answer"])  # GSM8K: the bare final answer, not the worked solution
    if not ans:
        aliases = m.get("reference_aliases")
        ans = aliases[0] if aliases else final_answer_text(ex.reference)
        if aliases:
            meta["reference_aliases"] = list(aliases)
    if m.get("options"):
        meta["options"] = list(m["options"])
    obj = "text" if ex.source.startswith("evouna") else answer_object(str(ans), ex.question)
    meta["question_key"] = ex.question_key
    return Base(ex.id, ex.question, ref, str(ans), obj, ex.source, ex.domain, meta)


def carrier_from_example(ex: Example) -> ResponseText:
    """A labelled example's response as a response text (its own final answer recorded)."""
    m = ex.meta or {}
    known = m.get("response_final_answer") or m.get("pred") or ""
    if ex.source.startswith("evouna") or ex.source == "seed":
        known = ""  # the answer is the short response itself (or unmarked)
    kind = "seed_response" if ex.source == "seed" else "labelled_response"
    return ResponseText(id=ex.id, question=ex.question, reference=ex.reference, text=ex.response, source=ex.source,
                        model=str(m.get("model") or m.get("system") or ""), answer=str(known), domain=ex.domain,
                        meta={"kind": kind, "question_key": ex.question_key})


_DOMAIN_GROUPS = {"math": "math", "open_qa": "open_qa", "general": "open_qa", "units": "math", "choice": "science"}


def _group(domain: str) -> str:
    return _DOMAIN_GROUPS.get(domain, "science")


class CarrierBank:
    """Response texts by question, located lazily; similar-question carriers by split and domain."""

    def __init__(self, responses: Iterable[ResponseText], split_of: Callable[[str], str] | None = None,
                 seed: int = 0) -> None:
        self.split_of = split_of or (lambda _key: "")
        self.by_key: dict[str, list[ResponseText]] = defaultdict(list)
        for r in sorted(responses, key=lambda r: r.id):
            self.by_key[r.question_key].append(r)
        self._located: dict[str, Carrier | None] = {}
        self._similar: dict[tuple[str, str], list[ResponseText]] = {}
        self.seed = seed
        self.stats: Counter[str] = Counter()

    def __len__(self) -> int:
        return sum(len(v) for v in self.by_key.values())

    def carrier(self, r: ResponseText) -> Carrier | None:
        if r.id not in self._located:
            c = locate(r)
            self._located[r.id] = c
            self.stats["located" if c else "not located"] += 1
        return self._located[r.id]

    def _similar_pool(self, split: str, group: str) -> list[ResponseText]:
        key = (split, group)
        if key not in self._similar:
            pool = [r for k, rs in self.by_key.items() if self.split_of(k) == split for r in rs
                    if _group(r.domain) == group]
            random.Random(f"{self.seed}:{split}:{group}").shuffle(pool)
            self._similar[key] = pool
        return self._similar[key]

    def pick(self, b: Base, made: Made, rng: random.Random) -> tuple[Carrier | None, str]:
        """A carrier fit for ``made`` and how it relates to the base: ``same_question`` or
        ``similar_question`` (``None, "template"`` when there is none)."""
        same = self.by_key.get(b.question_key, [])
        start = rng.randrange(len(same)) if same else 0
        ordered = same[start:] + same[:start]
        fits = [c for c in (self.carrier(r) for r in ordered) if c is not None and _fits(c, made, b)]
        if fits:
            if made.label:
                good = [c for c in fits if _original_correct(c, b)]
                fits = good or fits
            return fits[0], "same_question"
        pool = self._similar_pool(self.split_of(b.question_key), _group(b.domain))
        if pool:
            k0 = rng.randrange(len(pool))
            for k in range(min(40, len(pool))):
                c = self.carrier(pool[(k0 + k) % len(pool)])
                if c is not None and c.question_key != b.question_key and _fits(c, made, b):
                    return c, "similar_question"
        return None, "template"


def _fits(c: Carrier, made: Made, b: Base) -> bool:
    if made.placement == "boxes" and c.box is None:
        return False
    if made.placement == "prose" and c.box is not None:
        return False
    if made.after and len(c.tail.strip()) > 240:
        return False
    if b.answer_object == "choice":
        return c.choice_like
    if c.choice_like and c.question_key != b.question_key:
        return False  # "The answer is (B)" of another question: options that are not there
    return not (made.placement == "truncate" and c.start < 200)


_CORRECT_CACHE: dict[tuple[str, str], bool] = {}


def _original_correct(c: Carrier, b: Base) -> bool:
    """Whether the carrier's own answer matched the reference (used only to choose a natural
    carrier for a correct variant, never for a label)."""
    key = (c.id, b.reference)
    if key not in _CORRECT_CACHE:
        from tasks.data.answers import equivalent

        if b.answer_object == "choice":
            _CORRECT_CACHE[key] = c.answer.strip().strip("().").upper() == b.answer.strip().strip("().").upper()
        else:
            _CORRECT_CACHE[key] = equivalent(b.reference, c.answer)
    return _CORRECT_CACHE[key]


_TEMPLATES = ("The answer is {a}.", "Therefore, the final answer is {a}.", "Answer: {a}")


def _template(b: Base, made: Made, rng: random.Random) -> str | None:
    def prose(x: str) -> str:  # an answer with words or its own "$" is not wrapped again ("not $3 \\pm 2$")
        return f"${x}$" if re.search(r"[\\^_{}]", x) and pure_math(x) else x

    if made.placement == "boxes" and made.boxes:
        return "We work it out and get " + " or ".join(f"$\\boxed{{{x}}}$" for x in made.boxes) + "."
    if made.placement == "truncate":
        words = b.question.split()
        head = " ".join(words[: max(4, len(words) // 3)])
        return f"Let us work through this carefully. First, we restate the problem: {head[:160]} and so we comp"
    text = rng.choice(_TEMPLATES).format(a=prose(made.answer))
    if made.after:
        return f"{text}{'' if text.endswith('.') else '.'} {made.after}"
    return text


def make_variant(b: Base, vt: VariantType, rng: random.Random, ctx: dict[str, Any],
                 bank: CarrierBank | None) -> Example | None:
    """One constructed example of type ``vt`` from ``b``, written into a carrier (or ``None``)."""
    made = vt.make(b, rng, ctx)
    if made is None:
        return None
    if made.label != vt.label:
        raise AssertionError(f"{vt.name}: maker gave label {made.label}, the type's rule says {vt.label}")
    carrier, relation = (None, "none") if made.placement == "whole" else (
        bank.pick(b, made, rng) if bank is not None else (None, "template"))
    if made.placement == "whole":
        response = made.response or ""
    elif carrier is not None:
        if made.placement == "truncate":
            response = truncate(carrier, rng.uniform(0.35, 0.85))
            if response is None:
                carrier, relation = None, "template"
                response = _template(b, made, rng)
        elif made.placement == "boxes":
            response = write(carrier, "", boxes=made.boxes)
        else:
            response = write(carrier, made.answer, after=made.after)
        if response is None:
            carrier, relation = None, "template"
            response = _template(b, made, rng)
    else:
        response = _template(b, made, rng)
    if response is None:
        return None
    question = made.question or b.question
    meta: dict[str, Any] = {
        "label_provenance": f"constructed:{vt.name}",
        "variant": vt.name,
        "variant_family": vt.family,
        "variant_detail": made.detail,
        "rule": vt.rule,
        "code": vt.code,
        "made_from": b.id,
        "base_source": b.source,
        "base_answer": b.answer,
        "answer_object": b.answer_object,
        "question_key": b.question_key,
        "written_answer": made.answer if made.boxes is None else " | ".join(made.boxes),
        "check": made.check,
        "carrier": _carrier_meta(carrier, relation),
    }
    if made.after:
        meta["after_answer"] = made.after
    if made.cue:
        meta["cue"] = made.cue
    return Example(
        id=stable_id("constructed", vt.name, question, response, b.reference),
        question=question, reference=b.reference, response=response, label=made.label,
        source="constructed", domain=b.domain, meta=meta,
    )


def _carrier_meta(c: Carrier | None, relation: str) -> dict[str, Any]:
    if c is None:
        return {"relation": relation, "kind": "template" if relation != "none" else "none"}
    return {"relation": relation, "kind": c.kind, "source": c.source, "model": c.model, "id": c.id,
            "method": c.method, **c.meta}


def _rng(seed: int, *parts: str) -> random.Random:
    h = hashlib.sha256("\x1f".join((str(seed), *parts)).encode()).digest()
    return random.Random(int.from_bytes(h[:8], "big"))


def load_seed_examples(path: str | Path = SEED_FILE) -> list[Example]:
    """The built-in seed triples shipped with the repo (our own questions, not benchmark items)."""
    from tasks.data.loaders import read_jsonl

    out = []
    for lineno, r in enumerate(read_jsonl(path), start=1):
        try:
            out.append(Example(
                id=stable_id("seed", r["question"], r["response"], r["reference"]),
                question=r["question"], reference=r["reference"], response=r["response"], label=bool(r["label"]),
                source="seed", domain=r.get("domain", "general"),
                meta={"answer": r.get("answer", final_answer_text(r["reference"])), "origin": f"seed:{lineno}",
                      "label_provenance": "human"},
            ))
        except KeyError as exc:
            raise ValueError(f"{path}: record {lineno} lacks field {exc}") from exc
    return out


def generate_diagnostics(
    bases: Iterable[Base | Example | QuestionItem],
    count: int,
    seed: int = 0,
    *,
    carriers: CarrierBank | Iterable[ResponseText] | None = None,
    split_of: Callable[[str], str] | None = None,
    types: Iterable[VariantType] = VARIANT_TYPES,
    max_per_base: int = 6,
) -> list[Example]:
    """About ``count`` constructed examples, balanced over (answer object, variant type, base source).

    Cells are visited round-robin in a seeded order; each visit takes the next base of the
    cell's (source, answer object) group (a seeded shuffle) that the type applies to. A cell
    closes when its bases run out. The same inputs and seed give the same examples.
    ``carriers`` are the response texts variants are written into (a :class:`CarrierBank` or
    response texts); ``split_of`` maps a question key to its split, so a variant is written
    only into a response to a question of the same split.
    """
    blist: list[Base] = []
    for x in bases:
        blist.append(x if isinstance(x, Base) else base_from_item(x) if isinstance(x, QuestionItem)
                     else base_from_example(x))
    by_key: dict[str, Base] = {}
    for b in sorted(blist, key=lambda b: b.id):
        by_key.setdefault(b.question_key + "\x1f" + b.answer_object + "\x1f" + b.reference, b)
    uniq = sorted(by_key.values(), key=lambda b: b.id)
    split_of = split_of or (lambda _k: "")
    bank = carriers if isinstance(carriers, CarrierBank) or carriers is None else CarrierBank(carriers, split_of, seed)
    ctx_by_split: dict[str, dict[str, Any]] = defaultdict(lambda: {"other_answers": defaultdict(list)})
    for b in uniq:
        if b.answer_object == "text" and len(b.answer) <= 60:
            ctx_by_split[split_of(b.question_key)]["other_answers"][(b.source, "text")].append(b.answer)
    groups: dict[tuple[str, str], list[Base]] = defaultdict(list)
    for b in uniq:
        groups[(b.source, b.answer_object)].append(b)
    for k, g in groups.items():
        _rng(seed, "group", *k).shuffle(g)
    tlist = list(types)
    # Each variant type gets an equal turn; within a type, its (answer object, source) cells
    # take turns; within a cell, bases come in the cell's seeded order.
    cells_of: dict[str, list[tuple[str, str]]] = {}
    for vt in tlist:
        cs = sorted((obj, src) for (src, obj) in groups if obj in vt.objects)
        random.Random(f"{seed}:{vt.name}").shuffle(cs)
        if cs:
            cells_of[vt.name] = cs
    vt_by_name = {vt.name: vt for vt in tlist}
    cursor: dict[tuple[str, str, str], int] = defaultdict(int)
    fails: dict[tuple[str, str, str], int] = defaultdict(int)
    turn = dict.fromkeys(cells_of, 0)
    per_base: Counter[str] = Counter()
    picked: list[Example] = []
    seen: set[str] = set()
    open_types = sorted(cells_of)
    random.Random(seed).shuffle(open_types)
    while len(picked) < count and open_types:
        still = []
        for name in open_types:
            if len(picked) >= count:
                still.append(name)
                continue
            vt = vt_by_name[name]
            got = None
            cs = cells_of[name]
            for _ in range(len(cs)):  # this type's next open cell that yields a variant
                obj, src = cs[turn[name] % len(cs)]
                turn[name] += 1
                cell = (name, obj, src)
                g = groups[(src, obj)]
                tries = 0
                while got is None and cursor[cell] < len(g) and tries < 32:
                    b = g[cursor[cell]]
                    cursor[cell] += 1
                    tries += 1
                    if per_base[b.id] >= max_per_base:
                        continue
                    ex = make_variant(b, vt, _rng(seed, b.id, name), ctx_by_split[split_of(b.question_key)], bank)
                    if ex is not None and ex.id not in seen:
                        got = ex
                        per_base[b.id] += 1
                fails[cell] = 0 if got is not None else fails[cell] + tries
                if cursor[cell] >= len(g) or fails[cell] >= 600:
                    cs.remove((obj, src))
                    if not cs:
                        break
                if got is not None:
                    break
            if got is not None:
                seen.add(got.id)
                picked.append(got)
            if cs:
                still.append(name)
        open_types = still
    for ex in picked:
        ex.split = ""
    return picked
