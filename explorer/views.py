"""Pages: each asks a selector and renders a template."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from memoria.accounts.services import user_groups, user_role
from memoria.graph.selectors import group_summary, visible_groups


@login_required
def home(request: HttpRequest) -> HttpResponse:
    groups = [group_summary(group=group) for group in visible_groups(allowed=user_groups(user=request.user))]
    role = user_role(user=request.user)
    return render(request, "explorer/home.html", {"groups": groups, "role": role.value if role else ""})
