"""Run the fake LLM server standalone, to try slop by hand.

    python scripts/run_fakellm.py --port 8765 --script replies.json

The script is a JSON list of replies (see tests/fakellm/replies.py `reply_from_json`):
"text", {"text": ..., "reasoning": ...}, {"tool_calls": [{"name": ..., "args": {...}}]},
{"error": 429}, {"cutoff": "..."}, {"malformed": true}, {"gemini_special": "empty"}.
When the script runs out, every request gets "(fake: no scripted reply)"."""

from __future__ import annotations

import argparse
import json
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fakellm import FakeLLM


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=8765, help="0 picks a free port (default: 8765)")
    parser.add_argument("--script", type=Path, help="JSON file: a list of replies")
    parser.add_argument("--require-key", help="answer 401/403 unless this API key is sent")
    args = parser.parse_args(argv)

    fake = FakeLLM(port=args.port, require_key=args.require_key)
    if args.script:
        items = json.loads(args.script.read_text(encoding="utf-8"))
        if not isinstance(items, list):
            parser.error("the script must be a JSON list of replies")
        fake.load_script(items)
    fake.start()
    print(f"OPENAI_BASE_URL={fake.openai_base_url}", flush=True)
    print(f"GOOGLE_GEMINI_BASE_URL={fake.gemini_base_url}", flush=True)
    print(f"fakellm: {fake.pending} scripted replies; Ctrl-C to stop", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        fake.stop()
        print(f"fakellm: served {len(fake.requests)} requests, {fake.unscripted} unscripted", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
