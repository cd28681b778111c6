"""The embedder with the real packaged model: shape, meaning, determinism, and refusal of weights that break the pin."""

from __future__ import annotations

import math
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from memoria import embeddings
from memoria.embeddings import (
    PACKAGED_WEIGHTS_SHA256,
    WEIGHTS_FILE,
    Embedder,
    embedder,
    embedder_load,
    model_source,
    packaged_model_folder,
)
from memoria.errors import EmbeddingModelError


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))  # the vectors are unit length


@pytest.fixture(scope="module")
def model() -> Embedder:
    return embedder()


def test_vectors_have_384_dimensions_and_unit_length(model: Embedder) -> None:
    vectors = model.embed(["warehouse stock", "", "a much longer sentence about lead times of a supplier in Porto"])
    assert [len(vector) for vector in vectors] == [384, 384, 384]
    assert all(math.isclose(math.sqrt(sum(x * x for x in vector)), 1.0, abs_tol=1e-5) for vector in vectors)
    assert model.embed([]) == []


def test_similar_meanings_are_closer(model: Embedder) -> None:
    stock, depot, party = model.embed(["warehouse stock", "inventory in the depot", "birthday party"])
    assert cosine(stock, depot) > cosine(stock, party) + 0.3


def test_deterministic_alone_or_in_a_batch(model: Embedder) -> None:
    texts = ["Supplier delay at Nordbalt Metals", "Forecast Q3 demand", "x"]
    assert model.embed(texts) == model.embed(texts)
    alone = model.embed_one(texts[0])
    assert cosine(alone, model.embed(texts)[0]) > 0.99999


def test_shared_embedder_is_loaded_once(model: Embedder) -> None:
    assert embedder() is model
    assert model_source().sha256 == PACKAGED_WEIGHTS_SHA256
    assert model.source.folder == packaged_model_folder()


def test_threads_share_one_load_and_may_embed_at_once(model: Embedder, monkeypatch: pytest.MonkeyPatch) -> None:
    loads: list[int] = []

    def slow_load() -> Embedder:
        loads.append(threading.get_ident())
        time.sleep(0.2)
        return model

    monkeypatch.setattr(embeddings, "_embedder", None)
    monkeypatch.setattr(embeddings, "embedder_load", slow_load)
    with ThreadPoolExecutor(max_workers=4) as pool:
        shared = list(pool.map(lambda _: embedder(), range(4)))
        texts = [f"stock of SKU-{i} in Lyon" for i in range(40)]
        results = list(pool.map(lambda _: model.embed(texts), range(4)))
    assert len(loads) == 1 and all(item is model for item in shared)
    assert all(result == results[0] for result in results)


def test_changed_weights_are_refused_before_loading(settings, tmp_path: Path) -> None:
    (tmp_path / WEIGHTS_FILE).write_bytes(b"not the pinned weights")
    settings.MEMORIA_EMBEDDING_MODEL = str(tmp_path)
    settings.MEMORIA_EMBEDDING_SHA256 = PACKAGED_WEIGHTS_SHA256
    with pytest.raises(EmbeddingModelError, match="refusing to load other weights"):
        embedder_load()


def test_a_pinned_folder_without_weights_is_refused(settings, tmp_path: Path) -> None:
    settings.MEMORIA_EMBEDDING_MODEL = str(tmp_path)
    settings.MEMORIA_EMBEDDING_SHA256 = PACKAGED_WEIGHTS_SHA256
    with pytest.raises(EmbeddingModelError, match=r"cannot read .* to check its pinned sha256"):
        embedder_load()


@pytest.mark.parametrize(
    ("model_setting", "sha_setting", "message"),
    [
        ("/nonexistent/model", "", "does not exist"),
        ("", "abc", "is not a sha256 hex digest"),
    ],
)
def test_bad_configuration_is_a_typed_error(settings, model_setting: str, sha_setting: str, message: str) -> None:
    settings.MEMORIA_EMBEDDING_MODEL = model_setting
    settings.MEMORIA_EMBEDDING_SHA256 = sha_setting
    with pytest.raises(EmbeddingModelError, match=message):
        embedder_load()


def test_a_dimension_other_than_the_indexes_is_refused(settings, model: Embedder) -> None:
    settings.MEMORIA_EMBEDDING_DIMENSIONS = 768
    with pytest.raises(EmbeddingModelError, match=r"makes 384-dimensional vectors, but .* hold 768"):
        embedder_load()


TEXTS = [
    "Supplier delay at Nordbalt Metals",
    "The Q3 forecast reads the warehouse stock levels",
    "",
    "Caroline: I went to the LGBTQ support group yesterday and it was so powerful.",
    "a much longer text " * 80,  # past the model's 256 tokens: both backends truncate at the same place
]


@pytest.fixture(scope="module")
def backends() -> dict[str, Embedder]:
    return {backend: embedder_load(backend=backend) for backend in embeddings.BACKENDS}


def test_onnx_fp32_makes_the_torch_vectors(backends: dict[str, Embedder]) -> None:
    reference, onnx = backends[embeddings.TORCH].embed(TEXTS), backends[embeddings.ONNX].embed(TEXTS)
    assert [round(cosine(a, b), 5) for a, b in zip(reference, onnx, strict=True)] == [1.0] * len(TEXTS)
    assert backends[embeddings.ONNX].model_id == backends[embeddings.TORCH].model_id == embeddings.PACKAGED_MODEL_NAME


