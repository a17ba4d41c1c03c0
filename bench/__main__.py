"""python -m bench quality|speed|all|report: benchmarks against a service started here."""

import argparse
import sys
import time
from pathlib import Path

_DEFAULT_DATA = (
    Path(__file__).resolve().parent.parent.parent / "shared" / "bench" / "locomo-dev.json"
)


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run the chosen benchmarks."""
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument(
        "which",
        choices=("quality", "speed", "all", "report"),
        help="report: print the tables of bench/results/*.json again and redraw the charts",
    )
    parser.add_argument(
        "--data", type=Path, default=_DEFAULT_DATA, help="a LoCoMo-format file (quality)"
    )
    parser.add_argument(
        "--conversations", type=int, default=None, help="only the first N conversations (quality)"
    )
    parser.add_argument(
        "--concurrency", type=int, default=4, help="concurrent build clients (quality)"
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
        "--commit",
        default=None,
        help="run the service from this commit (git archive) instead of the working tree",
    )
    args = parser.parse_args(argv)
    started = time.perf_counter()
    if args.which == "report":
        from bench.rerender import rerender

        rerender()
        return 0
    if args.which in ("quality", "all"):
        from bench import quality

        if not args.data.exists():
            print(f"{args.data} not found; pass --data (make bench-quality DATA=...)")
            return 2
        quality.run(
            args.data, concurrency=args.concurrency, limit=args.conversations, commit=args.commit
        )
    if args.which in ("speed", "all"):
        from bench import speed

        speed.run(
            skip_100k=args.skip_100k,
            sizes=tuple(int(s) for s in args.sizes.split(",")),
            commit=args.commit,
        )
    print(f"\nBenchmarks took {(time.perf_counter() - started) / 60:.1f} min.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
