"""Short GIDs: lists show the shortest unique suffix; commands take any unique suffix."""

from __future__ import annotations

import pytest

from slop.commands.gids import short_length
from slop.errors import CommandError
from slop.records import NewMessage, Role
from tests.commands.conftest import Harness


def _group(harness: Harness, gid: str, text: str) -> str:
    harness.store.messages.append("default", gid, NewMessage(Role.USER, text))
    return gid


def test_short_length_grows_only_as_far_as_needed() -> None:
    assert short_length(["1000000000000111111", "1000000000000222222"]) == 6
    assert short_length(["1000000000001111111", "1000000000002111111"]) == 7
    assert short_length([]) == 6


def test_list_shows_suffixes_and_a_suffix_is_accepted(harness: Harness) -> None:
    first = _group(harness, "1700000000000123456", "first prompt")
    _group(harness, "1700000000000987654", "second prompt")
    harness.run("/message list")
    _, _, rows = harness.io.last_table()
    assert [row[0] for row in rows] == ["987654", "123456"]
    harness.run("/context drop 3456")
    assert harness.store.messages.group(harness.ctx.session, first)[0].status == "dropped"


def test_an_ambiguous_suffix_lists_the_candidates(harness: Harness) -> None:
    _group(harness, "1700000000000112345", "a")
    _group(harness, "1700000000000212345", "b")
    with pytest.raises(CommandError, match=r"matches 2 groups \(212345, 112345\)"):
        harness.run("/message show 2345")


@pytest.mark.parametrize(("typed", "message"), [("345", "at least 4"), ("9999", "no group ending in 9999")])
def test_too_short_or_unknown_suffixes_say_what_to_do(harness: Harness, typed: str, message: str) -> None:
    _group(harness, "1700000000000112345", "a")
    with pytest.raises(CommandError, match=message):
        harness.run(f"/message remove {typed}")
    assert harness.store.messages.group_exists("default", "1700000000000112345")
