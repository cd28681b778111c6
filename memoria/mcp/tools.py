"""The MCP tools: each checks its caller exactly as the REST view it mirrors does, then calls the same service.

Every call goes the same way (`_admit`, one trip to the database thread): who calls, then admission's checks in
REST's order (memoria/admission/calls.py: role, rate, arguments, group); then the service. Errors answer by the
error table (memoria/admission/problems.py), rendered as tool errors by memoria/mcp/errors.py.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from channels.db import database_sync_to_async
from django.contrib.auth.models import AbstractBaseUser
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, ConfigDict

from memoria.accounts.roles import Role
from memoria.accounts.services import user_groups, user_role
from memoria.admission.calls import call_admit
from memoria.admission.episodes import episodes_admit
from memoria.admission.retrieval import activation_answer
from memoria.admission.throttles import INGEST, RETRIEVAL, SEARCH
from memoria.browse.filters import EdgeFilter
from memoria.browse.neighbourhood import neighbourhood
from memoria.browse.selectors import entity_page, episodes_recent
from memoria.context.service import context_build
from memoria.context.tokens import cut_to_tokens
from memoria.curation.delete import edge_delete, episode_delete
from memoria.curation.edit import edge_update
from memoria.curation.inputs import edge_invalidation_parse, edge_patch_parse
from memoria.curation.invalidate import edge_invalidate
from memoria.curation.selectors import edge_detail, edge_versions
from memoria.curation.undo import own_last_change_undo
from memoria.errors import InvalidInput
from memoria.graph import kinds
from memoria.graph.clear import group_clear
from memoria.graph.health import graph_health
from memoria.graph.rules import TIMESTAMP_FORMAT
from memoria.graph.selectors import group_summary, visible_groups
from memoria.mcp import inputs, outputs
from memoria.mcp.auth import caller
from memoria.mcp.errors import HANDLED, tool_error
from memoria.mcp.schemas import arguments_given, tool_input_schema
from memoria.ppr.request import PprBody
from memoria.ppr.service import ppr_run
from memoria.requests.moment import VIEW_FIELDS, view_moment
from memoria.requests.vocabulary import input_parse
from memoria.retrieval.event_types import LevelExpanded, RetrievalEvent
from memoria.retrieval.request import ActivationBody
from memoria.search.config import SearchConfig
from memoria.search.request import SearchParameters
from memoria.search.service import search

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Call:
    """One tool call: who makes it, its validated input, and the SDK's context (for progress)."""

    user: AbstractBaseUser
    wanted: Any
    ctx: Context


Handler = Callable[[Call], Awaitable[BaseModel | CallToolResult]]


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    input_model: type[BaseModel]
    output_model: type[BaseModel]
    handler: Handler
    role: Role = Role.VIEWER
    throttle: str | None = None  # the REST view's throttle scope, counted in the same window
    read_only: bool = True
    destructive: bool = False  # it may remove memory (undoable through the audit trail, but gone from reads)


def _admit(ctx: Context, spec: ToolSpec, arguments: dict[str, Any]) -> Call:
    """Everything before the service, in one trip to the database thread: who, role, rate, arguments, group."""
    user = caller(ctx)
    given = arguments_given(arguments)
    wanted = call_admit(user=user, role=spec.role, throttle=spec.throttle, model=spec.input_model, arguments=given)
    return Call(user, wanted, ctx)


async def _call(spec: ToolSpec, arguments: dict[str, Any], ctx: Context) -> BaseModel | CallToolResult:
    try:
        call = await database_sync_to_async(_admit)(ctx, spec, arguments)
        return await spec.handler(call)
    except HANDLED as error:
        raise tool_error(error) from error


class _RawArguments(ArgModelBase):
    """Hands the call's arguments over untouched: the tool's own model validates them, through input_parse."""

    model_config = ConfigDict(extra="allow")

    def model_dump_one_level(self) -> dict[str, Any]:
        return {"arguments": dict(self.model_extra or {})}


def sdk_tool(spec: ToolSpec) -> Tool:
    """The SDK's Tool for a spec: its input schema is the pydantic model's, its output schema the output model's."""

    async def run(arguments: dict[str, Any], ctx: Context) -> BaseModel | CallToolResult:
        return await _call(spec, arguments, ctx)

    return Tool(
        fn=run,
        name=spec.name,
        title=spec.name.replace("_", " "),
        description=spec.description,
        parameters=tool_input_schema(spec.input_model),
        fn_metadata=FuncMetadata(arg_model=_RawArguments, output_model=spec.output_model),
        is_async=True,
        context_kwarg="ctx",
        annotations=ToolAnnotations(
            read_only_hint=spec.read_only, destructive_hint=spec.destructive, open_world_hint=False
        ),
    )


