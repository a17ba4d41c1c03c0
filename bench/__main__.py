"""python -m bench quality|agent|speed|conversation|bounded|premises|all|report: benchmarks
against a service started here."""

import argparse
import sys
import time
from pathlib import Path

_DEFAULT_DATA = (
    Path(__file__).resolve().parent.parent.parent / "shared" / "bench" / "locomo-dev.json"
)
_DEFAULT_AGENT_DATA = Path(__file__).resolve().parent / "data" / "agent-dev.json"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument(
        "which",
        choices=(
            "quality",
            "agent",
            "speed",
            "conversation",
            "bounded",
            "premises",
            "all",
            "report",
        ),
        help="agent: typed memory on curated questions; conversation: a session's history "
        "inside the window, and recall from it on LoCoMo; bounded: efforts and the bounded "
        "working memory (seed 002's proof run, 1,000 turns with 200 efforts); premises: false "
        "flags of the premise check on LoCoMo's questions, and flags of questions made false; "
        "report: print the tables of bench/results/*.json again and redraw the charts",
    )
    parser.add_argument(
        "--data",
        type=Path,
        default=None,
        help=f"quality, conversation: a LoCoMo-format file (default {_DEFAULT_DATA}); "
        f"agent: a typed-memory file (default {_DEFAULT_AGENT_DATA})",
    )
    parser.add_argument(
        "--conversations",
        type=int,
        default=None,
        help="only the first N conversations (quality, conversation: 0 leaves recall out)",
    )
    parser.add_argument(
        "--messages",
        type=int,
        default=5_000,
        help="messages of the scripted session (conversation: 0 leaves the bounded part out)",
    )
    parser.add_argument(
        "--efforts",
        type=int,
        default=200,
        help="bounded: efforts of the long session, 5 turns each (200: 1,000 turns)",
    )
    _service_options(parser)
    return parser


def _service_options(parser: argparse.ArgumentParser) -> None:
    """How the service under test runs and is driven."""
    parser.add_argument(
        "--concurrency", type=int, default=4, help="concurrent build clients (quality, agent)"
    )
    parser.add_argument(
        "--skip-100k", action="store_true", help="stop the speed benchmark at 10,000 memories"
    )
    parser.add_argument(
        "--sizes",
        default="1000,10000,100000",
        help="memories of the measured agent at each speed step (for quick trials)",
    )
    parser.add_argument(
        "--workers", type=int, default=1, help="API processes of the service (speed)"
    )
    parser.add_argument(
        "--commit",
        default=None,
        help="run the service from this commit (git archive) instead of the working tree",
    )


def _data(args: argparse.Namespace, default: Path, target: str) -> Path | None:
    """The data file to read, or None (after saying so) when it does not exist."""
    data: Path = args.data or default
    if not data.exists():
        print(f"{data} not found; pass --data (make {target} DATA=...)")
        return None
    return data


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run the chosen benchmarks."""
    args = _parser().parse_args(argv)
    started = time.perf_counter()
    if args.which == "report":
        from bench.report import rerender

        rerender()
        return 0
    if args.which == "agent":
        from bench.agent import run as agent

        if (data := _data(args, _DEFAULT_AGENT_DATA, "bench-agent")) is None:
            return 2
        agent.run(data, concurrency=args.concurrency, commit=args.commit)
    if args.which == "conversation":
        from bench.conversation import run as conversation

        if (data := _data(args, _DEFAULT_DATA, "bench-conversation")) is None:
            return 2
        conversation.run(
            data,
            messages=args.messages,
            concurrency=args.concurrency,
            limit=args.conversations,
            commit=args.commit,
        )
    if args.which == "bounded":
        from bench.bounded import run as bounded

        bounded.run(commit=args.commit, efforts=args.efforts)
    if args.which == "premises":
        from bench.premises import run as premises

        if (data := _data(args, _DEFAULT_DATA, "bench-premises")) is None:
            return 2
        premises.run(
            data, concurrency=args.concurrency, limit=args.conversations, commit=args.commit
        )
    if args.which in ("quality", "all"):
        from bench.quality import run as quality

        if (data := _data(args, _DEFAULT_DATA, "bench-quality")) is None:
            return 2
        quality.run(
            data, concurrency=args.concurrency, limit=args.conversations, commit=args.commit
        )
    if args.which in ("speed", "all"):
        from bench.speed import run as speed

        speed.run(
            skip_100k=args.skip_100k,
            sizes=tuple(int(s) for s in args.sizes.split(",")),
            commit=args.commit,
            workers=args.workers,
        )
    print(f"\nBenchmarks took {(time.perf_counter() - started) / 60:.1f} min.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
