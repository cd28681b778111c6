"""The view's two indexes on their own: BM25 in tantivy and exact cosine in numpy."""

from __future__ import annotations

import numpy as np
import pytest

from memoria.readmodel.text_index import TextIndex, query_terms
from memoria.readmodel.vector_index import SCAN_MIN_ROWS, VectorIndex, exact_cosines
from memoria.search.methods import STOP_WORDS


def terms(text: str) -> list[str]:
    """The text's words as the index stores them (stemmed), as a search sends them."""
    return query_terms(text, stop_words=frozenset(), max_terms=32)


def test_query_terms_drop_stop_words_unless_nothing_else_is_left() -> None:
    assert query_terms("What is the Lyon warehouse?", stop_words=STOP_WORDS, max_terms=32) == ["lyon", "warehous"]
    assert query_terms("the the", stop_words=STOP_WORDS, max_terms=32) == ["the"]
    assert query_terms("a-b c_d", stop_words=frozenset(), max_terms=2) == ["a", "b"]


def test_words_and_queries_are_stemmed_alike() -> None:
    index = TextIndex(("content",))
    index.put([("a", {"content": "She was researching adoption agencies"}), ("b", {"content": "A quiet research day"})])
    index.put([("c", {"content": "Nothing about it"})])
    index.commit()
    found = index.search(query_terms("What did she research?", stop_words=STOP_WORDS, max_terms=32), limit=5)
    assert {key for key, _ in found} == {"a", "b"}
    terms = query_terms("agencies agency", stop_words=STOP_WORDS, max_terms=32)
    assert terms == ["agenc"]  # one term: both words stem alike, and a term is searched once


def test_text_search_sums_fields_upserts_and_deletes() -> None:
    index = TextIndex(("name", "summary"))
    index.put([("a", {"name": "Lyon warehouse", "summary": "safety gloves"}), ("b", {"name": "Rotterdam port"})])
    index.commit()
    assert [key for key, _ in index.search(terms("gloves"), limit=5)] == ["a"]
    both = dict(index.search(terms("lyon gloves"), limit=5))
    only_name = dict(index.search(terms("lyon gloves"), limit=5, fields=("name",)))
    assert both["a"] > only_name["a"] > 0
    index.put([("a", {"name": "Paris office"})])
    index.remove(["b"])
    index.commit()
    assert index.search(terms("gloves"), limit=5) == []
    assert index.search(terms("rotterdam"), limit=5) == []
    assert [key for key, _ in index.search(terms("paris"), limit=5)] == ["a"]
    assert index.size == 1


@pytest.mark.parametrize("text", ['gloves OR "x" AND NOT y', "name:gloves*", "(gloves)^3 ~2 \\"])
def test_query_text_is_never_syntax(text: str) -> None:
    index = TextIndex(("name",))
    index.put([("a", {"name": "gloves"})])
    index.commit()
    terms = query_terms(text, stop_words=STOP_WORDS, max_terms=32)
    assert [key for key, _ in index.search(terms, limit=5)] == ["a"]


def test_ties_are_broken_by_key() -> None:
    index = TextIndex(("name",))
    index.put([(key, {"name": "same words"}) for key in ("c", "a", "b")])
    index.commit()
    assert [key for key, _ in index.search(terms("same"), limit=3)] == ["a", "b", "c"]


def test_nearest_is_exact_cosine() -> None:
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(300, 16))
    index = VectorIndex(16)
    for position, vector in enumerate(vectors):
        index.put(f"v{position:03d}", vector.tolist())
    query = rng.normal(size=16)
    expected = vectors @ query / (np.linalg.norm(vectors, axis=1) * np.linalg.norm(query))
    best = np.argsort(-expected)[:10]
    found = index.nearest(query.tolist(), limit=10)
    assert [key for key, _ in found] == [f"v{position:03d}" for position in best]
    assert np.allclose([score for _, score in found], expected[best], atol=1e-5)


def test_removed_rows_are_reused_and_never_found() -> None:
    index = VectorIndex(2)
    index.put("a", [1.0, 0.0])
    index.put("b", [0.0, 1.0])
    index.remove("a")
    assert [key for key, _ in index.nearest([1.0, 0.0], limit=5)] == ["b"]
    index.put("c", [1.0, 0.1])
    assert len(index) == 2
    assert [key for key, _ in index.nearest([1.0, 0.0], limit=1)] == ["c"]
    index.put("c", None)  # a vector that went away removes the key
    assert [key for key, _ in index.nearest([1.0, 0.0], limit=5)] == ["b"]


def test_min_similarity_and_wrong_sizes() -> None:
    index = VectorIndex(2)
    index.put("a", [1.0, 0.0])
    index.put("b", [-1.0, 0.0])
    index.put("bad", [1.0, 0.0, 0.0])  # another model's size: not stored
    assert [key for key, _ in index.nearest([1.0, 0.0], limit=5, min_similarity=0.0)] == ["a"]
    assert index.nearest([0.0, 0.0], limit=5) == []
    assert index.vector("bad") is None


def test_rows_put_at_once_match_rows_put_one_by_one() -> None:
    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(50, 8)).astype(np.float32)
    vectors[7] = 0.0  # no direction: not stored
    vectors[9, 2] = np.nan  # not finite: not stored
    keys = [f"k{position:02d}" for position in range(50)]
    one_by_one, at_once = VectorIndex(8), VectorIndex(8)
    for key, vector in zip(keys, vectors, strict=True):
        one_by_one.put(key, vector)
    at_once.put("k09", [1.0] * 8)  # a stored key whose new row is unusable leaves
    at_once.put_rows(keys, vectors)
    assert len(at_once) == len(one_by_one) == 48
    query = rng.normal(size=8).tolist()
    assert at_once.nearest(query, limit=10) == one_by_one.nearest(query, limit=10)
    assert at_once.vector("k07") is None and at_once.vector("k09") is None


