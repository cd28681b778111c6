"""`evaluate musique` end to end on an invented corpus: the corpus loaded into the group with its triples, recall
that follows from the passages' words and links, and clear errors that write nothing.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from memoria.graph.selectors import group_summary
from tests.conftest import count_group
from tests.evaluation import test_musique as fx


def run(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("evaluate", "musique", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def recalls(figures: dict, method: str) -> dict[str, dict[str, float]]:
    return {item["key"]: item["recall"] for item in figures["questions"] if item["method"] == method}


def test_loads_then_scores_each_method(group: str, tmp_path: Path) -> None:
    fx.write_musique(tmp_path)
    figures_path = tmp_path / "figures.json"
    args = ("--data-dir", str(tmp_path), "--group", group, "--ks", "1,2,6", "--json", str(figures_path))
    out, err = run(*args)
    assert group_summary(group=group).episodes == fx.PASSAGE_COUNT
    assert "embedded " in out  # loaded, then embedded in one reindex pass
    assert "3/3" in err  # the questions' progress bar
    assert f"group {group}, {fx.PASSAGE_COUNT} passages, 3 question(s) scored" in out
    figures = json.loads(figures_path.read_text())
    rows = {row["title"]: row for row in figures["rows"]}
    assert [rows[title]["questions"] for title in ("1-hop", "2-hop", "3-hop", "all")] == [1, 1, 1, 3]

    for method in ("dense", "ppr", "relation_ppr", "episodes", "graph_fused", "episodes_text"):
        found = recalls(figures, method)
        assert set(found) == {fx.key(0), fx.key(1), fx.key(2)}
        # Six places hold the whole corpus: every method ranks every passage, so all the gold is there.
        assert all(recall["6"] == 1.0 for recall in found.values()), method
    dense = recalls(figures, "dense")
    # The lighthouse's name is in its passage only, so the question's nearest passage is its gold one.
    assert dense[fx.key(fx.ONE_HOP)]["1"] == 1.0
    for method in ("ppr", "relation_ppr"):
        # Its two entities are seeded and reach no other passage: the lighthouse passage is first.
        assert recalls(figures, method)[fx.key(fx.ONE_HOP)]["1"] == 1.0, method
    gains = figures["gains_points"]
    for method in ("ppr", "relation_ppr"):
        mean = rows["all"]["recall"]
        assert gains[method]["2"] == pytest.approx((mean[method]["2"] - mean["dense"]["2"]) * 100)
    assert "PPR beyond dense passages (recall points, all questions): @1" in out
    assert '  relation-aware PPR: {"ppr_request":{"group":' in out
    assert figures["measured"]["relation_ppr"]["ppr_request"]["relation_aware"] is True
    assert figures["measured"]["ppr"]["ppr_request"]["damping"] == 0.5
    assert figures["measured"]["ppr"]["ppr_request"]["top_k"] == 6
    assert "cross-validated, row 'all': 3 questions in 3 folds (seed 13)" in out
    (folded,) = figures["cross_validation"]
    dense_at_6 = next(m for m in folded["methods"] if (m["method"], m["k"]) == ("dense", 6))
    assert dense_at_6["folds"] == [1.0, 1.0, 1.0]
    ppr_at_6 = next(m for m in folded["methods"] if (m["method"], m["k"]) == ("ppr", 6))
    assert ppr_at_6["minus_baseline"] == {"mean": 0.0, "low": 0.0, "high": 0.0, "questions": 3}
    assert [choice["candidates"] for choice in folded["chosen"]] == [["ppr", "relation_ppr", "graph_fused"]] * 3
    assert figures["measured"]["graph_fused"]["recipe"] == "episodes_graph_fused"
    assert figures["measured"]["graph_fused"]["config"]["episodes"]["methods"] == ["cosine", "ppr"]
    assert figures["measured"]["episodes"]["recipe"] == "episodes_hybrid_graph_gated"
    assert figures["measured"]["episodes"]["config"]["episodes"]["methods"] == ["bm25", "cosine", "ppr"]
    assert figures["measured"]["episodes_text"]["recipe"] == "episodes_hybrid_rrf"
    assert "inferred synonymy edge(s) at cosine ≥ 0.95" in out
    # A floor can only drop passages: held out, recall is at most what it is without one.
    floor = figures["relevance_floor"]
    assert floor["k"] == 6 and len(floor["folds"]) == 3 and floor["minus_no_floor"]["mean"] <= 0
    assert all(0.0 <= fold["floor"] <= 0.6 for fold in floor["folds"])

    again, _ = run(*args[:-2], "--skip-ingest", "--limit-questions", "1", "--markdown")
    assert f"group {group}: holds all {fx.PASSAGE_COUNT} passages, not loaded again" in again
    assert "| category | n | dense passages @1 |" in again
    assert "cross-validated, row 'all': fewer than 2 questions, nothing to fold" in again
    assert "1 question(s) scored" in again


def fails(*args: str) -> str:
    with pytest.raises(CommandError) as caught:
        run(*args)
    return str(caught.value)


def test_bad_options_and_files_write_nothing(group: str, tmp_path: Path) -> None:
    fx.write_musique(tmp_path)
    data = ("--data-dir", str(tmp_path), "--group", group)
    assert fails(*data, "--ks", "0,2") == "--ks: every k must be in [1, 100] (got '0,2')"
    assert fails(*data, "--limit-questions", "0") == "--limit-questions must be at least 1"
    assert fails(*data, "--embedding-threads", "0") == "--embedding-threads must be at least 1"
    assert "folder" in fails(*data, "--json", str(tmp_path / "nowhere" / "f.json"))
    assert fails("--data-dir", str(tmp_path), "--group", "bad group!").startswith("--group 'bad group!':")
    missing = tmp_path / "absent"
    assert fails("--data-dir", str(missing), "--group", group) == (
        f"{missing}: no such folder (give the MuSiQue folder with --data-dir)"
    )
    (tmp_path / "queries.json").write_text("[1]", encoding="utf-8")
    assert "queries.json[0]: must be an object with id, question and paragraphs" in fails(*data)
    fx.write_musique(tmp_path)
    assert fails(*data, "--skip-ingest") == (
        f"group {group} holds 0 of the {fx.PASSAGE_COUNT} passages of {tmp_path}; run without --skip-ingest to "
        "load them"
    )
    assert count_group(group) == {"nodes": 0, "edges": 0}
