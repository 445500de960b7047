"""/edit, /review, /feedback and /exec: write or annotate in $EDITOR, run a shell command.

/edit, /review and /feedback end with a Proceed: the text goes to the model as a user
message. /exec is for the user only and never reaches the ledger."""

from __future__ import annotations

import shutil
import signal
import subprocess
import threading
from pathlib import Path

from slop.commands.base import Command, CommandContext, Proceed, usage_error
from slop.commands.helpers import fence, plural, review_comments, strip_header
from slop.errors import CommandError
from slop.parser import parse
from slop.records import Role
from slop.tools.childenv import child_environment
from slop.tools.gitutil import in_work_tree
from slop.tools.proc import ProcOutcome, run_process
from slop.tools.sinks import HeadTailSink

GIT_TIMEOUT = 60.0
ADD_BATCH = 200  # untracked files per `git add -N` call
EXEC_OUTPUT_LIMIT = 2_000_000  # bytes kept from /exec output (head and tail)
REVIEW_USAGE = "/review [N|REF]   (N: the last N commits, REF: any git revision or range)"
EXEC_USAGE = "/exec COMMAND"

REVIEW_HEADER = """\
# slop review. Write your comments on new lines starting with R: below the lines they
# are about, for example:
#   R: this loop misses the empty list
# Save and quit to send the diff with your comments to the model; without any R: line
# nothing is sent. These # lines are removed.
"""

FEEDBACK_HEADER = """\
# slop feedback on the last reply. Its lines are numbered. Write your comments on new
# lines starting with R: below the lines they are about, for example:
#   R: line 3 is wrong, the option is called --dry-run
# Save and quit to send; without any R: line nothing is sent. These # lines are removed.
"""


# ---- /edit ---------------------------------------------------------------------------


def edit_cmd(ctx: CommandContext, args: str) -> Proceed | None:
    if args:
        raise usage_error("/edit", "/edit takes no arguments: it opens your last input in $EDITOR")
    before = ctx.conversation.last_input or ctx.store.messages.last_user_text(ctx.session)
    edited = ctx.io.edit(before, ".md")
    if edited is None:
        return None
    text = edited.strip()
    if not text:
        ctx.io.info("empty text; nothing sent")
        return None
    if text == before.strip() and not ctx.io.confirm("The text is unchanged. Send it again?"):
        ctx.io.info("nothing sent")
        return None
    return Proceed(text)


# ---- /review -------------------------------------------------------------------------


