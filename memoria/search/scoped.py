"""What a memory scope holds in one group: its episodes, and the facts, entities and communities they inherit it by.

A fact belongs to a scope when one of the episodes it was drawn from (`r.episodes`) does; an entity when one of
the scope's episodes mentions it; a community when one of its members belongs. Scopes are not stamped on facts
and entities, since an entity's episodes change as episodes arrive and leave: they are read when a scoped search
runs, one query a kind, and a search keeps only hits among them (memoria/search/service.py), reading its views
deeper when the filter leaves too few (memoria/search/view_methods.py), so the best hits of the scope come back,
not the scope's share of the best hits of the group.
"""

from __future__ import annotations

from dataclasses import dataclass

from memoria.graph import driver, kinds
from memoria.requests.scope import MemoryScope
from memoria.search.config import Scope

# {where} is MemoryScope.episode_condition's own text: every value in it is a parameter.
SCOPE_EPISODES = f"""
MATCH (e:{kinds.MEMORY_LABEL}:{kinds.EPISODE} {{{{group_id: $group}}}})
WHERE {{where}}
RETURN e.id AS id
"""
SCOPE_ENTITIES = f"""
UNWIND $episodes AS episode_id
MATCH (e:{kinds.MEMORY_LABEL} {{group_id: $group, id: episode_id}})-[:{kinds.MENTIONS}]->(n:{kinds.MEMORY_LABEL})
RETURN DISTINCT n.id AS id
"""
# From the group's nodes (their group index), not every relationship of every group: a fact is its source's group's.
SCOPE_FACTS = f"""
MATCH (:{kinds.MEMORY_LABEL} {{group_id: $group}})-[r:{kinds.RELATES}]->()
WHERE any(source IN coalesce(r.episodes, []) WHERE source IN $episodes)
RETURN r.id AS id
"""
SCOPE_COMMUNITIES = f"""
UNWIND $entities AS entity_id
MATCH (c:{kinds.MEMORY_LABEL}:{kinds.COMMUNITY} {{group_id: $group}})-[:{kinds.HAS_MEMBER}]->
      (n:{kinds.MEMORY_LABEL} {{group_id: $group, id: entity_id}})
RETURN DISTINCT c.id AS id
"""


@dataclass(frozen=True)
class ScopeMembers:
    """The ids of each kind of memory a scope holds in one group."""

    episodes: frozenset[str]
    entities: frozenset[str]
    facts: frozenset[str]
    communities: frozenset[str]

    def of(self, scope: Scope) -> frozenset[str]:
        found: frozenset[str] = getattr(self, scope.value)
        return found


def scope_members(*, group: str, scope: MemoryScope, kinds_wanted: frozenset[Scope] = frozenset(Scope)) -> ScopeMembers:
    """The scope's memories in the group; kinds not wanted are left empty (not read)."""
    where, parameters = scope.episode_condition("e")
    episodes = [row["id"] for row in driver.read(SCOPE_EPISODES.format(where=where), group=group, **parameters)]
    entities: list[str] = []
    if episodes and kinds_wanted & {Scope.ENTITIES, Scope.COMMUNITIES}:
        entities = [row["id"] for row in driver.read(SCOPE_ENTITIES, group=group, episodes=episodes)]
    facts: list[str] = []
    if episodes and Scope.FACTS in kinds_wanted:
        facts = [row["id"] for row in driver.read(SCOPE_FACTS, group=group, episodes=episodes)]
    communities: list[str] = []
    if entities and Scope.COMMUNITIES in kinds_wanted:
        communities = [row["id"] for row in driver.read(SCOPE_COMMUNITIES, group=group, entities=entities)]
    return ScopeMembers(frozenset(episodes), frozenset(entities), frozenset(facts), frozenset(communities))
