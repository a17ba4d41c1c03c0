"""Command line: serve, worker, migrate, keys, reembed, rerender, openapi, mcp."""

import argparse
import asyncio
import json
import os
import signal
import sys
from pathlib import Path
from types import FrameType

from app.core.config import Settings, get_settings
from app.core.logging import announce, configure_logging
from app.core.shared_metrics import share_between_processes

# The key of `mcp`, as the Python client reads it too: out of the process list.
API_KEY_ENV = "CE_API_KEY"


def _exit_cleanly(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(0)


def _serve(settings: Settings, workers: int | None) -> None:
    import uvicorn

    from app.main import create_app

    processes = workers or settings.api.processes()
    url = f"http://{settings.host}:{settings.port}"
    announce(
        f"Context Engine on {url} — docs at {url}/docs"
        + (f" ({processes} processes)" if processes > 1 else ""),
        "service.listening",
        url=url,
        docs=f"{url}/docs",
        processes=processes,
    )
    # uvicorn shuts down gracefully on SIGTERM, then raises the signal again, which would end
    # the process with -15; a requested stop is a clean exit (0), as for `worker`.
    signal.signal(signal.SIGTERM, _exit_cleanly)
    host, port = settings.host, settings.port
    if processes == 1:
        uvicorn.run(create_app(settings), host=host, port=port, log_config=None, access_log=False)
        return
    # Each process builds the app from the environment; they share the port and the database,
    # and write their metrics where any of them reads them all for /metrics.
    os.environ["CE_API__WORKERS"] = str(processes)
    share_between_processes(settings.data_dir / "metrics")
    uvicorn.run(
        "app.main:app_from_environment",
        factory=True,
        workers=processes,
        host=host,
        port=port,
        log_config=None,
        access_log=False,
    )


async def _worker(settings: Settings) -> None:
    from app.runtime import start_runtime

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    async with start_runtime(settings, run_worker=True):
        announce("Worker running; Ctrl-C stops it.", "worker.running")
        await stop.wait()


async def _keys(settings: Settings, args: argparse.Namespace) -> int:
    from app.runtime import migrated_database
    from app.tenants import service

    async with migrated_database(settings) as database, database.sessionmaker.begin() as session:
        if args.keys_command == "create":
            issued = await service.create_key(session, args.tenant, args.name)
            print(f"Key for tenant '{issued.tenant}' (shown once, keep it):\n{issued.key}")
        elif args.keys_command == "revoke":
            revoked = await service.revoke_key(session, args.key)
            print(f"Revoked {revoked} key(s).")
            return 0 if revoked else 1
        else:
            for key in await service.list_keys(session):
                print(key)
    return 0


async def _reembed(settings: Settings, *, force: bool, wait: bool) -> None:
    from app.maintenance import reembedding
    from app.runtime import migrated_database

    async with migrated_database(settings) as database:
        queued = await reembedding.reembed(database.sessionmaker, settings, print, force=force)
        if not queued:
            return
        if not wait:
            print("The worker computes them now (`serve`'s, or `python -m app worker`).")
            return
        print("The worker computes them now; Ctrl-C stops watching (the work goes on).")
        async with database.sessionmaker() as session:
            failed_before = (await reembedding.progress(session)).failed
        try:
            last = await reembedding.watch(
                database.sessionmaker, lambda line: print(line, flush=True)
            )
        except asyncio.CancelledError:
            print("Stopped watching; the worker goes on.")
            return
        failed = last.failed - failed_before
        print(
            f"Done: {last.embedded:,} of {last.stored:,} memories have a vector"
            + (f"; {failed:,} jobs failed (`job.last_error` says why)." if failed else ".")
        )


async def _rerender(settings: Settings) -> None:
    from app.maintenance.rerender import rerender_all
    from app.providers.container import build_providers
    from app.runtime import migrated_database

    providers = await asyncio.to_thread(build_providers, settings)
    try:
        async with migrated_database(settings) as database:
            done = await rerender_all(
                database.sessionmaker,
                providers,
                settings,
                progress=lambda so_far: print(
                    f"  {so_far.memories:,} memories rendered, {so_far.changed:,} changed",
                    flush=True,
                ),
            )
    finally:
        await providers.aclose()
    print(
        f"Rendered {done.memories} memories again: {done.changed} changed; {done.embeds} queued "
        f"for embedding and {done.summaries} for an LLM summary (the worker does them now)."
    )


def _prepare_model(settings: Settings) -> int:
    from app.providers.local_models import MPNET, default_models_dir
    from app.providers.mpnet.files import ModelFileError
    from app.providers.mpnet.prepare import prepare

    models = settings.embeddings.models_dir or default_models_dir()
    try:
        prepare(models)
    except (ModelFileError, ModuleNotFoundError) as exc:
        print(f"{exc}. `make install-mpnet` installs the model's packages first.", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"{exc}. Set CE_EMBEDDINGS__MODELS_DIR to a folder you can write.", file=sys.stderr)
        return 1
    print(f"Use it with CE_EMBEDDINGS__MODEL={MPNET.name}; then `python -m app reembed`.")
    return 0


def _openapi(settings: Settings, output: Path) -> None:
    from app.main import create_app

    schema = create_app(settings).openapi()
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(schema, indent=2, ensure_ascii=False) + "\n")
    print(f"Wrote {output}")


