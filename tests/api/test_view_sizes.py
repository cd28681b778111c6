"""What a process holds in memory per group: /healthz's `memory` for admins, `view_bytes` in the group list."""

from __future__ import annotations

from django.test import Client

from memoria.accounts.roles import Role
from memoria.accounts.services import user_grant
from memoria.readmodel.cache import view_cache
from memoria.search.recipes import recipe
from memoria.search.service import search
from tests.search.memory import store_search_memory


def test_admins_see_views_and_projections_in_healthz_others_do_not(db: None, group: str) -> None:
    store_search_memory(group)
    search(query="gloves", groups=[group], config=recipe("combined_hybrid_rrf"))
    anonymous = Client().get("/healthz").json()
    assert "memory" not in anonymous
    viewer = Client()
    viewer.force_login(user_grant(username="healthz-viewer", role=Role.VIEWER, groups=[group]))
    assert "memory" not in viewer.get("/healthz").json()
    admin = Client()
    admin.force_login(user_grant(username="healthz-admin", role=Role.ADMIN, groups=[]))
    memory = admin.get("/healthz").json()["memory"]
    views = {view["group"]: view for view in memory["views"]}
    assert views[group]["bytes"] > 0 and views[group]["items"]["facts"] == 10
    assert memory["view_bytes"] >= views[group]["bytes"] and memory["view_budget_bytes"] > 0
    assert isinstance(memory["projections"], list) and memory["projection_budget_edges"] > 0
    view_cache().forget(group)


def test_the_group_list_says_how_much_the_view_holds(client_for, group: str) -> None:
    store_search_memory(group)
    client = client_for("viewer", [group])
    assert client.get("/api/groups").json()[0]["view_bytes"] is None  # not loaded in this process yet
    search(query="gloves", groups=[group], config=recipe("facts_hybrid_rrf"))
    listed = client.get("/api/groups").json()[0]
    assert listed["group"] == group and listed["view_bytes"] > 0
    view_cache().forget(group)
