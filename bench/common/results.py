"""What every result carries: machine, commit, date; percentiles, tables and JSON files."""

import json
import os
import platform
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import psutil
from pydantic import JsonValue

RESULTS_DIR = Path(__file__).resolve().parent.parent / "results"
_REPO = Path(__file__).resolve().parent.parent.parent


def _git(*args: str) -> str:
    try:
        done = subprocess.run(
            ["git", *args], cwd=_REPO, capture_output=True, text=True, check=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip()


def run_info(commit: str | None = None) -> dict[str, JsonValue]:
    """Date, machine (cores, memory, CPU) and the commit of the service measured."""
    if commit:
        measured = _git("rev-parse", "--short", commit) or commit
    else:
        # The working tree was measured: uncommitted changes under app/ or alembic/ mark the run.
        dirty = bool(_git("status", "--porcelain", "--", "app", "alembic"))
        measured = (_git("rev-parse", "--short", "HEAD") or "unknown") + ("+dirty" if dirty else "")
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": measured,
        "cores": os.cpu_count() or 0,
        "memory_gib": round(psutil.virtual_memory().total / 2**30, 1),
        "cpu": _cpu_model(),
        "python": platform.python_version(),
    }


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


@dataclass(frozen=True)
class Percentiles:
    """Latencies in ms."""

    p50: float
    p95: float
    p99: float
    mean: float
    max: float
    n: int


def percentiles(values: Sequence[float]) -> Percentiles:
    """p50 / p95 / p99 / mean / max of latencies in ms (empty: zeros)."""
    if not values:
        return Percentiles(0.0, 0.0, 0.0, 0.0, 0.0, 0)
    data = np.asarray(values, dtype=np.float64)
    p50, p95, p99 = np.percentile(data, [50, 95, 99])
    return Percentiles(
        p50=round(float(p50), 2),
        p95=round(float(p95), 2),
        p99=round(float(p99), 2),
        mean=round(float(data.mean()), 2),
        max=round(float(data.max()), 2),
        n=len(values),
    )


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A markdown table (prints readably in a terminal and pastes into the README)."""
    cells = [[str(h) for h in headers], *[[_cell(v) for v in row] for row in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = [
        "| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |"
        for row in cells
    ]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 10 else f"{value:.1f}"
    return str(value)


def write_json(name: str, payload: dict[str, object]) -> Path:
    """Write bench/results/<name>.json and return its path."""
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    path = RESULTS_DIR / f"{name}.json"
    path.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    return path
