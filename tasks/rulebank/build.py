"""Test, build, diff, explain and snapshot: what ``autoverifier rules ...`` does with the source.

``build`` freezes the active modules into the next release, deterministically: the same
source and toolkit give the same bytes (no timestamps; files, keys and modules in a fixed
order). Before it writes anything it checks every active module against the sandbox policy
and runs its cases; it records the toolkit fingerprint (:mod:`verifier_runtime.fingerprint`)
and writes a CHANGELOG (modules added, changed, retired; figures on the fixed probe set).
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tasks.rulebank.source import RuleBank, RuleBankError, SourceModule, cases_jsonl, compose_module
from verifier_runtime.artifact import (
    MANIFEST,
    Artifact,
    ArtifactError,
    ModuleEntry,
    ReleaseSpec,
    load_artifact,
    release_files,
    release_version,
    releases,
    sha256_text,
    write_release,
)
from verifier_runtime.triple import Triple

CASE_BUDGET_S = 5.0  # a module's time on one of its cases (generous: a slow machine must not fail a case)


# --------------------------------------------------------------------------------------
# Cases
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CaseResult:
    module_id: str
    index: int  # 1-based line in cases.jsonl
    expected: str
    got: str
    reason: str

    @property
    def ok(self) -> bool:
        return self.expected == self.got


def load_decide(module: SourceModule):
    """The module's ``decide`` as a release would load it (composed, checked by the sandbox policy)."""
    from verifier_runtime.sandbox import ModulePolicyError, load_module_source

    source = compose_module(module)
    try:
        return load_module_source(source, filename=f"{module.id}.py").decide
    except ModulePolicyError as e:
        raise RuleBankError(f"{module.id}: the module policy refuses it: {e}") from e
    except SyntaxError as e:
        raise RuleBankError(f"{module.id}: does not compile: {e}") from e


def run_cases(module: SourceModule) -> list[CaseResult]:
    """The module's decision on each of its cases (a module that cannot load fails every case)."""
    from verifier_runtime.cascade import run_decide

    decide = load_decide(module)
    out = []
    for i, case in enumerate(module.cases, start=1):
        d = run_decide(decide, Triple(case["question"], case["reference"], case["response"]), CASE_BUDGET_S)
        out.append(CaseResult(module.id, i, case["expected"], d.label, d.reason))
    return out


def check_modules(modules: list[SourceModule]) -> dict[str, list[CaseResult] | str]:
    """Every module's case results, or the reason it cannot be tested (no cases, does not load)."""
    out: dict[str, list[CaseResult] | str] = {}
    for m in modules:
        if not m.cases:
            out[m.id] = "no cases: a module needs gold-labelled cases before it can be built"
            continue
        try:
            out[m.id] = run_cases(m)
        except RuleBankError as e:
            out[m.id] = str(e)
    return out


def failures(results: dict[str, list[CaseResult] | str]) -> list[str]:
    """One line per failed case or untestable module."""
    lines = []
    for mid, res in results.items():
        if isinstance(res, str):
            lines.append(f"{mid}: {res}")
            continue
        lines += [f"{mid} case {r.index}: expected {r.expected}, got {r.got} ({r.reason})" for r in res if not r.ok]
    return lines


# --------------------------------------------------------------------------------------
# The fixed probe set: figures, verdict changes, snapshot
# --------------------------------------------------------------------------------------


def fixed_set() -> list[dict[str, Any]]:
    """The fixed triples (with a label where one is known) shipped as ``verifier_runtime/probes.json``."""
    from verifier_runtime.fingerprint import PROBES_FILE

    return json.loads(PROBES_FILE.read_text(encoding="utf-8"))


def artifact_from_spec(spec: ReleaseSpec) -> Artifact:
    """The release ``spec`` describes, in memory, exactly as it would load from disk."""
    data = release_files(spec)
    manifest = json.loads(data[MANIFEST])
    return Artifact(spec.version, manifest, {k: v.decode("utf-8") for k, v in data.items() if k != MANIFEST},
                    f"<release {spec.version} being built>")


