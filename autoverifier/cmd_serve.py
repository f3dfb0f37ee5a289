"""``autoverifier serve``: the OpenRLHF-compatible reward server."""

from __future__ import annotations

from pathlib import Path

import typer

ENGINES = ("asgi", "stdlib")
LOG_LEVELS = ("critical", "error", "warning", "info", "debug")


def register(app: typer.Typer) -> None:
    """Add ``serve`` to the CLI."""

    @app.command("serve")
    def serve(
        artifact: Path | None = typer.Option(None, help="Release directory or .tar.gz (default: newest release)."),
        host: str = typer.Option("127.0.0.1", help="Address to bind."),
        port: int = typer.Option(5000, min=0, max=65535, help="Port (0 picks a free one)."),
        fallback: str = typer.Option("offline", help="none | offline | openai | anthropic"),
        threads: int = typer.Option(4, min=1, max=256, help="Verification threads for multi-sample requests."),
        inline_samples: int = typer.Option(4, min=0, help="Requests of at most this many samples are verified on the event loop."),
        workers: int = typer.Option(4, min=1, max=64, help="Threads each multi-sample request's batch uses."),
        backlog: int = typer.Option(2048, min=1, help="Pending connections the socket queues."),
        limit_concurrency: int | None = typer.Option(None, min=1, help="Requests at once before answering 503."),
        rewards: Path | None = typer.Option(None, help="Reward values YAML (see configs/rewards.yaml)."),
        max_request_mb: float = typer.Option(32.0, min=0.001, help="Largest accepted request body, MB."),
        max_items: int = typer.Option(4096, min=1, help="Most samples in one request."),
        budget_s: float | None = typer.Option(None, help="Time budget of one verify call, seconds."),
        graceful_timeout: float = typer.Option(30.0, min=1, help="Seconds in-flight requests get on SIGTERM."),
        log_level: str = typer.Option("warning", help="critical | error | warning | info | debug"),
        access_log: bool = typer.Option(False, "--access-log", help="Log one line per request (off by default)."),
        engine: str = typer.Option("asgi", help="asgi (uvicorn + starlette) | stdlib (the dependency-free baseline)"),
        isolation: str = typer.Option("inprocess", help="inprocess | process (verify in killable worker processes)"),
        factory: str | None = typer.Option(None, hidden=True, help="Custom verifier factory 'module:function'."),
    ) -> None:
        """Serve rewards over HTTP: POST /get_reward (OpenRLHF --reward.remote_url), GET /health,
        /ready and /metrics."""
        import logging

        from verifier_runtime.batch import VerifierSpec

        if fallback not in ("none", "offline", "openai", "anthropic"):
            raise typer.BadParameter("choose one of none, offline, openai, anthropic", param_hint="--fallback")
        if log_level.lower() not in LOG_LEVELS:
            raise typer.BadParameter(f"choose one of {', '.join(LOG_LEVELS)}", param_hint="--log-level")
        if engine not in ENGINES:
            raise typer.BadParameter("choose asgi or stdlib", param_hint="--engine")
        if isolation not in ("inprocess", "process"):
            raise typer.BadParameter("choose inprocess or process", param_hint="--isolation")
        logging.basicConfig(level=log_level.upper(), format="%(asctime)s %(levelname)s %(name)s %(message)s")
        options: dict = {} if budget_s is None else {"budget_s": budget_s}
        if isolation == "process":
            options["isolation"] = "process"
        try:
            verifier = VerifierSpec.make(artifact, fallback, factory, **options).load()
            max_body = int(max_request_mb * 1024 * 1024)
            if engine == "stdlib":
                from verifier_runtime.integrations.server_stdlib import StdlibRewardServer

                server: object = StdlibRewardServer(verifier, host, port, rewards=rewards, workers=workers,
                                                    max_body_bytes=max_body, max_items=max_items)
            else:
                from verifier_runtime.integrations.server import RewardServer

                server = RewardServer(verifier, host, port, rewards=rewards, threads=threads, inline_samples=inline_samples, workers=workers,
                                      backlog=backlog, limit_concurrency=limit_concurrency, max_body_bytes=max_body,
                                      max_items=max_items, graceful_timeout_s=graceful_timeout,
                                      log_level=log_level, access_log=access_log)
            bound = server.port  # type: ignore[attr-defined]
        except ImportError as exc:
            typer.echo(f"error: {exc}: the ASGI server needs the serve extra (pip install 'autoverifier[serve]'), "
                       "or use --engine stdlib", err=True)
            raise typer.Exit(1) from None
        except Exception as exc:
            typer.echo(f"error: {type(exc).__name__}: {exc}", err=True)
            raise typer.Exit(1) from None
        typer.echo(f"autoverifier reward server ({engine}): artifact {verifier.artifact_version}, fallback {fallback}, "
                   f"listening on http://{host}:{bound} (POST /get_reward, GET /health /ready /metrics)", err=True)
        server.serve_until_signal()  # type: ignore[attr-defined]
        typer.echo("reward server stopped", err=True)
