"""Admitting a call that comes without DRF's machinery (an MCP tool call): everything before the service, in the
order REST's view applies it, so the faces refuse the same call the same way.

Role first (REST's permission class), then the rate (its throttles), then the arguments through their pydantic
model (the one adapter to InvalidInput), then access to the group they name (check_access, the function REST's
checks are made of).
"""

from __future__ import annotations

from typing import Any, TypeVar

from django.contrib.auth.models import AbstractBaseUser
from pydantic import BaseModel

from memoria.accounts.roles import Role
from memoria.accounts.services import check_access, check_role
from memoria.admission.throttles import throttle_count
from memoria.requests.vocabulary import input_parse

Wanted = TypeVar("Wanted", bound=BaseModel)


def call_admit(
    *, user: AbstractBaseUser, role: Role, throttle: str | None, model: type[Wanted], arguments: Any
) -> Wanted:
    """The call's validated input, once its caller may make it; RoleRequired, RateLimited, InvalidInput or
    GroupNotFound (the error table answers each) otherwise."""
    check_role(user=user, role=role)
    if throttle is not None:
        throttle_count(scope=throttle, user=user)
    wanted = input_parse(model, arguments)
    group = getattr(wanted, "group", None)
    if group is not None:
        check_access(user=user, group=group, role=role)
    return wanted
