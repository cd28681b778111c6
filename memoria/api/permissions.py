"""Who may call what: reads need a signed-in user, writes the curator role."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rest_framework.permissions import SAFE_METHODS, BasePermission

if TYPE_CHECKING:  # importing DRF's views here would be circular while DRF loads its settings
    from rest_framework.request import Request
    from rest_framework.views import APIView

from memoria.accounts.roles import Role
from memoria.accounts.services import user_has_role


class ReadOrCurate(BasePermission):
    message = "Changing the memory graph needs the curator role."

    def has_permission(self, request: Request, view: APIView) -> bool:
        if not (request.user and request.user.is_authenticated):
            return False
        return request.method in SAFE_METHODS or user_has_role(user=request.user, role=Role.CURATOR)
