"""Embeddings with ONNX Runtime from an export made by :mod:`kb.backends.onnx_export`.

No torch, transformers or sentence-transformers: ``tokenizers`` turns texts into ids,
ONNX Runtime runs the transformer, numpy pools and normalises. The vectors equal
sentence-transformers' (cosine >= 0.9999, checked when the export is made).

Per batch of texts:

1. tokenise all of them (lower-cased first when the model says ``do_lower_case``),
   truncated to ``max_seq_length`` tokens, specials included, no padding yet;
2. sort by token count and cut into runs (:func:`runs`) of at most ``batch_size``
   texts and at most :data:`TOKENS_PER_THREAD` x ``threads`` padded tokens, each
   padded only to its own longest text (``pad_id``, attention mask 0): sorted runs
   waste little compute on padding, and a run of about 1,000 tokens keeps a layer's
   activations (the feed-forward's are ``tokens x 1536`` floats) in the CPU's caches.
   On squad-dev's chunks (2 cores) runs of 64 chunks of up to 256 tokens took 10.0 s
   where runs of up to 1,024 tokens took 8.4 s; the sentences (about 30 tokens) were
   the same either way;
3. pool the token embeddings ``T[b, s, d]`` with mask ``M[b, s]``:
   ``mean = Σ_s M·T / max(Σ_s M, 1e-9)``; ``mean_sqrt_len = Σ_s M·T / sqrt(Σ_s M)``;
   ``cls = T[:, 0]``; ``max = max_s (T where M else -1e9)``;
4. L2-normalise every row (``v / max(‖v‖, 1e-12)``), as the :class:`Embedder`
   contract requires; put rows back in input order.

``threads`` sets ONNX Runtime's intra-op threads; 0 uses every CPU this process may
run on (``os.sched_getaffinity``), or one with ``quick_start``. ``quick_start`` (the
query path: a new process per ``kb search``) trades throughput for start time: one
thread and only ONNX Runtime's basic graph optimisations at load (about 0.1 s instead
of 0.3 s). Ingest uses all threads and every optimisation.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from kb.backends.embedder import Embedder
from kb.backends.onnx_export import ExportInfo

#: padded tokens per ONNX Runtime run and thread (module docs, step 2); measured on
#: squad-dev's chunks with 2 threads: 512 or 1,024 per run 8.4-8.5 s, 2,048 8.9 s,
#: 4,096 9.5 s, 16,384 11.2 s; with 1 thread 512 15.3 s, 1,024 15.8 s
TOKENS_PER_THREAD = 512


def available_cpus() -> int:
    """CPUs this process may run on (the affinity mask where the OS has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return max(1, os.cpu_count() or 1)


class OnnxEmbedder(Embedder):
    """Embedder over an export folder (``model.onnx``, ``tokenizer.json``, ``export.json``)."""

    def __init__(
        self, folder: Path, *, threads: int = 0, batch_size: int = 32, quick_start: bool = False
    ) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.folder = Path(folder)
        self.info = ExportInfo.read(self.folder / "export.json")
        self.model_id = self.info.model_id
        self.dim = self.info.dim
        self.batch_size = max(1, batch_size)
        self.threads = threads if threads > 0 else (1 if quick_start else available_cpus())
        tok = Tokenizer.from_file(str(self.folder / "tokenizer.json"))
        tok.no_padding()
        tok.enable_truncation(self.info.max_seq_length)
        self._tok = tok
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = self.threads
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3  # errors only: no optimiser chatter on the terminal
        level = ort.GraphOptimizationLevel
        # the export is optimised already; the full level only pays for long runs
        opts.graph_optimization_level = (
            level.ORT_ENABLE_BASIC if quick_start else level.ORT_ENABLE_ALL
        )
        self._session: Any = ort.InferenceSession(
            str(self.folder / "model.onnx"), opts, providers=["CPUExecutionProvider"]
        )

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        items = [t.lower() for t in texts] if self.info.lowercase else list(texts)
        encs = self._tok.encode_batch(items)
        budget = TOKENS_PER_THREAD * self.threads
        for run in runs([len(e.ids) for e in encs], self.batch_size, budget):
            out[run] = self._run([encs[i] for i in run])
        return out

    def _run(self, encs: list[Any]) -> np.ndarray:
        """Pooled, normalised vectors of one run of encodings (padded to its longest)."""
        width = max(len(e.ids) for e in encs)
        ids = np.full((len(encs), width), self.info.pad_id, dtype=np.int64)
        mask = np.zeros((len(encs), width), dtype=np.int64)
        types = np.zeros((len(encs), width), dtype=np.int64)
        for row, e in enumerate(encs):
            n = len(e.ids)
            ids[row, :n] = e.ids
            mask[row, :n] = 1
            types[row, :n] = e.type_ids
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        tokens = self._session.run(None, {n: feeds[n] for n in self.info.input_names})[0]
        return normalize(pool(np.asarray(tokens, dtype=np.float32), mask, self.info.pooling))


def runs(lengths: Sequence[int], batch_size: int, budget: int) -> list[list[int]]:
    """Indexes of ``lengths`` sorted by length (stable) and cut into runs: a run ends
    before a text whose length ``w`` would make ``(len(run) + 1) * w`` exceed ``budget``
    (the run padded to its longest, which is ``w``), or when it holds ``batch_size``
    texts. A text longer than ``budget`` is a run of its own; every index appears once."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    out: list[list[int]] = []
    run: list[int] = []
    for i in order:
        if run and (len(run) == batch_size or (len(run) + 1) * lengths[i] > budget):
            out.append(run)
            run = []
        run.append(i)
    if run:
        out.append(run)
    return out


def pool(tokens: np.ndarray, mask: np.ndarray, mode: str) -> np.ndarray:
    """Pool ``float32[b, s, d]`` token embeddings under ``mask[b, s]`` (module docs, step 3)."""
    if mode == "cls":
        return tokens[:, 0]
    m = mask[..., None].astype(np.float32)
    if mode == "max":
        return np.where(m > 0, tokens, np.float32(-1e9)).max(axis=1)
    summed = (tokens * m).sum(axis=1)
    counts = m.sum(axis=1)
    if mode == "mean":
        return summed / np.maximum(counts, 1e-9)
    if mode == "mean_sqrt_len":
        return summed / np.sqrt(np.maximum(counts, 1e-9))
    raise ValueError(f"unknown pooling mode {mode!r}")


def normalize(v: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm; an all-zero row stays zero."""
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    return (v / np.maximum(norms, 1e-12)).astype(np.float32)
