"""``autoverifier rules ...``: list, show, explain, test, activate, retire, restore, diff, build, snapshot.

Thin commands over :mod:`tasks.rulebank`; ``--rulebank`` (or ``$AUTOVERIFIER_RULEBANK``) picks
the rule bank, ``rulebank/`` of the checkout by default.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import typer

rules = typer.Typer(help="The rule bank: read, test, review and build its modules.", no_args_is_help=True)

RULEBANK_OPT = typer.Option(None, "--rulebank", "-r", help="Rule bank directory (default: $AUTOVERIFIER_RULEBANK "
                                                             "or the checkout's rulebank/).")


def _bank(path: Path | None):
    from tasks.rulebank.source import RuleBank
    from verifier_runtime.artifact import rulebank_dir

    return RuleBank(path if path is not None else rulebank_dir())


def _fail(message: str, code: int = 1) -> None:
    typer.secho(message, fg=typer.colors.RED, err=True)
    raise typer.Exit(code)


def _guard(fn):
    """Run ``fn``; a rule bank or artifact problem becomes a red message and exit code 2."""
    from tasks.rulebank.source import RuleBankError
    from verifier_runtime.artifact import ArtifactError

    try:
        return fn()
    except (RuleBankError, ArtifactError) as e:
        _fail(f"error: {e}", 2)


def _console():
    from rich.console import Console

    return Console(width=None if Console().is_terminal else 140)


@rules.command("list")
def list_cmd(status: str | None = typer.Option(None, "--status", help="preview | active | retired"),
             rulebank: Path | None = RULEBANK_OPT) -> None:
    """The modules in cascade order, with their status and evidence."""
    from rich.table import Table

    bank = _bank(rulebank)
    mods = _guard(lambda: bank.modules(status))
    t = Table(title=f"Modules in {bank.modules_dir}")
    for col in ("id", "status", "group", "priority", "template", "rev", "direct on pool", "tolerated", "cases"):
        t.add_column(col, overflow="fold")
    for m in mods:
        fr = (m.card.get("evidence") or {}).get("full_replay") or {}
        t.add_row(m.id, m.status, m.group, str(m.priority), str(m.card.get("template") or "-"),
                  str(m.card.get("revision", 1)), str(fr.get("new_direct_decisions", "-")),
                  str(len(m.card.get("tolerated_errors") or [])), str(len(m.cases)))
    _console().print(t)
    rejected = len(bank.rejected()) if bank.rejected_dir.is_dir() else 0
    _console().print(f"{len(mods)} modules; {rejected} rejected cards in {bank.rejected_dir}")


@rules.command("show")
def show_cmd(module_id: str = typer.Argument(..., help="Module id, e.g. m004_final_number."),
             rulebank: Path | None = RULEBANK_OPT) -> None:
    """The module's card, code and cases."""
    from tasks.rulebank.source import CARD_FILE, CODE_FILE, card_yaml

    m = _guard(lambda: _bank(rulebank).module(module_id))
    con = _console()
    con.rule(f"{m.id}/{CARD_FILE}")
    con.print(card_yaml(m.card), markup=False, highlight=False)
    con.rule(f"{m.id}/{CODE_FILE}")
    con.print(m.code or "", markup=False, highlight=False)
    con.rule(f"{m.id}/cases.jsonl ({len(m.cases)} cases)")
    for c in m.cases:
        con.print(f"{c['expected']:<7} Q: {c['question'][:70]!r}  R: {c['reference'][:40]!r}  "
                  f"S: {c['response'][-60:]!r}  ({c.get('label_provenance', c.get('source', ''))[:60]})",
                  markup=False, highlight=False)


