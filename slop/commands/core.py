"""/help and /exit."""

from __future__ import annotations

from slop.commands.base import CATEGORIES, Command, CommandContext, Exit, Proceed, Registry


def help_markdown(registry: Registry, *, subcommands: bool = False) -> str:
    """The help page, generated from the registry; docs/commands.md is this page with
    every command's sub-commands (`subcommands=True`)."""
    lines = ["# slop commands", ""]
    for category in CATEGORIES:
        commands = [c for c in registry.commands() if c.category == category]
        if not commands:
            continue
        lines += [f"## {category}", "", "| Command | Usage | What it does |", "|---|---|---|"]
        for c in commands:
            names = ", ".join((c.name, *c.aliases))
            lines.append(f"| `{names}` | `{_cell(c.usage)}` | {_cell(c.help)} |")
        lines.append("")
    lines += [
        "## Keys",
        "",
        "| Key | What it does |",
        "|---|---|",
        "| Enter | send |",
        "| Alt-Enter / Esc Enter / Ctrl-J | new line |",
        "| Esc (while a turn runs) | cancel the turn: the request and running tools stop |",
        "| typing while a turn runs | each line ended with Enter is queued and runs next, in order |",
        "| y / a / n at a question | answer at once (or type the word and Enter); Esc = no; Ctrl-C cancels the turn |",
        "| Ctrl-C | clear the line; cancel a running turn; twice at an empty prompt: exit |",
        "| Ctrl-D | exit |",
        "| Ctrl-R | search input history |",
        "| Tab | complete commands, sub-commands, GIDs, sessions, skills, models |",
        "",
    ]
    if subcommands:
        lines += ["## Sub-commands", ""]
        for command in (c for c in registry.commands() if c.subs):
            lines += [f"### {command.name}", "", *_sub_table(command), ""]
    return "\n".join(lines)


def _sub_table(command: Command) -> list[str]:
    rows = ["| Usage | What it does |", "|---|---|"]
    for sub in command.subs:
        also = f" (also: {', '.join(sub.aliases)})" if sub.aliases else ""
        rows.append(f"| `{_cell(sub.usage(command.name))}` | {_cell(sub.help)}{also} |")
    return rows


def command_help(command: Command, word: str = "") -> str:
    """/help COMMAND [SUB-COMMAND]: the command's line, usage and sub-commands, or one sub-command."""
    sub = command.sub(word) if word else None
    if sub is not None:
        return f"**{sub.usage(command.name)}** — {sub.help}"
    text = f"**{command.name}** — {command.help}\n\nusage: `{command.usage}`"
    return text + ("\n\n" + "\n".join(_sub_table(command)) if command.subs else "")


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def make_help(registry_ref: list[Registry]) -> Command:
    def help_cmd(ctx: CommandContext, args: str) -> Proceed | None:
        registry = registry_ref[0]
        if not args:
            ctx.io.markdown(help_markdown(registry))
            return None
        name, _, word = args.partition(" ")
        command = registry.find(name if name.startswith("/") else "/" + name)
        word = word.strip()
        if command is None:
            ctx.io.error(f"no command {name}; /help lists them all")
        elif word and command.sub(word) is None:
            known = ", ".join(s.name for s in command.subs) or "none"
            ctx.io.error(f"{command.name} has no sub-command {word!r} (its sub-commands: {known})")
        else:
            ctx.io.markdown(command_help(command, word))
        return None

    def complete(ctx: CommandContext, words: list[str]) -> list[str]:
        commands = registry_ref[0].commands()
        if len(words) <= 1:
            return [c.name[1:] for c in commands]
        command = registry_ref[0].find("/" + words[0].removeprefix("/"))
        return [s.name for s in command.subs] if command is not None and len(words) == 2 else []

    return Command(
        "/help", "Show the commands and keys", "/help [COMMAND [SUB-COMMAND]]", "Core", help_cmd, complete=complete
    )


def exit_cmd(ctx: CommandContext, args: str) -> Exit:
    return Exit()


EXIT = Command("/exit", "Leave slop (Ctrl-D works too)", "/exit", "Core", exit_cmd, aliases=("/quit",))