def verdicts_on_fixed_set(artifact: Artifact, fallback: str = "offline") -> list[tuple[str, bool | None, str]]:
    """``(decided_by, correct, reason)`` of ``artifact`` on every fixed triple."""
    from verifier_runtime import load_verifier

    v = load_verifier(artifact, fallback=fallback, check_toolkit=False, budget_s=30.0, module_budget_s=5.0)
    rows = [{"question": r["question"], "reference": r["reference"], "response": r["response"]} for r in fixed_set()]
    return [(x.decided_by, x.correct, x.reason) for x in v.verify_batch(rows)]


def figures(artifact: Artifact) -> dict[str, Any]:
    """Figures on the labelled fixed triples, offline judge: accuracy, direct decisions, direct
    errors, and decisions per module."""
    rows = fixed_set()
    verdicts = verdicts_on_fixed_set(artifact)
    labelled = [(r["label"], v) for r, v in zip(rows, verdicts, strict=True) if isinstance(r.get("label"), bool)]
    direct = [(label, v) for label, v in labelled if not v[0].startswith("fallback:")]
    return {
        "n": len(labelled),
        "accuracy": round(sum(v[1] == label for label, v in labelled) / max(1, len(labelled)), 4),
        "direct": len(direct),
        "direct_errors": sum(v[1] != label for label, v in direct),
        "by_module": dict(sorted(Counter(v[0] for _, v in direct).items())),
    }


def verdict_changes(a: Artifact, b: Artifact) -> list[dict[str, Any]]:
    """The fixed triples whose verdict (decider or correctness) differs between ``a`` and ``b``."""
    rows = fixed_set()
    out = []
    for i, (row, va, vb) in enumerate(zip(rows, verdicts_on_fixed_set(a), verdicts_on_fixed_set(b), strict=True)):
        if va[:2] != vb[:2]:
            out.append({"index": i, "question": row["question"][:120], "reference": row["reference"][:80],
                        "response": row["response"][-120:], "label": row.get("label"),
                        a.version: {"decided_by": va[0], "correct": va[1]},
                        b.version: {"decided_by": vb[0], "correct": vb[1]}})
    return out


# --------------------------------------------------------------------------------------
# Build
# --------------------------------------------------------------------------------------


def card_for_release(module: SourceModule) -> dict[str, Any]:
    return {**module.card, "module_id": module.id}


def _pools(mods: list[Any]) -> dict[str, dict[str, Any]]:
    """The construction pools the modules were learned from, by pool hash: the modules, the
    pool's size and (for cards that record it) its composition."""
    out: dict[str, dict[str, Any]] = {}
    for m in mods:
        pool = ((m.card.get("learned") or {}).get("pool")) or {}
        key = str(pool.get("hash") or "unknown")
        entry = out.setdefault(key, {"modules": [], "size": pool.get("size")})
        entry["modules"].append(m.id)
        if pool.get("composition") and "composition" not in entry:
            entry["composition"] = pool["composition"]
    return dict(sorted(out.items()))


def release_spec(bank: RuleBank, version: str, modules: list[SourceModule] | None = None,
                 base: Artifact | None = None) -> ReleaseSpec:
    """The release of the active modules (or ``modules``), its toolkit fingerprint and CHANGELOG."""
    from verifier_runtime.fingerprint import fingerprint
    from verifier_runtime.verifier import Verifier

    mods = bank.modules("active") if modules is None else modules
    template, guidance = bank.prompt()
    if template is None:
        from verifier_runtime.fallback.prompt import DEFAULT_TEMPLATE

        template = DEFAULT_TEMPLATE
    entries = []
    cards: dict[str, dict[str, Any]] = {}
    files: dict[str, str] = {}
    for m in mods:
        source = compose_module(m)
        card_id = str(m.card.get("card_id") or m.id)
        entries.append((ModuleEntry(m.id, m.group, m.priority, card_id, _description(m)), source))
        cards[card_id] = card_for_release(m)
        files[f"cases/{m.id}.jsonl"] = cases_jsonl(m.cases)
    provenance = {"built_from": "rule bank source (active modules)", "base_release": base.version if base else None,
                  "modules": {m.id: {"revision": int(m.card.get("revision", 1)), "card_id": str(m.card.get("card_id"))}
                              for m in mods},
                  "pools": _pools(mods)}
    spec = ReleaseSpec(version=version, modules=entries, cards=cards, template=template, guidance=guidance,
                       provenance=provenance, files=files)
    art = artifact_from_spec(spec)
    probe = Verifier(art, None, check_toolkit=False, warmup=False, module_budget_s=5.0).probe_verdicts()
    spec.toolkit = fingerprint(probe)
    spec.files = {**files, "CHANGELOG.md": changelog(artifact_from_spec(spec), base)}
    return spec


