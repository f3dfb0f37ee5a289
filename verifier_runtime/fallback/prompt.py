"""The fallback judge's prompt and the strict binary-label parser.

The prompt shows the model the question, the reference answer, the response and any learned
guidance, and asks it to end with ``Final Judgment: Yes`` or ``Final Judgment: No``.
:func:`parse_judgment` reads that line back and refuses everything else.

>>> parse_judgment("The values agree.\\n**Final Judgment:** Yes")
True
>>> parse_judgment("Final Judgment: Yes/No") is None
True
"""

from __future__ import annotations

import re

from verifier_runtime.limits import MAX_QUESTION_CHARS, MAX_REFERENCE_CHARS, RESPONSE_TAIL_CHARS

__all__ = ["DEFAULT_TEMPLATE", "clean_text", "parse_judgment", "render_prompt", "validate_template"]

# Learned guidance is short text written by the construction pipeline; bound it anyway.
MAX_GUIDANCE_CHARS = 8_000
PLACEHOLDERS = ("question", "reference", "response", "guidance")
REQUIRED_PLACEHOLDERS = ("question", "reference", "response")

DEFAULT_TEMPLATE = """\
You are grading the final answer of a response against a reference answer.

Decide one thing: does the FINAL answer the response commits to agree with the reference \
answer, for the question that was asked? The reference is taken as correct. Do not solve the \
problem again and do not grade the reasoning.

Which answer counts:
- Only the final committed answer. Ignore the working and values that were later revised: \
after a correction ("actually", "wait, no", "sorry", "I made a mistake") the answer given after \
it counts; an answer retracted with nothing after it means there is no answer.
- Several different candidates offered as alternatives ("A or B", "either ... or", "could be \
A, might be B", two different boxed answers joined by "or") are incorrect, even when one of \
them matches. A list is correct only when the question asks for several answers (or the \
reference has several), and then it must match as a set, or in order when order is asked.
- "Not X" is not the answer X. Merely repeating an expression from the question is not an \
answer. An empty, refused or cut-off response has no answer.

When values agree:
- Equal values written differently agree (equivalent fractions, decimals, expressions, \
intervals and inequalities, the same set in another order, the same quantity in converted \
units, the same choice by its letter or by its text) unless the question states a form the \
answer violates: lowest terms, a number of decimal places or significant figures, a \
percentage, a decimal or a fraction, a mixed number, an exact value or simplest radical form, \
interval notation, expanded or factored form, a rationalized denominator, scientific \
notation, or a requested unit. Then the form counts too.
- A bare number is read in the unit the question asks for, else in the reference's unit; a \
different dimension is incorrect. Tolerance is what the question asks, else half a unit of \
the reference's last written digit, never looser; integers and exact values compare exactly.
- Case matters where it carries meaning (chemical formulas and element symbols, SI prefixes, \
SMILES, gene names, variable names), not for ordinary words.
{guidance}
<question>
{question}
</question>

<reference>
{reference}
</reference>

<response>
{response}
</response>

Explain your comparison in a few sentences. Then write, as the last line and on its own:
Final Judgment: Yes
if the final answer agrees with the reference, or
Final Judgment: No
if it does not.
"""

_GUIDANCE_HEADER = "\nAdditional grading guidance for this verifier (follow it where it applies):\n"

_PLACEHOLDER_RE = re.compile(r"\{(question|reference|response|guidance)\}")
# Control characters other than tab, newline and carriage return (NUL included).
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def clean_text(text: str) -> str:
    """Make user text safe to send: drop control characters, replace unpaired surrogates."""
    text = _CONTROL_RE.sub("", text)
    return text.encode("utf-8", "replace").decode("utf-8", "replace")


