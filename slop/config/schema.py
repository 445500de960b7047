"""The keys a config file may set: where each lives, its type, and what it feeds.

A key is a dotted path (`context.window`); `*` matches one free name (a tool, a model,
a profile). `setting` names the `Settings` field the key fills, so flags and the
environment can override it and `slop config` can say where the value came from."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

Check = Callable[[object], str | None]  # returns why the value is wrong, or None


@dataclass(frozen=True, slots=True)
class Key:
    pattern: str
    kind: str  # "str" | "int" | "float" | "bool" | "list[str]"
    help: str
    setting: str = ""  # the Settings field this key fills ("" = read elsewhere)
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    path: bool = False  # a file system path: ~ expanded, relative to the file's project
    default: object = None  # shown by `slop config` when nothing sets the key (None: not shown)

    def check(self, value: object) -> str | None:
        wrong = _type_problem(self.kind, value)
        if wrong:
            return wrong
        if self.choices and value not in self.choices:
            return f"must be one of {', '.join(repr(c) for c in self.choices)}, got {value!r}"
        if self.minimum is not None and isinstance(value, int | float) and value < self.minimum:
            return f"must be at least {_exact(self.minimum)}, got {value!r}"
        return None


def _exact(number: float) -> str:
    """1048576, not `:g`'s 1.04858e+06: the user must be able to type the minimum back."""
    return str(int(number)) if float(number).is_integer() else repr(number)


def _type_problem(kind: str, value: object) -> str | None:
    ok = {
        "str": isinstance(value, str),
        "bool": isinstance(value, bool),
        "int": isinstance(value, int) and not isinstance(value, bool),
        "float": isinstance(value, int | float) and not isinstance(value, bool),
        "list[str]": isinstance(value, list) and all(isinstance(v, str) for v in value),
    }[kind]
    if ok:
        return None
    names = {"str": "a string", "bool": "true or false", "int": "an integer", "float": "a number"}
    return f"must be {names.get(kind, 'a list of strings')}, got {_toml_type(value)}"


def _toml_type(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__


PROVIDER_WIRES = ("openai", "gemini")
# The built-in providers (slop.providers.specs.BUILTIN_NAMES; a test keeps the two equal): a profile may not take their
# names, since the built-in one would win and the profile's table be silently ignored.
BUILT_IN_PROVIDERS = ("openai", "gemini", "gemini_gca")
APPROVAL_MODES = ("ask", "yes", "read-only")
TOOL_APPROVALS = ("ask", "allow", "deny")
CONTEXT_MODES = ("window", "messages", "ranked", "compact", "relevance")
LAYOUTS = ("seed", "cache")

KEYS: tuple[Key, ...] = (
    Key("provider", "str", "openai, gemini, gemini_gca or a [providers.NAME] profile", setting="provider"),
    Key("model", "str", "model name, `kind:NAME`, `profile:NAME` or a [models] alias", setting="model"),
    Key("base_url", "str", "OpenAI-compatible base URL (like OPENAI_BASE_URL)", setting="openai_base_url"),
    Key("db", "str", "ledger path (like --db)", setting="db_path", path=True),
    Key(
        "context.mode",
        "str",
        "context mode of sessions that never chose one",
        choices=CONTEXT_MODES,
        default="window",
    ),
    Key(
        "context.window",
        "int",
        "turns in the window of a new session (/context window N sets one session's)",
        minimum=0,
        default=5,
    ),
    Key("context.budget", "int", "prompt token budget (0 = the model's); a session's own wins", minimum=0, default=0),
    Key(
        "context.layout",
        "str",
        "layer layout: seed (std::slop order) or cache (prompt-cache friendly)",
        choices=LAYOUTS,
        default="seed",
    ),
    Key(
        "truncation.full", "int", "characters of the newest tool results of the running turn", minimum=100, default=5000
    ),
    Key("truncation.full_count", "int", "how many results of the running turn stay at `full`", minimum=0, default=5),
    Key("truncation.degraded", "int", "characters of older results of the running turn", minimum=100, default=1000),
    Key("truncation.inactive", "int", "characters of tool results of finished turns", minimum=100, default=300),
    Key("approvals.default", "str", "ask, yes (approve all) or read-only", setting="approval", choices=APPROVAL_MODES),
    Key("approvals.*", "str", "per tool: ask, allow or deny", choices=TOOL_APPROVALS),
    Key(
        "tools.allow_paths",
        "list[str]",
        "directories file tools may reach besides the project",
        setting="allow_paths",
        path=True,
    ),
    Key("tools.shell_timeout", "float", "execute_bash timeout in seconds", setting="shell_timeout", minimum=1),
    Key("tools.max_parallel", "int", "tool workers", setting="max_parallel_tools", minimum=1),
    Key("tools.step_limit", "int", "model calls per turn", setting="step_limit", minimum=1),
    Key(
        "tools.output_cap",
        "int",
        "bytes of a command's output stored whole",
        setting="tool_output_cap",
        minimum=1 << 20,
    ),
    Key("ui.editor", "str", "editor command for /edit, /review (over $VISUAL/$EDITOR)", setting="editor"),
    Key("ui.color", "bool", "false = plain output (like --no-color)", setting="color"),
    Key(
        "ui.paste_warn_share",
        "float",
        "ask before sending a message over this share of the prompt budget (0 = never)",
        setting="paste_warn_share",
        minimum=0,
    ),
    Key(
        "ui.verbosity",
        "str",
        "tool output in the terminal, like /verbose and SLOP_VERBOSE",
        setting="verbosity",
        choices=("quiet", "normal", "full"),
    ),
    Key("ui.debug", "bool", "true = tracebacks on errors (like --debug)", setting="debug"),
    Key("prices.*.input", "float", "USD per million prompt tokens", minimum=0),
    Key("prices.*.output", "float", "USD per million completion tokens", minimum=0),
    Key("prices.*.cached_input", "float", "USD per million cached prompt tokens", minimum=0),
    Key("providers.*.base_url", "str", "the profile's server"),
    Key("providers.*.wire", "str", "wire protocol of the profile", choices=PROVIDER_WIRES),
    Key("providers.*.api_key_env", "str", "environment variable holding the profile's key"),
    Key("providers.*.model", "str", "the profile's default model"),
    Key("models.*", "str", "alias -> `kind:NAME` or `profile:NAME`"),
)

TOP_LEVEL = (
    "provider",
    "model",
    "base_url",
    "db",
    "context",
    "truncation",
    "approvals",
    "tools",
    "ui",
    "prices",
    "providers",
    "models",
    "mcp",
)


def find_key(path: tuple[str, ...], keys: tuple[Key, ...] = KEYS) -> Key | None:
    for key in keys:
        parts = key.pattern.split(".")
        if len(parts) == len(path) and all(p in ("*", q) for p, q in zip(parts, path, strict=True)):
            # an exact key (approvals.default) wins over the wildcard (approvals.*): KEYS lists it first
            return key
    return None
