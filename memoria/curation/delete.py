"""Deleting an edge or an episode: gone from the graph, kept whole in the audit entry so undo can put it back exactly.

An episode goes with what it alone said: its mentions, and the facts drawn from it and from no other episode (as
Graphiti's remove_episode does); a fact another episode also supports stays and forgets this one. Its entities stay:
other episodes and facts may name them, and a curator merges or edits them as any other.
"""

from __future__ import annotations

from memoria.curation.commit import Change, ChangeOutcome, change_commit, edge_change, version_check
from memoria.curation.errors import ItemNotFound
from memoria.curation.models import EDGE_DELETE, EPISODE, EPISODE_DELETE
from memoria.curation.selectors import edge_state_get
from memoria.curation.state import EdgeState, GraphState, Link
from memoria.curation.store import Scope, state_read
from memoria.graph import driver, kinds

EPISODE_MENTIONS = f"""
MATCH (ep:{kinds.EPISODE} {{group_id: $group, id: $id}})-[:{kinds.MENTIONS}]->(n:{kinds.MEMORY_LABEL})
RETURN n.id AS target
"""
# The facts that cite the episode, and any fact with the episode at one end (an import may make one).
FACTS_CITING = f"""
MATCH ()-[r:{kinds.RELATES}]->()
WHERE r.group_id = $group AND $id IN r.episodes
RETURN r.id AS id
"""
FACTS_TOUCHING = f"""
MATCH (ep:{kinds.EPISODE} {{group_id: $group, id: $id}})-[r:{kinds.RELATES}]-()
RETURN r.id AS id
"""


def edge_delete(*, group: str, edge_id: str, version: str | None, actor: str) -> ChangeOutcome:
    current = edge_state_get(group=group, edge_id=edge_id)
    version_check(what=f"fact {edge_id!r}", state=current, version=version)
    change = edge_change(group=group, action=EDGE_DELETE, edge_id=edge_id, before=current, after=None)
    return change_commit(change=change, actor=actor)


def _without_episode(edge: EdgeState | None, episode_id: str) -> EdgeState | None:
    """The fact once the episode is gone: without it among its sources, or gone itself when it was the only one
    (or when the episode is one of its ends)."""
    if edge is None or episode_id in (edge.source, edge.target):
        return None
    rest = [source for source in edge.props.get("episodes") or () if source != episode_id]
    return edge.with_props(episodes=rest) if rest else None


def episode_delete(*, group: str, episode_id: str, actor: str) -> ChangeOutcome:
    """ItemNotFound unless the group holds an episode of that id (an entity's id is not an episode's)."""
    mentioned = [row["target"] for row in driver.read(EPISODE_MENTIONS, id=episode_id, group=group)]
    fact_ids = {
        row["id"] for query in (FACTS_CITING, FACTS_TOUCHING) for row in driver.read(query, id=episode_id, group=group)
    }
    links = frozenset(Link(kinds.MENTIONS, episode_id, target) for target in mentioned)
    before = state_read(group=group, scope=Scope(nodes=frozenset({episode_id}), edges=frozenset(fact_ids), links=links))
    episode = before.nodes[episode_id]
    if episode is None or episode.kind != kinds.EPISODE or episode.props.get("group_id") != group:
        raise ItemNotFound(f"no episode {episode_id!r} in group {group!r}")
    after = GraphState(
        nodes={episode_id: None},
        edges={key: _without_episode(edge, episode_id) for key, edge in before.edges.items()},
        links=dict.fromkeys(before.links, False),
    )
    change = Change(
        group=group, action=EPISODE_DELETE, item_kind=EPISODE, item_id=episode_id, before=before, after=after
    )
    return change_commit(change=change, actor=actor)
