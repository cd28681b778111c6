"""A generated demo memory of an inventory-planning agent, so Memoria can be shown and tested without third-party text.

All text comes from the vocabularies below and a seeded random.Random, so one seed always yields the same graph.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from memoria.retrieval.query_tags import tags_for_query

START = datetime(2025, 1, 6, 8, 0, tzinfo=UTC)
END = datetime(2025, 9, 30, 18, 0, tzinfo=UTC)
TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
REQUEST_COUNT = 75
EVENT_COUNT = 30
PREFERENCE_COUNT = 26
MAJOR_EVENT_COUNT = 3
CHAT_REQUEST_COUNT = 30
INVALID_SHARE = 0.065
# The README's sample queries: the home page suggests them, and `demo_depths` and
# tests/retrieval/test_demo_depths.py hold the demo to reaching depth 3 or more on them with default parameters.
SAMPLE_QUERIES = (
    "stockouts in Lyon",
    "Why did the promotion cause a stockout in Valencia?",
    "lead time and backorders in Gdansk",
    "ERP errors and cycle count gaps in Rotterdam",
    "holding cost and obsolescence in Porto",
)
RECURRING_SHARE = 0.6  # of follow-ups, how many come back to the same kind of problem at the same warehouse
TOPIC_BONUS = 5.0  # how much more likely an on-topic source or preference is picked than a popular off-topic one

PRODUCTS = {
    "SKU-1042": "stainless bolt kit",
    "SKU-1107": "hydraulic hose 2 m",
    "SKU-1215": "LED panel 60x60",
    "SKU-1338": "pallet wrap film",
    "SKU-1460": "safety gloves (L)",
    "SKU-1523": "cordless drill 18 V",
    "SKU-1689": "cable tray 3 m",
    "SKU-1734": "thermal label roll",
    "SKU-1851": "bearing set 6204",
    "SKU-1902": "PVC conduit 25 mm",
    "SKU-2016": "workbench lamp",
    "SKU-2148": "nitrile seal pack",
}
WAREHOUSES = ("Lyon", "Rotterdam", "Gdansk", "Valencia", "Leipzig", "Porto")
SUPPLIERS = ("Nordbalt Metals", "Corvane Plastics", "Helio Packaging", "Tesmer Components", "Aldana Safety")
QUARTERS = ("Q2", "Q3", "Q4")
CHAT_OPENERS = ("", "Morning! ", "Quick one. ", "Hi! ", "Another one for you. ")

# Eight tags per topic, so an edge can always draw up to eight that belong together (written space-separated).
TOPIC_TAG_WORDS = {
    "forecasting": "demand_forecasting seasonality forecast_accuracy demand_variability promotion point_of_sale "
    "new_product_launch forecast_bias",
    "buffers": "safety_stock service_level reorder_point fill_rate stockout backorder lead_time_variability "
    "inventory_policy",
    "supply": "supplier_risk lead_time supplier_performance purchase_order expediting transport customs "
    "minimum_order_quantity",
    "cost": "holding_cost working_capital cash_flow economic_order_quantity overstock obsolescence end_of_life "
    "inventory_policy",
    "network": "warehouse_capacity transfer_order allocation replenishment capacity_planning cycle_count shrinkage "
    "returns",
    "data": "data_quality erp abc_analysis sku_rationalisation master_data point_of_sale cycle_count inventory_policy",
}
TOPIC_TAGS = {topic: words.split() for topic, words in TOPIC_TAG_WORDS.items()}
# Places and partners are tags too, so "stockouts in Lyon" asks for facts about Lyon as well as about stockouts.
PLACE_TAGS = {wh: wh.lower() for wh in WAREHOUSES}
PARTNER_TAGS = {supplier: supplier.lower().replace(" ", "_") for supplier in SUPPLIERS}
THEME_VOCABULARY = frozenset(
    [*(tag for tags in TOPIC_TAGS.values() for tag in tags), *PLACE_TAGS.values(), *PARTNER_TAGS.values()]
)
MIN_TAGS, FOCUSED_TAGS = 3, 3

# (topic, name, summary); placeholders come from a per-entity context (see _context).
Template = tuple[str, str, str]
REQUESTS = [
    ("forecasting", "Forecast {quarter} demand for {sku} in the {wh} warehouse", "Needed for {quarter} buying."),
    ("forecasting", "Explain the forecast miss on {sku} in {wh}", "Sales of the {product} ran well above plan."),
    ("buffers", "Recompute safety stock for {sku} at {wh}", "The {product} buffer ran dry twice this month."),
    ("buffers", "Set a reorder point for {sku} in {wh}", "Must hold the {pct}% service target for the {product}."),
    ("supply", "Assess supplier risk for {supplier} on {sku}", "Worry that {supplier} cannot keep its lead times."),
    ("supply", "Find an alternative to {supplier} for {product}", "A second source is wanted before {quarter}."),
    ("cost", "Cut holding cost on slow movers in {wh}", "Finance wants working capital freed in {wh}."),
    ("network", "Plan a transfer of {sku} from {wh2} to {wh}", "{wh} is short of the {product}; {wh2} holds excess."),
    ("data", "Check the ABC classification of {wh} SKUs", "The classes, including {sku}, look out of date."),
]
ACTIONS = [
    ("buffers", "Recomputed safety stock for {sku} at {wh}", "Used a {days}-day lead time and {pct}% service."),
    ("buffers", "Simulated stockout risk for {sku} in {wh}", "Replayed {days} weeks of demand against the buffer."),
    ("forecasting", "Fitted a seasonal forecast for {sku} in {wh}", "Fitted weekly seasonality on two years of sales."),
    ("forecasting", "Backtested the {quarter} forecast for {sku}", "Compared past forecasts with actual sales."),
    ("supply", "Pulled lead-time history for {supplier}", "Collected {days} months of receipts from {supplier}."),
    ("supply", "Drafted an expedite request to {supplier}", "Asked {supplier} to pull {n} units of {sku} forward."),
    ("cost", "Simulated holding cost for {sku} at {wh}", "Priced the stock at the finance carrying-cost rate."),
    ("cost", "Listed slow movers in {wh}", "Ranked SKUs by weeks of cover; {sku} came out on top."),
    ("network", "Checked free capacity in the {wh} warehouse", "Counted free pallet places before moving stock."),
    ("network", "Compared transfer and purchase costs for {sku}", "Priced a {wh2}–{wh} transfer against a new order."),
    ("data", "Reconciled ERP and WMS stock for {sku}", "Matched ERP book stock with WMS counts in {wh}."),
    ("data", "Re-ran the ABC classification for {wh}", "Classified SKUs by twelve months of sales value."),
]
ANSWERS = [
    ("buffers", "Recommended reorder point of {n} units for {sku} in {wh}", "Covers {days} days at {pct}% service."),
    ("buffers", "Recommended safety stock of {n} units for {sku} at {wh}", "Sized for the observed variability."),
    ("forecasting", "Forecast {quarter} demand for {sku} in {wh} at {n} units", "Includes the seasonal peak."),
    ("supply", "Advised dual-sourcing {product} alongside {supplier}", "Keeps supply if {supplier} slips again."),
    ("cost", "Proposed cutting {sku} stock in {wh} by {n} units", "Frees working capital at little stockout risk."),
    ("network", "Recommended moving {n} units of {sku} from {wh2} to {wh}", "Cheaper than a rush purchase order."),
    ("data", "Flagged {n} stock mismatches for {sku} between ERP and WMS", "Fix the counts before planning."),
]
EVENTS = [
    ("supply", "Supplier delay: {supplier} pushes {product} shipments by {days} days", "Open orders slip."),
    ("supply", "Customs hold on {supplier} containers", "Inbound containers were held for {days} days."),
    ("supply", "Port strike delays inbound freight to {wh}", "All inbound freight slowed for {days} days."),
    ("buffers", "Stockout of {sku} in {wh}", "The {product} ran out; {n} order lines went to backorder."),
    ("forecasting", "Promotion spike for {product} in {wh}", "A retail promotion tripled weekly demand for {sku}."),
    ("network", "Dock congestion at the {wh} warehouse", "Receiving fell {days} days behind schedule."),
    ("cost", "Write-off of obsolete {sku} stock in {wh}", "{n} units were written off as obsolete."),
    ("data", "Missing ERP extract for {wh}", "The nightly ERP extract failed for {days} days."),
]
PREFERENCES = [
    ("buffers", "Prefers service level {pct}% over lower holding cost", "Stated while discussing {sku}."),
    ("buffers", "Prefers reorder points rounded to full pallets", "Keeps picking and receiving simple."),
    ("cost", "Prefers keeping {wh} inventory under {n} pallets", "Space and cash are tight in {wh}."),
    ("cost", "Prefers a monthly review of slow movers in {wh}", "Catches obsolete stock early."),
    ("supply", "Prefers {supplier} as primary supplier for {product}", "Long relationship and good quality."),
    ("forecasting", "Prefers weekly forecast buckets for {wh}", "Monthly buckets hide promotion peaks."),
    ("network", "Prefers transfers between warehouses over emergency purchase orders", "Avoids rush freight."),
    ("data", "Prefers ERP figures when ERP and WMS disagree", "ERP is the book of record."),
]
# Incidents: chains of events, each caused by the one before, ending in a symptom that hits the plan. Their facts
# are tagged with the incident's three tags, which the README's sample queries (SAMPLE_QUERIES) name, so a retrieval
# walks the chain back from the symptom to its root cause: (warehouse, supplier, sku, tags, events from root cause on).
Incident = tuple[str, str, str, tuple[str, str, str], list[Template]]
_LYON_EVENTS: list[Template] = [
    ("supply", "Port strike delays inbound freight to {wh}", "Dockers struck; containers for {wh} sat at the port."),
    ("supply", "Customs hold on {supplier} containers for {wh}", "The held boxes carried the {product} for {wh}."),
    ("supply", "Supplier delay: {supplier} pushes {product} shipments by {days} days", "Orders for {wh} slip."),
    ("buffers", "Stockout of {sku} in {wh}", "The {product} ran out in {wh}; {n} order lines went to backorder."),
]
_VALENCIA_EVENTS: list[Template] = [
    ("forecasting", "Promotion calendar moved forward in {wh}", "Marketing brought the {product} promotion forward."),
    ("forecasting", "Promotion spike for {product} in {wh}", "The promotion tripled weekly demand for {sku} in {wh}."),
    ("buffers", "Stockout of {sku} in {wh} during the promotion", "Shelves emptied in {days} days; promotion lost."),
    ("buffers", "Backorders for {sku} pile up in {wh}", "{n} order lines wait for the next {supplier} delivery."),
]
_GDANSK_EVENTS: list[Template] = [
    ("network", "Dock congestion at the {wh} warehouse", "Receiving fell {days} days behind schedule."),
    ("network", "Receiving backlog of {supplier} deliveries in {wh}", "Pallets of {product} queue at the dock."),
    ("supply", "Lead time of {supplier} orders to {wh} doubles", "Orders now take {days} days to arrive in {wh}."),
    ("buffers", "Backorder backlog for {sku} in {wh}", "{n} order lines of {product} are on backorder."),
]
_ROTTERDAM_EVENTS: list[Template] = [
    ("data", "Missing ERP extract for {wh}", "The nightly ERP extract failed for {days} days."),
    ("data", "ERP and WMS stock disagree in {wh}", "Book stock of {sku} is {n} units above the WMS count."),
    ("network", "Cycle count finds shrinkage of {sku} in {wh}", "The cycle count confirms the ERP figure was wrong."),
    ("network", "Wrong replenishment of {sku} to {wh}", "Replenishment planned on the bad ERP figure."),
]
_PORTO_EVENTS: list[Template] = [
    ("cost", "End-of-life notice for {product} from {supplier}", "The {product} is replaced by a new model."),
    ("cost", "Overstock of {sku} in {wh}", "{n} units of the old {product} are left in {wh}."),
    ("cost", "Holding cost overrun in {wh}", "Carrying the {product} overstock costs more than planned."),
    ("cost", "Write-off of obsolete {sku} stock in {wh}", "{n} units were written off as obsolescence."),
]
INCIDENTS: list[Incident] = [
    ("Lyon", "Nordbalt Metals", "SKU-1042", ("lyon", "stockout", "customs"), _LYON_EVENTS),
    ("Valencia", "Helio Packaging", "SKU-1215", ("valencia", "promotion", "stockout"), _VALENCIA_EVENTS),
    ("Gdansk", "Corvane Plastics", "SKU-1338", ("gdansk", "lead_time", "backorder"), _GDANSK_EVENTS),
    ("Rotterdam", "Tesmer Components", "SKU-1851", ("rotterdam", "erp", "cycle_count"), _ROTTERDAM_EVENTS),
    ("Porto", "Aldana Safety", "SKU-1460", ("porto", "holding_cost", "obsolescence"), _PORTO_EVENTS),
]
INCIDENT_WEIGHT = (0.85, 1.0)  # a known cause is a strong link
INCIDENT_AFFECTS = 2  # requests at the warehouse each symptom affects
# The last incident's symptom: a group holding it holds this demo, whose sample queries expand (the first demo,
# with 45 events and no incidents, had no demo-evt-050).
MARKER_ID = f"demo-evt-{EVENT_COUNT + sum(len(events) for *_, events in INCIDENTS):03d}"
# (topic, name, owner, refresh, index of the source it is derived from)
SOURCES = [
    ("forecasting", "ERP sales orders (daily extract)", "sales operations", "daily", None),
    ("data", "ERP item master", "master data team", "weekly", None),
    ("network", "WMS stock snapshot (hourly)", "warehouse operations", "hourly", None),
    ("supply", "Supplier lead-time history", "procurement", "weekly", None),
    ("forecasting", "Point-of-sale feed from retail partners", "sales operations", "daily", None),
    ("forecasting", "Promotion calendar (marketing)", "marketing", "monthly", None),
    ("cost", "Finance carrying-cost rates", "finance", "quarterly", None),
    ("supply", "Open purchase orders", "procurement", "daily", 1),
    ("supply", "Inbound shipment tracking (carrier API)", "logistics", "hourly", 7),
    ("buffers", "Service-level targets sheet", "planning", "quarterly", None),
    ("forecasting", "Demand forecast output (weekly)", "planning", "weekly", 0),
    ("network", "Returns register", "customer service", "daily", 0),
    ("supply", "Customs clearance log", "logistics", "daily", 8),
]
SOURCES += [("network", f"{wh} cycle count log", "warehouse operations", "daily", 2) for wh in WAREHOUSES]
SOURCES += [("supply", f"{name} ASN feed", "procurement", "hourly", 7) for name in SUPPLIERS]

# relation: (category, weight range, tags it always carries, fact template)
RELATIONS = {
    "addresses": ("HIERARCHICAL", (0.7, 1.0), ("inventory_policy",), "'{s}' was done for the request '{t}'."),
    "uses_data": ("ATTRIBUTION", (0.45, 0.95), ("data_quality",), "The action '{s}' used data from {t}."),
    "reports": ("ATTRIBUTION", (0.5, 0.9), (), "{s} reported the event '{t}'."),
    "caused_by": ("CAUSALITY", (0.55, 0.95), (), "'{s}' was caused by '{t}'."),
    "triggered": ("CAUSALITY", (0.5, 1.0), (), "'{s}' triggered the action '{t}'."),
    "affects": ("CAUSALITY", (0.35, 0.85), (), "'{s}' affected the request '{t}'."),
    "answers": ("ATTRIBUTION", (0.8, 1.0), (), "'{s}' was the agent's answer to '{t}'."),
    "based_on": ("CAUSALITY", (0.6, 0.95), (), "The answer '{s}' was based on the action '{t}'."),
    "updates": ("TEMPORAL", (0.7, 1.0), (), "'{s}' superseded the earlier answer '{t}'."),
    "contradicts": ("ATTRIBUTION", (0.3, 0.6), (), "The answer '{s}' went against the preference '{t}'."),
    "constrains": ("CAUSALITY", (0.5, 0.9), ("inventory_policy",), "The preference '{s}' constrained '{t}'."),
    "expressed": ("ATTRIBUTION", (0.6, 0.95), (), "The request '{s}' stated the preference '{t}'."),
    "follows_up": ("TEMPORAL", (0.4, 0.8), (), "'{s}' followed up on the earlier request '{t}'."),
    "precedes": ("TEMPORAL", (0.3, 0.6), (), "The action '{s}' ran before '{t}'."),
    "derived_from": ("HIERARCHICAL", (0.5, 0.85), ("data_quality",), "{s} is derived from {t}."),
    "same_warehouse_as": ("SPATIAL", (0.25, 0.45), ("warehouse_capacity",), "'{s}' and '{t}' both concern {wh}."),
}


@dataclass(eq=False)
class _Entity:
    id: str
    kind: str
    name: str
    summary: str
    topic: str
    at: datetime
    ctx: dict


def _stamp(moment: datetime) -> str:
    return moment.strftime(TIME_FORMAT)


def _properties(entity: _Entity) -> dict:
    """Data sources describe themselves; everything else records the planning context it came from."""
    if entity.kind == "DataSource":
        return {key: entity.ctx[key] for key in ("owner", "refresh", "rows")}
    return {"sku": entity.ctx["sku"], "warehouse": entity.ctx["wh"], "supplier": entity.ctx["supplier"]}


def _lower_first(text: str) -> str:
    return text[0].lower() + text[1:]


class _Graph:
    """Collects entities and edges; refuses self loops and repeated triples so callers can sample freely."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.entities: list[_Entity] = []
        self.edges: dict[tuple[str, str, str], dict] = {}  # keyed by (source, relation, target)
        self.degree: Counter[str] = Counter()
        self.numbers: Counter[str] = Counter()
        self.links: defaultdict[tuple[str, str], list[_Entity]] = defaultdict(list)
        self.incident_tags: dict[tuple[str, str, str], list[str]] = {}  # facts of an incident keep its tags

    def add(self, kind: str, prefix: str, template: Template, ctx: dict, at: datetime) -> _Entity:
        topic, name, summary = template
        self.numbers[kind] += 1
        width = 4 if prefix in ("req", "act", "ans") else 3
        entity_id = f"demo-{prefix}-{self.numbers[kind]:0{width}d}"
        entity = _Entity(entity_id, kind, name.format(**ctx), summary.format(**ctx), topic, at, ctx)
        self.entities.append(entity)
        return entity

    def relate(self, source: _Entity, relation: str, target: _Entity) -> None:
        key = (source.id, relation, target.id)
        if source.id == target.id or key in self.edges:
            return
        category, (low, high), fixed, fact = RELATIONS[relation]
        pool = [tag for tag in dict.fromkeys(TOPIC_TAGS[source.topic] + TOPIC_TAGS[target.topic]) if tag not in fixed]
        count = min(self.rng.randint(3, 8), len(fixed) + len(pool))
        valid_at = max(source.at, target.at) + timedelta(minutes=self.rng.randint(5, 360))
        self.edges[key] = {
            "source": source.id,
            "target": target.id,
            "relation": relation,
            "weight": round(self.rng.uniform(low, high), 3),
            "tags": list(fixed) + self.rng.sample(pool, count - len(fixed)),
            "fact": fact.format(s=source.name, t=target.name, wh=source.ctx.get("wh", "")),
            "category": category,
            "valid_at": _stamp(valid_at),
        }
        self.degree.update((source.id, target.id))
        self.links[source.id, relation].append(target)
        self.links[target.id, "~" + relation].append(source)

    def linked(self, entity: _Entity, relation: str) -> list[_Entity]:
        """Neighbours over `relation`; a leading "~" walks the relation backwards."""
        return self.links[entity.id, relation]

    def attach(self, candidates: list[_Entity], bonus: dict[str, float] | None = None) -> _Entity:
        """Preferential attachment: well-connected nodes attract more edges, which is what grows the hubs."""
        weights = [(self.degree[c.id] + 1) * (bonus or {}).get(c.id, 1.0) for c in candidates]
        return self.rng.choices(candidates, weights)[0]