def test_a_reserved_build_keeps_no_spare_rows_and_grows_by_a_quarter() -> None:
    index = VectorIndex(4)
    index.reserve(1500)
    index.put_rows([f"k{n}" for n in range(1500)], np.eye(4, dtype=np.float32)[np.arange(1500) % 4])
    exact = index.nbytes
    assert exact == 1500 * (4 + 4 + 4 + 4 + 1) + 100 * 1500  # coarse and fine int8 codes, peak, residual, alive
    assert [key for key, _ in index.nearest([0.0, 0.0, 0.0, 1.0], limit=2)] == ["k1003", "k1007"]
    index.put("k1500", [1.0, 0.0, 0.0, 0.0])
    assert index.vector("k1500") == [1.0, 0.0, 0.0, 0.0]
    assert index.nbytes < 1.3 * exact + 100 * 4


def test_a_first_commit_keeps_the_last_change_of_each_key() -> None:
    index = TextIndex(("name",))
    index.put([("a", {"name": "gloves"}), ("b", {"name": "gloves"})])
    index.put([("a", {"name": "drill"})])
    index.remove(["b"])
    index.commit()
    assert index.size == 1
    assert index.search(terms("gloves"), limit=5) == []
    assert [key for key, _ in index.search(terms("drill"), limit=5)] == ["a"]


def _reference(vectors: np.ndarray, keys: list[str], query: np.ndarray, limit: int, floor: float) -> list[str]:
    """The exact search by its definition: float32 unit rows, each row's cosine scored alone, ties by key."""
    unit = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
    scores = exact_cosines(unit, (query / np.linalg.norm(query)).astype(np.float32))
    ranked = sorted((key, float(score)) for key, score in zip(keys, scores, strict=True) if score > floor)
    return [key for key, _ in sorted(ranked, key=lambda hit: (-hit[1], hit[0]))[:limit]]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_int8_scan_drops_no_row_and_stays_within_the_decoding_of_exact(seed: int) -> None:
    """Past SCAN_MIN_ROWS the coarse codes pick the rows to score: the answers must be those of scoring every
    decoded row (`keep` with every key does), with exact ties (duplicated rows), near ties (rows a hair apart),
    removed keys, floors and limits; and against the exact float32 search they may differ only within the
    decoding's error: every answer's float32 cosine within 2e-5 of the limit-th best one or above, its score
    within 2e-5 of it."""
    rng = np.random.default_rng(seed)
    count, dimensions = SCAN_MIN_ROWS + 1500, 48
    vectors = rng.normal(size=(count, dimensions)).astype(np.float32)
    vectors[100:140] = vectors[99]  # 41 rows tied exactly
    vectors[200:240] = vectors[199] + rng.normal(scale=1e-4, size=(40, dimensions)).astype(np.float32)
    keys = [f"k{position:05d}" for position in rng.permutation(count)]
    index = VectorIndex(dimensions)
    index.put_rows(keys, vectors)
    removed = set(rng.choice(keys, size=300, replace=False).tolist())
    for key in removed:
        index.remove(key)
    kept = [position for position, key in enumerate(keys) if key not in removed]
    every = {keys[position] for position in kept}
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    for trial in range(25):
        if trial % 5 == 0:
            query = vectors[99] + rng.normal(scale=0.05, size=dimensions).astype(np.float32)  # near the tied rows
        elif trial % 5 == 1:
            query = vectors[199] + rng.normal(scale=0.01, size=dimensions).astype(np.float32)
        else:
            query = rng.normal(size=dimensions).astype(np.float32)
        limit = int(rng.choice([1, 5, 20, 60]))
        floor = float(rng.choice([-1.0, 0.0, 0.3]))
        found = index.nearest(query.tolist(), limit=limit, min_similarity=floor)
        assert found == index.nearest(query.tolist(), limit=limit, min_similarity=floor, keep=every), (trial, limit)
        expected = _reference(vectors[kept], [keys[p] for p in kept], query, limit, floor)
        assert len(found) == len(expected)
        truth = {
            key: float(unit[keys.index(key)] @ (query / np.linalg.norm(query))) for key in {*expected, *dict(found)}
        }
        assert all(truth[key] >= truth[expected[-1]] - 2e-5 for key, _ in found), (trial, limit, floor)
        assert all(abs(score - truth[key]) < 2e-5 for key, score in found)


def test_keep_scores_only_the_kept_keys() -> None:
    rng = np.random.default_rng(5)
    vectors = rng.normal(size=(SCAN_MIN_ROWS + 10, 16)).astype(np.float32)
    keys = [f"k{position:05d}" for position in range(len(vectors))]
    index = VectorIndex(16)
    index.put_rows(keys, vectors)
    keep = set(keys[::50]) | {"not-a-key"}
    query = rng.normal(size=16).astype(np.float32)
    found = index.nearest(query.tolist(), limit=7, keep=keep)
    chosen = [p for p, key in enumerate(keys) if key in keep]
    assert [key for key, _ in found] == _reference(vectors[chosen], [keys[p] for p in chosen], query, 7, -1.0)
