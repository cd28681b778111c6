"""After concurrent writers: does the graph hold everything each of them was told? Asked of the graph and the
audit trail, not of the answers.

- Every acknowledged episode is stored exactly once; one never acknowledged (a batch that kept failing) at most
  once; none is stored that was never sent.
- Every acknowledged contribution is present exactly once: an episode a fact was created or merged from is in the
  fact's `episodes` once, unless an acknowledged curation removed the fact afterwards (its audit entry's `before`
  then holds the episode, so the contribution had landed first); a fact an episode invalidated is invalid.
- No two current facts say the same thing: one (source, relation, target) each (`co_occurs` either way round).
- The audit trail is one-to-one with acknowledged curation changes: an entry for each, none for a refusal.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from memoria.graph import driver, kinds
from memoria.ingest.extract_facts import CO_OCCURRENCE
from memoria.loadtest.verify import STORED_EPISODES
from memoria.loadtest.writers import CuratorLedger, WriterLedger

FACTS = f"""
MATCH (a:{kinds.MEMORY_LABEL} {{group_id: $group}})-[r:{kinds.RELATES}]->(b:{kinds.MEMORY_LABEL})
WHERE r.group_id = $group
RETURN r.id AS id, a.id AS source, b.id AS target, r.relation AS relation, coalesce(r.episodes, []) AS episodes,
       r.invalid_at AS invalid_at
"""
SHOWN = 10  # violations listed per kind; the count says how many there were


@dataclass
class InvariantReport:
    episodes_checked: int = 0
    claims_checked: int = 0
    claims_removed_by_curation: int = 0  # contributions to facts a curator deleted or merged away afterwards
    audit_entries: int = 0
    violations: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))

    def add(self, kind: str, detail: str) -> None:
        self.violations[kind].append(detail)

    @property
    def ok(self) -> bool:
        return not any(self.violations.values())

    def summary(self) -> str:
        if self.ok:
            return "all invariants hold"
        return "; ".join(
            f"{kind}: {len(items)} ({', '.join(items[:SHOWN])}{', …' if len(items) > SHOWN else ''})"
            for kind, items in sorted(self.violations.items())
            if items
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "episodes_checked": self.episodes_checked,
            "claims_checked": self.claims_checked,
            "claims_removed_by_curation": self.claims_removed_by_curation,
            "audit_entries": self.audit_entries,
            "violations": {kind: items for kind, items in sorted(self.violations.items()) if items},
        }


def _removals(group: str, label: str) -> tuple[dict[str, list[set[str]]], dict[int, Any]]:
    """The run's audit entries by id, and for each fact an acknowledged change removed, the episodes it held
    just before (one set per removing entry)."""
    from memoria.curation.models import AuditEntry

    entries = {entry.pk: entry for entry in AuditEntry.objects.filter(group=group, actor__startswith=f"{label}-")}
    removed: dict[str, list[set[str]]] = defaultdict(list)
    for entry in entries.values():
        before, after = entry.before.get("edges", {}), entry.after.get("edges", {})
        for edge_id, state in before.items():
            if state is not None and after.get(edge_id) is None:
                removed[edge_id].append(set(state["props"].get("episodes") or ()))
    return removed, entries


def _check_episodes(report: InvariantReport, group: str, label: str, writers: WriterLedger) -> None:
    copies = {row["id"]: row["copies"] for row in driver.read(STORED_EPISODES, group=group, prefix=f"{label}-")}
    acknowledged = {ack.id for ack in writers.acknowledged}
    for episode_id in sorted(acknowledged):
        if copies.get(episode_id, 0) != 1:
            report.add("acknowledged episode not stored once", f"{episode_id} ×{copies.get(episode_id, 0)}")
    for episode_id in sorted(set(writers.failed) - acknowledged):
        if copies.get(episode_id, 0) > 1:
            report.add("failed episode stored twice", episode_id)
    for episode_id in sorted(set(copies) - set(writers.sent)):
        report.add("episode stored that was never sent", episode_id)
    report.episodes_checked = len(acknowledged) + len(set(writers.failed))


def _check_facts(
    report: InvariantReport, group: str, writers: WriterLedger, removed: dict[str, list[set[str]]]
) -> None:
    facts = {row["id"]: row for row in driver.read(FACTS, group=group)}
    for fact in facts.values():
        repeated = [episode for episode, count in Counter(fact["episodes"]).items() if count > 1]
        if repeated:
            report.add("episode listed twice in a fact", f"{fact['id']}: {repeated}")
    current: Counter[tuple[str, str, str]] = Counter()
    for fact in facts.values():
        if fact["invalid_at"] is None:
            ends = (fact["source"], fact["target"])
            if fact["relation"] == CO_OCCURRENCE:
                ends = tuple(sorted(ends))
            current[(ends[0], fact["relation"], ends[1])] += 1
    for (source, relation, target), count in sorted(current.items()):
        if count > 1:
            report.add("duplicate current fact", f"{source} -{relation}-> {target} ×{count}")
    for ack in writers.acknowledged:
        for fact_id in (*ack.facts_created, *ack.facts_merged):
            report.claims_checked += 1
            fact = facts.get(fact_id)
            if fact is not None and ack.id in fact["episodes"]:
                continue
            if fact is None and any(ack.id in held for held in removed.get(fact_id, ())):
                report.claims_removed_by_curation += 1
                continue
            where = "its fact is gone" if fact is None else f"episodes {fact['episodes']}"
            report.add("lost contribution", f"{ack.id} → {fact_id} ({where})")
        for fact_id in ack.facts_invalidated:
            fact = facts.get(fact_id)
            if fact is not None and fact["invalid_at"] is None and fact_id not in removed:
                report.add("lost invalidation", f"{ack.id} ended {fact_id}, which is current")


def _check_audit(report: InvariantReport, curators: CuratorLedger, entries: dict[int, Any]) -> None:
    acknowledged = Counter(ack.entry for ack in curators.acknowledged)
    for entry_id, count in sorted(acknowledged.items()):
        if count > 1:
            report.add("one audit entry acknowledged twice", str(entry_id))
        if entry_id not in entries:
            report.add("acknowledged change without an audit entry", str(entry_id))
    for entry_id in sorted(set(entries) - set(acknowledged)):
        report.add("audit entry of no acknowledged change", f"#{entry_id} {entries[entry_id].action}")
    report.audit_entries = len(entries)


def writers_invariants(*, group: str, label: str, writers: WriterLedger, curators: CuratorLedger) -> InvariantReport:
    """Check the run labelled `label` on `group` against what its writers and curators were told."""
    report = InvariantReport()
    removed, entries = _removals(group, label)
    _check_episodes(report, group, label, writers)
    _check_facts(report, group, writers, removed)
    _check_audit(report, curators, entries)
    for error in (*writers.errors, *curators.errors):
        report.add("unexpected error", error)
    return report
