"""The LLM drafter: cluster examples and counterexamples in, a schema-checked card and code out.

The model sees the cluster's examples (what the verifier got wrong), near neighbours of the
opposite label (what the rule must not touch), the toolkit it may use and the module format.
It answers with one JSON object; the card is validated against :data:`CARD_FIELDS`, its
code against the module policy, and it then goes through the same audit and four-stage
validation as every offline draft. Judgment-dependent cards take the guidance path.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tasks.construct.config import RoundConfig
from tasks.construct.draft import Draft
from tasks.construct.state import PoolState
from verifier_runtime.sandbox import ModulePolicyError, check_module_source, load_module_source

CARD_FIELDS: dict[str, type | tuple[type, ...]] = {
    "title": str,
    "path": str,  # "code" or "guidance"
    "activation_region": str,
    "comparison_procedure": str,
    "abstention_behaviour": str,
    "group": str,
}
GROUPS = ("invalid_answer_guard", "closed_choice", "verdict_matching", "numeric_unit")
MAX_CODE_CHARS = 8_000

TOOLKIT_SUMMARY = """\
The decide(x) argument x has: x.question, x.reference, x.response (str); x.answer (the response's
extracted final answer or None); x.ref (the reference's final answer or None); x.answer_info
(.method, .echo, .truncated, .conflicting); x.cues (.decimal_places, .sig_figs, .exact,
.simplest_form, .unit, .percentage, .probability, .fraction, .multiple_choice, .integer, .boolean);
x.options (dict letter -> option text); x.number_answer / x.number_ref (Number: .value Fraction,
.kind, .decimals, .sig_figs, .is_percent) ; x.quantity_answer / x.quantity_ref; x.parsed_answer /
x.parsed_ref (Answer: .kind, .value, .text).
Toolkit imports allowed (from ... import name): verifier_runtime.toolkit.numbers (parse_number,
numbers_close, matches_with_rounding, round_to_decimals, round_to_sig_figs),
verifier_runtime.toolkit.units (parse_quantity, quantities_equal, convert),
verifier_runtime.toolkit.compare (parse_answer, compare_answers, answers_equivalent),
verifier_runtime.toolkit.choices (parse_options, parse_choice, choice_matches),
verifier_runtime.toolkit.text (normalize_text, parse_bool, parse_identifier, identifiers_equal,
text_match, contains_answer), verifier_runtime.types (Decision); stdlib math, re, fractions.
Return Decision.passed(reason), Decision.failed(reason) or Decision.abstain(reason).
No I/O, no globals, no getattr/eval/open, no dunder names, no classes."""

PROMPT = """\
You maintain a reference-based answer verifier. Its code modules run in order; the first PASS or
FAIL wins; when all abstain an LLM judge decides. Below are examples the verifier currently gets
WRONG (the cluster) and nearby examples with the OPPOSITE label that a new rule must not get
wrong (counterexamples). Propose one rule card.

If the pattern is deterministic, write a module: path "code" and "module_code" holding only
imports and a function decide(x) (helpers allowed). It must abstain outside its activation region.
If it needs judgment, path "guidance" and "guidance": one short paragraph for the judge's prompt.

{toolkit}

Cluster ({n_cluster} examples; label = whether the response is correct):
{cluster}

Counterexamples:
{counter}

Answer with one JSON object only, with keys: title, path, group (one of {groups}),
activation_region, comparison_procedure, abstention_behaviour, and module_code or guidance.
"""


class DraftSchemaError(ValueError):
    """The model's card does not match the schema."""


def _example_text(state: PoolState, i: int, limit: int = 400) -> str:
    e = state.examples[i]
    return json.dumps({"question": e.question[:limit], "reference": e.reference[:limit],
                       "response": e.response[-limit:], "label": e.label}, ensure_ascii=False)


def build_prompt(state: PoolState, cluster_idx: Sequence[int], counter_idx: Sequence[int], k: int = 8) -> str:
    return PROMPT.format(
        toolkit=TOOLKIT_SUMMARY,
        n_cluster=len(cluster_idx),
        cluster="\n".join(_example_text(state, i) for i in list(cluster_idx)[:k]),
        counter="\n".join(_example_text(state, i) for i in list(counter_idx)[:k]) or "(none)",
        groups=", ".join(GROUPS),
    )


_JSON_RE = re.compile(r"\{.*\}", re.DOTALL)


def parse_card(text: str) -> dict[str, Any]:
    """The JSON card in the model's reply, checked against the schema (raises DraftSchemaError)."""
    m = _JSON_RE.search(text or "")
    if not m:
        raise DraftSchemaError("no JSON object in the reply")
    try:
        card = json.loads(m.group(0))
    except json.JSONDecodeError as e:
        raise DraftSchemaError(f"invalid JSON: {e}") from e
    if not isinstance(card, dict):
        raise DraftSchemaError("the card must be a JSON object")
    for key, typ in CARD_FIELDS.items():
        if not isinstance(card.get(key), typ) or not card[key]:
            raise DraftSchemaError(f"field {key!r} missing or not a non-empty {getattr(typ, '__name__', typ)}")
    if card["path"] not in ("code", "guidance"):
        raise DraftSchemaError("path must be 'code' or 'guidance'")
    if card["group"] not in GROUPS:
        raise DraftSchemaError(f"group must be one of {GROUPS}")
    if card["path"] == "code":
        code = card.get("module_code")
        if not isinstance(code, str) or not code.strip() or len(code) > MAX_CODE_CHARS:
            raise DraftSchemaError("module_code missing, empty or too long")
    else:
        g = card.get("guidance")
        if not isinstance(g, str) or not g.strip() or len(g) > 2_000:
            raise DraftSchemaError("guidance missing, empty or too long")
    return card


def wrap_code(code: str, meta: dict[str, Any], *, doc: str, support: list[dict], counterexamples: list[dict]) -> str:
    """A full module file around the model's imports and ``decide``."""
    code = re.sub(r"^```(?:python)?\s*|```\s*$", "", code.strip(), flags=re.MULTILINE).strip()
    return (f'"""{doc}"""\n\n{code}\n\n\nMODULE = {meta!r}\n\nSUPPORT = {support!r}\n\n'
            f"COUNTEREXAMPLES = {counterexamples!r}\n")


@dataclass
class LLMDrafter:
    """Drafts one card per cluster through a provider adapter (OpenAI-compatible or Anthropic)."""

    adapter: Any
    model: str
    max_tokens: int = 2_000
    timeout_s: float = 120.0
    name: str = "llm"

    @classmethod
    def from_config(cls, cfg: dict[str, Any]) -> LLMDrafter:
        from verifier_runtime.fallback.llm import make_llm_judge

        provider = cfg.get("provider", "openai")
        judge = make_llm_judge(provider, model=cfg.get("model"), base_url=cfg.get("base_url"),
                               api_key_env=cfg.get("api_key_env"))
        return cls(adapter=judge.adapter, model=judge.model, max_tokens=int(cfg.get("max_tokens", 2_000)),
                   timeout_s=float(cfg.get("timeout_s", 120.0)), name=f"llm:{provider}:{judge.model}")

    def draft(self, cluster: dict[str, Any], counter_idx: Sequence[int], state: PoolState, cfg: RoundConfig,
              card_prefix: str) -> list[Draft]:
        card_id = f"{card_prefix}-{cluster['cluster_id']}-llm"
        prompt = build_prompt(state, cluster["indices"], counter_idx)
        try:
            reply = self.adapter.complete([{"role": "user", "content": prompt}], model=self.model, temperature=0.0,
                                          max_tokens=self.max_tokens, timeout_s=self.timeout_s)
            card = parse_card(reply.text)
        except Exception as e:  # a failed draft is recorded by the caller as "no draft"
            return [Draft(card_id, cluster["cluster_id"], cluster.get("kind", "residual"), "code", self.name,
                          None, {}, search={"error": f"{type(e).__name__}: {e}"[:300]})]
        if card["path"] == "guidance":
            return [Draft(card_id, cluster["cluster_id"], cluster.get("kind", "residual"), "guidance", self.name, None,
                          {}, guidance=card["guidance"].strip(), search={"card": card})]
        meta = {"id": "candidate", "group": card["group"], "priority": 0, "card_id": card_id,
                "description": card["title"][:200]}
        source = wrap_code(card["module_code"], meta, doc=card["title"], support=[], counterexamples=[])
        problems = check_module_source(source)
        if problems:
            return [Draft(card_id, cluster["cluster_id"], cluster.get("kind", "residual"), "code", self.name, None, {},
                          source=source, search={"card": card, "policy_violations": problems[:10]})]
        # Drafted code runs nowhere in this process before the audit (static check, then two
        # sandboxed child processes) has run it on the cluster and its counterexamples.
        from tasks.construct.audit import MAX_AUDIT_CASES, audit_module

        idx = list(cluster["indices"])[: MAX_AUDIT_CASES // 2] + list(counter_idx)[: MAX_AUDIT_CASES // 2]
        cases = [{"question": state.triples[i].question, "reference": state.triples[i].reference,
                  "response": state.triples[i].response, "expected": "PASS" if state.labels[i] else "FAIL"}
                 for i in idx]
        audit = audit_module(source, cases=cases, cpu_seconds=cfg.audit_cpu_seconds, memory_mb=cfg.audit_memory_mb,
                             filename=f"<{card_id}>")
        if not audit.passed:
            return [Draft(card_id, cluster["cluster_id"], cluster.get("kind", "residual"), "code", self.name, None, {},
                          source=source, search={"card": card, "audit": {"stage": audit.stage, "reason": audit.reason,
                                                                         "violations": list(audit.violations)[:10]}})]
        try:
            ns = load_module_source(source, filename=f"<{card_id}>")
        except (ModulePolicyError, SyntaxError) as e:
            return [Draft(card_id, cluster["cluster_id"], cluster.get("kind", "residual"), "code", self.name, None, {},
                          source=source, search={"card": card, "policy_violations": [str(e)]})]
        labels = [o.get("label") if isinstance(o, dict) else o for o in audit.outputs][: len(cluster["indices"])]
        fixed = sum(1 for lab, i in zip(labels, cluster["indices"], strict=False)
                    if lab != "ABSTAIN" and (lab == "PASS") == state.labels[i])
        return [Draft(card_id, cluster["cluster_id"], cluster.get("kind", "residual"), "code", self.name, None, {},
                      source=source, decide=ns.decide, search={"card": card, "cluster_fixed": fixed})]
