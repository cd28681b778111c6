"""A message keeps the messages just before it, and episode search finds it by them; documents keep none."""

from __future__ import annotations

from io import StringIO

from django.core.management import call_command

from memoria.graph import driver
from memoria.ingest.context import PriorEpisode
from memoria.ingest.episodes import EpisodeInput
from memoria.ingest.pipeline import episodes_add
from memoria.ingest.preceding import PRECEDING_MESSAGES, preceding_backfill, preceding_text
from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import graph_document_import
from memoria.search.config import Reranker, ScopeConfig, SearchConfig, SearchMethod
from memoria.search.service import search

TIME = "2024-05-01T10:00:00Z"


def prior(content: str, source: str = "message") -> PriorEpisode:
    return PriorEpisode(content, content, content, source, TIME)


def test_the_newest_messages_oldest_first() -> None:
    newest_first = [prior("c"), prior("doc", "text"), prior("b"), prior("a")]
    assert PRECEDING_MESSAGES == 2
    assert preceding_text(source="message", context=newest_first) == "b\nc"
    assert preceding_text(source="message", context=newest_first, count=3) == "a\nb\nc"
    assert preceding_text(source="text", context=newest_first) is None
    assert preceding_text(source="message", context=[prior("doc", "text")]) is None
    assert preceding_text(source="message", context=[]) is None


def stored_preceding(group: str) -> dict[str, str | None]:
    rows = driver.read(
        "MATCH (e:Episode {group_id: $group}) RETURN e.name AS name, e.preceding_text AS preceding", group=group
    )
    return {row["name"]: row["preceding"] for row in rows}


def test_turns_of_one_time_keep_their_order_across_batches_and_search_finds_a_reply(group: str) -> None:
    turns = [
        "Ines: Did you ever finish the quilt for the county fair?",
        "Tomas: Yes, it took the blue ribbon!",
        "Ines: Congratulations, that is wonderful.",
        "Tomas: Thanks, my grandmother taught me.",
    ]
    episodes = [
        EpisodeInput(content=text, id=f"{group}-t{n}", name=f"turn {n}", source="message", valid_at=TIME)
        for n, text in enumerate(turns, start=1)
    ]
    document = EpisodeInput(content="County fair rules.", id=f"{group}-doc", name="rules", source="text", valid_at=TIME)
    # Two batches at one reference time: the second batch's first turn reads the first batch's last turns.
    episodes_add(group=group, episodes=episodes[:3], batch_size=3, update_communities=False)
    episodes_add(group=group, episodes=[episodes[3], document], batch_size=2, update_communities=False)
    assert stored_preceding(group) == {
        "turn 1": None,
        "turn 2": turns[0],
        "turn 3": f"{turns[0]}\n{turns[1]}",
        "turn 4": f"{turns[1]}\n{turns[2]}",
        "rules": None,
    }
    bm25_only = SearchConfig(episodes=ScopeConfig(methods=(SearchMethod.BM25,), reranker=Reranker.RRF, limit=5))
    found = search(query="quilt", groups=[group], config=bm25_only).episodes
    # "quilt" is said in turn 1 only; the reply (turn 2) and the turn after it are found by it too.
    assert {hit.id for hit in found} == {f"{group}-t1", f"{group}-t2", f"{group}-t3"}
    assert found[0].id == f"{group}-t1"
    assert all(hit.text == turns[int(hit.id[-1]) - 1] for hit in found)  # shown text is the turn's own


def test_reindex_gives_imported_messages_their_preceding_messages_in_number_order(group: str) -> None:
    nodes = [
        {"id": f"{group}-m{n}", "name": f"D1:{n}", "labels": ["Episode"], "content": f"line {n}", "source": "message"}
        | {"valid_at": TIME}
        for n in (10, 2, 1, 9)
    ]
    nodes.append({"id": f"{group}-d", "name": "doc", "labels": ["Episode"], "content": "a document", "source": "text"})
    document = {"nodes": nodes, "edges": []}
    graph_document_import(document=parse_graph_document(document, group=group), group=group)
    assert set(stored_preceding(group).values()) == {None}
    out = StringIO()
    call_command("reindex", group=group, quiet=True, stdout=out)
    assert "3 message(s) given their preceding messages" in out.getvalue()
    assert stored_preceding(group) == {
        "D1:1": None,
        "D1:2": "line 1",
        "D1:9": "line 1\nline 2",
        "D1:10": "line 2\nline 9",
        "doc": None,
    }
    assert preceding_backfill(group=group) == 0  # nothing left to change
    found = search(
        query="line 9",
        groups=[group],
        config=SearchConfig(episodes=ScopeConfig(methods=(SearchMethod.BM25,), reranker=Reranker.RRF, limit=5)),
    ).episodes
    assert f"{group}-m10" in {hit.id for hit in found}  # the view re-read what the backfill wrote
