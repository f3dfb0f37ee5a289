"""A scripted stand-in for the runtime verifier, for adapter, server and batch tests.

It follows the runtime's contract (``verify``, ``verify_batch``, ``artifact_version``,
``modules``, :class:`~verifier_runtime.types.Verdict`) with simple deterministic rules, so
these tests exercise the adapters' own logic and stay independent of the learned modules:

* empty response -> FAIL by ``guard.no_answer`` with reason ``invalid:no_answer``;
* reference starting with ``?`` -> every module abstains: the fallback decides (or, with
  ``fallback="none"``, ``correct=None``);
* otherwise the response's last token (stripped of punctuation) must equal the reference.

A response containing ``SLEEP`` makes the call sleep ``delay_s`` (concurrency tests).
"""

from __future__ import annotations

import time
from collections import namedtuple
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from verifier_runtime.types import Verdict

ModuleInfo = namedtuple("ModuleInfo", "id group priority card_id")

LOADS: list[tuple[Any, Any, dict]] = []  # every construction, for cache tests


class FakeVerifier:
    artifact_version = "r-test"
    modules = (ModuleInfo("guard.no_answer", "invalid-answer guard", 0, "c0"),
               ModuleInfo("match.last_token", "verdict matching", 1, "c1"))

    def __init__(self, artifact: Any = None, fallback: Any = "offline", delay_s: float = 0.3, **options: Any):
        self.artifact = artifact
        self.fallback = fallback
        self.delay_s = delay_s
        self.options = options
        LOADS.append((artifact, fallback, options))

    @staticmethod
    def _token(text: str) -> str:
        parts = text.strip().split()
        return parts[-1].strip(".,;:!?$") if parts else ""

    def verify(self, question: Any, reference: Any, response: Any) -> Verdict:
        t0 = time.perf_counter()
        q, r, s = (x if isinstance(x, str) else "" if x is None else str(x) for x in (question, reference, response))
        if "SLEEP" in s:
            time.sleep(self.delay_s)
        if not s.strip():
            correct, by, reason, fb = False, "guard.no_answer", "invalid:no_answer", False
        elif r.startswith("?"):
            if self.fallback == "none":
                correct, by, reason, fb = None, "none", "all modules abstained", False
            else:
                correct, by, reason, fb = (self._token(s) == r[1:].strip(), f"fallback:{self.fallback}",
                                           "fallback judged", True)
        else:
            ok = self._token(s) == r.strip()
            correct, by, reason, fb = ok, "match.last_token", "equal" if ok else "different", False
        ms = (time.perf_counter() - t0) * 1000
        trace = (("guard.no_answer", "ABSTAIN", ""),)
        return Verdict(correct, by, reason, fb, self.artifact_version, ms, trace)

    def verify_batch(self, rows, workers: int = 4) -> list[Verdict]:
        rows = list(rows)
        with ThreadPoolExecutor(max(1, workers)) as pool:
            return list(pool.map(lambda row: self.verify(row.get("question"), row.get("reference"),
                                                         row.get("response")), rows))


def make_fake_verifier(artifact: Any = None, fallback: Any = "offline", **options: Any) -> FakeVerifier:
    """Factory with ``load_verifier``'s signature."""
    return FakeVerifier(artifact, fallback, **options)
