"""Peak resident memory of the current process, in MiB.

Linux: ``VmHWM`` from ``/proc/self/status``, the high-water mark of *this* process
image. Not ``getrusage(RUSAGE_SELF).ru_maxrss``: the kernel carries that value across
``exec``, so a child started by a big parent (a bench that has just built a 1M-chunk
store) reports the parent's size at fork time, not its own (seen: 1,375 MiB against a
true peak of 540 MiB). Elsewhere ``ru_maxrss`` is the best there is (kilobytes on
Linux, bytes on macOS).
"""

from __future__ import annotations

import resource
import sys
from pathlib import Path


def peak_rss_mb() -> float:
    """This process's peak RSS in MiB (module docstring)."""
    status = Path("/proc/self/status")
    if status.is_file():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024
