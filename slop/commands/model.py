"""/model, /models and /usage: which model answers, what is available, what it cost."""

from __future__ import annotations

import os

from slop.commands.base import Command, CommandContext, Proceed
from slop.errors import CommandError, SlopError
from slop.providers.prices import PRICES_AS_OF, Price, bill, cost, dollars_text, price_for, price_table
from slop.providers.registry import BUILTIN_NAMES, ProviderConfig, default_model, resolve_spec, wire_of
from slop.records import Usage, wires_compatible

MODEL_USAGE = "/model [NAME | ALIAS | " + " | ".join(f"{k}:NAME" for k in BUILTIN_NAMES) + " | PROFILE:NAME]"
MODELS_USAGE = "/models [FILTER]"


def _cache(ctx: CommandContext) -> dict[str, list[str]]:
    """Provider kind -> the model names its last /models listed."""
    return ctx.conversation.model_names


def split_spec(spec: str, current_kind: str | None, config: ProviderConfig | None = None) -> tuple[str | None, str]:
    """`NAME` -> (current kind, NAME); `kind:NAME` -> (kind, NAME) for a known kind or a
    config profile; an alias from [models] first becomes its target. Model names may
    contain ':' themselves (Ollama tags), so only a known prefix counts."""
    kind, name = resolve_spec(spec, config or ProviderConfig())
    return kind or current_kind, name


def credentials_problem(kind: str, config: ProviderConfig) -> str | None:
    """Why `kind` cannot work with the current configuration, or None."""
    profile = config.profile(kind)
    if profile is not None:
        if profile.api_key_env and not os.environ.get(profile.api_key_env):
            return f"${profile.api_key_env} (the key of provider {kind!r}) is not set; set it and restart slop"
        if profile.wire == "openai" and not profile.base_url:
            return f"provider {kind!r} has no base_url in the config"
        return None
    spec = config.providers.get(kind)
    return spec.problem(config) if spec else f"there is no provider {kind!r}"


def usable_kinds(config: ProviderConfig) -> list[str]:
    """The providers whose credentials are there: the only ones worth suggesting."""
    return [kind for kind in config.kinds() if credentials_problem(kind, config) is None]


def no_provider_advice(ctx: CommandContext, name: str) -> str:
    """What to do without a provider; never a command that would fail next."""
    usable = usable_kinds(ctx.providers.config)
    if usable:
        return "no provider is chosen; pick one: " + " or ".join(f"/model {k}:{name}" for k in usable)
    return (
        "no provider is configured: set OPENAI_API_KEY (or OPENAI_BASE_URL for a local server) or GEMINI_API_KEY, "
        "then restart slop (or run `slop auth` for Gemini Code Assist)"
    )


def model_cmd(ctx: CommandContext, args: str) -> Proceed | None:
    manager = ctx.providers
    if not args.strip():
        if manager.kind is None:
            ctx.io.info(no_provider_advice(ctx, "NAME"))
        else:
            ctx.io.info(f"provider: {manager.kind} · model: {manager.label}")
        return None
    spec = args.strip()
    kind, name = split_spec(spec, manager.kind, manager.config)
    if kind is None:
        raise CommandError(no_provider_advice(ctx, name or "NAME"))
    if " " in name:
        raise CommandError(f"a model name has no spaces: {name!r}", usage=MODEL_USAGE)
    problem = credentials_problem(kind, manager.config)
    if problem:
        raise CommandError(f"cannot switch to {kind}: {problem}")
    old_kind = manager.kind
    new_kind, label = manager.switch(f"{kind}:{name}")
    ctx.store.sessions.update_settings(ctx.session, provider=new_kind, model=label)
    known = _cache(ctx).get(new_kind)
    if name and known and name not in known:
        ctx.io.warning(f"{name} is not in the last /models list of {new_kind}; the next turn will tell if it exists")
    message = f"now using {new_kind} · {label} (saved for session '{ctx.session}')"
    if old_kind and not wires_compatible(wire_of(old_kind, manager.config), wire_of(new_kind, manager.config)):
        message += f"; text carries over, tool calls made under {old_kind} stay out of this model's context"
    ctx.io.success(message)
    return None


def models_cmd(ctx: CommandContext, args: str) -> Proceed | None:
    manager = ctx.providers
    try:
        provider = manager.current()
    except SlopError as exc:
        ctx.io.error(f"cannot list models: {exc}")
        return None
    if provider is None or manager.kind is None:
        ctx.io.error("cannot list models: no provider is configured (set OPENAI_API_KEY or GEMINI_API_KEY)")
        return None
    try:
        names = provider.list_models()
    except SlopError as exc:
        ctx.io.error(f"cannot list the models of {manager.kind}: {exc}")
        return None
    _cache(ctx)[manager.kind] = list(names)
    wanted = args.strip().lower()
    shown = [n for n in names if wanted in n.lower()]
    if not shown:
        what = f" matching {args.strip()!r}" if wanted else ""
        ctx.io.info(f"{manager.kind} offers no models{what} ({len(names)} in all)")
        return None
    rows = [[("* " if n == provider.model else "  ") + n] for n in shown]
    title = f"{manager.kind} models" + (f" matching {args.strip()!r}" if wanted else "") + f" ({len(shown)})"
    ctx.io.table(title, ["Model (* = current; /model NAME switches)"], rows)
    return None


