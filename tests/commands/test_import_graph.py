"""import_graph embeds what it wrote once the import has committed; --no-reindex leaves it to reindex, and a failed
embedding is a warning beside a stored import."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from memoria import embeddings
from memoria.embeddings import embedder
from memoria.reindex import reindex_backlog
from memoria.search.methods import entities_cosine
from tests.conftest import count_group
from tests.interchange.test_import_export import sample


def run(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.fixture
def document(group: str, tmp_path: Path) -> Path:
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(sample(group)))
    return path


def test_import_embeds_what_it_wrote_and_a_rerun_embeds_nothing(group: str, document: Path) -> None:
    out, err = run("import_graph", str(document), "--group", group)
    assert "5 node(s) created" in out and "embedded 7 text(s)" in out
    assert "embed →" in err
    assert reindex_backlog(group=group) == 0
    found = entities_cosine(vector=embedder().embed_one("ERP orders"), groups=[group], limit=1)
    assert found[0].id == f"{group}-ds"
    out, _ = run("import_graph", str(document), "--group", group, "--quiet")
    assert "0 text(s) changed" in out and "embedded 0 text(s)" in out


def test_no_reindex_leaves_the_vectors_to_reindex(group: str, document: Path) -> None:
    out, _ = run("import_graph", str(document), "--group", group, "--no-reindex", "--quiet")
    assert f"--no-reindex): `python manage.py reindex --group {group}`" in out
    assert "embedded" not in out
    assert reindex_backlog(group=group) == 7
    assert ": 7 text(s)" in run("reindex", "--group", group, "--quiet")[0]


def test_a_failed_embedding_is_a_warning_and_the_import_stays(
    group: str, document: Path, settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(embeddings, "_embedder", None)  # the shared model is restored afterwards
    settings.MEMORIA_EMBEDDING_MODEL = str(tmp_path / "no-model")
    out, err = run("import_graph", str(document), "--group", group, "--quiet")
    assert "5 node(s) created" in out
    assert "the import is stored, but embedding failed after 0 text(s)" in err
    assert (
        "no-model does not exist" in err
        and f"7 written text(s) have no vector yet: `python manage.py reindex --group {group}`" in err
    )
    assert count_group(group) == {"nodes": 5, "edges": 4}
    assert reindex_backlog(group=group) == 7
