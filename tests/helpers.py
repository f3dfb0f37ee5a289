"""Helpers shared by tests: building small releases from module sources."""

from __future__ import annotations

from pathlib import Path

from verifier_runtime.artifact import ModuleEntry, ReleaseSpec, write_release


def module_source(mid: str, body: str, *, group: str = "verdict_matching", priority: int = 10,
                  imports: str = "") -> str:
    """A policy-compliant module whose ``decide`` body is ``body`` (indented by 4 spaces)."""
    indented = "\n".join("    " + ln if ln.strip() else ln for ln in body.strip("\n").splitlines())
    return (
        f'"""Test module {mid}."""\n\n'
        f"{imports}\n"
        "from verifier_runtime.types import Decision\n\n"
        f"MODULE = {{'id': {mid!r}, 'group': {group!r}, 'priority': {priority}, 'card_id': 'card-{mid}', "
        f"'description': 'test module'}}\n\n\n"
        f"def decide(x):\n{indented}\n\n\n"
        "SUPPORT = []\n\nCOUNTEREXAMPLES = []\n"
    )


def build_release(dest: Path, modules: list[tuple[str, str, str, int]], version: str = "r0001",
                  guidance: str = "") -> Path:
    """``modules``: (id, group, source, priority)."""
    spec = ReleaseSpec(
        version=version,
        modules=[(ModuleEntry(mid, group, prio, f"card-{mid}", "test"), src) for mid, group, src, prio in modules],
        template="Q: {question}\nR: {reference}\nA: {response}\n{guidance}\nFinal Judgment: Yes or No",
        guidance=guidance,
    )
    return write_release(spec, dest)
