"""The neomodel classes and the async driver against the real server."""

from __future__ import annotations

from memoria.graph import driver
from memoria.graph.driver import async_graph_driver, database_name
from memoria.graph.models import Entity, Episode, Memory


def test_neomodel_writes_what_cypher_reads(group: str) -> None:
    Entity(uid=f"{group}-e", group_id=group, name="Lyon warehouse", attributes={"sqm": 12000}).save()
    Episode(uid=f"{group}-p", group_id=group, name="msg", content="Lyon is short of SKU-1", source="message").save()
    rows = driver.read("MATCH (n:Memory {group_id: $g}) RETURN n.id AS id, labels(n) AS labels ORDER BY id", g=group)
    assert [(row["id"], sorted(row["labels"])) for row in rows] == [
        (f"{group}-e", ["Entity", "Memory"]),
        (f"{group}-p", ["Episode", "Memory"]),
    ]
    assert Memory.nodes.get(uid=f"{group}-e").name == "Lyon warehouse"
    assert Entity.nodes.get(uid=f"{group}-e").attributes == {"sqm": 12000}


async def test_async_driver_reads(group: str) -> None:
    driver.write("CREATE (:Memory:Entity {id: $id, group_id: $g, name: 'async'})", id=f"{group}-a", g=group)
    shared = async_graph_driver()
    assert async_graph_driver() is shared  # one per event loop

    async def name_of(tx, node_id: str) -> str:
        record = await (await tx.run("MATCH (n:Memory {id: $id}) RETURN n.name AS name", id=node_id)).single()
        return record["name"]

    async with shared.session(database=database_name()) as session:
        assert await session.execute_read(name_of, f"{group}-a") == "async"
    await driver.close_async_driver()