def _description(m: SourceModule) -> str:
    from tasks.rulebank.source import module_metadata

    return str(module_metadata(m)["description"])


def next_release_version(bank: RuleBank) -> str:
    found = releases(bank.root)
    n = release_version(found[-1].name) if found else 0
    return f"r{(n or 0) + 1:04d}"


def same_release(a: Artifact, spec: ReleaseSpec) -> bool:
    """Whether ``spec`` would ship exactly what ``a`` ships (modules, cards, cases, prompt, toolkit)."""
    b = artifact_from_spec(spec)
    skip = ("CHANGELOG.md",)
    fa = {k: v for k, v in a.files.items() if k not in skip}
    fb = {k: v for k, v in b.files.items() if k not in skip}
    return fa == fb and a.manifest.get("toolkit") == b.manifest.get("toolkit")


@dataclass(frozen=True)
class BuildResult:
    path: Path | None
    version: str
    unchanged_from: str | None = None


def build(bank: RuleBank, version: str | None = None, *, dest: Path | None = None, force: bool = False) -> BuildResult:
    """Freeze the active modules into the next release (``rulebank/releases/rNNNN``).

    Refuses (:class:`RuleBankError`) when a module fails its cases or the policy, when there is
    no active module, or when the version exists. When nothing changed since the newest
    release it writes nothing (``force`` builds anyway).
    """
    mods = bank.modules("active")
    if not mods:
        raise RuleBankError(f"no active module in {bank.modules_dir}: nothing to build")
    bad = failures(check_modules(mods))
    if bad:
        raise RuleBankError("cases fail, nothing was built:\n  " + "\n  ".join(bad[:40]))
    found = releases(bank.root)
    base = load_artifact(found[-1]) if found else None
    version = version or next_release_version(bank)
    spec = release_spec(bank, version, mods, base)
    if base is not None and not force and dest is None and same_release(base, spec):
        return BuildResult(None, version, unchanged_from=base.version)
    target = dest if dest is not None else bank.releases_dir / version
    if target.exists():
        raise RuleBankError(f"{target} exists: a release is never overwritten")
    path = write_release(spec, target)
    if dest is None:
        write_changelog(bank)
    return BuildResult(path, version)


# --------------------------------------------------------------------------------------
# Diff and CHANGELOG
# --------------------------------------------------------------------------------------


def module_changes(a: Artifact | None, b: Artifact) -> dict[str, list[str]]:
    """Modules added, changed (source or card), and removed (retired) from ``a`` to ``b``."""
    ma = {e.id: e for e in a.modules} if a else {}
    mb = {e.id: e for e in b.modules}
    changed = []
    for mid in sorted(set(ma) & set(mb)):
        if a is not None and (a.files[ma[mid].file] != b.files[mb[mid].file]
                              or a.files.get(f"cards/{ma[mid].card_id}.json") != b.files.get(f"cards/{mb[mid].card_id}.json")):
            changed.append(mid)
    return {"added": sorted(set(mb) - set(ma)), "changed": changed, "removed": sorted(set(ma) - set(mb))}


def _card(art: Artifact, entry: ModuleEntry) -> dict[str, Any]:
    text = art.files.get(f"cards/{entry.card_id}.json")
    return json.loads(text) if text else {}


