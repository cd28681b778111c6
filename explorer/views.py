"""Pages: each checks access, asks a selector or service, and renders a template. No Cypher here."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from explorer.consumers import ALGORITHMS
from explorer.curation_page import audit_rows, curation_settings
from explorer.current_group import current_group, remember_group, switchable_groups
from explorer.exports import SearchExportInput, results_csv, results_json
from explorer.first_view import first_view
from explorer.landing import landing
from explorer.models import MAX_NAME_LENGTH
from explorer.perspective_request import STATE_KEYS
from explorer.perspectives import default_perspective
from explorer.search_tabs import search_tabs
from explorer.timeline import fact_timeline
from memoria.accounts.services import check_group_access
from memoria.api.errors import problem
from memoria.browse.filters import CATEGORY_CHOICES
from memoria.browse.neighbourhood import DEFAULT_LIMIT
from memoria.browse.paths import DEFAULT_MAX_HOPS, MAX_HOPS
from memoria.browse.selectors import MAX_CARDS, community_page, entity_page, episode_page
from memoria.curation.audit import audit_entries_page
from memoria.curation.inputs import AuditQuery
from memoria.errors import GroupNotFound, InvalidInput
from memoria.graph.rules import ID_PATTERN
from memoria.jobs.service import jobs_list
from memoria.requests.query import query_parse
from memoria.requests.vocabulary import input_parse
from memoria.retrieval.params import BOUNDS, MAX_SEEDS, ActivationParams
from memoria.search.request import SearchParameters
from memoria.search.service import SearchResults, search

SEARCH_LIMIT = 20
# A community's mini graph draws its best-connected members only; the page lists them all.
MINI_GRAPH_MEMBERS = 100
URL_NODE_CAP = 150  # view_state.js's NODE_CAP: the graph page's link keeps this many shown nodes


@login_required
def home(request: HttpRequest) -> HttpResponse:
    """A guided first view: the group to start in (the demo when visible), questions to run live, other groups."""
    return render(request, "explorer/home.html", {"landing": landing(request)})


@login_required
def help_page(request: HttpRequest) -> HttpResponse:
    return render(request, "explorer/help.html")


@login_required
@require_POST
def switch_group(request: HttpRequest) -> HttpResponse:
    """Make another of the user's groups current; a group they may not see is a 404."""
    try:
        remember_group(request, request.POST.get("group", ""))
    except GroupNotFound as error:
        raise Http404(str(error)) from error
    target = request.POST.get("next", "")
    safe = url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}) and target.startswith("/")
    # A page of the old group would switch straight back to it; the new group starts at its search page.
    return redirect(target if safe and not target.startswith("/g/") else "explorer:search")


