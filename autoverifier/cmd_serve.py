"""``autoverifier serve``: the OpenRLHF-compatible reward server."""

from __future__ import annotations

from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    """Add ``serve`` to the CLI."""

    @app.command("serve")
    def serve(
        artifact: Path | None = typer.Option(None, help="Release directory or .tar.gz (default: newest release)."),
        host: str = typer.Option("127.0.0.1", help="Address to bind."),
        port: int = typer.Option(5000, min=0, max=65535, help="Port (0 picks a free one)."),
        fallback: str = typer.Option("offline", help="none | offline | openai | anthropic"),
        workers: int = typer.Option(4, min=1, help="Verification threads per request."),
        rewards: Path | None = typer.Option(None, help="Reward values YAML (see configs/rewards.yaml)."),
        max_request_mb: float = typer.Option(32.0, min=0.001, help="Largest accepted request body, MB."),
        budget_s: float | None = typer.Option(None, help="Time budget per triple, seconds."),
        factory: str | None = typer.Option(None, hidden=True, help="Custom verifier factory 'module:function'."),
    ) -> None:
        """Serve rewards over HTTP: POST /get_reward (OpenRLHF --remote_rm_url), GET /health."""
        import logging

        from autoverifier.batch import VerifierSpec
        from verifier_runtime.integrations.server import RewardServer

        if fallback not in ("none", "offline", "openai", "anthropic"):
            raise typer.BadParameter("choose one of none, offline, openai, anthropic", param_hint="--fallback")
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
        options = {} if budget_s is None else {"budget_s": budget_s}
        try:
            verifier = VerifierSpec.make(artifact, fallback, factory, **options).load()
            server = RewardServer(verifier, host, port, rewards=rewards, workers=workers,
                                  max_body_bytes=int(max_request_mb * 1024 * 1024))
            bound = server.port
        except Exception as exc:
            typer.echo(f"error: {type(exc).__name__}: {exc}", err=True)
            raise typer.Exit(1) from None
        typer.echo(f"autoverifier reward server: artifact {verifier.artifact_version}, fallback {fallback}, "
                   f"listening on http://{host}:{bound} (POST /get_reward, GET /health)", err=True)
        server.serve_until_signal()
        typer.echo("reward server stopped", err=True)
