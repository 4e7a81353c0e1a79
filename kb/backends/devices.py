"""Whether this machine may have a GPU, known without importing a GPU library."""

from __future__ import annotations

import sys
from pathlib import Path


def gpu_present() -> bool:
    """A cheap guess that this machine has a GPU the model libraries could use: an
    NVIDIA driver is loaded (``/proc/driver/nvidia``) or it is a Mac (Metal, MPS). A
    ``False`` is sure; a ``True`` still needs the library's own check."""
    return Path("/proc/driver/nvidia").exists() or sys.platform == "darwin"