def test_openvino_vectors_are_the_torch_vectors_to_four_places(backends: dict[str, Embedder]) -> None:
    reference, openvino = backends[embeddings.TORCH].embed(TEXTS), backends[embeddings.OPENVINO].embed(TEXTS)
    assert min(cosine(a, b) for a, b in zip(reference, openvino, strict=True)) > 0.9999
    assert backends[embeddings.OPENVINO].model_id == embeddings.PACKAGED_MODEL_NAME
    assert backends[embeddings.OPENVINO]._encoder.precision in {"bf16", "f32"}


def test_runs_of_many_or_long_texts_make_the_vectors_of_one_text_alone(backends: dict[str, Embedder]) -> None:
    texts = [
        f"{index} " + "a sentence about stock levels at the Porto depot " * (1 + index % 9) for index in range(150)
    ]
    for name in (embeddings.ONNX, embeddings.OPENVINO):
        together = backends[name].embed(texts)
        for index in (0, 7, 75, 149):
            assert cosine(together[index], backends[name].embed_one(texts[index])) > 0.9999, (name, index)


def test_runs_are_bounded_by_texts_and_padded_tokens() -> None:
    lengths = [3, 300, 40, 40, 41, 2, 600]
    batches = embeddings.token_batches(lengths, max_texts=2, max_tokens=100)
    assert batches == [[6], [1], [4, 2], [3, 0], [5]]  # longest first; a run of two 41s fits in 100, three would not
    assert embeddings.token_batches(lengths, max_texts=64, max_tokens=200) == [[6], [1], [4, 2, 3, 0], [5]]
    assert sorted(index for batch in batches for index in batch) == list(range(len(lengths)))
    assert embeddings.token_batches([], max_texts=64) == []


def test_torch_embeds_on_its_own_threads_whatever_openmp_was_set_to(backends: dict[str, Embedder]) -> None:
    """SimSIMD's single-threaded scoring calls omp_set_num_threads(1) in the calling thread, which is torch's
    count too when both load the same OpenMP runtime (they did in `load_locomo`; which runtime loads first
    depends on import order, so the test sets the count itself)."""
    import torch

    model, before = backends[embeddings.TORCH], torch.get_num_threads()
    model.threads_set(2)
    torch.set_num_threads(1)
    model.embed(["stock"])
    assert torch.get_num_threads() == 2
    model.threads_set(1)
    model.embed(["stock"])
    assert torch.get_num_threads() == 1
    model.threads_set(before)


def test_onnx_int8_is_close_to_torch_under_another_model_id(backends: dict[str, Embedder]) -> None:
    reference, int8 = backends[embeddings.TORCH].embed(TEXTS), backends[embeddings.ONNX_INT8].embed(TEXTS)
    similarities = [cosine(a, b) for a, b in zip(reference, int8, strict=True)]
    assert min(similarities) > 0.95 and sum(similarities) / len(similarities) > 0.98
    assert backends[embeddings.ONNX_INT8].model_id == embeddings.PACKAGED_MODEL_NAME + embeddings.INT8_SUFFIX


def test_every_backend_counts_the_same_tokens(backends: dict[str, Embedder]) -> None:
    counts = {name: model.token_counts(TEXTS) for name, model in backends.items()}
    assert (
        counts[embeddings.ONNX]
        == counts[embeddings.ONNX_INT8]
        == counts[embeddings.OPENVINO]
        == counts[embeddings.TORCH]
    )
    assert counts[embeddings.TORCH][2] == 0 and counts[embeddings.TORCH][4] > 256  # counting never truncates


def test_onnx_graphs_are_made_once_under_the_weights_digest(backends: dict[str, Embedder], settings) -> None:
    folder = Path(settings.VAR_DIR) / "embeddings"
    graphs = sorted(folder.glob("*.onnx"))
    stem = f"{embeddings.PACKAGED_MODEL_NAME}-{PACKAGED_WEIGHTS_SHA256[:16]}"
    assert {graph.name for graph in graphs} >= {f"{stem}-fp32.onnx", f"{stem}-int8.onnx"}
    made = {graph: graph.stat().st_mtime_ns for graph in graphs}
    embedder_load(backend=embeddings.ONNX_INT8)
    assert {graph: graph.stat().st_mtime_ns for graph in graphs} == made
    assert not list(folder.glob(".*.partial"))


def test_an_unknown_backend_is_a_typed_error(settings) -> None:
    settings.MEMORIA_EMBEDDING_BACKEND = "tensorflow"
    with pytest.raises(EmbeddingModelError, match="is not one of torch, onnx, onnx-int8, openvino"):
        embedder_load()


# fp32 agrees to six places across thread counts; bfloat16 rounds at the fourth
@pytest.mark.parametrize(("backend", "places"), [(embeddings.ONNX, 6), (embeddings.OPENVINO, 4)])
def test_one_thread_makes_the_same_vectors(backend: str, places: int) -> None:
    model = embedder_load(backend=backend)
    before = model.embed(TEXTS)
    model.threads_set(1)
    assert [round(cosine(a, b), places) for a, b in zip(before, model.embed(TEXTS), strict=True)] == [1.0] * len(TEXTS)
