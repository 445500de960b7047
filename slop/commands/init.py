"""/init: a starter AGENTS.md, written by the model from what it learns of the repository.

It is a real turn: the model surveys the project with its tools and writes the file with
`write_file`, so the write shows its diff and goes through the approval policy like any
other, and `/undo --files` takes it back. It asks first, and twice before replacing a file
the user may have written by hand."""

from __future__ import annotations

from slop.commands.base import Command, CommandContext, Proceed, usage_error

INIT_USAGE = "/init"
TARGET = "AGENTS.md"

INIT_PROMPT = f"""Write a starter `{TARGET}` for this repository: the file coding agents (you included) read
before working here. First survey the project with your tools: list the files, read the README, the
build and package files (pyproject.toml, package.json, Makefile, Cargo.toml, go.mod, CI workflows and
the like) and a few representative source and test files. Do not change any file other than
`{TARGET}`, and do not run commands that change anything.

Then create `{TARGET}` at the project root with `write_file`. Keep it short (about 30-80 lines) and
specific to this repository; only write what you found evidence for, and leave out sections you have
nothing concrete for. Sections:
- Project overview: what it is, its main parts and where they live.
- Commands: install, build, run, lint, format, type-check and test, exactly as this repository runs
  them, including how to run a single test.
- Code style and conventions the code actually follows (layout, naming, typing, errors, imports).
- Testing: where tests live, what they use, what a change is expected to come with.
- Anything an agent must not do or must be careful with here.

When it is written, say in two or three sentences what you put in it."""


def init_cmd(ctx: CommandContext, args: str) -> Proceed | None:
    if args.strip():
        raise usage_error(INIT_USAGE, "takes no arguments")
    target = ctx.root / TARGET
    if target.exists():
        if not _replace_confirmed(ctx, target.read_text(errors="replace").count("\n")):
            ctx.io.info(f"{TARGET} left as it is")
            return None
    elif not _asked_or_preapproved(
        ctx,
        f"Let the model survey this repository and write a starter {TARGET}? "
        "(it reads files; the write shows its diff and asks like any other)",
    ):
        ctx.io.info(f"no {TARGET} written")
        return None
    return Proceed(INIT_PROMPT)


def _asked_or_preapproved(ctx: CommandContext, question: str) -> bool:
    """Interactive: ask. Without a screen (--prompt, batch) `--yes` is the user's answer."""
    if ctx.io.screen_height() > 0:
        return ctx.io.confirm(question)
    return ctx.settings.approval == "yes"


def _replace_confirmed(ctx: CommandContext, lines: int) -> bool:
    """A hand-written file is not replaced on one keypress: two questions, and never
    without a screen to ask them on."""
    if ctx.io.screen_height() <= 0:
        ctx.io.warning(f"{TARGET} exists; run /init in the REPL to replace it")
        return False
    return ctx.io.confirm(f"{TARGET} exists ({lines} lines). Survey the repository again and rewrite it?") and (
        ctx.io.confirm(f"Replace your {TARGET}? (the old text stays recoverable with /undo --files)")
    )


COMMANDS = (
    Command(
        "/init",
        f"Survey the repository and write a starter {TARGET} (asks first; the write asks for approval)",
        INIT_USAGE,
        "Agent Capabilities",
        init_cmd,
    ),
)