def _git(ctx: CommandContext, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    try:
        done = subprocess.run(
            ["git", "-c", "core.quotepath=off", *args],
            cwd=ctx.root,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=GIT_TIMEOUT,
            stdin=subprocess.DEVNULL,
            env=child_environment(),
        )
    except FileNotFoundError as exc:
        raise CommandError("git is not installed (or not on PATH)") from exc
    except subprocess.TimeoutExpired as exc:
        raise CommandError(f"git {args[0]} did not finish within {GIT_TIMEOUT:g} s") from exc
    if check and done.returncode != 0:
        detail = next((line for line in done.stderr.splitlines() if line.strip()), f"exit code {done.returncode}")
        raise CommandError(f"git {' '.join(args[:2])} failed: {detail}")
    return done


def _require_git(ctx: CommandContext, command: str) -> None:
    if shutil.which("git") is None:
        raise CommandError(f"{command} needs git, which is not installed (or not on PATH)")
    if not in_work_tree(ctx.root):
        raise CommandError(f"{command} works inside a git repository; {ctx.root} is not in one (git init makes one)")


def _working_diff(ctx: CommandContext) -> tuple[str, str]:
    """Uncommitted changes, new files included (marked intent-to-add first)."""
    untracked = [f for f in _git(ctx, "ls-files", "--others", "--exclude-standard", "-z").stdout.split("\0") if f]
    if untracked:
        for start in range(0, len(untracked), ADD_BATCH):  # keep each command line short
            _git(ctx, "add", "--intent-to-add", "--", *untracked[start : start + ADD_BATCH])
        ctx.io.info(f"marked {plural(len(untracked), 'untracked file')} intent-to-add (git add -N) so they show")
    if _git(ctx, "rev-parse", "--verify", "--quiet", "HEAD", check=False).returncode == 0:
        return "git diff HEAD", _git(ctx, "diff", "--no-color", "--no-ext-diff", "HEAD").stdout
    # No commit yet: what is staged plus what is not.
    staged = _git(ctx, "diff", "--no-color", "--no-ext-diff", "--cached").stdout
    return "git diff --cached; git diff", staged + _git(ctx, "diff", "--no-color", "--no-ext-diff").stdout


def review_cmd(ctx: CommandContext, args: str) -> Proceed | None:
    _require_git(ctx, "/review")
    ref = args.strip()
    if not ref:
        label, diff = _working_diff(ctx)
    else:
        if ref.startswith("-") or any(c.isspace() for c in ref):
            raise usage_error(REVIEW_USAGE, f"{ref!r} is not a revision")
        rev = f"HEAD~{ref}" if ref.isdigit() else ref
        label = f"git diff {rev}"
        diff = _git(ctx, "diff", "--no-color", "--no-ext-diff", rev, "--").stdout
    if not diff.strip():
        ctx.io.info("no changes to review")
        return None
    edited = ctx.io.edit(REVIEW_HEADER + "\n" + diff, ".diff")
    if edited is None:
        return None
    body = strip_header(edited, REVIEW_HEADER)
    comments = review_comments(body)
    if not comments:
        ctx.io.info("no R: comments, nothing sent")
        return None
    return Proceed(
        f"I reviewed the changes (`{label}`) and wrote {plural(len(comments), 'comment')} into the diff below: "
        "the lines starting with `R:`, each about the lines above it.\n\n"
        f"{fence(body, 'diff')}\n\n"
        "Please address every R: comment by changing the code, then tell me briefly what you changed for each. "
        "Do not commit anything."
    )


# ---- /feedback -----------------------------------------------------------------------


def _last_reply(ctx: CommandContext) -> tuple[str, str]:
    """(text, group id) of the last assistant message with text in this session."""
    messages = ctx.store.messages.recent(ctx.session, 200)
    if not messages:
        raise CommandError(f"no conversation in session '{ctx.session}' yet")
    for msg in reversed(messages):
        if msg.role == Role.ASSISTANT:
            text = parse(msg).text.strip()
            if text:
                return text, msg.group_id or "-"
    raise CommandError("no reply of the model with text to give feedback on")


def number_lines(text: str) -> str:
    lines = text.splitlines()
    width = len(str(len(lines)))
    return "\n".join(f"{i:>{width}}: {line}" for i, line in enumerate(lines, 1))


def feedback_cmd(ctx: CommandContext, args: str) -> Proceed | None:
    if args:
        raise usage_error("/feedback", "/feedback takes no arguments: it opens the last reply in $EDITOR")
    text, gid = _last_reply(ctx)
    edited = ctx.io.edit(FEEDBACK_HEADER + "\n" + number_lines(text) + "\n", ".md")
    if edited is None:
        return None
    body = strip_header(edited, FEEDBACK_HEADER)
    comments = review_comments(body)
    if not comments:
        ctx.io.info("no R: comments, nothing sent")
        return None
    return Proceed(
        f"Feedback on your last reply (group {gid}). Its lines are numbered; my "
        f"{plural(len(comments), 'comment')} are the lines starting with `R:`, each about the lines above it.\n\n"
        f"{fence(body)}\n\n"
        "Please address every R: comment."
    )


# ---- /exec ---------------------------------------------------------------------------


def _shell() -> list[str]:
    bash = shutil.which("bash")
    return [bash, "-c"] if bash else ["/bin/sh", "-c"]


def run_user_command(
    command: str, cwd: Path, timeout: float, cancel: threading.Event | None = None
) -> tuple[str, int | None, str]:
    """Run `command` in its own process group; (output, exit code, problem).

    `cancel` (Esc in the terminal), Ctrl-C (KeyboardInterrupt) and the timeout stop the
    command's whole process group."""
    sink = HeadTailSink(EXEC_OUTPUT_LIMIT)  # one sink: stdout and stderr interleave as they come
    stop = cancel if cancel is not None else threading.Event()
    outcomes: list[ProcOutcome] = []
    failures: list[OSError] = []

    def work() -> None:
        try:
            outcomes.append(
                run_process([*_shell(), command], cwd=cwd, cancel=stop, timeout=timeout, stdout=sink, stderr=sink)
            )
        except OSError as exc:
            failures.append(exc)

    worker = threading.Thread(target=work, name="slop-exec", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.1)
    except KeyboardInterrupt:
        stop.set()
        worker.join()
    if failures or not outcomes:
        return "", None, f"could not start the command: {failures[0] if failures else 'unknown error'}"
    outcome = outcomes[0]
    problem = ""
    if outcome.timed_out:
        problem = f"timed out after {timeout:g} s; its process group was killed"
    elif outcome.cancelled:
        problem = "interrupted; its process group was killed"
    return sink.text(), outcome.returncode, problem


def _exit_text(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def exec_cmd(ctx: CommandContext, args: str) -> Proceed | None:
    command = args.strip()
    if not command:
        raise usage_error(EXEC_USAGE, "which command?")
    output, code, problem = run_user_command(command, ctx.root, ctx.settings.shell_timeout, ctx.cancel)
    show_exec_result(ctx, command, output, code, problem)
    return None


def show_exec_result(ctx: CommandContext, command: str, output: str, code: int | None, problem: str) -> None:
    if output.strip():
        ctx.io.view(output.rstrip("\n"), ".txt")
    if problem:
        ctx.io.error(f"{command}: {problem}")
    elif code == 0:
        ctx.io.success("exit code 0")
    else:
        ctx.io.warning(_exit_text(code))


COMMANDS = (
    Command("/edit", "Open your last input in $EDITOR; what you save is sent to the model", "/edit", "Core", edit_cmd),
    Command(
        "/exec",
        "Run a shell command in the project root for yourself (not sent to the model)",
        EXEC_USAGE,
        "Core",
        exec_cmd,
    ),
    Command(
        "/review",
        "Review the uncommitted diff (new files too) or a revision in $EDITOR; R: comments go to the model",
        REVIEW_USAGE,
        "Context & History",
        review_cmd,
    ),
    Command(
        "/feedback",
        "Comment the last reply line by line in $EDITOR; R: comments go to the model",
        "/feedback",
        "Context & History",
        feedback_cmd,
    ),
)
