#!/usr/bin/env python3
"""MCP figures: time from build() to a stdio server's tools being registered, and the
round trip of one tool call through McpManager (worker thread -> loop thread -> server).

    python scripts/bench_mcp.py [--calls 50] [--runs 3] [--json]

Uses the notes server of the test suite (tests/mcpclient/notes_server.py); no model."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from slop.app import build  # noqa: E402
from slop.approval import ApprovalPolicy  # noqa: E402
from slop.settings import Settings  # noqa: E402
from tests.recording import Recorder  # noqa: E402

SERVER = ROOT / "tests" / "mcpclient" / "notes_server.py"


def one_run(calls: int) -> tuple[float, float, list[float]]:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        config = base / "mcp.json"
        server = {"command": [sys.executable, str(SERVER)], "env": {"NOTES_FILE": str(base / "n.txt")}}
        config.write_text(json.dumps({"mcpServers": {"notes": server}}))
        settings = Settings(
            db_path=str(base / "l.db"), home=str(base / "h"), project_root=str(base), mcp_config=str(config)
        )
        rec = Recorder()
        start = time.perf_counter()
        app = build(settings, rec, rec, ApprovalPolicy("yes"))
        built = time.perf_counter() - start
        pending = app.mcp.wait_started(120, threading.Event())
        ready = time.perf_counter() - start
        if pending:
            raise SystemExit(f"server did not start: {rec.events}")
        times = []
        for _ in range(calls):
            t = time.perf_counter()
            app.mcp.call("notes", "list_notes", {}, threading.Event())
            times.append(time.perf_counter() - t)
        app.close()
        return built, ready, times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    builds, readies, calls = [], [], []
    for _ in range(args.runs):
        built, ready, times = one_run(args.calls)
        builds.append(built)
        readies.append(ready)
        calls += times
    result = {
        "build_returns_s": round(statistics.median(builds), 3),
        "tools_registered_s": round(statistics.median(readies), 3),
        "call_median_ms": round(statistics.median(calls) * 1000, 2),
        "call_p90_ms": round(sorted(calls)[int(len(calls) * 0.9)] * 1000, 2),
    }
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:22} {value}")


if __name__ == "__main__":
    main()
