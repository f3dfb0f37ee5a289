"""``autoverifier verify`` (streaming batch verification), ``verify-one``, and release signing."""

from __future__ import annotations

import json
from pathlib import Path

import typer

FALLBACKS = ("none", "offline", "openai", "anthropic")


def _check_fallback(value: str) -> str:
    if value not in FALLBACKS:
        raise typer.BadParameter(f"choose one of {', '.join(FALLBACKS)}")
    return value


def _options(budget_s: float | None) -> dict:
    return {} if budget_s is None else {"budget_s": budget_s}


def register(app: typer.Typer) -> None:
    """Add ``verify``, ``verify-one`` and the release-signing commands to the CLI."""
    register_release_commands(app)

    @app.command("verify")
    def verify(
        input: Path = typer.Option(..., "--input", "-i", help="JSONL, Parquet or DuckDB file to verify."),
        output: Path = typer.Option(..., "--output", "-o", help="JSONL, Parquet or DuckDB file to write."),
        artifact: Path | None = typer.Option(None, help="Release directory or .tar.gz (default: newest release)."),
        fallback: str = typer.Option("offline", callback=_check_fallback, help="none | offline | openai | anthropic"),
        workers: int = typer.Option(4, min=1, help="Threads per chunk (local) or worker processes (dask)."),
        question_field: str = typer.Option("question", help="Input field holding the question."),
        reference_field: str = typer.Option("reference", help="Input field holding the reference answer."),
        response_field: str = typer.Option("response", help="Input field holding the response."),
        chunk_size: int = typer.Option(1000, min=1, help="Rows per chunk (memory and flush granularity)."),
        backend: str = typer.Option("local", help="local | dask"),
        address: str | None = typer.Option(None, help="Dask scheduler address (tcp://host:8786); "
                                                      "none starts a local cluster."),
        table: str | None = typer.Option(None, help="Table to read from a DuckDB input."),
        output_table: str | None = typer.Option(None, help="Table to write in a DuckDB output "
                                                           "(default: <table>_verified)."),
        skip_bad: bool = typer.Option(False, "--skip-bad", help="Skip malformed JSONL lines (listed in the "
                                                                "summary) instead of stopping."),
        budget_s: float | None = typer.Option(None, help="Time budget per triple, seconds."),
        factory: str | None = typer.Option(None, hidden=True, help="Custom verifier factory 'module:function'."),
    ) -> None:
        """Verify every row of a file, streaming, and write it back with the verdict fields."""
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
        from rich.table import Table

        from verifier_runtime.batch import (
            BadRecord,
            BatchError,
            Fields,
            VerifierSpec,
            count_rows,
            detect_format,
            run_batch,
        )

        err = Console(stderr=True)
        spec = VerifierSpec.make(artifact, fallback, factory, **_options(budget_s))
        try:
            total = count_rows(input, detect_format(input), table) if input.exists() else None
        except BatchError:
            total = None
        progress = Progress(TextColumn("[bold]verifying"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("{task.fields[rate]} rows/s"), TimeElapsedColumn(), console=err,
                            transient=False)
        summary = None
        failure: BaseException | None = None
        with progress:
            task = progress.add_task("verify", total=total, rate="-")
            started = [0.0]

            def on_chunk(n: int) -> None:
                import time

                if not started[0]:
                    started[0] = time.perf_counter()
                progress.advance(task, n)
                done = progress.tasks[0].completed
                elapsed = max(time.perf_counter() - started[0], 1e-9)
                progress.update(task, rate=f"{done / elapsed:,.0f}" if done > n else "-")

            try:
                summary = run_batch(input, output, spec=spec, chunk_size=chunk_size, backend=backend,
                                    address=address, workers=workers, table=table, output_table=output_table,
                                    skip_bad=skip_bad, on_chunk=on_chunk,
                                    fields=Fields(question_field, reference_field, response_field),
                                    warn=lambda m: err.print(f"[yellow]warning:[/] {m}"))
            except BadRecord as exc:
                failure = exc
                summary = getattr(exc, "summary", None)
            except BatchError as exc:
                failure = exc
                summary = getattr(exc, "summary", None)
            except Exception as exc:  # artifact errors and the like: one clear line, not a traceback
                failure = exc

        if summary is not None:
            t = Table(title="verdicts by decider", title_justify="left")
            t.add_column("decided_by")
            t.add_column("rows", justify="right")
            for name, n in summary.by_decider.most_common():
                t.add_row(name, f"{n:,}")
            err.print(t)
            err.print(f"rows {summary.rows:,}  correct {summary.correct:,}  incorrect {summary.incorrect:,}  "
                      f"abstained {summary.abstained:,}  fallback calls {summary.fallback_calls:,}  "
                      f"{summary.rows_per_s:,.0f} rows/s in {summary.elapsed_s:.1f}s  -> {output}")
            if summary.bad:
                lines = ", ".join(str(b.line) for b in summary.bad[:20])
                more = f" (and {len(summary.bad) - 20} more)" if len(summary.bad) > 20 else ""
                err.print(f"[yellow]skipped {len(summary.bad)} malformed line(s):[/] {lines}{more}")
                for b in summary.bad[:5]:
                    err.print(f"  line {b.line}: {b.message}")
        if failure is not None:
            written = summary.rows if summary is not None else 0
            partial = summary.partial_output if summary is not None else None
            kept = (f" The {written:,} row(s) verified before it are in {partial};" if partial else
                    " No row was verified;")
            if isinstance(failure, BadRecord):
                err.print(f"[red]error:[/] {input}: {failure}.{kept} {output} was left as it was. Fix the line or "
                          "pass --skip-bad.")
            else:
                err.print(f"[red]error:[/] {type(failure).__name__ + ': ' if not isinstance(failure, BatchError) else ''}"
                          f"{failure}")
            raise typer.Exit(1)

    @app.command("verify-one")
    def verify_one(
        question: str = typer.Argument(..., help="The question (may be empty)."),
        reference: str = typer.Argument(..., help="The reference answer."),
        response: str = typer.Argument(..., help="The response to check."),
        artifact: Path | None = typer.Option(None, help="Release directory or .tar.gz (default: newest release)."),
        fallback: str = typer.Option("offline", callback=_check_fallback, help="none | offline | openai | anthropic"),
        as_json: bool = typer.Option(False, "--json", help="Print the verdict as JSON, with its trace."),
        budget_s: float | None = typer.Option(None, help="Time budget, seconds."),
        factory: str | None = typer.Option(None, hidden=True, help="Custom verifier factory 'module:function'."),
    ) -> None:
        """Verify one triple and print the verdict with its reason."""
        from verifier_runtime.batch import VerifierSpec

        try:
            verifier = VerifierSpec.make(artifact, fallback, factory, **_options(budget_s)).load()
        except Exception as exc:
            typer.echo(f"error: cannot load the verifier: {type(exc).__name__}: {exc}", err=True)
            raise typer.Exit(1) from None
        v = verifier.verify(question, reference, response)
        if as_json:
            typer.echo(json.dumps(v.to_dict(with_trace=True), ensure_ascii=False))
            return
        label = {True: "CORRECT", False: "INCORRECT", None: "ABSTAIN"}[v.correct]
        typer.echo(f"{label}  decided by {v.decided_by}: {v.reason or '-'}")
        typer.echo(f"artifact {v.artifact_version}, fallback called: {'yes' if v.fallback_called else 'no'}, "
                   f"{v.elapsed_ms:.1f} ms")


def register_release_commands(app: typer.Typer) -> None:
    """``release-key``, ``release-sign`` and ``release-verify``: Ed25519-signed releases."""

    @app.command("release-key")
    def release_key(path: Path = typer.Argument(..., help="Where to write the private key (the public key "
                                                          "goes to PATH.pub).")) -> None:
        """Create a signing key pair; keep the private key secret, ship PATH.pub to training jobs."""
        from verifier_runtime.signing import SigningError, generate_key

        try:
            priv, pub = generate_key(path)
        except SigningError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(1) from None
        typer.echo(f"private key {priv} (mode 0600), public key {pub}")

    @app.command("release-sign")
    def release_sign(release: Path = typer.Argument(..., help="Release directory."),
                     key: Path = typer.Option(..., help="Private key file (from release-key).")) -> None:
        """Sign a release directory's manifest (writes manifest.sig)."""
        from verifier_runtime.artifact import load_artifact
        from verifier_runtime.signing import SigningError, sign_release

        try:
            load_artifact(release)  # never sign something that does not load
            out = sign_release(release, key)
        except Exception as exc:
            typer.echo(f"error: {type(exc).__name__}: {exc}" if not isinstance(exc, SigningError) else f"error: {exc}",
                       err=True)
            raise typer.Exit(1) from None
        typer.echo(f"signed: {out}")

    @app.command("release-verify")
    def release_verify(release: Path = typer.Argument(..., help="Release directory or .tar.gz."),
                       trusted_key: list[str] = typer.Option(..., help="Public key file or 'ed25519:<base64>' "
                                                                        "(repeat for several).")) -> None:
        """Check a release's hashes and its signature against trusted keys."""
        from verifier_runtime.artifact import ArtifactError, load_artifact
        from verifier_runtime.signing import key_id, resolve_trusted_keys

        try:
            keys = resolve_trusted_keys(trusted_key)
            art = load_artifact(release, trusted_keys=keys)
        except Exception as exc:
            typer.echo(f"error: {exc}" if isinstance(exc, ArtifactError) else f"error: {type(exc).__name__}: {exc}")
            raise typer.Exit(1) from None
        import json as _json

        sig = _json.loads((Path(release) / "manifest.sig").read_text()) if Path(release).is_dir() else {}
        by = sig.get("key_id") or ", ".join(key_id(k) for k in keys)
        typer.echo(f"{art.version}: hashes match, signed by {by}")