def complete_model(ctx: CommandContext, words: list[str]) -> list[str]:
    """Model names from the last /models lists (no network while typing), defaults,
    and `kind:` prefixes to switch provider."""
    if len(words) > 1:
        return []
    cache = _cache(ctx)
    config = ctx.providers.config
    current = ctx.providers.kind
    options: list[str] = list(config.aliases)
    if current:
        options += cache.get(current, []) or [default_model(current, config)]
    for kind in usable_kinds(config):  # only providers a switch to would work
        options.append(f"{kind}:")
        options += [f"{kind}:{n}" for n in cache.get(kind, []) or [default_model(kind, config)] if n]
    return list(dict.fromkeys(o for o in options if o))


def complete_models(ctx: CommandContext, words: list[str]) -> list[str]:
    kind = ctx.providers.kind
    return list(_cache(ctx).get(kind, [])) if kind and len(words) <= 1 else []


def usage_cmd(ctx: CommandContext, args: str) -> Proceed | None:
    by_model = ctx.store.usage.by_model(ctx.session)
    if by_model:
        _usage_table(ctx, by_model)
    else:
        ctx.io.info(f"no model calls in session '{ctx.session}' yet")
    tools = ctx.store.catalog.tool_counts()
    if tools:
        ctx.io.table("Tool calls (all sessions of this project)", ["Tool", "Calls"], [[n, str(c)] for n, c in tools])
    else:
        ctx.io.info("no tool calls yet")
    skills = [s for s in ctx.store.catalog.skills() if s.activation_count]
    if skills:
        ctx.io.table(
            "Skill activations (all sessions of this project)",
            ["Skill", "Activations"],
            [[s.name, str(s.activation_count)] for s in skills],
        )
    else:
        ctx.io.info("no skill activations yet")
    return None


def _usage_table(ctx: CommandContext, by_model: list[Usage]) -> None:
    """Tokens, cached tokens and cost per model and for the session; a model without a
    known price shows its tokens and says so."""
    table = price_table(dict(ctx.settings.prices))
    rows = [_usage_row(u, price_for(u.model, table)) for u in by_model]
    if len(by_model) > 1:
        total = Usage(
            prompt_tokens=sum(u.prompt_tokens for u in by_model),
            completion_tokens=sum(u.completion_tokens for u in by_model),
            total_tokens=sum(u.total_tokens for u in by_model),
            model="",
            cached_tokens=sum(u.cached_tokens for u in by_model),
            reasoning_tokens=sum(u.reasoning_tokens for u in by_model),
        )
        rows.append(_usage_row(total, None, label="all models"))
        session_bill = bill(by_model, table)
        if session_bill.known:
            rows[-1][-1] = dollars_text(session_bill.dollars)
        elif len(session_bill.unpriced) < len(by_model):
            rows[-1][-1] = dollars_text(session_bill.dollars) + " + unknown"
    columns = ["Model", "Prompt", "Cached", "Completion", "Reasoning", "Total", "Cost"]
    ctx.io.table(f"Tokens used in session '{ctx.session}'", columns, rows)
    unpriced = bill(by_model, table).unpriced
    if unpriced:
        names = ", ".join(unpriced)
        ctx.io.info(
            f"no price known for {names}: tokens only. Set SLOP_PRICES='{unpriced[0]}=INPUT/CACHED/OUTPUT' "
            "(dollars per 1M tokens) to see its cost"
        )
    else:
        ctx.io.info(f"cost at list prices as of {PRICES_AS_OF}, cached input at the cached price")


def _usage_row(u: Usage, price: Price | None, label: str = "") -> list[str]:
    share = f" ({u.cached_tokens / u.prompt_tokens:.0%})" if u.prompt_tokens and u.cached_tokens else ""
    return [
        label or u.model or "?",
        f"{u.prompt_tokens:,}",
        f"{u.cached_tokens:,}{share}",
        f"{u.completion_tokens:,}",
        f"{u.reasoning_tokens:,}",
        f"{u.total_tokens:,}",
        dollars_text(cost(u, price)) if price else "unknown",
    ]


COMMANDS = (
    Command(
        "/model",
        "Show the model, or switch model or provider (saved per session)",
        MODEL_USAGE,
        "Model & Configuration",
        model_cmd,
        complete=complete_model,
    ),
    Command(
        "/models",
        "List the current provider's models",
        MODELS_USAGE,
        "Model & Configuration",
        models_cmd,
        complete=complete_models,
    ),
    Command(
        "/usage",
        "Tokens, cached tokens and cost per model for this session; tool call and skill activation counts",
        "/usage",
        "Model & Configuration",
        usage_cmd,
        aliases=("/stats",),
    ),
)
