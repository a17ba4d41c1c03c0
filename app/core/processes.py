"""Which processes of this machine are alive, so work and handles of dead ones can be let go."""

import psutil


def started_at(pid: int) -> float | None:
    """When a running process started (seconds since the epoch); None if it is gone.

    A zombie (killed, not yet reaped by its parent) counts as gone.
    """
    try:
        process = psutil.Process(pid)
        if process.status() == psutil.STATUS_ZOMBIE:
            return None
        return process.create_time()
    except psutil.NoSuchProcess:
        return None


def is_alive(pid: int) -> bool:
    """Whether a process with this id runs now."""
    return started_at(pid) is not None
