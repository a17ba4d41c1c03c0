"""The service's memory and the machine's CPU, sampled while a benchmark runs."""

import os
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import psutil

if TYPE_CHECKING:
    from bench.common.server import Service

_MIB = 1024 * 1024


@dataclass(frozen=True)
class MemoryPeaks:
    """Peak memory in MiB: the API process, and the PostgreSQL processes of its data directory."""

    api_rss_mib: float
    postgres_rss_mib: float
    postgres_pss_mib: float


class RssSampler:
    """Samples the memory of the service's processes in a thread and keeps the peaks."""

    def __init__(self, service: "Service", interval_seconds: float = 0.5) -> None:
        self._service = service
        self._interval = interval_seconds
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._peak = (0.0, 0.0, 0.0)
        self._thread = threading.Thread(target=self._run, name="rss-sampler", daemon=True)
        # What they had used before: a sampler started late in a run counts from its start.
        self._cpu_start = self._our_cpu_seconds()
        self._busy_start = _busy_seconds()
        self._wall_start = time.monotonic()

    def start(self) -> None:
        self._thread.start()

    def other_cpu_share(self) -> float:
        """The share of the machine's CPU used by processes that are not this benchmark's."""
        busy = _busy_seconds() - self._busy_start
        ours = self._our_cpu_seconds() - self._cpu_start
        capacity = (time.monotonic() - self._wall_start) * (os.cpu_count() or 1)
        return round(max(busy - ours, 0.0) / max(capacity, 1e-9), 3)

    def _our_cpu_seconds(self) -> float:
        """The service's and this benchmark's CPU seconds so far."""
        return sum(self._service.cpu_seconds()) + benchmark_cpu_seconds()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def sample(self) -> None:
        """Take one sample now (the thread calls it; callers may too, before reading a peak)."""
        api, pg_rss, pg_pss = self._service.memory_now()
        with self._lock:
            old = self._peak
            self._peak = (max(old[0], api), max(old[1], pg_rss), max(old[2], pg_pss))

    def take_peaks(self) -> MemoryPeaks:
        """The peaks since the last call, then start over."""
        self.sample()
        with self._lock:
            api, pg_rss, pg_pss = self._peak
            self._peak = (0.0, 0.0, 0.0)
        return MemoryPeaks(round(api / _MIB, 1), round(pg_rss / _MIB, 1), round(pg_pss / _MIB, 1))

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            self.sample()


def benchmark_cpu_seconds() -> float:
    """The CPU seconds this benchmark's own process (its HTTP client) used so far."""
    return cpu_used(psutil.Process())


def cpu_used(process: psutil.Process) -> float:
    """The CPU seconds a process used so far (0 when it ended meanwhile)."""
    try:
        times = process.cpu_times()
    except psutil.Error:
        return 0.0  # ended between listing and reading
    return float(times.user + times.system)


def _busy_seconds() -> float:
    times = psutil.cpu_times()
    return float(times.user + times.system + times.nice + getattr(times, "irq", 0.0)) + float(
        getattr(times, "softirq", 0.0)
    )
