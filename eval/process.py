"""Is the process that runs an eval run still there?

A run records the host name, pid and start time (``created_at``) of its process. On
the same host, the run's process is alive when ``kill(pid, 0)`` finds it, it is not a
zombie, and (on Linux, from ``/proc``) it started no later than the run did (plus a
few seconds of slack): a pid reused by a later process does not keep a dead run
``running``. On another host kb cannot tell, and says so (``None``).
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

SLACK_S = 5.0


def this_process() -> tuple[str, int]:
    """``(host name, pid)`` of the running process."""
    return socket.gethostname(), os.getpid()


def _linux_start(pid: int) -> tuple[float, str] | None:
    """``(start time as a Unix time, state letter)`` from ``/proc``, or ``None``."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        btime = next(
            float(line.split()[1])
            for line in Path("/proc/stat").read_text().splitlines()
            if line.startswith("btime ")
        )
    except (OSError, StopIteration, ValueError, IndexError):
        return None
    fields = stat[stat.rfind(")") + 2 :].split()  # after "pid (comm) "
    try:
        ticks = int(fields[19])  # field 22 of the whole line
    except (IndexError, ValueError):
        return None
    return btime + ticks / os.sysconf("SC_CLK_TCK"), fields[0]


def alive(host: str | None, pid: int | None, started_at: float) -> bool | None:
    """True/False for a run process on this host; ``None`` when it runs elsewhere.

    A run without a recorded process (written by an older kb) counts as gone.
    """
    if host is None or pid is None:
        return False
    if host != socket.gethostname():
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # exists, owned by someone else
    info = _linux_start(pid)
    if info is not None:
        start, state = info
        if state in ("Z", "X") or start > started_at + SLACK_S:
            return False
    return True
