"""Residual features: answer object, surface form, domain, error type (pure, cheap)."""

from __future__ import annotations

import re

from verifier_runtime.triple import Triple

_DIGITS = re.compile(r"\d+")
_LETTERS = re.compile(r"[A-Za-z]+")
_SPACES = re.compile(r"\s+")


def answer_object(x: Triple) -> str:
    """What kind of thing the reference is: choice, bool, number, quantity, expression, ..., text, none."""
    if not x.ref:
        return "none"
    if x.options and len(x.ref.strip()) <= 3:
        return "choice"
    from verifier_runtime.toolkit.text import parse_bool

    if parse_bool(x.ref) is not None:
        return "bool"
    if x.number_ref is not None:
        return "number"
    if x.quantity_ref is not None:
        return "quantity"
    parsed = x.parsed_ref
    if parsed is not None:
        if parsed.kind == "text":
            return "short_text" if len(x.ref.split()) <= 4 else "long_text"
        return parsed.kind
    return "unparsed"


def shape(text: str | None, limit: int = 24) -> str:
    """A surface-form signature: digits -> 9, letter runs -> a, spaces collapsed, cut to ``limit``."""
    if not text:
        return "-"
    s = _DIGITS.sub("9", text[:200])
    s = _LETTERS.sub("a", s)
    s = _SPACES.sub(" ", s).strip()
    return s[:limit]


def surface_form(x: Triple) -> str:
    info = x.answer_info
    method = info.method if info is not None else "none"
    return f"{method}|{shape(x.answer)}"


def error_type(decided_by: str, predicted: bool | None, label: bool) -> str:
    where = "fallback" if decided_by.startswith("fallback:") or decided_by == "none" else "direct"
    if predicted is None:
        return f"{where}_abstained"
    return f"{where}_false_pass" if predicted and not label else f"{where}_false_fail"


def cue_summary(x: Triple) -> str:
    c = x.cues
    if c is None:
        return ""
    bits = []
    for name in ("decimal_places", "sig_figs", "unit"):
        v = getattr(c, name, None)
        if v not in (None, False, ""):
            bits.append(f"{name}={v}")
    for name in ("exact", "simplest_form", "percentage", "probability", "fraction", "multiple_choice", "boolean"):
        if getattr(c, name, False):
            bits.append(name)
    return ",".join(bits)


def residual_features(x: Triple, *, decided_by: str, predicted: bool | None, label: bool, domain: str) -> dict:
    """The feature record of one residual, with the text the clustering step embeds."""
    obj = answer_object(x)
    form = surface_form(x)
    err = error_type(decided_by, predicted, label)
    cues = cue_summary(x)
    text = (
        f"{err} {obj} {form} {domain} cues={cues} "
        f"ref={(x.ref or '')[:80]} ans={(x.answer or '')[:80]}"
    )
    return {
        "error_type": err,
        "answer_object": obj,
        "surface_form": form,
        "domain": domain,
        "cues": cues,
        "text": text,
    }