def _param_diff(a: dict[str, Any], b: dict[str, Any]) -> str:
    pa = {k: v.get("value") if isinstance(v, dict) else v for k, v in (a.get("parameters") or a.get("params") or {}).items()}
    pb = {k: v.get("value") if isinstance(v, dict) else v for k, v in (b.get("parameters") or b.get("params") or {}).items()}
    parts = [f"{k}: {pa.get(k)!r} -> {pb.get(k)!r}" for k in sorted(set(pa) | set(pb)) if pa.get(k) != pb.get(k)]
    return "; ".join(parts)


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def changelog(new: Artifact, base: Artifact | None) -> str:
    """The CHANGELOG of release ``new`` against ``base`` (deterministic text)."""
    ch = module_changes(base, new)
    by_id = {e.id: e for e in new.modules}
    old = {e.id: e for e in base.modules} if base else {}
    tk = new.manifest.get("toolkit") or {}
    lines = [f"# {new.version}", "",
             f"Built from the rule bank source: {len(new.modules)} active modules"
             + (f", against {base.version}" if base else "") + f"; toolkit {str(tk.get('sha256', ''))[:12]}.", ""]
    if base is not None and (base.manifest.get("toolkit") or {}).get("sha256") != tk.get("sha256"):
        lines += [f"The toolkit differs from the one {base.version} was built with"
                  + (" (none recorded)" if not base.manifest.get("toolkit") else "") + ".", ""]
    lines += ["## Modules", ""]
    for mid in ch["added"]:
        c = _card(new, by_id[mid])
        lines.append(f"- added `{mid}` ({by_id[mid].group}, priority {by_id[mid].priority}): "
                     + " ".join(str(c.get("why", "")).split())[:300])
    for mid in ch["changed"]:
        a, b = _card(base, old[mid]) if base else {}, _card(new, by_id[mid])
        diff = _param_diff(a, b)
        same_rev = a.get("revision", 1) == b.get("revision", 1)
        lines.append(f"- changed `{mid}`: " + (f"parameters {diff}" if diff else "code or card")
                     + ("" if same_rev else f" (revision {a.get('revision', 1)} -> {b.get('revision', 1)})"))
    for mid in ch["removed"]:
        lines.append(f"- retired `{mid}`")
    if not any(ch.values()):
        lines.append("- no module added, changed or retired")
    f = figures(new)
    fb = figures(base) if base else None
    lines += ["", f"## Figures on the fixed set ({f['n']} labelled triples, offline judge)", "",
              "| figure | " + (f"{base.version} | " if base else "") + f"{new.version} |",
              "|---|" + ("---|" if base else "") + "---|"]
    for key, fmt in (("accuracy", _pct), ("direct", str), ("direct_errors", str)):
        lines.append(f"| {key.replace('_', ' ')} | " + (f"{fmt(fb[key])} | " if fb else "") + f"{fmt(f[key])} |")
    lines += ["", "Direct decisions by module: " + (", ".join(f"{k} {v}" for k, v in f["by_module"].items()) or "none")]
    if base is not None:
        changes = verdict_changes(base, new)
        lines += ["", f"Verdict changes on the fixed set against {base.version}: {len(changes)}."]
        for c in changes[:10]:
            lines.append(f"- #{c['index']} ({c['reference'][:40]!r}): {c[base.version]['decided_by']} "
                         f"{c[base.version]['correct']} -> {c[new.version]['decided_by']} {c[new.version]['correct']}")
    lines += ["", "Module evidence (construction replay, at acceptance):", ""]
    for e in new.modules:
        fr = ((_card(new, e).get("evidence") or {}).get("full_replay")) or {}
        if fr:
            lines.append(f"- `{e.id}`: {fr.get('new_direct_decisions')} new direct decisions, "
                         f"{fr.get('corrections')} corrections, {fr.get('new_direct_errors')} tolerated errors")
    return "\n".join(lines).rstrip() + "\n"


def _summary_of_old_release(art: Artifact) -> str:
    prov = art.manifest.get("provenance") or {}
    m = prov.get("metrics") or {}
    lines = [f"# {art.version}", "",
             f"Frozen by construction round {prov.get('round')} (base {prov.get('base_release')}), before releases "
             f"were built from the source: {len(art.modules)} modules; accepted "
             f"{', '.join(prov.get('accepted') or []) or 'none'}."]
    if m:
        lines += ["", f"Construction pool ({m.get('n')} examples): accuracy {_pct(m.get('accuracy', 0))}, direct "
                  f"coverage {_pct(m.get('coverage', 0))}, {m.get('direct_errors')} direct errors."]
    return "\n".join(lines) + "\n"


