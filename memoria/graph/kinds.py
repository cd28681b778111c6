"""The vocabulary of the memory graph: node kinds, extra entity labels, relation categories.

Labels cannot be passed to Cypher as parameters, so every label that reaches a
query string must come from here; user input is checked against these sets.
"""

from __future__ import annotations

from django.conf import settings

MEMORY_LABEL = "Memory"
EPISODE = "Episode"
ENTITY = "Entity"
COMMUNITY = "Community"
NODE_KINDS: tuple[str, ...] = (EPISODE, ENTITY, COMMUNITY)

RELATES = "RELATES"
MENTIONS = "MENTIONS"
HAS_MEMBER = "HAS_MEMBER"

# The seed's memory kinds (Activation Energy document, section 9).
DEFAULT_ENTITY_LABELS: tuple[str, ...] = (
    "UserRequest",
    "UserPreference",
    "AgentAnswer",
    "AgentAction",
    "Event",
    "DataSource",
)

RELATION_CATEGORIES: tuple[str, ...] = (
    "HIERARCHICAL",
    "TEMPORAL",
    "SPATIAL",
    "CAUSALITY",
    "ATTRIBUTION",
)

EPISODE_SOURCES: tuple[str, ...] = ("message", "text", "json")


def entity_labels() -> tuple[str, ...]:
    """Extra entity labels allowed here: the seed's six plus any configured ones."""
    extra = tuple(getattr(settings, "MEMORIA_EXTRA_ENTITY_LABELS", ()))
    return DEFAULT_ENTITY_LABELS + tuple(label for label in extra if label not in DEFAULT_ENTITY_LABELS)
