"""Account services and selectors: roles, group access, tokens (keyword-only, no HTTP here)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from rest_framework.authtoken.models import Token

from memoria.accounts.models import GroupMembership, Profile
from memoria.accounts.roles import Role, RoleRequired, check_group_name

User = get_user_model()


def user_role(*, user: AbstractBaseUser | AnonymousUser) -> Role | None:
    """The user's role, or None for anonymous users; superusers are admins."""
    if not user or not user.is_authenticated:
        return None
    if user.is_superuser:
        return Role.ADMIN
    profile = Profile.objects.filter(user=user).only("role").first()
    return Role(profile.role) if profile else Role.VIEWER


def user_has_role(*, user: AbstractBaseUser | AnonymousUser, role: Role) -> bool:
    current = user_role(user=user)
    return current is not None and current.rank >= role.rank


def user_groups(*, user: AbstractBaseUser | AnonymousUser) -> list[str] | None:
    """The groups a user may see; None means every group (admins)."""
    if user_has_role(user=user, role=Role.ADMIN):
        return None
    if not user.is_authenticated:
        return []
    return list(GroupMembership.objects.filter(user=user).values_list("group", flat=True))


def user_can_access_group(*, user: AbstractBaseUser | AnonymousUser, group: str) -> bool:
    groups = user_groups(user=user)
    return groups is None or group in groups


@transaction.atomic
def user_grant(*, username: str, role: Role, groups: list[str] = (), password: str | None = None) -> AbstractBaseUser:
    """Create the user if needed, set its role and add group access; returns the user."""
    for group in groups:
        check_group_name(group)
    user, created = User.objects.get_or_create(username=username)
    if password is not None:
        user.set_password(password)
        user.save(update_fields=["password"])
    elif created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    Profile.objects.update_or_create(user=user, defaults={"role": role.value})
    for group in groups:
        GroupMembership.objects.get_or_create(user=user, group=group)
    return user


def token_for(*, user: AbstractBaseUser) -> str:
    token, _ = Token.objects.get_or_create(user=user)
    return token.key


def check_group_access(*, user: AbstractBaseUser | AnonymousUser, group: str) -> str:
    """Return the group if the user may see it; otherwise GroupNotFound (no hint whether it exists)."""
    from memoria.errors import GroupNotFound

    try:
        check_group_name(group)
    except ValueError as error:
        raise GroupNotFound(str(error)) from error
    if not user_can_access_group(user=user, group=group):
        raise GroupNotFound(f"no group {group!r} is visible to you")
    return group


def check_role(*, user: AbstractBaseUser | AnonymousUser, role: Role) -> None:
    """RoleRequired unless the user holds `role` or a stronger one."""
    if not user_has_role(user=user, role=role):
        raise RoleRequired(role)


def check_access(*, user: AbstractBaseUser | AnonymousUser, group: str, role: Role = Role.VIEWER) -> str:
    """The check every face makes before touching a group: the role first, then the group.

    The order is REST's (the permission class answers 403 before a view looks the group up), so a viewer is told
    about its role and never whether a group exists; a group it may not see is GroupNotFound, like a missing one.
    """
    check_role(user=user, role=role)
    return check_group_access(user=user, group=group)
