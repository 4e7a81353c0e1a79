"""The CPU flags behind llama.cpp's build options, and the check that refuses to load a
build made for instructions this CPU lacks (it would die with an illegal instruction)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kb.backends import cpu_features, generator
from kb.backends.cpu_features import (
    built_features,
    cpu_flags,
    llama_cmake_args,
    missing_for_build,
)
from kb.errors import ModelError

ROOT = Path(__file__).resolve().parents[2]
AVX512 = {"avx512f", "avx512cd", "avx512vl", "avx512dq", "avx512bw"}
AVX2_INFO = "CPU : SSE3 = 1 | AVX = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | BMI2 = 1 | OPENMP = 1 | "
AVX512_INFO = AVX2_INFO + "AVX512 = 1 | AVX512_VNNI = 1 | AVX512_BF16 = 0 | "


@pytest.fixture(autouse=True)
def _fresh_build_check():  # type: ignore[no-untyped-def]
    """The generator reads the build's features once per process; these tests fake them."""
    generator._missing_cpu_features.cache_clear()
    yield
    generator._missing_cpu_features.cache_clear()


def test_cpu_flags_reads_the_first_flags_line(tmp_path: Path) -> None:
    info = tmp_path / "cpuinfo"
    info.write_text(
        "processor\t: 0\nflags\t\t: fpu avx avx2 avx512f\nbugs\t: x\n\n"
        "processor\t: 1\nflags\t\t: fpu\n",
        encoding="utf-8",
    )
    assert cpu_flags(info) == {"fpu", "avx", "avx2", "avx512f"}
    assert cpu_flags(tmp_path / "missing") == frozenset()  # not Linux: unknown
    (tmp_path / "noflags").write_text("processor : 0\n", encoding="utf-8")
    assert cpu_flags(tmp_path / "noflags") == frozenset()


def test_avx512_options_follow_the_flags() -> None:
    assert llama_cmake_args(frozenset({"avx2", "fma"})) == []
    assert llama_cmake_args(frozenset(AVX512)) == ["-DGGML_AVX512=ON"]
    full = frozenset(AVX512 | {"avx512vbmi", "avx512_vnni", "avx512_bf16"})
    assert llama_cmake_args(full) == [
        "-DGGML_AVX512=ON",
        "-DGGML_AVX512_VBMI=ON",
        "-DGGML_AVX512_VNNI=ON",
        "-DGGML_AVX512_BF16=ON",
    ]
    # an extension without the whole base set adds nothing (ggml needs both)
    assert llama_cmake_args(frozenset({"avx512f", "avx512_vnni"})) == []


def test_missing_features_of_a_build() -> None:
    assert built_features(AVX512_INFO) == [
        "SSE3", "AVX", "AVX2", "F16C", "FMA", "BMI2", "OPENMP", "AVX512", "AVX512_VNNI",
    ]  # fmt: skip
    laptop = frozenset({"avx", "avx2", "f16c", "fma", "bmi2", "sse3"})
    assert missing_for_build(AVX512_INFO, laptop) == ["AVX512", "AVX512_VNNI"]
    assert missing_for_build(AVX2_INFO, laptop) == []
    # BF16 = 0 is not built in, so its flag is not needed
    assert missing_for_build(AVX512_INFO, laptop | AVX512 | {"avx512_vnni"}) == []
    assert missing_for_build(AVX512_INFO, frozenset()) == []  # flags unknown: no refusal


