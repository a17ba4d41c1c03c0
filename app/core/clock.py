"""The milliseconds of a build's stages, for its manifest (`timings_ms`)."""

import time


class Clock:
    """Milliseconds spent in each stage of one build."""

    def __init__(self) -> None:
        self.started = self.mark = time.perf_counter()
        self.stages: dict[str, float] = {}

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        self.stages[stage] = round((now - self.mark) * 1000, 3)
        self.mark = now

    def so_far(self) -> dict[str, float]:
        """Every stage lapped, and the total since the start."""
        total = round((time.perf_counter() - self.started) * 1000, 3)
        return {**self.stages, "total": total}
