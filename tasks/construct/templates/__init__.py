"""Parametric rule templates for the offline drafter.

Each file here is a complete, valid code module except for its metadata: a ``PARAMS`` dict
literal on one line, and a ``decide(x)`` function that reads it. The offline drafter
searches each template's parameter grid (``GRID``) against a residual cluster and, for the
winner, renders the file with the tuned ``PARAMS`` plus ``MODULE``, ``SUPPORT`` and
``COUNTEREXAMPLES`` (see :mod:`tasks.construct.render`). ``GROUP`` names the module group.
"""

TEMPLATE_NAMES = (
    "invalid_answer",
    "choice_letter",
    "boolean_match",
    "numeric_match",
    "numeric_rounding",
    "percent_cue",
    "quantity_units",
    "structured_match",
    "expression_match",
    "identifier_case",
    "text_match",
    "alias_match",
    "final_number",
)
