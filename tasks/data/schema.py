"""The shared schemas every loader produces.

- :class:`Example`: one labelled verification triple (question, reference, response, label).
- :class:`QuestionItem`: a question with its reference answer and no response (MATH,
  OlympiadBench, SciBench, TheoremQA, ...): the base the constructed variants are made from.
- :class:`ResponseText`: a real model response with no correctness label (ZeroEval, MMLU-Pro
  where the response states no answer): a *carrier* whose final answer span the constructed
  variants replace.

Every labelled example says where its label comes from in ``meta["label_provenance"]``
(:data:`LABEL_PROVENANCES`, read with :attr:`Example.label_provenance`).
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field
from typing import Any

#: Who or what set an example's label: a person, a benchmark's own automatic scoring, or the
#: rule of a constructed variant type (``constructed:<variant type>``).
LABEL_PROVENANCES = ("human", "official_auto", "constructed")


@dataclass(slots=True)
class Example:
    """One labelled verification triple.

    ``label`` is True when the response's final answer is correct against the reference.
    ``split`` is ``construction``, ``validation``, ``holdout`` or ``evaluation`` (or a
    pool-specific name); ``meta`` holds source-specific fields (answer_type, original ids,
    line numbers, ``label_provenance``, ``question_key``, ...).
    """

    id: str
    question: str
    reference: str
    response: str
    label: bool
    source: str
    domain: str = ""
    split: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def label_provenance(self) -> str:
        """``human``, ``official_auto`` or ``constructed:<rule>``; empty when the loader did not say."""
        return str((self.meta or {}).get("label_provenance", ""))

    @property
    def question_key(self) -> str:
        """The key of the question this example belongs to (shared by every source that asks it)."""
        return str((self.meta or {}).get("question_key") or question_key(self.question))


@dataclass(slots=True)
class QuestionItem:
    """A question with its reference answer (no response, no label).

    ``answer`` is the bare final answer the reference states (``reference`` may add a unit);
    ``answer_object`` is one of :data:`tasks.data.answers.ANSWER_OBJECTS` (a person's label
    where the source has one: ``meta["answer_object_from"]`` says which).
    """

    id: str
    question: str
    reference: str
    answer: str
    answer_object: str
    source: str
    domain: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def question_key(self) -> str:
        return str(self.meta.get("question_key") or question_key(self.question))


@dataclass(slots=True)
class ResponseText:
    """A real model response to a question, without a correctness label.

    ``answer`` is the response's own final answer as the source records it (ZeroEval's
    ``answer`` field, MMLU-Pro's ``pred``); ``reference`` is the question's reference.
    """

    id: str
    question: str
    reference: str
    text: str
    source: str
    model: str = ""
    answer: str = ""
    domain: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def question_key(self) -> str:
        return str(self.meta.get("question_key") or question_key(self.question))


def stable_id(*parts: str) -> str:
    """A short deterministic id from text parts (sha256 prefix)."""
    h = hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass")).hexdigest()
    return h[:16]


def question_key(question: str) -> str:
    """The normalised key of a question (NFKC, lower case, punctuation to spaces), hashed.

    The same question asked by several sources (ZeroEval's problems are MATH problems) gets one
    key, and the pool splits by it, so a question is never on two sides of a split.
    """
    from tasks.data.decontam import normalize_text

    return stable_id("q", normalize_text(question))