def group_page(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Signed in, the group visible (it becomes current), and a missing or foreign node answered as 404."""

    @login_required
    @functools.wraps(view)
    def wrapped(request: HttpRequest, group: str, **kwargs: Any) -> HttpResponse:
        try:
            # A group that exists for nobody (or not for this user) is a 404 and leaves the current group alone:
            # the header, and the next search, stay where they were.
            if group not in switchable_groups(request):
                check_group_access(user=request.user, group=group)  # a bad name or a foreign group: its own words
                raise GroupNotFound(f"no group {group!r} is visible to you")
            remember_group(request, group)
            return view(request, group, **kwargs)
        except GroupNotFound as error:  # NodeNotFound included
            raise Http404(str(error)) from error

    return wrapped


def _page_search(group: str, query: str) -> tuple[SearchResults, str]:
    """The search page's search (its recipe and limit), for the page and for its downloads alike: the results,
    and the query as it was searched."""
    wanted = input_parse(SearchParameters, {"q": query, "group": group, "limit": SEARCH_LIMIT}).request()
    return search(query=wanted.query, groups=[group], config=wanted.config, valid_at=wanted.valid_at), wanted.query


@login_required
def search_page(request: HttpRequest) -> HttpResponse:
    """Hybrid search of the current group: facts, entities, episodes and communities in tabs, with scores; weak
    matches (cosine alone, below the relevance floor) only with `weak=1`."""
    group = current_group(request)
    query = request.GET.get("q", "").strip()
    weak_shown = request.GET.get("weak") == "1"
    context: dict[str, Any] = {"group": group, "query": query, "results": None, "problems": [], "weak": weak_shown}
    if query and group:
        try:
            found, _ = _page_search(group, query)
        except InvalidInput as error:
            context["problems"] = error.problems
        else:
            context["results"] = found
            tabs = search_tabs(found, limit=SEARCH_LIMIT, weak_shown=weak_shown)
            context["tabs"] = tabs
            context["shown"] = sum(len(tab.hits) for tab in tabs)
            context["weak_left_out"] = sum(tab.weak for tab in tabs)
    return render(request, "explorer/search.html", context)


@login_required
def search_export(request: HttpRequest) -> HttpResponse:
    """The search page's results as a CSV or JSON download (explorer/exports.py)."""
    group = current_group(request)
    try:
        asked = input_parse(SearchExportInput, request.GET.dict())
        if not group:
            raise InvalidInput("group: no memory group is visible to you")
        found, searched = _page_search(group, asked.q)
    except InvalidInput as error:
        status, body, _ = problem(error)  # type: ignore[misc]  # InvalidInput always has an answer
        return JsonResponse(body, status=status)
    if asked.format == "csv":
        response = HttpResponse(results_csv(found), content_type="text/csv; charset=utf-8")
    else:
        response = JsonResponse(results_json(found, group=group, query=searched), json_dumps_params={"indent": 1})
    response["Content-Disposition"] = f'attachment; filename="memoria-search.{asked.format}"'
    return response


@group_page
def entity_view(request: HttpRequest, group: str, node_id: str) -> HttpResponse:
    page = entity_page(group=group, entity_id=node_id)
    timeline = fact_timeline(page.facts, entity_id=node_id)
    return render(request, "explorer/entity.html", {"group": group, "page": page, "timeline": timeline})


@group_page
def episode_view(request: HttpRequest, group: str, node_id: str) -> HttpResponse:
    page = episode_page(group=group, episode_id=node_id)
    return render(request, "explorer/episode.html", {"group": group, "page": page})


@group_page
def community_view(request: HttpRequest, group: str, node_id: str) -> HttpResponse:
    page = community_page(group=group, community_id=node_id)
    drawn = [member.id for member in page.members[:MINI_GRAPH_MEMBERS]]
    return render(request, "explorer/community.html", {"group": group, "page": page, "drawn": drawn})


@group_page
def graph_view(request: HttpRequest, group: str) -> HttpResponse:
    """The graph view; it starts from ?node=, ?nodes=a,b (&edge=) or ?q= and asks the JSON API for the rest."""
    nodes = [item for item in request.GET.get("nodes", "").split(",") if item]
    if request.GET.get("node"):
        nodes.insert(0, request.GET["node"])
    asked = bool(STATE_KEYS & request.GET.keys())
    # With no view in the URL, the page opens the group's default perspective (explorer/perspectives.py), and
    # without one the group's most connected entities (explorer/first_view.py).
    default_view = None if asked else _default_view(request, group)
    config = {
        "group": group,
        "start": {"nodes": nodes[:50], "edge": request.GET.get("edge") or None, "query": request.GET.get("q", "")},
        "default_view": default_view,
        "first_view": None if asked or default_view else first_view(group).as_dict(),
        "view_name_max": MAX_NAME_LENGTH,
        "url_node_cap": URL_NODE_CAP,
        "expand_limit": DEFAULT_LIMIT,
        "subgraph_cap": MAX_CARDS,  # the most ids one subgraph request takes
        "categories": list(CATEGORY_CHOICES),
        "max_hops": DEFAULT_MAX_HOPS,
        "max_hops_limit": MAX_HOPS,
        "id_pattern": ID_PATTERN.pattern.replace("\\Z", "$"),  # what a node id can be, for the page's links
    }
    return render(request, "explorer/graph.html", {"group": group, "config": config})


def _default_view(request: HttpRequest, group: str) -> dict[str, Any] | None:
    view = default_perspective(user=request.user, group=group)
    return view and {"id": view.pk, "name": view.name, "state": view.state}


@group_page
def live_view(request: HttpRequest, group: str) -> HttpResponse:
    """The live retrieval panel; ?seed= (repeatable) and ?q= fill it in, &run=1 starts it at once."""
    seeds = [seed for seed in request.GET.getlist("seed") if seed][:MAX_SEEDS]
    config = {
        "group": group,
        "algorithms": list(ALGORITHMS),
        "defaults": ActivationParams().as_dict(),
        "bounds": {
            name: {"low": low, "high": high, "low_allowed": low_ok} for name, (_, low, high, low_ok) in BOUNDS.items()
        },
        "max_seeds": MAX_SEEDS,
        "start": {"seeds": seeds, "query": request.GET.get("q", ""), "run": request.GET.get("run") == "1"},
    }
    return render(request, "explorer/live.html", live_page_context(group, config, "live"))


@group_page
def watch_view(request: HttpRequest, group: str) -> HttpResponse:
    """Retrievals running in the group now and lately, by anyone; any of them replayed in the live view."""
    return render(request, "explorer/watch.html", live_page_context(group, {"group": group}, "watch"))


@group_page
def audit_view(request: HttpRequest, group: str) -> HttpResponse:
    """The group's curation changes, newest first, a page at a time, optionally of one item; curators may undo."""
    problems: list[str] = []
    try:
        query = query_parse(AuditQuery, request.GET)
    except InvalidInput as error:
        problems = error.problems
        query = AuditQuery()
    page = audit_entries_page(
        group=group, item_id=query.item_id, item_kind=query.item_kind, before=query.before, limit=query.limit
    )
    older = urlencode({"item_id": query.item_id or "", "before": page.next_before}) if page.next_before else None
    context = {
        "group": group,
        "query": query,
        "problems": problems,
        "rows": audit_rows(group, page.entries),
        "older": older,
        "curation": curation_settings(request, group),
    }
    return render(request, "explorer/audit.html", context)


@group_page
def jobs_view(request: HttpRequest, group: str) -> HttpResponse:
    """The group's background jobs, newest first, live over the watch socket; start, cancel, download."""
    curation = curation_settings(request, group)
    # Exports are anyone's who sees the group: every user gets the token their start and cancel send.
    config = {**curation, "csrf": get_token(request), "jobs": jobs_list(user=request.user, group=group)}
    return render(request, "explorer/jobs.html", {"group": group, "config": config})


def live_page_context(group: str, config: dict[str, Any], page: str) -> dict[str, Any]:
    """What explorer/_live_page.html needs: the script's settings, and which script and test id are the page's."""
    return {
        "group": group,
        "config": config,
        "config_id": f"{page}-config",
        "page_testid": f"{page}-page",
        "page_script": f"explorer/js/{page}_page.js",
    }