def write_changelog(bank: RuleBank) -> Path:
    """``rulebank/CHANGELOG.md``: every release's CHANGELOG, newest first (a release built before
    the source layout gets a summary from its manifest)."""
    parts = []
    for p in reversed(releases(bank.root)):
        art = load_artifact(p)
        parts.append(art.files.get("CHANGELOG.md") or _summary_of_old_release(art))
    path = bank.root / "CHANGELOG.md"
    text = "# Rule bank releases\n\nNewest first. Each release's own CHANGELOG.md is inside it.\n\n" + "\n".join(parts)
    path.write_text(text, encoding="utf-8")
    return path


def diff(a: Artifact, b: Artifact) -> dict[str, Any]:
    """What changed from release ``a`` to ``b``: modules, and verdicts on the fixed set."""
    return {"from": a.version, "to": b.version, "modules": module_changes(a, b),
            "toolkit": {"from": (a.manifest.get("toolkit") or {}).get("sha256"),
                        "to": (b.manifest.get("toolkit") or {}).get("sha256")},
            "verdict_changes": verdict_changes(a, b), "fixed_set": len(fixed_set())}


def resolve_release(bank: RuleBank, name: str) -> Artifact:
    """A release by name (``r0003``: under the bank's releases) or by path."""
    p = Path(name)
    if release_version(name) is not None and not p.exists():
        p = bank.releases_dir / name
    try:
        return load_artifact(p)
    except ArtifactError as e:
        raise RuleBankError(str(e)) from e


# --------------------------------------------------------------------------------------
# Explain
# --------------------------------------------------------------------------------------


def explain(verifier: Any, question: str, reference: str, response: str) -> dict[str, Any]:
    """Every module's decision on one triple, who decided, and what the judge says."""
    x = Triple(question, reference, response)
    t0 = time.perf_counter()
    decisions = verifier.cascade.decide_all(x)
    run = verifier.run_cascade(Triple(question, reference, response))
    decided = None if run.decided is None else verifier.cascade.ids[run.decided]
    judge = None
    if verifier.fallback is not None:
        res = verifier.fallback_result(x)
        judge = {"name": verifier.fallback_name, "correct": res.correct, "reason": res.reason}
    verdict = verifier.verify(question, reference, response)
    return {"release": verifier.artifact_version, "answer": x.answer, "reference_answer": x.ref,
            "modules": [{"id": mid, "label": d.label, "reason": d.reason, "decides": mid == decided}
                        for mid, d in decisions],
            "decided_by": verdict.decided_by, "correct": verdict.correct, "reason": verdict.reason,
            "judge": judge, "elapsed_ms": round((time.perf_counter() - t0) * 1000.0, 2)}


# --------------------------------------------------------------------------------------
# Snapshot of the shipped release
# --------------------------------------------------------------------------------------


def snapshot(artifact: Artifact) -> dict[str, Any]:
    """The shipped release's verdicts on the fixed set, with the toolkit they were taken under."""
    from verifier_runtime.fingerprint import toolkit_hash

    return {"release": artifact.version, "toolkit_sha256": toolkit_hash()[0], "fallback": "offline",
            "fixed_set_sha256": sha256_text(json.dumps(fixed_set(), ensure_ascii=True)),
            "verdicts": [list(v) for v in verdicts_on_fixed_set(artifact)]}


def snapshot_differences(recorded: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """Readable differences between a recorded snapshot and the current one (empty: equal)."""
    out = []
    for key in ("release", "toolkit_sha256", "fallback", "fixed_set_sha256"):
        if recorded.get(key) != now.get(key):
            out.append(f"{key}: {str(recorded.get(key))[:16]} -> {str(now.get(key))[:16]}")
    rows = fixed_set()
    old, new = recorded.get("verdicts") or [], now["verdicts"]
    for i, (a, b) in enumerate(zip(old, new, strict=False)):
        if list(a) != list(b):
            out.append(f"triple #{i} ({rows[i]['reference'][:40]!r}): {a} -> {b}")
    if len(old) != len(new):
        out.append(f"{len(old)} recorded verdicts, {len(new)} now")
    return out
