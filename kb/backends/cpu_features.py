"""The CPU's instruction sets, for llama.cpp's build and for a check before it runs.

llama-cpp-python is built from source on the installing machine (``make install``). The
portable build (AVX2, FMA, F16C; AMX off, which segfaults in ``ggml_backend_amx_mul_mat``
on some Xeons) leaves AVX-512 unused; where the CPU has it, ``make install`` adds the
AVX-512 options it supports (:func:`llama_cmake_args`, printed by running this file,
which needs nothing but the standard library). On a 2-core AVX-512 Xeon the bundled
model's prompt pass over a 426-token quote prompt took 0.83 s instead of 1.19 s.

A build made for one CPU dies with an illegal instruction on a CPU without those
instructions (a wheel copied to another machine, a shared pip cache). Python cannot
catch that, so :func:`missing_for_build` compares the features llama.cpp says it was
built with (``llama_print_system_info``: compile-time, ``AVX512 = 1``) with the CPU's
flags before a model is loaded, and :mod:`kb.backends.generator` refuses to load with
a one-line fix instead.

Flags are read from ``/proc/cpuinfo`` (Linux). Elsewhere they are unknown (an empty
set): no AVX-512 options are added and nothing is refused.

:func:`physical_cores` counts the cores (SMT siblings once) this process may run on,
for llama.cpp's decoding threads: llama-cpp-python's default, half the logical CPUs,
assumes two threads per core, and on a machine with one (this 2-core VM; Apple's M
chips) it leaves half the cores idle. Here 96 tokens took 2.39 s on 1 thread and
1.45 s on 2.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

#: llama.cpp CMake option -> the ``/proc/cpuinfo`` flags its code needs (ggml's
#: ``-mavx512f -mavx512cd -mavx512vl -mavx512dq -mavx512bw`` for ``GGML_AVX512``)
AVX512_OPTIONS: dict[str, frozenset[str]] = {
    "GGML_AVX512": frozenset({"avx512f", "avx512cd", "avx512vl", "avx512dq", "avx512bw"}),
    "GGML_AVX512_VBMI": frozenset({"avx512vbmi"}),
    "GGML_AVX512_VNNI": frozenset({"avx512_vnni"}),
    "GGML_AVX512_BF16": frozenset({"avx512_bf16"}),
}

#: a feature llama.cpp reports as built in -> the CPU flags it needs
BUILT_FEATURES: dict[str, frozenset[str]] = {
    "AVX": frozenset({"avx"}),
    "AVX2": frozenset({"avx2"}),
    "FMA": frozenset({"fma"}),
    "F16C": frozenset({"f16c"}),
    "BMI2": frozenset({"bmi2"}),
    "AVX512": AVX512_OPTIONS["GGML_AVX512"],
    "AVX512_VBMI": AVX512_OPTIONS["GGML_AVX512_VBMI"],
    "AVX512_VNNI": AVX512_OPTIONS["GGML_AVX512_VNNI"],
    "AVX512_BF16": AVX512_OPTIONS["GGML_AVX512_BF16"],
}


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> frozenset[str]:
    """The first processor's ``flags`` line as a set; empty where it cannot be read."""
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return frozenset()
    m = re.search(r"^flags\s*:(.*)$", text, re.MULTILINE)
    return frozenset(m.group(1).split()) if m else frozenset()


def llama_cmake_args(flags: frozenset[str]) -> list[str]:
    """``-DOPTION=ON`` for each AVX-512 option whose flags the CPU has. The extensions
    need the base set: without every ``GGML_AVX512`` flag none is added."""
    if not AVX512_OPTIONS["GGML_AVX512"] <= flags:
        return []
    return [f"-D{opt}=ON" for opt, need in AVX512_OPTIONS.items() if need <= flags]


def built_features(system_info: str) -> list[str]:
    """The features a ``llama_print_system_info()`` text says are on (``NAME = 1``)."""
    return re.findall(r"\b([A-Z][A-Z0-9_]*) = 1\b", system_info)


def missing_for_build(system_info: str, flags: frozenset[str]) -> list[str]:
    """The built-in features of ``system_info`` that this CPU lacks, in the order given;
    empty when the flags are unknown (not Linux) or every feature is there."""
    if not flags:
        return []
    return [
        name
        for name in built_features(system_info)
        if name in BUILT_FEATURES and not BUILT_FEATURES[name] <= flags
    ]


def physical_cores(sysfs: Path = Path("/sys/devices/system/cpu")) -> int | None:
    """Cores among the CPUs this process may run on: on Linux, the distinct
    ``topology/thread_siblings_list`` of the CPUs in the affinity mask (SMT siblings
    share one); on macOS ``sysctl hw.physicalcpu``; ``None`` when unknown."""
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        cores: set[str] = set()
        for cpu in affinity(0):
            try:
                text = (sysfs / f"cpu{cpu}" / "topology" / "thread_siblings_list").read_text()
            except OSError:
                return None
            cores.add(text.strip())
        return len(cores) or None
    if sys.platform == "darwin":  # pragma: no cover - not a Linux test machine
        try:
            out = subprocess.run(
                ["sysctl", "-n", "hw.physicalcpu"], capture_output=True, text=True, timeout=5
            ).stdout
            return int(out.strip()) or None
        except (OSError, ValueError, subprocess.SubprocessError):
            return None
    return None  # pragma: no cover - Windows: llama.cpp's own default


if __name__ == "__main__":  # the Makefile: extra CMake options for this machine's CPU
    sys.stdout.write(" ".join(llama_cmake_args(cpu_flags())) + "\n")
