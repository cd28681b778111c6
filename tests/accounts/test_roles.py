"""Group names are checked by one pattern; a final newline is not part of a name (Python's "$" allowed it)."""

from __future__ import annotations

import pytest

from memoria.accounts.roles import check_group_name
from memoria.curation.inputs import edge_delete_parse
from memoria.errors import InvalidInput


@pytest.mark.parametrize("name", ["demo", "a", "A_b-9", "x" * 64])
def test_plain_names_pass(name: str) -> None:
    assert check_group_name(name) == name


@pytest.mark.parametrize("name", ["demo\n", "", "x" * 65, "a b", "é", "demo\r\n", 7])
def test_other_names_are_refused(name: object) -> None:
    with pytest.raises(ValueError, match="must be 1–64 letters, digits"):
        check_group_name(name)  # type: ignore[arg-type]


def test_an_edit_version_with_a_final_newline_is_refused() -> None:
    assert edge_delete_parse({"version": "ab12"}) == "ab12"
    with pytest.raises(InvalidInput, match="version"):
        edge_delete_parse({"version": "ab12\n"})