# The parts of an answer that carry free text (names and texts can be as long as the memory let them be).
TEXT_FIELDS = frozenset({"name", "text", "fact", "summary", "content", "source_name", "target_name"})
NAME_TOKENS = inputs.NAME_TOKENS


def _cut_texts(value: Any, tokens: int) -> Any:
    """The answer with each free text cut to `tokens` (a name to fewer): an agent pays for every token it reads."""
    if isinstance(value, dict):
        return {
            key: cut_to_tokens(item, min(tokens, NAME_TOKENS) if key.endswith("name") else tokens)
            if key in TEXT_FIELDS and isinstance(item, str)
            else _cut_texts(item, tokens)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_cut_texts(item, tokens) for item in value]
    return value


def _compact(model: BaseModel) -> CallToolResult:
    """Structured content, and the same JSON as text without indentation (the SDK would indent it by two), fields
    that are null left out (an entity's hit has no ends, validity or version: 30 tokens each)."""
    answer = model.model_dump(mode="json", exclude_none=True)
    text = json.dumps(answer, ensure_ascii=False, separators=(",", ":"))
    return CallToolResult(content=[TextContent(text=text)], structured_content=answer)


def _in_thread(function: Callable[..., Any]) -> Callable[..., Awaitable[Any]]:
    """A blocking service call off the event loop, on the thread Django's own sync views use."""
    return database_sync_to_async(function)