def _context(rng: random.Random) -> dict:
    sku = rng.choice(list(PRODUCTS))
    wh, wh2 = rng.sample(WAREHOUSES, 2)
    supplier, quarter = rng.choice(SUPPLIERS), rng.choice(QUARTERS)
    return {"sku": sku, "product": PRODUCTS[sku], "wh": wh, "wh2": wh2, "supplier": supplier, "quarter": quarter}


def _figures(rng: random.Random, ctx: dict) -> dict:
    """Fresh numbers per entity, so a revised answer or a second action does not repeat the first one's figures."""
    return {**ctx, "n": rng.randrange(120, 2400, 10), "pct": rng.choice((95, 97, 98, 99)), "days": rng.randint(3, 21)}


def _on_topic(rng: random.Random, templates: list[Template], topic: str, stay: float = 1.0) -> Template:
    """Mostly stay on the parent's topic so text and tags hang together; a little drift makes cross-topic links."""
    same = [t for t in templates if t[0] == topic]
    return rng.choice(same if same and rng.random() < stay else templates)


def _add_sources(graph: _Graph) -> list[_Entity]:
    """Sources exist from the start; derived ones link to their parent so data lineage is walkable too."""
    sources = []
    for topic, name, owner, refresh, parent in SOURCES:
        summary = f"{name}, owned by {owner}, refreshed {refresh}."
        ctx = {"owner": owner, "refresh": refresh, "rows": graph.rng.randrange(800, 250_000, 100)}
        sources.append(graph.add("DataSource", "ds", (topic, name, summary), ctx, START))
        if parent is not None:
            graph.relate(sources[-1], "derived_from", sources[parent])
    return sources


