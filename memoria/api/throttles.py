"""The 429 of the throttle policy (memoria/admission/throttles.py) as the OpenAPI schema documents it."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from memoria.admission.throttles import SCOPES


class ThrottledOutput(serializers.Serializer):
    """The 429 body, for the OpenAPI schema."""

    class Limit(serializers.Serializer):
        requests = serializers.IntegerField()
        period_seconds = serializers.IntegerField()

    detail = serializers.CharField()
    code = serializers.CharField()
    scope = serializers.ChoiceField(choices=SCOPES)
    limit = Limit()
    retry_after = serializers.IntegerField(help_text="seconds; the Retry-After header says the same")


def throttled_responses(ok: Any) -> dict[int, Any]:
    """A throttled operation's documented answers: its 200, and the 429 of its rate."""
    return {200: ok, 429: ThrottledOutput}
