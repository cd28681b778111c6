"""Saved views of the graph page: who may see, save, share, change and delete them, and the group's default.

Every function checks the group first (a group the user may not see is GroupNotFound, like a missing one), then
the view: another user's private view, or a view of another group, is PerspectiveNotFound, so a refusal never
tells whether it exists. Sharing and the default need the curator role, because others then see them.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import IntegrityError, transaction
from django.db.models import Q, QuerySet

from explorer.models import Perspective
from explorer.perspective_request import PerspectiveChange, PerspectiveCreate
from memoria.accounts.roles import Role
from memoria.accounts.services import check_group_access, user_has_role
from memoria.errors import GroupNotFound, InvalidInput, MemoriaError

User = AbstractBaseUser | AnonymousUser
SHARING_NEEDS_CURATOR = "Sharing a view with the group, or choosing the group's default view, needs the curator role."
OWNER_ONLY = "Only the view's owner may rename it or change what it shows; save a copy under your own name instead."
DELETE_NEEDS_OWNER = "Only the view's owner, or a curator for a shared view, may delete it."


class PerspectiveNotFound(GroupNotFound):
    """No view of that id visible to the user in that group."""


class PerspectiveRefused(MemoriaError):
    """The user sees the view (or may save in the group) but not change it this way (REST's 403)."""


def _visible(user: User, group: str) -> QuerySet[Perspective]:
    return Perspective.objects.filter(Q(owner_id=user.pk) | Q(shared=True), group=group).select_related("owner")


def _curator(user: User) -> bool:
    return user_has_role(user=user, role=Role.CURATOR)


def perspective_card(view: Perspective, *, user: User) -> dict[str, Any]:
    """A view as the API and the Views menu show it; `url` opens it on the graph page."""
    return {
        "id": view.pk,
        "name": view.name,
        "state": view.state,
        "url": f"/g/{view.group}/graph/" + (f"?{view.state}" if view.state else ""),
        "shared": view.shared,
        "default": view.is_default,
        "owner": view.owner.get_username(),
        "mine": view.owner_id == user.pk,
        "created_at": view.created_at.isoformat(),
        "updated_at": view.updated_at.isoformat(),
    }


def perspectives_list(*, user: User, group: str) -> list[Perspective]:
    """The user's own views and those shared with the group: the default first, then by name."""
    check_group_access(user=user, group=group)
    return sorted(_visible(user, group), key=lambda view: (not view.is_default, view.name.casefold(), view.pk))


# Ids past the database's integer range are nobody's view (SQLite would refuse to compare them).
MAX_ID = 2**63 - 1


def perspective_get(*, user: User, group: str, view_id: int) -> Perspective:
    check_group_access(user=user, group=group)
    view = _visible(user, group).filter(pk=view_id).first() if 0 < view_id <= MAX_ID else None
    if view is None:
        raise PerspectiveNotFound(f"no view {view_id} visible to you in group {group!r}")
    return view


def default_perspective(*, user: User, group: str) -> Perspective | None:
    """The view the graph page opens with when its URL holds no state."""
    check_group_access(user=user, group=group)
    return Perspective.objects.filter(group=group, is_default=True).select_related("owner").first()


def _save(view: Perspective, *, make_default: bool) -> Perspective:
    """Write the view (making it the only default when asked); a name the owner already uses is a 400."""
    try:
        with transaction.atomic():
            if make_default:
                Perspective.objects.filter(group=view.group, is_default=True).exclude(pk=view.pk).update(
                    is_default=False
                )
            view.save()
    except IntegrityError:
        raise InvalidInput([f"name: you already have a view named {view.name!r} in group {view.group!r}"]) from None
    return view


def perspective_create(*, user: User, group: str, wanted: PerspectiveCreate) -> Perspective:
    check_group_access(user=user, group=group)
    if (wanted.shared or wanted.default) and not _curator(user):
        raise PerspectiveRefused(SHARING_NEEDS_CURATOR)
    view = Perspective(
        owner_id=user.pk,
        group=group,
        name=wanted.name,
        state=wanted.state,
        shared=wanted.shared or wanted.default,
        is_default=wanted.default,
    )
    return _save(view, make_default=wanted.default)


def perspective_change(*, user: User, group: str, view_id: int, wanted: PerspectiveChange) -> Perspective:
    """Rename or re-save (owner), share or unshare, make or unmake the default (curator; unsharing: owner too)."""
    if (wanted.shared or wanted.default is not None) and not _curator(user):
        # Refused before the view is looked up, as a role check always is: it tells nothing about the view.
        check_group_access(user=user, group=group)
        raise PerspectiveRefused(SHARING_NEEDS_CURATOR)
    view = perspective_get(user=user, group=group, view_id=view_id)
    mine = view.owner_id == user.pk
    if (wanted.name is not None or wanted.state is not None) and not mine:
        raise PerspectiveRefused(OWNER_ONLY)
    if wanted.shared is False and not (mine or _curator(user)):
        raise PerspectiveRefused(SHARING_NEEDS_CURATOR)
    if wanted.name is not None:
        view.name = wanted.name
    if wanted.state is not None:
        view.state = wanted.state
    if wanted.shared is not None:
        view.shared = wanted.shared
        view.is_default = view.is_default and wanted.shared  # a private view cannot be everyone's default
    if wanted.default is not None:
        view.is_default = wanted.default
        view.shared = view.shared or wanted.default
    return _save(view, make_default=view.is_default)


def perspective_delete(*, user: User, group: str, view_id: int) -> None:
    view = perspective_get(user=user, group=group, view_id=view_id)
    if view.owner_id != user.pk and not (view.shared and _curator(user)):
        raise PerspectiveRefused(DELETE_NEEDS_OWNER)
    view.delete()
