"""Which processes of this machine are alive, so work and handles of dead ones can be let go;
and how many cores this one may use.

A process is named `host:pid namespace:pid:start` (its start in milliseconds since the epoch):
enough to tell, from another process of the same host and pid namespace, whether it still
runs, even when its pid has been given to another process since.
"""

import math
import os
import re
import socket
from pathlib import Path

import psutil

_HOST_CHARS = 40  # identities fit the job table's locked_by with room to spare


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


def usable_cores(cgroup_limit: Path = Path("/sys/fs/cgroup/cpu.max")) -> int:
    """The cores this process may run on: its affinity, within a container's CPU limit."""
    try:
        cores = len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    try:  # cgroup v2: "<quota> <period>", or "max <period>" without a limit
        quota, period = cgroup_limit.read_text().split()[:2]
        if quota != "max":
            cores = min(cores, max(1, math.ceil(int(quota) / int(period))))
    except (OSError, ValueError):
        pass
    return cores


def is_alive(pid: int) -> bool:
    """Whether a process with this id runs now."""
    return started_at(pid) is not None


def this_host() -> str:
    """`host:pid namespace` of this process: pids mean the same process only within it (two
    containers may share a host name, not their pids)."""
    try:
        namespace = re.sub(r"\D", "", os.readlink("/proc/self/ns/pid")) or "0"
    except OSError:
        namespace = "0"
    return f"{socket.gethostname()[:_HOST_CHARS]}:{namespace}"


def identity() -> str:
    """This process's name: `host:pid namespace:pid:start`."""
    started = started_at(os.getpid()) or 0.0
    return f"{this_host()}:{os.getpid()}:{int(started * 1000)}"


def is_gone(name: str) -> bool:
    """Whether the process an identity of this host names has ended; an identity of another
    host, or not one of ours, is never judged gone here."""
    host, _, rest = name.rpartition(":")  # host:namespace:pid, start
    host, _, pid = host.rpartition(":")
    if host != this_host() or not pid.isdigit() or not rest.isdigit():
        return False
    running_since = started_at(int(pid))
    return running_since is None or int(running_since * 1000) != int(rest)
