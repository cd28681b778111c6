"""What a page needs to offer curation: whether this user may edit the group, and the CSRF token for its writes."""

from __future__ import annotations

from typing import Any

from django import template

from explorer.curation_page import curation_settings

register = template.Library()


@register.simple_tag(takes_context=True)
def curation_config(context: template.Context, group: str) -> dict[str, Any]:
    """Rendered with json_script; the page's scripts show editing controls only when `can_curate` is true."""
    return curation_settings(context["request"], group)
