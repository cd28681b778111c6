"""The load's data and identity: a token user for the group, and texts drawn from the group for queries and episodes."""

from __future__ import annotations

from memoria.accounts.models import GroupMembership
from memoria.accounts.roles import Role
from memoria.accounts.services import token_for, user_grant
from memoria.graph import driver, kinds

LOADTEST_USER = "loadtest"
MAX_QUERIES = 200
ENTITY_NAMES = f"""
MATCH (n:{kinds.MEMORY_LABEL}:{kinds.ENTITY} {{group_id: $group}})
WHERE n.name IS NOT NULL
RETURN n.name AS name ORDER BY n.id LIMIT $limit
"""


def loadtest_token(*, group: str) -> str:
    """A curator (ingest needs one) who sees only the load's group; the same user across runs."""
    return token_for(user=user_grant(username=LOADTEST_USER, role=Role.CURATOR, groups=[group]))


def group_queries(*, group: str) -> list[str]:
    """Entity names of the group: real texts, so retrievals find seeds and searches find hits."""
    return [row["name"] for row in driver.read(ENTITY_NAMES, group=group, limit=MAX_QUERIES)]


def loadtest_access_revoke(*, group: str) -> None:
    """The load user keeps no access to a group once its run is over."""
    GroupMembership.objects.filter(user__username=LOADTEST_USER, group=group).delete()
