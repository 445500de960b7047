"""`!command` and `!!command` typed at the prompt (the shell escape of aider, Claude Code
and Gemini CLI).

`!cmd` runs like /exec: shown to the user, never sent. `!!cmd` runs the same way and keeps
its output for the next message sent to the model, where it goes in front of the user's
text (and so is stored with that message). Both use /exec's process group, timeout and
Ctrl-C handling."""

from __future__ import annotations

from slop.commands.base import CommandContext
from slop.commands.conversation import ShellOutput
from slop.commands.review import exec_cmd, run_user_command, show_exec_result
from slop.errors import CommandError

BANG_USAGE = "!COMMAND runs it for you; !!COMMAND also adds its output to your next message"


def is_bang(text: str) -> bool:
    return text.startswith("!")


def run_bang(ctx: CommandContext, text: str) -> None:
    """Handle one `!`/`!!` line; raises CommandError for an empty command."""
    attach = text.startswith("!!")
    command = text[2:].strip() if attach else text[1:].strip()
    if not command:
        raise CommandError(f"which command? {BANG_USAGE}")
    if not attach:
        exec_cmd(ctx, command)
        return
    output, code, problem = run_user_command(command, ctx.root, ctx.settings.shell_timeout, ctx.cancel)
    show_exec_result(ctx, command, output, code, problem)
    waiting = ctx.conversation.waiting
    waiting.append(ShellOutput(command, output, code, problem))
    count = len(waiting)
    ctx.io.info(
        f"the output of `{command}` will be added to your next message"
        + (f" ({count} outputs waiting)" if count > 1 else "")
    )


def take_pending(ctx: CommandContext) -> list[ShellOutput]:
    """The waiting `!!` outputs, removed from the context (give them back with restore_pending)."""
    taken, ctx.conversation.waiting = ctx.conversation.waiting, []
    return taken


def restore_pending(ctx: CommandContext, outputs: list[ShellOutput]) -> None:
    """A turn that stored nothing keeps the outputs for the next message."""
    if outputs:
        ctx.conversation.waiting[:0] = outputs


def with_outputs(outputs: list[ShellOutput], text: str) -> str:
    """`text` with the `!!` outputs in front of it, in the order they ran."""
    return "\n\n".join([*(o.for_model() for o in outputs), text])
