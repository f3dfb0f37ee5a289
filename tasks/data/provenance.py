"""Where an example's correctness label comes from, in one readable line (shown with module cases)."""

from __future__ import annotations

from tasks.data.schema import Example


def label_provenance(ex: Example) -> str:
    """Who or what set ``ex.label``: a person, a benchmark's automatic scoring, or a construction rule.

    >>> label_provenance(Example("x", "q", "r", "s", True, "seed", meta={"origin": "seed:3"}))
    'seed example seed:3 written for this project, label written with it'
    """
    m = ex.meta or {}
    origin = m.get("origin", "")
    if ex.source.startswith("evouna"):
        return (f"EVOUNA human judgment of the {m.get('system', '?')} system's answer "
                f"({origin or ex.source}; construction data, not an evaluation benchmark)")
    if ex.source == "gsm8k_solutions" or (m.get("label_provenance") == "official_auto" and "model" in m
                                          and "pred" not in m):
        return (f"GSM8K example model solution ({m.get('model', '?')}, {origin}): is_correct by final-answer "
                "match against the ground truth")
    if m.get("label_provenance") == "official_auto" and "pred" in m:
        return (f"MMLU-Pro output of {m.get('model', '?')} ({origin}): MMLU-Pro's own score, pred == answer, "
                "where the response states one 'answer is (X)'")
    if ex.source == "constructed":
        rule = f" ({m['rule']}, {m.get('code') or 'correct'})" if m.get("rule") else ""
        return (f"constructed variant '{m.get('variant', '?')}' of {m.get('base_source', 'pool')} question "
                f"{m.get('made_from', '?')}: label set by the variant's rule{rule} in docs/criterion.md")
    if ex.source == "seed":
        return f"seed example {origin} written for this project, label written with it"
    return f"{ex.source} {origin}".strip() + ": label as given by the source"
