"""What a call costs: list prices per model, and the cost of recorded usage.

Prices are US dollars per 1M tokens: input (uncached), cached input, output (reasoning
included; both providers bill it as output). Standard tier, prompts up to 200k tokens.

Sources, read 2025-08-20: https://openai.com/api/pricing (and platform.openai.com/docs/pricing)
and https://ai.google.dev/gemini-api/docs/pricing. Gemini 2.5's cached price is the
implicit-caching price (75 % off input). Prices change: a user overrides or adds a
model with SLOP_PRICES (`model=INPUT/CACHED/OUTPUT,...`) or a mapping from the config
file, through `price_table`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from slop.errors import ConfigError
from slop.records import Usage

PRICES_AS_OF = "2025-08-20"


@dataclass(frozen=True, slots=True)
class Price:
    input: float  # $ per 1M uncached input tokens
    cached_input: float  # $ per 1M cached input tokens
    output: float  # $ per 1M output tokens (reasoning included)


LIST_PRICES: dict[str, Price] = {
    # OpenAI
    "gpt-5": Price(1.25, 0.125, 10.00),
    "gpt-5-mini": Price(0.25, 0.025, 2.00),
    "gpt-5-nano": Price(0.05, 0.005, 0.40),
    "gpt-4.1": Price(2.00, 0.50, 8.00),
    "gpt-4.1-mini": Price(0.40, 0.10, 1.60),
    "gpt-4.1-nano": Price(0.10, 0.025, 0.40),
    "gpt-4o": Price(2.50, 1.25, 10.00),
    "gpt-4o-mini": Price(0.15, 0.075, 0.60),
    "o1": Price(15.00, 7.50, 60.00),
    "o3": Price(2.00, 0.50, 8.00),
    "o3-mini": Price(1.10, 0.55, 4.40),
    "o4-mini": Price(1.10, 0.275, 4.40),
    # Gemini
    "gemini-2.5-pro": Price(1.25, 0.31, 10.00),
    "gemini-2.5-flash": Price(0.30, 0.075, 2.50),
    "gemini-2.5-flash-lite": Price(0.10, 0.025, 0.40),
    "gemini-2.0-flash": Price(0.10, 0.025, 0.40),
    "gemini-2.0-flash-lite": Price(0.075, 0.075, 0.30),
}

_PREFIXES = ("models/", "openai/", "google/", "openai:", "gemini:", "gemini_gca:")


def price_table(overrides: Mapping[str, object] | None = None) -> dict[str, Price]:
    """The list prices with the user's entries on top. An entry is a Price, a sequence
    (input, cached_input, output) or a mapping with those keys; cached_input may be left
    out (then it is the input price: no cache discount known)."""
    table = dict(LIST_PRICES)
    for model, value in (overrides or {}).items():
        table[normalize(model)] = _price(model, value)
    return table


def price_for(model: str, table: Mapping[str, Price]) -> Price | None:
    """The price of `model`: an exact entry, else the longest entry it extends with a
    dash (a dated snapshot such as gpt-4o-mini-2024-07-18, a -preview, -latest)."""
    name = normalize(model)
    if name in table:
        return table[name]
    best = max((k for k in table if name.startswith(k + "-")), key=len, default=None)
    return table[best] if best else None


def cost(usage: Usage, price: Price) -> float:
    """Dollars for one usage record (or a sum of them)."""
    cached = min(usage.cached_tokens, usage.prompt_tokens)
    uncached = usage.prompt_tokens - cached
    return (uncached * price.input + cached * price.cached_input + usage.completion_tokens * price.output) / 1e6


def normalize(model: str) -> str:
    name = model.strip().lower()
    for prefix in _PREFIXES:
        if name.startswith(prefix):
            name = name[len(prefix) :]
    return name


def _numbers(source: str, model: str, fields: Iterable[str]) -> tuple[float, ...]:
    try:
        values = tuple(float(f) for f in fields)
    except ValueError:
        raise ConfigError(f"{source}: the prices of {model!r} must be numbers (dollars per 1M tokens)") from None
    if any(v < 0 for v in values):
        raise ConfigError(f"{source}: the prices of {model!r} cannot be negative")
    return values


def _price(model: str, value: object) -> Price:
    if isinstance(value, Price):
        return value
    if isinstance(value, Mapping):
        try:
            given = float(value["input"]), float(value.get("cached_input", value["input"])), float(value["output"])
        except (KeyError, TypeError, ValueError):
            raise ConfigError(
                f"prices: {model!r} needs numbers 'input' and 'output' (and optionally 'cached_input')"
            ) from None
        return Price(*_numbers("prices", model, (str(v) for v in given)))
    if isinstance(value, Sequence) and not isinstance(value, str) and len(value) in (2, 3):
        numbers = _numbers("prices", model, (str(v) for v in value))
        return Price(numbers[0], numbers[0], numbers[1]) if len(numbers) == 2 else Price(*numbers)
    raise ConfigError(f"prices: {model!r} must be [input, cached_input, output] in dollars per 1M tokens")


@dataclass(frozen=True, slots=True)
class Bill:
    """The cost of usage per model: `dollars` over the priced models, `unpriced` the
    models without a known price (their tokens are not in `dollars`)."""

    dollars: float
    unpriced: tuple[str, ...]

    @property
    def known(self) -> bool:
        return not self.unpriced


def bill(by_model: Iterable[Usage], table: Mapping[str, Price]) -> Bill:
    dollars, unpriced = 0.0, []
    for usage in by_model:
        price = price_for(usage.model, table)
        if price is None:
            unpriced.append(usage.model or "?")
        else:
            dollars += cost(usage, price)
    return Bill(dollars, tuple(unpriced))


def dollars_text(amount: float) -> str:
    """$0.0042 / $0.123 / $12.34: enough digits to see a small session move."""
    if amount < 0.01:
        return f"${amount:.4f}"
    if amount < 1:
        return f"${amount:.3f}"
    return f"${amount:,.2f}"


def spent_label(by_model: Iterable[Usage], table: Mapping[str, Price]) -> str:
    """The modeline's session cost, e.g. "$0.0123"; "" when any model's price is unknown
    (a partial sum would understate the bill)."""
    rows = list(by_model)
    if not rows:
        return ""
    total = bill(rows, table)
    return dollars_text(total.dollars) if total.known else ""
