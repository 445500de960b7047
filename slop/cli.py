"""Command line: flags -> Settings -> app; batch mode (--prompt) and the REPL.

Exit codes: 0 success; 1 provider or runtime error; 2 bad usage.
Only the standard library is imported at module level: `slop --version` must be instant."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from slop.app import App
    from slop.approval import ApprovalPolicy
    from slop.boot import Boot
    from slop.orchestrator import EventSink
    from slop.settings import Settings
    from slop.ui.terminal_io import TerminalIO

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2
# The names of slop.providers.specs.BUILTIN_SPECS, spelled out so `slop --version` imports
# nothing of slop (tests/providers/test_adding_a_provider.py checks they agree).
BUILTIN_PROVIDERS = ("openai", "gemini", "gemini_gca")


class Root:
    """The composition root, in the two stages start-up needs: `boot` (the ledger and the
    provider, `slop.boot`: enough for the banner and the first prompt) and `build` (every
    other object, wired by `slop.app.build`). Everything slop runs is built through these
    two functions; this class only defers the heavy stage's imports, so `slop --version`
    and the first prompt never pay for them (the REPL calls `build` on its background
    build thread)."""

    def boot(self, settings: Settings) -> Boot:
        from slop.boot import boot

        return boot(settings)

    def build(
        self,
        settings: Settings,
        io: TerminalIO,
        sink: EventSink,
        approver: ApprovalPolicy,
        booted: Boot,
        *,
        notify: Callable[[str], None] | None = None,
    ) -> App:
        from slop.app import build

        return build(settings, io, sink, approver, booted, notify=notify)


ROOT = Root()


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="slop",
        description="A terminal coding agent whose context you can see and steer. "
        "Every message lands in a SQLite ledger.",
        epilog="Environment: OPENAI_API_KEY, OPENAI_BASE_URL, GEMINI_API_KEY/GOOGLE_API_KEY, "
        "GOOGLE_GEMINI_BASE_URL, SLOP_MODEL, SLOP_HOME, SLOP_DB, SLOP_MCP_CONFIG, EDITOR/VISUAL, NO_COLOR. "
        "Config: $SLOP_HOME/config.toml (or ~/.config/slop/config.toml) and .slop/config.toml. "
        "Exit codes: 0 ok, 1 provider/runtime error, 2 bad usage.",
    )
    p.add_argument(
        "session_name",
        nargs="?",
        help="session to open (default: 'default'); 'auth' signs in to Gemini Code Assist; "
        "'config' prints the merged configuration and where each value came from; "
        "'logs' lists the project's recent sessions",
    )
    p.add_argument("--version", action="store_true", help="print the version and exit")
    p.add_argument("--session", help="session to open")
    p.add_argument("--prompt", help="batch mode: run this one input (a slash command too), print the answer, exit")
    p.add_argument("--model", help="model name (default: the session's, else the provider's default)")
    p.add_argument(
        "--provider",
        help=f"force a provider: {', '.join(BUILTIN_PROVIDERS)} or a [providers.NAME] profile of the config",
    )
    p.add_argument("--db", help="ledger path (default: <project root>/.slop/slop.db)")
    p.add_argument("--yes", action="store_true", help="approve every file change and command without asking")
    p.add_argument(
        "--read-only", action="store_true", help="refuse every file change, command and memo save (wins over --yes)"
    )
    p.add_argument("--allow-path", action="append", default=[], metavar="DIR", help="let file tools reach DIR too")
    p.add_argument(
        "--pass-env",
        action="append",
        default=[],
        metavar="NAME",
        help="let commands slop runs see this key variable (provider keys are removed by default)",
    )
    p.add_argument("--max-parallel-tools", type=_positive, default=None, metavar="N", help="tool workers (default 4)")
    p.add_argument("--step-limit", type=_positive, default=None, metavar="N", help="model calls per turn (default 50)")
    p.add_argument("--shell-timeout", type=float, default=None, metavar="S", help="execute_bash timeout (default 120)")
    p.add_argument(
        "--mcp-config", metavar="FILE", help="MCP servers to start: TOML [mcp.servers.NAME] or JSON mcpServers"
    )
    p.add_argument("--strip-reasoning", action="store_true", help="ask routers not to return reasoning text")
    p.add_argument("--output-format", choices=("text", "json", "jsonl"), default="text", help="batch output format")
    p.add_argument("--no-color", action="store_true", help="plain output without colours")
    p.add_argument("--debug", action="store_true", help="show tracebacks")
    return p


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


SUBCOMMANDS = ("auth", "config", "logs")  # first positional words that are not session names


def settings_from(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from slop.config import load_config
    from slop.settings import env_settings, merged_settings, project_root

    session = args.session or (args.session_name if args.session_name not in SUBCOMMANDS else None) or "default"
    flags = {
        "session": (session, ""),
        "prompt": (args.prompt, "--prompt"),
        "model": (args.model, "--model"),
        "provider": (args.provider, "--provider"),
        "db_path": (args.db, "--db"),
        # --read-only wins over --yes: the stricter of two flags is the one the user can rely on
        "approval": ("read-only" if args.read_only else ("yes" if args.yes else None), "--yes/--read-only"),
        "allow_paths": (tuple(args.allow_path) or None, "--allow-path"),
        "pass_env": (tuple(args.pass_env) or None, "--pass-env"),
        "max_parallel_tools": (args.max_parallel_tools, "--max-parallel-tools"),
        "step_limit": (args.step_limit, "--step-limit"),
        "shell_timeout": (args.shell_timeout, "--shell-timeout"),
        "strip_reasoning": (args.strip_reasoning or None, "--strip-reasoning"),
        "output_format": (args.output_format, ""),
        "no_color": (args.no_color or None, "--no-color"),
        "debug": (args.debug or None, "--debug"),
        "mcp_config": (args.mcp_config or None, "--mcp-config"),
    }
    return merged_settings(load_config(project_root()), env_settings(), flags)


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.version:
        from slop import __version__

        print(f"slop {__version__}")
        return EXIT_OK
    from slop.errors import SlopError

    try:
        settings = settings_from(args)
        if settings.mcp_config:  # a bad MCP file is a one-line error now, not after the prompt is up
            from slop.mcptools.config import load_mcp_file

            load_mcp_file(settings.mcp_config)
        if args.session_name == "auth" and not args.session:
            from slop.providers.auth_flow import run_auth

            return run_auth(settings)
        if args.session_name == "config" and not args.session:
            from dataclasses import fields

            from slop.config.show import render_config

            values = {f.name: getattr(settings, f.name) for f in fields(settings)}
            print(render_config(settings.config, values, settings.sources))
            return EXIT_OK
        if args.session_name == "logs" and not args.session:
            from slop.logs import run_logs

            return run_logs(settings)
        if settings.prompt is not None:
            from slop.runbatch import run_batch

            return run_batch(settings)
        from slop.ui.repl import run_repl

        return run_repl(settings, ROOT)
    except SlopError as exc:
        print(f"slop: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_ERROR