def facts_versioned(group: str, facts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The facts, each with its current `version`: an agent told a fact changed reloads it and edits with this."""
    versions = edge_versions(group=group, edge_ids=[fact["id"] for fact in facts])
    return [{**fact, "version": versions.get(fact["id"])} for fact in facts]


async def status(call: Call) -> outputs.StatusOutput:
    def read() -> outputs.StatusOutput:
        health = graph_health()
        role = user_role(user=call.user)
        return outputs.StatusOutput(
            status="ok" if health.up else "degraded",
            graph=outputs.GraphStatus(**health.as_dict()),
            user=call.user.get_username(),
            role=role.value if role else None,
            groups=len(visible_groups(allowed=user_groups(user=call.user))) if health.up else None,
        )

    return await _in_thread(read)()


async def list_groups(call: Call) -> outputs.ListGroupsOutput:
    def read() -> outputs.ListGroupsOutput:
        groups = visible_groups(allowed=user_groups(user=call.user))
        role = user_role(user=call.user)
        return outputs.ListGroupsOutput(
            role=role.value if role else None,
            groups=[outputs.GroupSummary(**asdict(group_summary(group=group))) for group in groups],
        )

    return await _in_thread(read)()


def _search_config(wanted: inputs.SearchMemoryInput) -> tuple[str, SearchConfig, str | None]:
    """The REST GET's parser builds the config (recipe defaults, center rule); several scopes narrow it after.
    Facts are those valid now unless a moment is given or ended ones are asked for: an agent reading a fact it
    is not told has ended takes it for true (REST, a browsing face, finds every fact without `valid_at`)."""
    single = wanted.scopes[0].value if wanted.scopes and len(wanted.scopes) == 1 else None
    parameters = {"q": wanted.query, "group": wanted.group, "limit": str(wanted.limit)}
    valid_at = wanted.valid_at
    if valid_at is None and not wanted.include_invalidated:
        valid_at = datetime.now(UTC).strftime(TIMESTAMP_FORMAT)
    optional = {"scope": single, "recipe": wanted.recipe, "valid_at": valid_at, "center": wanted.center}
    parameters.update({name: value for name, value in optional.items() if value is not None})
    parsed = input_parse(SearchParameters, parameters, root="parameters").request()
    config = parsed.config
    if wanted.scopes and len(wanted.scopes) > 1:
        missing = [scope.value for scope in wanted.scopes if getattr(config, scope.value) is None]
        if missing:
            raise InvalidInput(f"scopes: recipe {wanted.recipe} does not search {', '.join(missing)}")
        config = SearchConfig(**{scope.value: getattr(config, scope.value) for scope in wanted.scopes})
    return parsed.query, config, parsed.valid_at


async def search_memory(call: Call) -> CallToolResult:
    def run() -> CallToolResult:
        query, config, valid_at = _search_config(call.wanted)
        scope = call.wanted.memory_scope()
        searched = search(query=query, groups=[call.wanted.group], config=config, valid_at=valid_at, scope=scope)
        found = searched.as_dict()
        found["facts"] = facts_versioned(call.wanted.group, found["facts"])
        answer = _rounded(_cut_texts(found, call.wanted.text_tokens))
        return _compact(outputs.SearchMemoryOutput.model_validate(answer))

    return await _in_thread(run)()


async def add_memory(call: Call) -> outputs.AddMemoryOutput:
    wanted: inputs.AddMemoryInput = call.wanted

    def run() -> outputs.AddMemoryOutput:
        answer = episodes_admit(group=wanted.group, given=wanted.given(), update_communities=wanted.update_communities)
        return outputs.AddMemoryOutput.model_validate(answer)

    return await _in_thread(run)()


async def get_entity(call: Call) -> outputs.GetEntityOutput:
    def read() -> outputs.GetEntityOutput:
        page = entity_page(group=call.wanted.group, entity_id=call.wanted.entity_id)
        return outputs.GetEntityOutput(
            entity=page.detail.as_dict(),
            fact_total=page.fact_total,
            episodes=[asdict(episode) for episode in page.episodes],
            episode_total=page.episode_total,
        )

    return await _in_thread(read)()


async def get_facts(call: Call) -> outputs.GetFactsOutput:
    wanted: inputs.GetFactsInput = call.wanted

    def read() -> outputs.GetFactsOutput:
        times = wanted.model_dump(include=set(VIEW_FIELDS) & wanted.model_fields_set)
        edge_filter = EdgeFilter(moment=view_moment(times))
        if wanted.min_weight is not None:
            edge_filter = EdgeFilter(moment=edge_filter.moment, min_weight=wanted.min_weight)
        found = neighbourhood(
            group=wanted.group,
            node_id=wanted.entity_id,
            links=(kinds.RELATES,),
            edge_filter=edge_filter,
            offset=wanted.offset,
            limit=wanted.limit,
        )
        own = facts_versioned(
            wanted.group, [edge.as_dict() for edge in found.edges if wanted.entity_id in (edge.source, edge.target)]
        )
        return outputs.GetFactsOutput(entity=found.center.as_dict(), facts=own, total=found.total, more=found.more)

    return await _in_thread(read)()


def _strongest_paths(result: dict[str, Any], most: int) -> dict[str, Any]:
    """The `most` strongest paths over all seeds (energy, then seed order and place), each under its seed."""
    ranked = sorted(
        (
            (-path["energy"], seat, place)
            for seat, seed in enumerate(result["seeds"])
            for place, path in enumerate(seed["paths"])
        )
    )
    kept = {(seat, place) for _, seat, place in ranked[:most]}
    seeds = [
        {**seed, "paths": [path for place, path in enumerate(seed["paths"]) if (seat, place) in kept]}
        for seat, seed in enumerate(result["seeds"])
    ]
    return {**result, "seeds": seeds, "paths_total": len(ranked)}


SIGNIFICANT_DIGITS = 4  # a score or an energy to 4 digits: 0.07180203183345515 cost 9 tokens, 0.07180 costs 4


def _rounded(value: Any) -> Any:
    """The answer with every float cut to SIGNIFICANT_DIGITS: ranking and energies read the same, for fewer tokens."""
    if isinstance(value, float):
        return float(f"{value:.{SIGNIFICANT_DIGITS}g}")
    if isinstance(value, dict):
        return {key: _rounded(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_rounded(item) for item in value]
    return value


COMPACT_SEED = ("seed_id", "name", "labels", "score", "status")
COMPACT_HOP = ("edge_id", "relation", "direction", "target", "transfer_energy")


def _compact_paths(result: dict[str, Any]) -> dict[str, Any]:
    """An activation's answer as an agent reads it: per seed, each path's hops (the fact taken, its relation and
    direction, the node reached, the energy passed on), its energy and why it ended; what the run was (its id, as
    progress named it, query tags, moment, status, paths_total). Left out: each hop's arithmetic (weight, degree,
    tag similarity, parent energy), `nodes` (the seed and each hop's target), the engine and budget statistics:
    `detail: full` gives them (about 2.3 times the tokens)."""
    seeds = [
        {key: seed[key] for key in COMPACT_SEED if key in seed}
        | {
            "paths": [
                {
                    "hops": [{key: hop[key] for key in COMPACT_HOP} for hop in path["hops"]],
                    "energy": path["energy"],
                    "end_reason": path["end_reason"],
                }
                for path in seed["paths"]
            ]
        }
        for seed in result["seeds"]
    ]
    run_keys = ("retrieval_id", "group", "query_tags", "seed_source", "time", "paths_total")
    run = {key: result[key] for key in run_keys if key in result}
    return {**run, "status": result["stats"]["status"], "seeds": seeds}


async def retrieve(call: Call) -> CallToolResult:
    wanted: inputs.RetrieveInput = call.wanted
    body = wanted.engine_request()
    if wanted.algorithm == "ppr":
        request = input_parse(PprBody, body).request()
        answer = await _in_thread(ppr_run)(request)
        return _compact(outputs.RetrieveOutput(algorithm="ppr", result=_cut_texts(answer.as_dict(), NAME_TOKENS)))
    activation = input_parse(ActivationBody, body).request()
    levels = 0

    async def progress(event: RetrievalEvent) -> None:
        nonlocal levels
        if isinstance(event, LevelExpanded):
            levels += 1
            await call.ctx.report_progress(levels, None, json.dumps(event.frame(), ensure_ascii=False))

    # Watchers see it live, as with REST.
    answer = await activation_answer(activation, requested_by=call.user.get_username(), on_event=progress)
    result = _strongest_paths(answer, wanted.max_paths)
    if wanted.detail == "compact":
        result = _rounded(_compact_paths(result))
    return _compact(outputs.RetrieveOutput(algorithm="activation", result=_cut_texts(result, NAME_TOKENS)))


async def get_context(call: Call) -> CallToolResult:
    """What the model reads is the text content: the block itself by default, or compact JSON (no indentation, the
    text once, items pointing at its lines); the structured content carries the same without the block twice."""
    wanted: inputs.GetContextInput = call.wanted

    def run() -> CallToolResult:
        block = context_build(
            group=wanted.group,
            query=wanted.query,
            budget_tokens=wanted.budget_tokens,
            as_of=wanted.as_of,
            scope=wanted.memory_scope(),
        )
        answer = block.as_dict(form=wanted.format)
        if wanted.format == "text":
            counts = {name: value for name, value in answer.items() if name != "text"}
            return CallToolResult(content=[TextContent(text=block.text)], structured_content=counts)
        compact = json.dumps(answer, ensure_ascii=False, separators=(",", ":"))
        return CallToolResult(content=[TextContent(text=compact)], structured_content=answer)

    return await _in_thread(run)()


async def update_fact(call: Call) -> outputs.CurationOutput:
    wanted: inputs.UpdateFactInput = call.wanted

    def run() -> outputs.CurationOutput:
        patch = edge_patch_parse(wanted.patch())
        outcome = edge_update(group=wanted.group, edge_id=wanted.fact_id, patch=patch, actor=call.user.get_username())
        return outputs.CurationOutput(**outcome.as_dict(fact=edge_detail(group=wanted.group, edge_id=wanted.fact_id)))

    return await _in_thread(run)()


async def invalidate_fact(call: Call) -> outputs.CurationOutput:
    wanted: inputs.InvalidateFactInput = call.wanted

    def run() -> outputs.CurationOutput:
        invalidation = edge_invalidation_parse(wanted.model_dump(include={"invalid_at", "version"}, exclude_none=True))
        outcome = edge_invalidate(
            group=wanted.group, edge_id=wanted.fact_id, invalidation=invalidation, actor=call.user.get_username()
        )
        return outputs.CurationOutput(**outcome.as_dict(fact=edge_detail(group=wanted.group, edge_id=wanted.fact_id)))

    return await _in_thread(run)()


async def get_fact(call: Call) -> outputs.GetFactOutput:
    def read() -> outputs.GetFactOutput:
        return outputs.GetFactOutput(fact=edge_detail(group=call.wanted.group, edge_id=call.wanted.fact_id))

    return await _in_thread(read)()


async def delete_fact(call: Call) -> outputs.CurationOutput:
    wanted: inputs.DeleteFactInput = call.wanted

    def run() -> outputs.CurationOutput:
        outcome = edge_delete(
            group=wanted.group, edge_id=wanted.fact_id, version=wanted.version, actor=call.user.get_username()
        )
        return outputs.CurationOutput(**outcome.as_dict(fact=None))

    return await _in_thread(run)()


async def delete_episode(call: Call) -> outputs.DeleteEpisodeOutput:
    wanted: inputs.DeleteEpisodeInput = call.wanted

    def run() -> outputs.DeleteEpisodeOutput:
        outcome = episode_delete(group=wanted.group, episode_id=wanted.episode_id, actor=call.user.get_username())
        answer = outcome.as_dict()
        facts = answer["entry"]["after"]["edges"]
        return outputs.DeleteEpisodeOutput(
            **answer,
            facts_deleted=sorted(key for key, fact in facts.items() if fact is None),
            facts_kept=sorted(key for key, fact in facts.items() if fact is not None),
        )

    return await _in_thread(run)()


async def undo(call: Call) -> outputs.UndoOutput:
    def run() -> outputs.UndoOutput:
        outcome = own_last_change_undo(group=call.wanted.group, actor=call.user.get_username())
        return outputs.UndoOutput(**outcome.as_dict())

    return await _in_thread(run)()


async def clear_group(call: Call) -> outputs.ClearGroupOutput:
    group = call.wanted.group

    def run() -> outputs.ClearGroupOutput:
        deleted = group_clear(group=group)
        logger.warning("group %r cleared by %s over MCP: %d nodes deleted", group, call.user.get_username(), deleted)
        return outputs.ClearGroupOutput(group=group, nodes_deleted=deleted)

    return await _in_thread(run)()


async def list_episodes(call: Call) -> CallToolResult:
    wanted: inputs.ListEpisodesInput = call.wanted

    def read() -> CallToolResult:
        page = episodes_recent(
            group=wanted.group, offset=wanted.offset, limit=wanted.limit, scope=wanted.memory_scope()
        )
        answer = outputs.ListEpisodesOutput(
            episodes=[_cut_texts(asdict(episode), wanted.text_tokens) for episode in page.episodes],
            total=page.total,
            more=page.more,
        )
        return _compact(answer)

    return await _in_thread(read)()


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "list_groups",
        "List the memory groups you may read, with how many episodes, entities, facts and communities each holds,"
        " and your role. Every other tool names one of these groups.",
        inputs.ListGroupsInput,
        outputs.ListGroupsOutput,
        list_groups,
    ),
    ToolSpec(
        "status",
        "Check that the memory server can answer: whether its graph database is up (and how fast it answered),"
        " who your token signs you in as, your role, and how many groups you may read.",
        inputs.StatusInput,
        outputs.StatusOutput,
        status,
    ),
    ToolSpec(
        "search_memory",
        "Search a group's memory by meaning and keywords (hybrid BM25 + embeddings). Returns facts (with the two"
        " entities they link and when they held), entities, episodes and community summaries, best first. Facts"
        " are those that hold now: `valid_at` for those that held at another moment, `include_invalidated` for"
        " ended ones too. Use `scopes` to search only some kinds, `recipe` for another ranking (e.g."
        " facts_node_distance with `center`).",
        inputs.SearchMemoryInput,
        outputs.SearchMemoryOutput,
        search_memory,
        throttle=SEARCH,
    ),
    ToolSpec(
        "add_memory",
        "Remember something: add episodes (messages, notes, documents) to a group, one or a batch of up to 500"
        " in `episodes`, or chat turns in `messages` ({role, name?, content}: one episode each), stored all or"
        " nothing. `user_id`, `agent_id`, `session_id` and `metadata` scope what is added, so searches and"
        " listings can be narrowed to it. Entities and facts are extracted from the text and linked to what"
        " the group already knows; an episode whose id is already stored is left unchanged. Needs the curator"
        " role.",
        inputs.AddMemoryInput,
        outputs.AddMemoryOutput,
        add_memory,
        role=Role.CURATOR,
        throttle=INGEST,
        read_only=False,
    ),
    ToolSpec(
        "get_context",
        "Get a compact context block about a query, ready to paste into a prompt, never longer than"
        " `budget_tokens` (GPT-4o tokens): the most relevant episodes with their dates and the facts drawn from"
        " them, facts that hold now (or at `as_of`), chains of connected facts, and entity summaries that add to"
        " them; one line per piece of memory. Answers the text by default; `format: json` adds an item per line"
        " naming its source episodes, for citing. Use it before answering from memory.",
        inputs.GetContextInput,
        outputs.ContextOutput,
        get_context,
        throttle=SEARCH,
    ),
    ToolSpec(
        "get_entity",
        "Read one entity of a group by id (ids come from search_memory or retrieve): its name, summary,"
        " attributes, how many facts touch it, and the newest episodes that mention it.",
        inputs.GetEntityInput,
        outputs.GetEntityOutput,
        get_entity,
    ),
    ToolSpec(
        "get_facts",
        "List the facts about an entity, strongest first, a page at a time (`offset`, `limit`; `more` says how"
        " many are left). With `as_of`, only the facts that held at that moment (`known_at`: as the memory knew"
        " them then); by default the facts that hold now; `include_invalidated: true` lists every fact, ended ones"
        " included (history, for audits).",
        inputs.GetFactsInput,
        outputs.GetFactsOutput,
        get_facts,
    ),
    ToolSpec(
        "retrieve",
        "Follow the memory graph outwards from seeds (or from the entities a query finds) to collect connected"
        " context. `activation` (default) spreads energy along facts, steered by tags; each frontier level is"
        " sent as a progress notification while it runs, and the answer lists the strongest paths (`max_paths`),"
        " each hop with the fact it took and the energy it passed on. `ppr` ranks the group's nodes by"
        " Personalized PageRank from the seeds.",
        inputs.RetrieveInput,
        outputs.RetrieveOutput,
        retrieve,
        throttle=RETRIEVAL,
    ),
    ToolSpec(
        "update_fact",
        "Correct a fact (curators): change its relation, category, text, weight, tags or start time. Give the"
        " `version` you read to be refused if someone changed it since. Audited and undoable.",
        inputs.UpdateFactInput,
        outputs.CurationOutput,
        update_fact,
        role=Role.CURATOR,
        read_only=False,
    ),
    ToolSpec(
        "invalidate_fact",
        "Mark a fact as no longer true (curators): it stays in memory as history with `invalid_at` (default now)"
        " and stops being returned for later times. Audited and undoable.",
        inputs.InvalidateFactInput,
        outputs.CurationOutput,
        invalidate_fact,
        role=Role.CURATOR,
        read_only=False,
    ),
    ToolSpec(
        "get_fact",
        "Read one fact by its id (ids come from search_memory or get_facts): the two entities it links, its"
        " relation and text, weight, tags, when it held, the episodes it came from, and its current `version`."
        " Reload a fact with it after a `conflict`, then send the new version with your edit.",
        inputs.GetFactInput,
        outputs.GetFactOutput,
        get_fact,
    ),
    ToolSpec(
        "delete_fact",
        "Delete a fact (curators): it is removed from memory, and the audit trail keeps it whole so the change can"
        " be undone. To say a fact stopped being true, use invalidate_fact instead (it keeps the history). Give"
        " the `version` you read to be refused if someone changed it since.",
        inputs.DeleteFactInput,
        outputs.CurationOutput,
        delete_fact,
        role=Role.CURATOR,
        read_only=False,
        destructive=True,
    ),
    ToolSpec(
        "list_episodes",
        "List a group's episodes, newest first (by when they happened, then when they were stored), a page at a"
        " time: `limit` per page, `offset` to skip the pages read; `more` says how many are left. Each episode's"
        " content is cut to `text_tokens`; read one whole with the episode resource. Give `user_id`, `agent_id`,"
        " `session_id` or `metadata` to list only that scope's episodes.",
        inputs.ListEpisodesInput,
        outputs.ListEpisodesOutput,
        list_episodes,
    ),
    ToolSpec(
        "delete_episode",
        "Delete an episode (curators): it goes with its mentions and with the facts drawn from it alone; a fact"
        " another episode also supports stays, without this one among its sources. Its entities stay. The audit"
        " trail keeps everything removed, so the change can be undone.",
        inputs.DeleteEpisodeInput,
        outputs.DeleteEpisodeOutput,
        delete_episode,
        role=Role.CURATOR,
        read_only=False,
        destructive=True,
    ),
    ToolSpec(
        "undo",
        "Take back your own latest change in a group (curators): a fact's edit, invalidation or deletion, an"
        " episode's deletion, a merge. Call it again to go further back. Refused (`conflict`) when someone changed"
        " the same items since; changes of other curators are theirs to undo.",
        inputs.UndoInput,
        outputs.UndoOutput,
        undo,
        role=Role.CURATOR,
        read_only=False,
    ),
    ToolSpec(
        "clear_group",
        "Delete everything a group remembers (admins only): every episode, entity, community and fact of it, for"
        " good (there is no undo). Give the group's name twice, as `group` and `confirm`. The group stays, empty.",
        inputs.ClearGroupInput,
        outputs.ClearGroupOutput,
        clear_group,
        role=Role.ADMIN,
        read_only=False,
        destructive=True,
    ),
)
