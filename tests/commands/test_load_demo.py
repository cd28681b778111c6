"""load_demo writes the demo memory and embeds it, so search finds it at once; loading it again embeds nothing."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from memoria.datasets.demo import demo_document
from memoria.embeddings import embedder
from memoria.reindex import reindex_backlog
from memoria.search.methods import facts_cosine


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_demo_is_embedded_as_it_loads_and_not_again(group: str) -> None:
    out = run("load_demo", "--group", group, "--quiet")
    texts = reindex_backlog(group=group, only_missing=False)
    assert texts > 1000 and f"embedded {texts} text(s)" in out
    assert reindex_backlog(group=group) == 0
    edge = demo_document(seed=7)["edges"][17]
    found = facts_cosine(vector=embedder().embed_one(edge["fact"]), groups=[group], limit=5)
    assert edge["fact"] in [hit.text for hit in found]
    again = run("load_demo", "--group", group, "--quiet")
    assert "0 node(s) created" in again and "0 text(s) changed" in again and "embedded 0 text(s)" in again


def test_no_reindex_and_bad_group(group: str) -> None:
    assert "--no-reindex" in run("load_demo", "--group", group, "--no-reindex", "--quiet")
    assert reindex_backlog(group=group) == reindex_backlog(group=group, only_missing=False) > 1000
    with pytest.raises(CommandError, match="must be 1–64 letters"):
        run("load_demo", "--group", "no/slashes")
