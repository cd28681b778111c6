"""A scope finer than a group: whose memory an episode is (user, agent, session) and its free metadata.

Written on the episodes themselves (`user_id`, `agent_id`, `session_id`, `metadata`), so an episode stored before
scopes existed simply has none. Metadata is kept twice: as its JSON text (read back whole) and as a list of
`key=value` texts (`metadata_pairs`, the value as compact JSON) that a filter matches with `$pair IN
e.metadata_pairs` — one parameterised test per key, never a user's key spliced into Cypher, and the same on
ArcadeDB and Neo4j (neither indexes a map's keys). Facts and entities are not stamped: they inherit the scopes
of the episodes they came from, which change as episodes arrive and leave (memoria.search.scoped reads them).

Named MemoryScope, not Scope: memoria.search.config.Scope already names the kinds a search reads.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import Field

from memoria.requests.vocabulary import Metadata, RequestModel, ScopeId

SCOPE_IDS = ("user_id", "agent_id", "session_id")
METADATA = "metadata"
METADATA_PAIRS = "metadata_pairs"


def metadata_pair(key: str, value: str | int | float | bool) -> str:
    """One key and its value as stored and matched: `priority=2`, `channel="support"`, `vip=true`."""
    return f"{key}={json.dumps(value, ensure_ascii=False, separators=(',', ':'))}"


class MemoryScope(RequestModel):
    """Which memories: those of this user, agent and session, whose metadata holds every pair given. An empty
    scope is every memory of the group."""

    user_id: ScopeId | None = Field(
        default=None, description="the user a memory is about or for (adding: theirs; reading: only theirs)"
    )
    agent_id: ScopeId | None = Field(
        default=None, description="the agent a memory belongs to (adding: its own; reading: only its own)"
    )
    session_id: ScopeId | None = Field(
        default=None, description="the session (a chat, a run) a memory came from (reading: only this session's)"
    )
    metadata: Metadata | None = Field(
        default=None, description="free metadata (reading: only memories with each of these keys at this value)"
    )

    def memory_scope(self) -> MemoryScope:
        """The scope alone, of a request that carries one beside its own fields."""
        return MemoryScope(
            user_id=self.user_id, agent_id=self.agent_id, session_id=self.session_id, metadata=self.metadata
        )

    @property
    def empty(self) -> bool:
        return not any(getattr(self, name) for name in SCOPE_IDS) and not self.metadata

    def stored_properties(self) -> dict[str, Any]:
        """The properties an episode of this scope is written with (nothing for an empty scope, so an episode
        added without one is stored as it always was)."""
        props: dict[str, Any] = {name: value for name in SCOPE_IDS if (value := getattr(self, name)) is not None}
        if self.metadata:
            props[METADATA] = json.dumps(self.metadata, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
            props[METADATA_PAIRS] = sorted(metadata_pair(key, value) for key, value in self.metadata.items())
        return props

    def episode_condition(self, episode: str = "e") -> tuple[str, dict[str, Any]]:
        """A Cypher condition on the episode bound to `episode` (a name of our own code) and its parameters, each
        prefixed `scope_`; "true" for an empty scope."""
        terms: list[str] = []
        parameters: dict[str, Any] = {}
        for name in SCOPE_IDS:
            if (value := getattr(self, name)) is not None:
                terms.append(f"{episode}.{name} = $scope_{name}")
                parameters[f"scope_{name}"] = value
        for index, (key, value) in enumerate(sorted((self.metadata or {}).items())):
            terms.append(f"$scope_pair{index} IN coalesce({episode}.{METADATA_PAIRS}, [])")
            parameters[f"scope_pair{index}"] = metadata_pair(key, value)
        return (" AND ".join(terms) or "true"), parameters

    def described(self) -> str:
        """The scope in words, for logs and audit entries: `user_id=alice session_id=s1 metadata.channel="x"`."""
        parts = [f"{name}={value}" for name in SCOPE_IDS if (value := getattr(self, name)) is not None]
        parts += [f"metadata.{metadata_pair(key, value)}" for key, value in sorted((self.metadata or {}).items())]
        return " ".join(parts)