def _mcp(settings: Settings, args: argparse.Namespace) -> int:
    from app.mcp.stdio import MissingKey, log_to_stderr, serve_local, serve_remote

    log_to_stderr()
    if args.url is not None and args.api_key is None:
        print(
            f"--url needs the key of the service's tenant: set {API_KEY_ENV} (or --api-key).",
            file=sys.stderr,
        )
        return 2
    if args.url is not None:
        asyncio.run(serve_remote(args.url, args.api_key))
        return 0
    from app.main import create_app  # the local mode only: --url needs none of the service

    code = 0
    # The service's lifespan runs task groups: the error comes out in a group.
    try:
        asyncio.run(serve_local(settings, args.api_key, create_app))
    except* MissingKey as missing:
        print(missing.exceptions[0], file=sys.stderr)
        code = 2
    return code


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m app", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser(
        "serve", help="serve the HTTP API (and the worker, unless disabled)"
    )
    serve.add_argument(
        "--workers",
        type=int,
        choices=range(1, 65),
        metavar="N",
        help="processes serving the API (default CE_API__WORKERS, 1)",
    )
    commands.add_parser("worker", help="run only the background worker")
    commands.add_parser("migrate", help="apply database migrations")
    reembed = commands.add_parser(
        "reembed", help="compute the embeddings the configured model lacks, and watch it done"
    )
    reembed.add_argument(
        "--force", action="store_true", help="drop and recompute every vector of the same model"
    )
    reembed.add_argument(
        "--no-wait", action="store_true", help="queue the work and return without watching it"
    )
    commands.add_parser(
        "rerender", help="render every memory's three sizes again after an upgrade changed them"
    )
    commands.add_parser(
        "prepare-model",
        help="convert all-mpnet-base-v2 from its installed packages (make install-mpnet)",
    )
    export = commands.add_parser("openapi", help="write the OpenAPI document")
    export.add_argument("--output", type=Path, default=Path("openapi/openapi.json"))
    _key_commands(commands.add_parser("keys", help="create, list or revoke API keys"))
    mcp = commands.add_parser(
        "mcp", help="the MCP server over stdio: of a running service, or of the local data"
    )
    mcp.add_argument("--url", help="a running service, e.g. http://127.0.0.1:8000")
    mcp.add_argument(
        "--api-key",
        default=os.environ.get(API_KEY_ENV) or None,
        help=f"its API key (default: ${API_KEY_ENV}; then, without --url, the data dir's); "
        "the variable keeps it out of the process list",
    )
    return parser


def _key_commands(keys: argparse.ArgumentParser) -> None:
    key_commands = keys.add_subparsers(dest="keys_command", required=True)
    create = key_commands.add_parser("create", help="issue a key (creates the tenant if new)")
    create.add_argument("--tenant", default="default")
    create.add_argument("--name", default="cli")
    revoke = key_commands.add_parser("revoke", help="revoke a key by its prefix or id")
    revoke.add_argument("key")
    key_commands.add_parser("list", help="list keys (prefixes only)")


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run one command."""
    args = _parser().parse_args(argv)
    settings = get_settings()
    configure_logging(settings.log_level, json=settings.log_json)
    if args.command == "serve":
        _serve(settings, args.workers)
    elif args.command == "worker":
        asyncio.run(_worker(settings))
    elif args.command == "migrate":
        from app.runtime import migrate

        asyncio.run(migrate(settings))
        print("Migrations applied.")
    elif args.command == "reembed":
        try:
            asyncio.run(_reembed(settings, force=args.force, wait=not args.no_wait))
        except KeyboardInterrupt:
            return 130  # what was committed stays; the worker goes on with it
    elif args.command == "rerender":
        asyncio.run(_rerender(settings))
    elif args.command == "prepare-model":
        return _prepare_model(settings)
    elif args.command == "openapi":
        _openapi(settings, args.output)
    elif args.command == "keys":
        return asyncio.run(_keys(settings, args))
    elif args.command == "mcp":
        return _mcp(settings, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