@rules.command("explain")
def explain_cmd(question: str = typer.Argument(...), reference: str = typer.Argument(...),
                response: str = typer.Argument(...),
                artifact: str | None = typer.Option(None, "--artifact", help="A release (default: the shipped one)."),
                source: bool = typer.Option(False, "--source", help="The source's active modules instead of a release."),
                fallback: str = typer.Option("offline", "--fallback", help="offline | none | openai | anthropic"),
                json_out: bool = typer.Option(False, "--json", help="Print JSON."),
                rulebank: Path | None = RULEBANK_OPT) -> None:
    """Every module's decision on one triple: who decided, who abstained and why, what the judge says."""
    from tasks.rulebank.build import artifact_from_spec, explain, release_spec
    from verifier_runtime import load_verifier

    def run():
        if source:
            bank = _bank(rulebank)
            art = artifact_from_spec(release_spec(bank, "r9999", bank.modules("active")))
            v = load_verifier(art, fallback=fallback, check_toolkit=False)
        else:
            v = load_verifier(artifact, fallback=fallback)
        return explain(v, question, reference, response)

    out = _guard(run)
    if json_out:
        typer.echo(json.dumps(out, indent=2, ensure_ascii=False))
        return
    con = _console()
    con.print(f"release {out['release']}: answer {out['answer']!r}, reference {out['reference_answer']!r}",
              markup=False)
    for m in out["modules"]:
        mark = "->" if m["decides"] else "  "
        con.print(f" {mark} {m['id']:<28} {m['label']:<8} {m['reason']}", markup=False, highlight=False)
    j = out["judge"]
    if j is not None:
        con.print(f"    judge {j['name']}: correct={j['correct']} ({j['reason']})"
                  + ("" if out["decided_by"].startswith("fallback:") else "  [not asked: a module decided]"),
                  markup=False)
    con.print(f"verdict: correct={out['correct']} decided_by={out['decided_by']} reason={out['reason']}", markup=False)


@rules.command("test")
def test_cmd(module_id: str | None = typer.Argument(None, help="One module (default: every module)."),
             rulebank: Path | None = RULEBANK_OPT) -> None:
    """Run the modules' gold-labelled cases (exit 1 when one fails)."""
    from tasks.rulebank.build import check_modules, failures

    bank = _bank(rulebank)
    mods = _guard(lambda: [bank.module(module_id)] if module_id else bank.modules(("preview", "active")))
    results = _guard(lambda: check_modules(mods))
    for mid, res in results.items():
        if isinstance(res, str):
            typer.echo(f"{mid}: cannot be tested: {res}")
        else:
            typer.echo(f"{mid}: {sum(r.ok for r in res)}/{len(res)} cases pass")
    bad = failures(results)
    if bad:
        _fail("\n".join(["FAILED:", *bad]))
    typer.echo(f"all cases of {len(results)} modules pass")


def _lifecycle(module_id: str, rulebank: Path | None, change) -> None:
    bank = _bank(rulebank)

    def run():
        m = bank.module(module_id)
        new = m.with_card(change(m.card))
        bank.save(new)
        return new

    new = _guard(run)
    typer.echo(f"{new.id}: {new.card['history'][-1]['from']} -> {new.status} "
               f"({new.card['history'][-1]['why']}); commit the change for review, then `autoverifier rules build`")


@rules.command("activate")
def activate_cmd(module_id: str = typer.Argument(...),
                 why: str = typer.Option(..., "--why", help="Why it may ship (reviewed with the commit)."),
                 rulebank: Path | None = RULEBANK_OPT) -> None:
    """preview -> active: the module goes into the next release."""
    from tasks.rulebank.lifecycle import activate

    _lifecycle(module_id, rulebank, lambda c: activate(c, why))


@rules.command("retire")
def retire_cmd(module_id: str = typer.Argument(...),
               why: str = typer.Option(..., "--why", help="Why it must leave the next release."),
               rulebank: Path | None = RULEBANK_OPT) -> None:
    """active (or preview) -> retired: the next release no longer has it."""
    from tasks.rulebank.lifecycle import retire

    _lifecycle(module_id, rulebank, lambda c: retire(c, why))


@rules.command("restore")
def restore_cmd(module_id: str = typer.Argument(...),
                why: str = typer.Option("restored", "--why", help="Why it comes back."),
                rulebank: Path | None = RULEBANK_OPT) -> None:
    """retired -> the status it had before."""
    from tasks.rulebank.lifecycle import restore

    _lifecycle(module_id, rulebank, lambda c: restore(c, why))


