"""The answer toolkit: hand-written primitives that learned modules compose.

Extraction (:mod:`.extract`), question cues (:mod:`.cues`), multiple choice
(:mod:`.choices`), text, booleans and identifiers (:mod:`.text`), exact numbers
(:mod:`.numbers`), LaTeX and plain math (:mod:`.latex`), structured answers
(:mod:`.structures`), quantities with units (:mod:`.units`) and the typed comparator
(:mod:`.compare`). Each returns a structured value or ``None`` ("cannot parse"); none raises.
The verdict policy belongs to the modules, not to the toolkit.

Submodules import only the standard library at import time; sympy and pint are loaded on
first use, or up front by :func:`warm_up` (the verifier calls it when it loads).
"""

from __future__ import annotations

import threading

from verifier_runtime.toolkit.choices import choice_matches, parse_choice, parse_options
from verifier_runtime.toolkit.compare import (
    Answer,
    Comparison,
    answers_equivalent,
    compare_answers,
    parse_answer,
)
from verifier_runtime.toolkit.cues import Cues, question_cues
from verifier_runtime.toolkit.extract import (
    Extracted,
    extract_final_answer,
    extract_reference,
    find_boxed,
    strip_think,
)
from verifier_runtime.toolkit.latex import (
    equations_equal,
    expressions_equal,
    parse_equation,
    parse_expression,
)
from verifier_runtime.toolkit.numbers import (
    Number,
    matches_with_rounding,
    numbers_close,
    parse_number,
    round_to_decimals,
    round_to_sig_figs,
)
from verifier_runtime.toolkit.text import (
    Identifier,
    contains_answer,
    identifiers_equal,
    normalize_text,
    parse_bool,
    parse_identifier,
    text_match,
)
from verifier_runtime.toolkit.units import Quantity, convert, parse_quantity, quantities_equal


def clear_caches() -> None:
    """Empty the parsers' memo caches (benchmarks measure cold calls with it)."""
    from verifier_runtime.toolkit import (
        choices,
        compare,
        criterion,
        cues,
        extract,
        forms,
        numbers,
        text,
        units,
    )
    from verifier_runtime.toolkit.latex import convert

    for fn in (compare.parse_answer, convert.converted, numbers.parse_number, numbers.parse_number_words,
               units.parse_quantity, text.normalize_text, text.parse_bool, text.parse_identifier, cues.question_cues,
               extract.extract_reference, choices._options_cached, criterion._question_spans, forms._number,
               units._split, units._unit_names, units._dimension_text):
        fn.cache_clear()


_warm_lock = threading.Lock()
_warm = False


def warm_up() -> None:
    """Import sympy and build the shared unit registry once per process (about a second).

    Doing it at load time keeps that cost out of the first calls' time budgets.
    """
    global _warm
    if _warm:
        return
    with _warm_lock:
        if _warm:
            return
        answers_equivalent("x^2 + 1", "1 + x^2")
        parse_quantity("1 km")
        answers_equivalent("\\{1, 2\\}", "\\{2, 1\\}")
        _warm = True


__all__ = [
    "Answer",
    "Comparison",
    "Cues",
    "Extracted",
    "Identifier",
    "Number",
    "Quantity",
    "answers_equivalent",
    "choice_matches",
    "clear_caches",
    "compare_answers",
    "contains_answer",
    "convert",
    "equations_equal",
    "expressions_equal",
    "extract_final_answer",
    "extract_reference",
    "find_boxed",
    "identifiers_equal",
    "matches_with_rounding",
    "normalize_text",
    "numbers_close",
    "parse_answer",
    "parse_bool",
    "parse_choice",
    "parse_equation",
    "parse_expression",
    "parse_identifier",
    "parse_number",
    "parse_options",
    "parse_quantity",
    "question_cues",
    "quantities_equal",
    "round_to_decimals",
    "round_to_sig_figs",
    "strip_think",
    "text_match",
    "warm_up",
]
