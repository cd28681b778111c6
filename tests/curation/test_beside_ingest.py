"""Curation and ingestion on the same fact at once: neither overwrites the other, and a stale edit is refused."""

from __future__ import annotations

import pytest

from memoria.curation import edit
from memoria.curation.edit import edge_update
from memoria.curation.errors import CurationConflict, StaleEdit
from memoria.curation.inputs import EdgePatch
from memoria.curation.models import AuditEntry
from memoria.curation.selectors import edge_state_get
from memoria.graph import driver
from memoria.ingest.episodes import EpisodeInput
from memoria.ingest.pipeline import episode_add

pytestmark = pytest.mark.django_db

FIRST = EpisodeInput("Liv: My sister Maren lives in Tallinn.", id="c1", valid_at="2024-03-01T10:00:00Z")
AGAIN = EpisodeInput("Liv: Maren lives in Tallinn, she loves it.", id="c3", valid_at="2024-03-03T10:00:00Z")
LIVES = """
MATCH (a:Entity {group_id: $g, name: 'Maren'})-[r:RELATES {relation: 'live_in'}]->(:Entity {name: 'Tallinn'})
RETURN r.id AS id, r.episodes AS episodes, r.weight AS weight
"""


def lives(group: str) -> dict:
    [row] = driver.read(LIVES, g=group)
    return row


def test_an_ingest_merge_makes_a_curators_version_stale(group: str) -> None:
    episode_add(group=group, episode=FIRST)
    fact = lives(group)["id"]
    seen = edge_state_get(group=group, edge_id=fact).version()
    episode_add(group=group, episode=AGAIN)  # merges c3 into the fact the curator is looking at
    with pytest.raises(StaleEdit, match="changed since you read it"):
        edge_update(group=group, edge_id=fact, patch=EdgePatch(weight=0.3, version=seen), actor="cura")
    assert lives(group)["episodes"] == ["c1", "c3"]
    assert not AuditEntry.objects.filter(group=group).exists()
    now = edge_state_get(group=group, edge_id=fact).version()
    edge_update(group=group, edge_id=fact, patch=EdgePatch(weight=0.3, version=now), actor="cura")
    assert lives(group) == {"id": fact, "episodes": ["c1", "c3"], "weight": 0.3}


def test_an_ingest_merge_between_a_curators_read_and_write_is_not_written_over(
    group: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An edit without a version reads the fact, then writes: a merge landing in between refuses the edit (409,
    worth sending again) instead of being overwritten by the state the curator read."""
    episode_add(group=group, episode=FIRST)
    fact = lives(group)["id"]
    real_read = edit.edge_state_get

    def read_then_ingest(**kwargs: str):
        state = real_read(**kwargs)
        episode_add(group=group, episode=AGAIN)
        return state

    monkeypatch.setattr(edit, "edge_state_get", read_then_ingest)
    with pytest.raises(CurationConflict) as refused:
        edge_update(group=group, edge_id=fact, patch=EdgePatch(weight=0.3), actor="cura")
    assert refused.value.retry_after == 1  # sent again, it reads the merged fact and succeeds
    assert lives(group)["episodes"] == ["c1", "c3"]
    monkeypatch.setattr(edit, "edge_state_get", real_read)
    edge_update(group=group, edge_id=fact, patch=EdgePatch(weight=0.3), actor="cura")
    assert lives(group) == {"id": fact, "episodes": ["c1", "c3"], "weight": 0.3}
