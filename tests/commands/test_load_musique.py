"""load_musique embeds the passages and triples it wrote, unless --no-reindex leaves a bulk load to reindex."""

from __future__ import annotations

import io
from pathlib import Path

from django.core.management import call_command

from memoria.embeddings import embedder
from memoria.reindex import reindex_backlog
from memoria.search.methods import episodes_cosine
from tests.datasets.test_musique import CORPUS, write_dataset


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_passages_are_found_by_meaning_right_after_loading(group: str, tmp_path: Path) -> None:
    out = run("load_musique", str(write_dataset(tmp_path / "musique")), "--group", group, "--quiet")
    texts = reindex_backlog(group=group, only_missing=False)
    assert f"embedded {texts} text(s)" in out and reindex_backlog(group=group) == 0
    found = episodes_cosine(vector=embedder().embed_one("a sailor leaving the harbour"), groups=[group], limit=1)
    assert found[0].text == CORPUS[2]["text"]


def test_no_reindex_leaves_the_backlog(group: str, tmp_path: Path) -> None:
    out = run("load_musique", str(write_dataset(tmp_path / "musique")), "--group", group, "--no-reindex", "--quiet")
    assert "vectors not computed (--no-reindex)" in out
    assert reindex_backlog(group=group) == reindex_backlog(group=group, only_missing=False) > 0
