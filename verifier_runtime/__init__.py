"""AutoVerifier runtime: load a frozen artifact and verify (question, reference, response) triples.

>>> from verifier_runtime import load_verifier
>>> v = load_verifier()                                   # newest shipped release, offline fallback
>>> v.verify("What is 2+2?", "4", "So the answer is $\\boxed{4}$.").correct
True

Light on purpose: no Prefect, DuckDB, polars, UMAP or torch imports; sympy and pint are
imported lazily, on the first answer that needs them.
"""

from verifier_runtime.artifact import Artifact, ArtifactError, load_artifact, newest_release
from verifier_runtime.fallback.base import Fallback
from verifier_runtime.limits import BudgetExceeded
from verifier_runtime.triple import Triple
from verifier_runtime.types import ABSTAIN, FAIL, PASS, Decision, FallbackResult, Verdict
from verifier_runtime.verifier import ModuleInfo, Verifier, load_verifier

__version__ = "0.1.0"

__all__ = [
    "ABSTAIN",
    "FAIL",
    "PASS",
    "Artifact",
    "ArtifactError",
    "BudgetExceeded",
    "Decision",
    "Fallback",
    "FallbackResult",
    "ModuleInfo",
    "Triple",
    "Verdict",
    "Verifier",
    "load_artifact",
    "load_verifier",
    "newest_release",
]
