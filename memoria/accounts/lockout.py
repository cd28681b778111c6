"""What a sign-in answers once django-axes has locked it out: the sign-in page again, saying why and for how long,
with 429 and Retry-After, so a person and a script both learn when to try again.

Axes counts failed sign-ins per username and per client address (settings: AXES_LOCKOUT_PARAMETERS); a failure
during the lockout starts the cool-off again (axes' default), so the whole cool-off is the time left.
"""

from __future__ import annotations

import math
from typing import Any

from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

LOCKED_STATUS = 429


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: dict[str, Any] | None = None
) -> HttpResponse:
    """AXES_LOCKOUT_CALLABLE: the sign-in form with the lockout's reason, 429 and Retry-After in seconds."""
    seconds = int(settings.AXES_COOLOFF_TIME.total_seconds())
    context = {
        "form": AuthenticationForm(request),
        "locked_minutes": math.ceil(seconds / 60),
        "next": request.POST.get("next", "") if request.method == "POST" else "",
    }
    response = render(request, "registration/login.html", context, status=LOCKED_STATUS)
    response["Retry-After"] = str(seconds)
    return response
