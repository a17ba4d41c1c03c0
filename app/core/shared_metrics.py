"""The metrics of several API processes as one service (Prometheus' multiprocess mode).

`serve` with more than one process gives them a folder (`<data dir>/metrics`, emptied at each
start) in PROMETHEUS_MULTIPROC_DIR before they start: each process writes its samples there, and
`/metrics`, whichever process answers it, reads them all. Counters and histograms add up; each
gauge says how its processes' values combine (`core/metrics.py`).
"""

import os
import shutil
from pathlib import Path

from prometheus_client import CollectorRegistry, generate_latest, multiprocess

FOLDER_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"


def share_between_processes(folder: Path) -> None:
    """Let the processes started from now on write their samples to `folder`, emptied first:
    files of processes that ran before would be counted again."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    os.environ[FOLDER_VARIABLE] = str(folder)


def is_shared() -> bool:
    return bool(os.environ.get(FOLDER_VARIABLE))


def exposition() -> bytes:
    """The metrics in Prometheus' text format: of all the service's processes when shared."""
    if not is_shared():
        return generate_latest()
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]  # untyped upstream
    return generate_latest(registry)


def series_labels(name: str) -> set[tuple[str, ...]]:
    """The label values of a metric's series as all the processes wrote them; none unless
    shared. A series cannot be removed in this mode: a gauge read at scrape time sets 0 for
    those that are gone."""
    if not is_shared():
        return set()
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]  # untyped upstream
    return {
        tuple(sample.labels.values())
        for metric in registry.collect()
        if metric.name == name
        for sample in metric.samples
    }


def leave() -> None:
    """This process ends: its gauges stop counting among the live processes'."""
    if is_shared():
        multiprocess.mark_process_dead(os.getpid())  # type: ignore[no-untyped-call]