def _add_requests(graph: _Graph, sources: list[_Entity]) -> tuple[list[_Entity], list[_Entity]]:
    """Each request gets its own chain: actions (using data) → an answer, sometimes revised weeks later."""
    rng = graph.rng
    span = (END - START).total_seconds() - 20 * 86400
    requests: list[_Entity] = []
    actions: list[_Entity] = []
    for at in sorted(START + timedelta(seconds=rng.uniform(0, span)) for _ in range(REQUEST_COUNT)):
        ctx, template = _context(rng), rng.choice(REQUESTS)
        earlier = [r for r in requests if r.ctx["sku"] == ctx["sku"]]
        follows = earlier[-1] if earlier and rng.random() < 0.7 else None
        if follows is not None and rng.random() < RECURRING_SHARE:  # the same problem again, at the same site
            ctx["wh"], ctx["wh2"] = follows.ctx["wh"], follows.ctx["wh2"]
            template = _on_topic(rng, REQUESTS, follows.topic)
        request = graph.add("UserRequest", "req", template, _figures(rng, ctx), at)
        if follows is not None:
            graph.relate(request, "follows_up", follows)
        requests.append(request)
        on_topic = [t for t in ACTIONS if t[0] == request.topic]
        plans = rng.sample(on_topic, min(len(on_topic), 1 + (rng.random() < 0.45)))
        if rng.random() < 0.15:
            plans.append(rng.choice([t for t in ACTIONS if t not in plans]))
        steps: list[_Entity] = []
        for step, template in enumerate(plans):
            step_at = at + timedelta(hours=2 + 6 * step + rng.uniform(0, 5))
            action = graph.add("AgentAction", "act", template, _figures(rng, request.ctx), step_at)
            graph.relate(action, "addresses", request)
            if steps:
                graph.relate(steps[-1], "precedes", action)
            bonus = {s.id: TOPIC_BONUS for s in sources if s.topic == action.topic}
            for _ in range(rng.choices((1, 2, 3, 4), (3, 4, 3, 1))[0]):
                graph.relate(action, "uses_data", graph.attach(sources, bonus))
            steps.append(action)
        actions += steps
        answer_at = steps[-1].at + timedelta(hours=rng.uniform(1, 20))
        answer = graph.add("AgentAnswer", "ans", _on_topic(rng, ANSWERS, request.topic), request.ctx, answer_at)
        graph.relate(answer, "answers", request)
        for action in steps:
            graph.relate(answer, "based_on", action)
        if rng.random() < 0.18:
            revised_at = min(answer_at + timedelta(days=rng.uniform(7, 40)), END - timedelta(days=1))
            template = _on_topic(rng, ANSWERS, request.topic)
            revised = graph.add("AgentAnswer", "ans", template, _figures(rng, request.ctx), revised_at)
            graph.relate(revised, "answers", request)
            graph.relate(revised, "based_on", steps[-1])
            graph.relate(revised, "updates", answer)
            graph.edges[answer.id, "answers", request.id]["invalid_at"] = _stamp(revised_at)
    return requests, actions


