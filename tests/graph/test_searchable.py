"""One definition of an item's searchable text: the Cypher expressions and their Python twins give the same text
for every shape an item can have, on the real server."""

from __future__ import annotations

import pytest

from memoria.graph import driver, kinds
from memoria.graph.searchable import FACT_TEXT, NODE_TEXT, fact_text, node_text

# (labels, name, content, summary): parts missing, empty, or awkward to quote.
NODES = [
    ([kinds.EPISODE], "Ottoman Empire", "The empire lasted six centuries.", None),
    ([kinds.EPISODE], "D1:3", "", None),
    ([kinds.EPISODE], None, "A passage without a title.", None),
    ([kinds.EPISODE], "", "", None),
    ([kinds.ENTITY], "Ada Lovelace", None, "Wrote the first program."),
    ([kinds.ENTITY], "Grace Hopper", None, ""),
    ([kinds.ENTITY], None, None, "a summary only"),
    ([kinds.ENTITY, "Event"], "O'Brien's \"party\"\\n", None, "line one\nline two\t— ünïcode"),
    ([kinds.COMMUNITY], "Forecasting", None, "demand planning"),
    ([kinds.COMMUNITY], "", None, None),
]
# (source name, relation, target name, fact)
FACTS = [
    ("Ada Lovelace", "WORKED_WITH", "Charles Babbage", "Ada worked with Babbage on the engine."),
    ("Ada Lovelace", "knows", "Grace Hopper", None),
    ("Ada Lovelace", None, "Grace Hopper", ""),
    (None, "uses_data", "", "Only a sentence"),
    ("", "", "", ""),
    ("Q3 forecast", "__odd__relation_", "Depot", 'it\'s "quoted"'),
]
NODE_TEXTS = f"MATCH (n:Memory {{group_id: $group}}) RETURN n.id AS id, {NODE_TEXT} AS text"
STORE_FACT = """
CREATE (a:Memory:Entity {group_id: $group, id: $source})
CREATE (b:Memory:Entity {group_id: $group, id: $target})
SET a += $source_props, b += $target_props
CREATE (a)-[r:RELATES {group_id: $group, id: $id}]->(b)
SET r += $props
"""
FACT_TEXTS = f"MATCH (a:Memory {{group_id: $group}})-[r:RELATES]->(b) RETURN r.id AS id, {FACT_TEXT} AS text"


def _present(**props: str | None) -> dict[str, str]:
    return {key: value for key, value in props.items() if value is not None}


@pytest.mark.parametrize("stored", range(len(NODES)))
def test_node_text_in_cypher_and_python_agree(group: str, stored: int) -> None:
    labels, name, content, summary = NODES[stored]
    label_text = ":".join(labels)
    driver.write(
        f"CREATE (n:Memory:{label_text} {{group_id: $group, id: 'n'}}) SET n += $props",
        group=group,
        props=_present(name=name, content=content, summary=summary),
    )
    [row] = driver.read(NODE_TEXTS, group=group)
    expected = node_text(is_episode=kinds.EPISODE in labels, name=name, content=content, summary=summary)
    assert row["text"] == expected


@pytest.mark.parametrize("stored", range(len(FACTS)))
def test_fact_text_in_cypher_and_python_agree(group: str, stored: int) -> None:
    source_name, relation, target_name, fact = FACTS[stored]
    driver.write(
        STORE_FACT,
        group=group,
        source="a",
        target="b",
        id="r",
        source_props=_present(name=source_name),
        target_props=_present(name=target_name),
        props=_present(relation=relation, fact=fact),
    )
    [row] = driver.read(FACT_TEXTS, group=group)
    assert row["text"] == fact_text(source_name=source_name, relation=relation, target_name=target_name, fact=fact)


def test_every_part_is_in_the_text_and_empty_parts_leave_no_separator() -> None:
    assert node_text(is_episode=True, name="Ottoman Empire", content="It lasted.") == "Ottoman Empire\nIt lasted."
    assert node_text(is_episode=True, name="", content="It lasted.") == "It lasted."
    assert node_text(is_episode=False, name="Ada", summary="Wrote a program.") == "Ada\nWrote a program."
    assert node_text(is_episode=False, name="Ada", content="ignored: entities have no content") == "Ada"
    assert fact_text(source_name="Ada", relation="WORKED_WITH", target_name="Babbage", fact="They met.") == (
        "Ada WORKED WITH Babbage\nThey met."
    )
    assert fact_text(source_name="Ada", relation="", target_name="Babbage", fact=None) == "Ada Babbage"
