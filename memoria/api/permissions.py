"""Who may call what: reads need a signed-in user, writes the curator role."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rest_framework.permissions import SAFE_METHODS, BasePermission

if TYPE_CHECKING:  # importing DRF's views here would be circular while DRF loads its settings
    from rest_framework.request import Request
    from rest_framework.views import APIView

from memoria.accounts.roles import CURATOR_NEEDED, Role, RoleRequired
from memoria.accounts.services import check_role


class ReadOrCurate(BasePermission):
    """Reads for every signed-in user; writes through accounts' check_role, the check the MCP tools make too."""

    message = CURATOR_NEEDED

    def has_permission(self, request: Request, view: APIView) -> bool:
        if not (request.user and request.user.is_authenticated):
            return False
        if request.method in SAFE_METHODS:
            return True
        try:
            check_role(user=request.user, role=Role.CURATOR)
        except RoleRequired:
            return False
        return True
