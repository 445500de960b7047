"""Tunable parameters of context assembly and the context strategies, stored per session
in `sessions.settings` (SessionInfo.options) and set with `/context set KEY VALUE`.
Code reads a setting through its `Option` value, never by a name string, so a typo fails
type-checking."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from slop.records import SessionInfo


@dataclass(frozen=True, slots=True)
class Option:
    name: str
    default: float
    kind: type  # int or float
    low: float
    high: float
    mode: str  # the context mode it tunes ("all": assembly, every mode)
    help: str


# The settings assembly itself reads (window_step: the window and the budget guard
# both slide by it); each strategy declares its own
# next to the code that reads them (`ContextStrategy.options`), and
# `all_options` puts the two together for /context set.
TRUNCATE_ONCE = Option(
    "truncate_once",
    0,
    int,
    0,
    1,
    "all",
    "1: a tool result stays whole while among the 5 newest, then is cut once to 300 characters "
    "(no 1,000 tier, no re-cut at the end of its turn); 0: three tiers",
)
WINDOW_STEP = Option(
    "window_step",
    1,
    int,
    1,
    10_000,
    "window",
    "groups the window and the budget guard drop at once when they slide (>1: the request's "
    "prefix stays the same, and cacheable, for several turns)",
)
ASSEMBLY_OPTIONS = (TRUNCATE_ONCE, WINDOW_STEP)


def all_options(option_sets: Iterable[Iterable[Option]]) -> dict[str, Option]:
    """Each strategy's settings (`ContextStrategy.options`), then assembly's, by name; a
    setting two modes share appears once."""
    table: dict[str, Option] = {}
    for options in (*option_sets, ASSEMBLY_OPTIONS):
        table.update({o.name: o for o in options if o.name not in table})
    return table


def option(session: SessionInfo, spec: Option) -> float:
    """The session's value of `spec`, or its default when unset or unreadable."""
    raw = session.options.get(spec.name, spec.default)
    try:
        value = spec.kind(raw)
    except (TypeError, ValueError, OverflowError):  # a hand-edited settings row
        return spec.default
    if not spec.low <= value <= spec.high:
        return spec.default
    return float(value) if spec.kind is float else int(value)


def parse_option(table: Mapping[str, Option], name: str, text: str) -> float:
    """Validate a /context set value against the known settings (`table`, by name);
    raises ValueError with a message for the user."""
    spec = table.get(name)
    if spec is None:
        raise ValueError(f"unknown setting {name!r}; known: {', '.join(table)}")
    try:
        value = spec.kind(float(text)) if spec.kind is int and float(text).is_integer() else spec.kind(text)
    except ValueError:
        raise ValueError(
            f"{name} must be a{'' if spec.kind is int else ' decimal'} number"
            f"{' (whole)' if spec.kind is int else ''}, got {text!r}"
        ) from None
    if not spec.low <= value <= spec.high:
        raise ValueError(f"{name} must be between {spec.low:g} and {spec.high:g}, got {text}")
    return value
