"""The background queue as /metrics shows it, read leniently: jobs queued and running by task,
jobs done by task, and whatever series of the age of waiting jobs (the queue's lag) exists."""

from collections.abc import Sequence
from dataclasses import dataclass

from prometheus_client.parser import text_string_to_metric_families

DEPTH = "ce_job_queue_depth"
DONE = "ce_jobs_processed_total"
# A series of the queue whose name says it measures how long jobs wait (ce_job_queue_lag_seconds).
_LAG_WORDS = ("age", "lag", "oldest", "wait", "delay")


@dataclass(frozen=True)
class QueueSample:
    """One reading of /metrics, `at_seconds` into the run."""

    at_seconds: float
    depth: dict[str, int]  # task -> jobs queued or running
    done: dict[str, int]  # task -> jobs finished so far
    lag: dict[str, float]  # series name and labels -> value


@dataclass(frozen=True)
class QueueStats:
    """The queue over a run: `lag_max` is empty when /metrics has no series of the age of
    waiting jobs."""

    samples: int
    depth_max: dict[str, int]
    depth_mean: dict[str, float]
    done: dict[str, int]  # jobs finished during the run, by task
    lag_max: dict[str, float]


def _series(name: str, labels: dict[str, str]) -> str:
    inner = ",".join(f'{key}="{value}"' for key, value in sorted(labels.items()))
    return f"{name}{{{inner}}}" if inner else name


def read_queue(text: str, at_seconds: float) -> QueueSample:
    """The queue's series of one /metrics text."""
    depth: dict[str, int] = {}
    done: dict[str, int] = {}
    lag: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            task = sample.labels.get("task", "")
            if sample.name == DEPTH and sample.labels.get("state") in ("queued", "running"):
                depth[task] = depth.get(task, 0) + int(sample.value)
            elif sample.name == DONE and sample.labels.get("outcome") == "done":
                done[task] = done.get(task, 0) + int(sample.value)
            elif sample.name.startswith("ce_job") and any(w in sample.name for w in _LAG_WORDS):
                lag[_series(sample.name, sample.labels)] = float(sample.value)
    return QueueSample(round(at_seconds, 1), depth, done, lag)


def _done(samples: Sequence[QueueSample]) -> dict[str, int]:
    if not samples:
        return {}
    first, last = samples[0], samples[-1]
    return {task: last.done[task] - first.done.get(task, 0) for task in sorted(last.done)}


def queue_stats(samples: Sequence[QueueSample]) -> QueueStats:
    """Peaks and means of the samples; jobs done between the first and the last."""
    tasks = sorted({task for s in samples for task in s.depth})
    return QueueStats(
        samples=len(samples),
        depth_max={t: max(s.depth.get(t, 0) for s in samples) for t in tasks},
        depth_mean={
            t: round(sum(s.depth.get(t, 0) for s in samples) / len(samples), 2) for t in tasks
        },
        done=_done(samples),
        lag_max={
            name: max(s.lag[name] for s in samples if name in s.lag)
            for name in sorted({name for s in samples for name in s.lag})
        },
    )
