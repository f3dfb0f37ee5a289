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
    if ex.source == "gsm8k_solutions":
        return (f"GSM8K example model solution ({m.get('model', '?')}, {origin}): is_correct by final-answer "
                "match against the ground truth")
    if ex.source == "constructed":
        return (f"constructed variant '{m.get('variant', '?')}' of pool example {m.get('made_from', '?')}: "
                "label set by the variant's rule")
    if ex.source == "seed":
        return f"seed example {origin} written for this project, label written with it"
    return f"{ex.source} {origin}".strip() + ": label as given by the source"
