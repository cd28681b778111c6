"""Roles, in increasing power: viewers read, curators also edit the graph, admins also see every group."""

from __future__ import annotations

import enum
import re

from memoria.errors import MemoriaError

GROUP_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class Role(enum.StrEnum):
    VIEWER = "viewer"
    CURATOR = "curator"
    ADMIN = "admin"

    @property
    def rank(self) -> int:
        return list(Role).index(self)


CURATOR_NEEDED = "Changing the memory graph needs the curator role."


class RoleRequired(MemoriaError):
    """The caller is signed in but its role is below what the operation needs (REST's 403, an MCP tool error).

    Raised before the group is looked at, so it says nothing about any group.
    """

    def __init__(self, role: Role) -> None:
        self.role = role
        super().__init__(CURATOR_NEEDED if role is Role.CURATOR else f"This needs the {role.value} role.")


def check_group_name(group: str) -> str:
    """Group names appear in URLs and ids, so they are kept to a plain alphabet."""
    if not isinstance(group, str) or not GROUP_PATTERN.fullmatch(group):
        raise ValueError(f"group {group!r} must be 1–64 letters, digits, '_' or '-'")
    return group