def test_the_makefile_gets_the_options_from_this_file() -> None:
    out = subprocess.run(
        [sys.executable, "-I", str(ROOT / "kb" / "backends" / "cpu_features.py")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert out == llama_cmake_args(cpu_flags())
    assert "kb/backends/cpu_features.py" in (ROOT / "Makefile").read_text(encoding="utf-8")


def test_a_build_for_other_instructions_is_refused_before_loading(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(generator, "_system_info", lambda _mod: AVX512_INFO)
    laptop = frozenset({"avx", "avx2", "fma", "f16c", "bmi2"})
    monkeypatch.setattr(cpu_features, "cpu_flags", lambda: laptop)
    with pytest.raises(ModelError, match=r"built for AVX512, AVX512_VNNI, which this CPU lacks"):
        generator.check_cpu_build()
    monkeypatch.setattr(cpu_features, "cpu_flags", lambda: laptop | AVX512 | {"avx512_vnni"})
    generator._missing_cpu_features.cache_clear()
    generator.check_cpu_build()  # every built-in feature present: loads


@pytest.mark.slow
def test_make_generator_refuses_once_and_keeps_the_requantized_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The refusal comes before the requantized copy is made or loaded: no "read as it
    is" retry note, and a copy made earlier is not deleted as unloadable."""
    from kb.config import LlmSettings

    cache = tmp_path / "cache"
    generator.make_generator(LlmSettings(n_ctx=512), cache_dir=cache).close()
    copies = sorted(p.name for p in cache.rglob("*.gguf"))
    assert copies, "the bundled model is requantized into the cache"
    notes: list[str] = []
    monkeypatch.setattr(generator, "notice", notes.append)
    monkeypatch.setattr(generator, "_system_info", lambda _mod: AVX512_INFO)
    monkeypatch.setattr(cpu_features, "cpu_flags", lambda: frozenset({"avx", "avx2"}))
    generator._missing_cpu_features.cache_clear()
    with pytest.raises(ModelError, match="which this CPU lacks"):
        generator.make_generator(LlmSettings(n_ctx=512), cache_dir=cache)
    assert notes == []
    assert sorted(p.name for p in cache.rglob("*.gguf")) == copies


@pytest.mark.slow
def test_the_installed_build_runs_on_this_cpu() -> None:
    """The llama-cpp-python that `make install` built here uses only this CPU's
    instructions, and `kb doctor`'s llama line carries no rebuild note."""
    from kb.backends.generator import llama_device_info
    from kb.config import LlmSettings

    generator.check_cpu_build()
    info = llama_device_info(LlmSettings())
    assert "lacks" not in str(info.get("note", ""))
    assert missing_for_build(info["system_info"], cpu_flags()) == []


def _sysfs(root: Path, siblings: dict[int, str]) -> Path:
    for cpu, text in siblings.items():
        topo = root / f"cpu{cpu}" / "topology"
        topo.mkdir(parents=True)
        (topo / "thread_siblings_list").write_text(text + "\n", encoding="utf-8")
    return root


def test_physical_cores_count_smt_siblings_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cpu_features.os, "sched_getaffinity", lambda _pid: {0, 1, 2, 3})
    smt = _sysfs(tmp_path / "smt", {0: "0,2", 1: "1,3", 2: "0,2", 3: "1,3"})
    assert cpu_features.physical_cores(smt) == 2  # 4 logical CPUs, 2 cores
    one = _sysfs(tmp_path / "one", {0: "0", 1: "1", 2: "2", 3: "3"})
    assert cpu_features.physical_cores(one) == 4  # a VM or Apple-like: a thread per core
    # only the CPUs this process may use count
    monkeypatch.setattr(cpu_features.os, "sched_getaffinity", lambda _pid: {0, 2})
    assert cpu_features.physical_cores(smt) == 1
    assert cpu_features.physical_cores(tmp_path / "none") is None  # no topology: unknown


@pytest.mark.slow
def test_the_answer_model_decodes_on_every_core_by_default() -> None:
    from kb.config import LlmSettings

    gen = generator.make_generator(LlmSettings(n_ctx=512))
    try:
        assert gen.llama.n_threads == cpu_features.physical_cores()  # type: ignore[attr-defined]
    finally:
        gen.close()
    gen = generator.make_generator(LlmSettings(n_ctx=512, threads=1))
    try:
        assert gen.llama.n_threads == 1  # type: ignore[attr-defined]
    finally:
        gen.close()