@rules.command("diff")
def diff_cmd(release_a: str = typer.Argument(..., help="A release name (r0003) or path."),
             release_b: str = typer.Argument(..., help="Another release."),
             json_out: bool = typer.Option(False, "--json", help="Print JSON."),
             rulebank: Path | None = RULEBANK_OPT) -> None:
    """Modules added, changed and retired, and the verdict changes on the fixed set."""
    from tasks.rulebank.build import diff, resolve_release

    bank = _bank(rulebank)
    d = _guard(lambda: diff(resolve_release(bank, release_a), resolve_release(bank, release_b)))
    if json_out:
        typer.echo(json.dumps(d, indent=2, ensure_ascii=False))
        return
    m = d["modules"]
    typer.echo(f"{d['from']} -> {d['to']}")
    for key, label in (("added", "added"), ("changed", "changed"), ("removed", "retired or removed")):
        typer.echo(f"  {label}: {', '.join(m[key]) or '-'}")
    if d["toolkit"]["from"] != d["toolkit"]["to"]:
        typer.echo(f"  toolkit: {str(d['toolkit']['from'])[:12]} -> {str(d['toolkit']['to'])[:12]}")
    typer.echo(f"verdict changes on the fixed set ({d['fixed_set']} triples, offline judge): {len(d['verdict_changes'])}")
    for c in d["verdict_changes"][:30]:
        a, b = c[d["from"]], c[d["to"]]
        typer.echo(f"  #{c['index']} R={c['reference'][:30]!r} S={c['response'][-40:]!r}: "
                   f"{a['decided_by']} {a['correct']} -> {b['decided_by']} {b['correct']} (label {c['label']})")


@rules.command("build")
def build_cmd(version: str | None = typer.Option(None, "--version", help="Release name (default: the next rNNNN)."),
              force: bool = typer.Option(False, "--force", help="Build even when nothing changed."),
              rulebank: Path | None = RULEBANK_OPT) -> None:
    """Freeze the active modules into the next release (after their cases pass)."""
    from tasks.rulebank.build import build

    bank = _bank(rulebank)
    res = _guard(lambda: build(bank, version, force=force))
    if res.path is None:
        typer.echo(f"nothing changed since {res.unchanged_from}: no release written (--force builds anyway)")
        return
    typer.echo(f"built {res.version}: {res.path} (CHANGELOG.md inside; {bank.root / 'CHANGELOG.md'} updated)")
    typer.echo("it is the default once committed; update the snapshot with `autoverifier rules snapshot --update`")


SNAPSHOT_FILE = "snapshot.json"


@rules.command("snapshot")
def snapshot_cmd(update: bool = typer.Option(False, "--update", help="Record the current verdicts."),
                 rulebank: Path | None = RULEBANK_OPT) -> None:
    """Check (or --update) the shipped release's verdicts on the fixed set against rulebank/snapshot.json."""
    from tasks.rulebank.build import snapshot, snapshot_differences
    from verifier_runtime.artifact import load_artifact, newest_release

    bank = _bank(rulebank)
    path = bank.root / SNAPSHOT_FILE

    def run():
        rel = newest_release(bank.root)
        if rel is None:
            raise FileNotFoundError(f"no release under {bank.releases_dir}")
        return snapshot(load_artifact(rel))

    try:
        now = _guard(run)
    except FileNotFoundError as e:
        _fail(f"error: {e}", 2)
    if update:
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(now, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(tmp, path)
        typer.echo(f"wrote {path}: {len(now['verdicts'])} verdicts of {now['release']}")
        return
    if not path.is_file():
        _fail(f"no snapshot at {path}: record one with `autoverifier rules snapshot --update`")
    diffs = snapshot_differences(json.loads(path.read_text(encoding="utf-8")), now)
    if diffs:
        _fail("\n".join([f"the shipped release's verdicts differ from {path}:", *diffs[:50],
                         "if the change is deliberate: `autoverifier rules snapshot --update` in the same commit"]))
    typer.echo(f"{now['release']}: {len(now['verdicts'])} verdicts match {path}")


def register(app: typer.Typer) -> None:
    app.add_typer(rules, name="rules")