def _add_preferences(graph: _Graph, requests: list[_Entity]) -> None:
    """Preferences are stated in one request, then constrain later requests (and their answers) of the same kind."""
    rng = graph.rng
    preferences: list[_Entity] = []
    for request in sorted(rng.sample(requests, PREFERENCE_COUNT), key=lambda r: r.at):
        template = _on_topic(rng, PREFERENCES, request.topic, 0.8)
        preferences.append(graph.add("UserPreference", "pref", template, request.ctx, request.at))
        graph.relate(request, "expressed", preferences[-1])
    for request in requests:
        known = [p for p in preferences if p.at < request.at]
        bonus = {p.id: TOPIC_BONUS for p in known if p.topic == request.topic}
        for _ in range(rng.choice((0, 1, 1, 2)) if known else 0):
            preference = graph.attach(known, bonus)
            graph.relate(preference, "constrains", request)
            answer = graph.linked(request, "~answers")[0]
            if rng.random() < 0.35:
                graph.relate(preference, "constrains", answer)
            elif rng.random() < 0.3:
                graph.relate(answer, "contradicts", preference)


def _add_events(graph: _Graph, sources: list[_Entity], requests: list[_Entity], actions: list[_Entity]) -> None:
    """Events reach the plan through data sources and force replanning; a few major disruptions become hubs."""
    rng = graph.rng
    span = (END - START).total_seconds() * 0.9
    times = sorted(START + timedelta(seconds=rng.uniform(0, span)) for _ in range(EVENT_COUNT))
    events = [graph.add("Event", "evt", rng.choice(EVENTS), _figures(rng, _context(rng)), at) for at in times]
    major = rng.sample(events[: EVENT_COUNT // 4], MAJOR_EVENT_COUNT)

    def cause_before(moment: datetime, within: timedelta) -> _Entity | None:
        """A major disruption keeps causing things for months; ordinary events only for a few weeks."""
        lasting = [e for e in major if e.at < moment]
        if lasting and rng.random() < 0.6:
            return rng.choice(lasting)
        recent = [e for e in events if moment - within < e.at < moment]
        return graph.attach(recent) if recent else None

    for index, event in enumerate(events):
        bonus = {s.id: TOPIC_BONUS for s in sources if s.topic == event.topic}
        for _ in range(rng.choice((1, 1, 2))):
            graph.relate(graph.attach(sources, bonus), "reports", event)
        cause = cause_before(event.at, timedelta(days=30)) if rng.random() < 0.45 else None
        if cause is not None:
            graph.relate(event, "caused_by", cause)
        same_site = [e for e in events[:index] if e.ctx["wh"] == event.ctx["wh"]]
        if same_site and rng.random() < 0.7:
            graph.relate(event, "same_warehouse_as", same_site[-1])
        reach, count = (200, rng.randint(12, 20)) if event in major else (45, rng.randint(1, 3))
        window = [r for r in requests if event.at < r.at < event.at + timedelta(days=reach)]
        local = [r for r in window if event.ctx["wh"] == r.ctx["wh"] or event.ctx["supplier"] == r.ctx["supplier"]]
        candidates = local if len(local) >= count else window
        for request in rng.sample(candidates, min(len(candidates), count)):
            graph.relate(event, "affects", request)
    for action in actions:
        cause = cause_before(action.at, timedelta(days=30)) if rng.random() < 0.45 else None
        if cause is not None:
            graph.relate(cause, "triggered", action)
    for index, request in enumerate(requests):
        same_site = [r for r in requests[:index] if r.ctx["wh"] == request.ctx["wh"]]
        if same_site and rng.random() < 0.4:
            graph.relate(request, "same_warehouse_as", same_site[-1])


def _add_incidents(graph: _Graph, sources: list[_Entity], requests: list[_Entity]) -> None:
    """Each incident's events, one caused by the one before, reported by a source; the symptom hits requests."""
    rng = graph.rng
    for index, (wh, supplier, sku, tags, templates) in enumerate(INCIDENTS):
        at = START + timedelta(days=25 + 45 * index)
        ctx = {**_context(rng), "sku": sku, "product": PRODUCTS[sku], "wh": wh, "supplier": supplier}
        chain: list[_Entity] = []
        for template in templates:
            at += timedelta(days=rng.uniform(2, 6))
            event = graph.add("Event", "evt", template, _figures(rng, ctx), at)
            facts = [(graph.attach([s for s in sources if s.topic == event.topic] or sources), "reports", event)]
            if chain:
                facts.append((event, "caused_by", chain[-1]))
            for source, relation, target in facts:
                graph.relate(source, relation, target)
                graph.incident_tags[source.id, relation, target.id] = list(tags)
            chain.append(event)
        later = [r for r in requests if r.at > at and r.ctx["wh"] == wh] or [r for r in requests if r.at > at]
        for request in later[:INCIDENT_AFFECTS]:
            graph.relate(chain[-1], "affects", request)
            graph.incident_tags[chain[-1].id, "affects", request.id] = list(tags)
        for key in graph.incident_tags:
            if key[1] == "caused_by":
                graph.edges[key]["weight"] = round(rng.uniform(*INCIDENT_WEIGHT), 3)


def _invalidate(graph: _Graph) -> None:
    """Supersede some facts (a source replaced, a preference dropped) so the memory has a history to respect."""
    rng = graph.rng
    edges = list(graph.edges.values())
    missing = round(INVALID_SHARE * len(edges)) - sum("invalid_at" in e for e in edges)
    pool = [e for e in edges if e["relation"] in ("uses_data", "constrains")]
    for edge in rng.sample(pool, len(pool)):
        start = datetime.strptime(edge["valid_at"], TIME_FORMAT).replace(tzinfo=UTC)
        if missing > 0 and start < END - timedelta(days=10):
            edge["invalid_at"] = _stamp(min(start + timedelta(days=rng.uniform(5, 90)), END))
            missing -= 1


def _themes(entity: _Entity) -> list[str]:
    """What an entity's text is about, in tags: those whose words all occur in it, matched as query tags are."""
    return tags_for_query(text=f"{entity.name} {entity.summary}", vocabulary=THEME_VOCABULARY)


def _story_themes(graph: _Graph) -> dict[str, list[str]]:
    """Each entity's themes; an action or answer also carries its request's, since its facts serve that request."""
    themes = {entity.id: _themes(entity) for entity in graph.entities}
    for entity in graph.entities:
        served = graph.linked(entity, "addresses") + graph.linked(entity, "answers")
        for request in served[:1]:
            themes[entity.id] = list(dict.fromkeys([*themes[request.id], *themes[entity.id]]))
    return themes


def _focus_tags(graph: _Graph, rng: random.Random) -> None:
    """Tag each fact with what its two ends are about, shared themes first, so a query's tags follow its story.

    Sampled topic tags gave every fact several loosely related words, so a query's tags were a small share of any
    fact's and energy died after a hop or two; a fact now carries at most FOCUSED_TAGS, the themes its ends share
    first. Topic tags only fill a fact up to three tags.
    """
    by_id = {entity.id: entity for entity in graph.entities}
    themes = _story_themes(graph)
    for key, edge in graph.edges.items():
        if key in graph.incident_tags:
            edge["tags"] = graph.incident_tags[key]
            continue
        source, target = by_id[edge["source"]], by_id[edge["target"]]
        ends = themes[source.id], themes[target.id]
        shared = [tag for tag in ends[0] if tag in ends[1]]
        tags = list(dict.fromkeys([*shared, *ends[0], *ends[1], *RELATIONS[edge["relation"]][2]]))[:FOCUSED_TAGS]
        pool = [tag for tag in dict.fromkeys(TOPIC_TAGS[source.topic] + TOPIC_TAGS[target.topic]) if tag not in tags]
        edge["tags"] = tags + rng.sample(pool, max(0, MIN_TAGS - len(tags)))


def _add_chat(graph: _Graph, requests: list[_Entity]) -> tuple[list[dict], list[dict]]:
    """Planner/agent messages about a sample of requests; edges between entities a message mentions cite it."""
    rng, linked = graph.rng, graph.linked
    episodes: list[dict] = []
    mentions: list[dict] = []
    for request in sorted(rng.sample(requests, CHAT_REQUEST_COUNT), key=lambda r: r.at):
        preferences, events = linked(request, "~constrains")[:1], linked(request, "~affects")[:1]
        answer = linked(request, "~answers")[0]
        steps = linked(answer, "based_on")
        data = list(dict.fromkeys(s for a in steps for s in linked(a, "uses_data")))[:3]
        ask = f"{rng.choice(CHAT_OPENERS)}Could you {_lower_first(request.name)}? {request.summary}"
        ask += "".join(f" Keep in mind: {_lower_first(p.name)}." for p in preferences)
        ask += "".join(f" Note that '{e.name}' just happened." for e in events)
        work = "; ".join(_lower_first(a.name) for a in steps)
        reply = f"{answer.name}. {answer.summary} To get there I {work}, using {', '.join(d.name for d in data)}."
        for speaker, at, content, mentioned in (
            ("Planner", request.at, ask, [request, *preferences, *events]),
            ("Agent", answer.at, reply, [answer, *steps, *data]),
        ):
            episode_id = f"demo-ep-{len(episodes) + 1:04d}"
            episodes.append(
                {
                    "id": episode_id,
                    "name": f"{speaker} message {len(episodes) + 1}",
                    "labels": ["Episode"],
                    "content": f"{speaker}: {content}",
                    "source": "message",
                    "source_description": "planning chat",
                    "valid_at": _stamp(at),
                }
            )
            ids = list(dict.fromkeys(entity.id for entity in mentioned))
            mentions += [{"episode": episode_id, "entity": entity_id} for entity_id in ids]
            for edge in graph.edges.values():
                if edge["source"] in ids and edge["target"] in ids:
                    edge.setdefault("episodes", []).append(episode_id)
    return episodes, mentions


def demo_document(*, seed: int = 7) -> dict:
    """Build the demo graph document (docs/import-format.md); the same seed always gives the same document."""
    graph = _Graph(random.Random(seed))
    sources = _add_sources(graph)
    requests, actions = _add_requests(graph, sources)
    _add_preferences(graph, requests)
    _add_events(graph, sources, requests, actions)
    _add_incidents(graph, sources, requests)
    for source in sources:  # a source no action happened to pick still belongs to the memory
        if not graph.degree[source.id]:
            graph.relate(graph.rng.choice(actions), "uses_data", source)
    _invalidate(graph)
    _focus_tags(graph, random.Random(f"demo-tags-{seed}"))
    episodes, mentions = _add_chat(graph, requests)
    nodes = [
        {
            "id": entity.id,
            "name": entity.name,
            "labels": ["Entity", entity.kind],
            "summary": entity.summary,
            "properties": {"topic": entity.topic, **_properties(entity)},
        }
        for entity in graph.entities
    ]
    return {"nodes": nodes + episodes, "edges": list(graph.edges.values()), "mentions": mentions}
