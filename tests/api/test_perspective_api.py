"""Saved views over REST: who may read, save, share, change and delete them; the default; precise 400s."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from rest_framework.test import APIClient

from explorer.models import MAX_NAME_LENGTH, MAX_STATE_LENGTH
from explorer.perspectives import DELETE_NEEDS_OWNER, OWNER_ONLY, SHARING_NEEDS_CURATOR

GROUP = "views-a"
OTHER = "views-b"
STATE = "nodes=n1,n2&expanded=n1&w=0.5&cat=CAUSALITY"


def url(group: str = GROUP, view: int | str | None = None) -> str:
    return f"/api/groups/{group}/views" + ("" if view is None else f"/{view}")


def save(client: APIClient, group: str = GROUP, **body: object) -> dict:
    response = client.post(url(group), {"name": "mine", "state": STATE, **body}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


@pytest.fixture
def people(client_for: Callable[..., APIClient]) -> dict[str, APIClient]:
    return {
        "cora": client_for("curator", [GROUP], username="cora"),
        "carl": client_for("curator", [GROUP], username="carl"),
        "vic": client_for("viewer", [GROUP], username="vic"),
        "val": client_for("viewer", [GROUP], username="val"),
        "olga": client_for("curator", [OTHER], username="olga"),
    }


def test_a_viewer_saves_a_private_view_that_only_they_see(people) -> None:
    card = save(people["vic"], name="  my   lens ")
    assert card["name"] == "my lens" and card["state"] == STATE and card["mine"] and not card["shared"]
    assert card["url"] == f"/g/{GROUP}/graph/?{STATE}" and card["owner"] == "vic" and not card["default"]
    assert [view["id"] for view in people["vic"].get(url()).json()["views"]] == [card["id"]]
    assert people["val"].get(url()).json()["views"] == []
    assert people["val"].get(url(view=card["id"])).status_code == 404
    assert people["cora"].get(url(view=card["id"])).status_code == 404  # a curator does not read private views
    assert people["vic"].get(url(view=card["id"])).json() == card


def test_a_view_keeps_its_layout_choice_and_pins(people) -> None:
    state = f"{STATE}&layout=radial&pins=n1,0.25,-3.5"
    card = save(people["vic"], name="rings", state=state)
    assert card["state"] == state and card["url"].endswith("&layout=radial&pins=n1,0.25,-3.5")


def test_sharing_needs_the_curator_role_and_shows_the_view_to_the_group(people) -> None:
    refused = people["vic"].post(url(), {"name": "team", "state": STATE, "shared": True}, format="json")
    assert refused.status_code == 403 and refused.json()["detail"] == SHARING_NEEDS_CURATOR
    own = save(people["vic"], name="to share")
    refused = people["vic"].patch(url(view=own["id"]), {"shared": True}, format="json")
    assert refused.status_code == 403 and refused.json()["detail"] == SHARING_NEEDS_CURATOR
    shared = save(people["cora"], name="team", shared=True)
    seen = people["val"].get(url()).json()["views"]
    assert [(view["name"], view["mine"], view["owner"]) for view in seen] == [("team", False, "cora")]
    # Others may open it but not rename it, re-save it or delete it; a curator may delete a shared one.
    assert people["val"].patch(url(view=shared["id"]), {"name": "x"}, format="json").json()["detail"] == OWNER_ONLY
    assert people["carl"].patch(url(view=shared["id"]), {"state": ""}, format="json").status_code == 403
    assert people["val"].delete(url(view=shared["id"])).json()["detail"] == DELETE_NEEDS_OWNER
    assert people["carl"].delete(url(view=shared["id"])).status_code == 204
    assert people["val"].get(url()).json()["views"] == []


def test_the_owner_renames_resaves_unshares_and_deletes(people) -> None:
    card = save(people["cora"], name="draft", shared=True)
    changed = people["cora"].patch(url(view=card["id"]), {"name": "final", "state": "nodes=n3"}, format="json")
    assert changed.status_code == 200, changed.content
    assert changed.json()["name"] == "final" and changed.json()["state"] == "nodes=n3"
    unshared = people["cora"].patch(url(view=card["id"]), {"shared": False}, format="json").json()
    assert not unshared["shared"] and people["vic"].get(url(view=card["id"])).status_code == 404
    assert people["cora"].delete(url(view=card["id"])).status_code == 204
    assert people["cora"].get(url(view=card["id"])).status_code == 404


def test_the_default_view_is_one_per_group_shared_and_set_by_curators(people) -> None:
    assert people["vic"].get(url(view="default")).json() == {"group": GROUP, "view": None}
    first = save(people["cora"], name="first", default=True)
    assert first["default"] and first["shared"]
    second = save(people["carl"], name="second", shared=True)
    refused = people["vic"].patch(url(view=second["id"]), {"default": True}, format="json")
    assert refused.status_code == 403 and refused.json()["detail"] == SHARING_NEEDS_CURATOR
    made = people["cora"].patch(url(view=second["id"]), {"default": True}, format="json")  # another's shared view
    assert made.status_code == 200 and made.json()["default"]
    listed = people["vic"].get(url()).json()
    assert listed["default"] == second["id"] and listed["views"][0]["id"] == second["id"]
    assert [view["default"] for view in listed["views"]] == [True, False]
    assert people["vic"].get(url(view="default")).json()["view"]["id"] == second["id"]
    # Unsharing the default leaves the group without one: a private view is nobody else's default.
    people["carl"].patch(url(view=second["id"]), {"shared": False}, format="json")
    assert people["vic"].get(url(view="default")).json()["view"] is None


def test_names_are_unique_per_user_and_group(people) -> None:
    save(people["vic"], name="lens")
    taken = people["vic"].post(url(), {"name": "lens", "state": ""}, format="json")
    assert taken.status_code == 400 and taken.json()["errors"] == [
        f"name: you already have a view named 'lens' in group '{GROUP}'"
    ]
    save(people["val"], name="lens")  # another user's name is theirs
    other = save(people["vic"], name="other")
    renamed = people["vic"].patch(url(view=other["id"]), {"name": "lens"}, format="json")
    assert renamed.status_code == 400 and renamed.json()["errors"][0].startswith("name: you already have")
    assert people["vic"].get(url(view=other["id"])).json()["name"] == "other"  # nothing lost


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ({"state": ""}, "name: is required"),
        ({"name": "   ", "state": ""}, "name: must not be blank"),
        ({"name": "x" * (MAX_NAME_LENGTH + 1), "state": ""}, f"name: String should have at most {MAX_NAME_LENGTH}"),
        (
            {"name": "big", "state": "nodes=" + "a" * MAX_STATE_LENGTH},
            f"state: String should have at most {MAX_STATE_LENGTH}",
        ),
        ({"name": "odd", "state": "nodes=a&colour=kind&evil=1"}, "state: unknown key(s) evil"),
        ({"name": "odd", "state": "nodes"}, "state: must be a URL query"),
        ({"name": "odd", "state": "", "shared": "perhaps"}, "shared: Input should be a valid boolean"),
        ({"name": "odd", "state": "", "default": 0}, "default: Input should be a valid boolean"),
        ({"name": "odd", "state": "", "colour": "red"}, "body: unknown field(s) colour"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(people, body: dict, problem: str) -> None:
    response = people["cora"].post(url(), body, format="json")
    assert response.status_code == 400, response.content
    assert any(error.startswith(problem) for error in response.json()["errors"]), response.json()
    assert people["cora"].get(url()).json()["views"] == []


def test_an_empty_change_is_a_400(people) -> None:
    card = save(people["vic"])
    response = people["vic"].patch(url(view=card["id"]), {}, format="json")
    assert response.status_code == 400 and "give at least one" in response.json()["detail"]


def test_another_groups_views_are_404_and_untouched(people) -> None:
    theirs = save(people["olga"], group=OTHER, name="secret lens", shared=True, default=True)
    cora = people["cora"]
    for response in (
        cora.get(url(OTHER)),
        cora.get(url(OTHER, "default")),
        cora.post(url(OTHER), {"name": "x", "state": ""}, format="json"),
        cora.get(url(OTHER, theirs["id"])),
        cora.get(url(GROUP, theirs["id"])),  # its id under one's own group
        cora.patch(url(GROUP, theirs["id"]), {"name": "mine now"}, format="json"),
        cora.delete(url(GROUP, theirs["id"])),
        cora.delete(url(OTHER, theirs["id"])),
    ):
        assert response.status_code == 404, response.content
        assert "secret" not in response.content.decode()
    assert people["olga"].get(url(OTHER, theirs["id"])).json() == theirs
    assert cora.get(url(GROUP, "default")).json()["view"] is None


def test_nobody_signed_in_gets_401() -> None:
    assert APIClient().get(url()).status_code == 401


def test_odd_ids_and_control_characters_are_refused_cleanly(people) -> None:
    assert people["vic"].get(url(view=10**30)).status_code == 404
    assert people["vic"].delete(url(view=10**30)).status_code == 404
    response = people["vic"].post(url(), {"name": "a\x00b", "state": ""}, format="json")
    assert response.status_code == 400 and response.json()["errors"] == ["name: must not hold control characters"]
    response = people["vic"].post(url(), {"name": "ok", "state": "w=1\n"}, format="json")
    assert response.status_code == 400 and response.json()["errors"] == ["state: must not hold control characters"]