def _cut_head(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[... {len(text) - limit} more characters cut ...]"


def _cut_tail(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"[... {len(text) - limit} earlier characters cut ...]\n" + text[-limit:]


def validate_template(template: str) -> None:
    """Raise ``ValueError`` when ``template`` lacks a required placeholder."""
    if not isinstance(template, str) or not template.strip():
        raise ValueError("prompt template must be a non-empty string")
    found = set(_PLACEHOLDER_RE.findall(template))
    missing = [p for p in REQUIRED_PLACEHOLDERS if p not in found]
    if missing:
        raise ValueError(f"prompt template lacks placeholder(s): {', '.join('{' + m + '}' for m in missing)}")


def render_prompt(template: str, question: str, reference: str, response: str, guidance: str = "") -> str:
    """Fill ``template`` with the (bounded, cleaned) inputs.

    Substitution is a single pass over the template, so braces or placeholder-like text in
    the inputs are left as they are. The question and reference keep their head, the response
    keeps its last ``RESPONSE_TAIL_CHARS`` characters (where final answers live); a marker says
    what was cut. An empty ``guidance`` leaves no trace; a template without ``{guidance}`` gets
    the guidance block in front.
    """
    guidance = clean_text(guidance or "").strip()
    block = _GUIDANCE_HEADER + _cut_head(guidance, MAX_GUIDANCE_CHARS) + "\n" if guidance else ""
    values = {
        "question": _cut_head(clean_text(question), MAX_QUESTION_CHARS),
        "reference": _cut_head(clean_text(reference), MAX_REFERENCE_CHARS),
        "response": _cut_tail(clean_text(response), RESPONSE_TAIL_CHARS),
        "guidance": block,
    }
    out = _PLACEHOLDER_RE.sub(lambda m: values[m.group(1)], template)
    if block and "{guidance}" not in template:
        out = block.lstrip("\n") + "\n" + out
    return out


# --- the strict parser -------------------------------------------------------------------

_THINK_BLOCK_RE = re.compile(r"<think(?:ing)?>.*?</think(?:ing)?>", re.IGNORECASE | re.DOTALL)
_THINK_OPEN_RE = re.compile(r"<think(?:ing)?>", re.IGNORECASE)
_THINK_CLOSE_RE = re.compile(r"</think(?:ing)?>", re.IGNORECASE)
# A line that announces the judgment; the group holds whatever follows it.
_JUDGMENT_LINE_RE = re.compile(r"^final\s+judge?ment\b\s*(?:is\s*)?[:：\-=]?\s*(.*)$", re.IGNORECASE)
_LABEL_RE = re.compile(r"^(yes|no)\s*[.!]?$", re.IGNORECASE)
_DECORATION = str.maketrans("", "", "*_`#>")


def _strip_thinking(text: str) -> str:
    text = _THINK_BLOCK_RE.sub("", text)
    close = list(_THINK_CLOSE_RE.finditer(text))
    if close:  # a closing tag without its opening one: the thinking is everything before it
        text = text[close[-1].end():]
    opened = _THINK_OPEN_RE.search(text)
    if opened:  # thinking that never closed: it holds no judgment we can trust
        text = text[: opened.start()]
    return text


def _normalise(line: str) -> str:
    line = line.translate(_DECORATION).strip()
    line = re.sub(r"^(?:[-+•]\s+)", "", line)  # a list bullet
    line = re.sub(r"^\\boxed\{(.*)\}$", r"\1", line)
    return line.strip()


def _label(value: str) -> bool | None:
    value = re.sub(r"^\\boxed\{(.*)\}$", r"\1", value.strip()).strip()
    m = _LABEL_RE.match(value)
    if m is None:
        return None
    return m.group(1).lower() == "yes"


def parse_judgment(text: str) -> bool | None:
    """Read the judge's label from its reply: ``True`` (Yes), ``False`` (No) or ``None``.

    Rules, after ``<think>…</think>`` blocks are removed:

    - the last line that starts with ``Final Judgment`` decides; it must carry exactly
      ``Yes`` or ``No`` (case-insensitive; markdown bold, a colon and a final full stop are
      tolerated; the label may stand alone on the next line). ``Yes/No``, ``Yes and No``, ``Probably yes``, an empty value: ``None``;
    - with no such line, a last non-empty line that is exactly ``Yes`` or ``No`` decides;
    - a bare ``Yes``/``No`` last line that contradicts the last judgment line: ``None``;
    - anything else (no label, non-text input): ``None``.
    """
    if not isinstance(text, str) or not text:
        return None
    lines = [_normalise(x) for x in _strip_thinking(text).splitlines()]
    lines = [x for x in lines if x]
    if not lines:
        return None
    judged: bool | None = None
    judged_at = -1
    for i, line in enumerate(lines):
        m = _JUDGMENT_LINE_RE.match(line)
        if m is None:
            continue
        if not m.group(1).strip() and i + 1 < len(lines):  # the label on the next line
            judged, judged_at = _label(lines[i + 1]), i + 1
        else:
            judged, judged_at = _label(m.group(1)), i
    bare = _label(lines[-1]) if judged_at != len(lines) - 1 else None
    if judged_at < 0:
        return bare
    if bare is not None and bare != judged:
        return None
    return judged
