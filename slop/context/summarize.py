"""Summary prompts, transcripts, and the extractive fallback summarizer.

The model writes summaries (through the active provider, see
Orchestrator.summarizer). `extractive_summary` is a deterministic stand-in that picks
sentences from the transcript; it is labelled as such in its output and is used by the
benchmarks and tests, where no model runs."""

from __future__ import annotations

import json
import re
from collections import Counter

from slop.context.textsearch import keywords, words
from slop.parser import decode_json, parse
from slop.records import Message, Role, Status

CONTINUATION_HEADER = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The summary below covers the earlier portion of the conversation."
)

COMPACT_INSTRUCTIONS = f"""You compress the earlier part of a coding-agent session so that the work can go on in a fresh context window. You receive a transcript of that part: user requests, assistant answers, tool calls and (shortened) tool results. Write a continuation summary that another instance of the assistant can pick up from without re-reading the transcript.

Start with exactly this line:
{CONTINUATION_HEADER}

Then write two sections.

## Analysis
Walk through the transcript in order, under these numbered headings:
1. Initial Request: what the user first asked for, in their terms.
2. Exploration Phase: what was looked at or tried, and what was learned.
3. Planning / Design Phase: the approach, structure or workflow that was settled on.
4. Decisions / Constraints: explicit choices, rejected options, limits the user set.
5. Implementation Work: what was created, changed or wired up, by file or module.
6. Open Issues / Remaining Work: what is unfinished, failing or undecided.

## Summary
Then regroup the same facts by theme:
1. Primary Request and Intent: the overall goal and its hard requirements.
2. Key Technical Concepts: one line each, as "concept: description".
3. Artifacts and Code Sections: file paths, classes, functions, commands, and what each is for.
4. Open Tasks / Next Steps: one line each, marked ✅ done, 🔄 in progress or ⏳ pending.

Rules:
- Keep: the user's intent, every explicit decision, names of files and other artifacts, error messages that still matter, open issues.
- Leave out: small talk, repetition, dead ends and trial-and-error detail that led nowhere.
- Name things rather than reproduce them: mention files, functions and commands by name; no code dumps.
- Keep uncertainty visible: write "planned", "discussed" or "in progress" where nothing was finished.
- Mention that any file can be read again when its exact content is needed.
- Length: at most {{words}} words. Write only the summary."""  # noqa: E501

SUMMARY_MAX_WORDS = 800
_SUMMARY_MIN_WORDS = 100
_SUMMARY_SHARE = 0.1  # of the budget: the summary has to fit beside what stays verbatim
_TOKENS_PER_WORD = 1.35


def summary_words(budget: int) -> int:
    """How long a continuation summary may be: a tenth of the budget, 100-800 words (800
    when nothing bounds the prompt). A fixed 800 words would take a quarter of a 4k
    budget, room the recent turns kept verbatim need more."""
    if budget <= 0:
        return SUMMARY_MAX_WORDS
    words = int(budget * _SUMMARY_SHARE / _TOKENS_PER_WORD)
    return max(_SUMMARY_MIN_WORDS, min(SUMMARY_MAX_WORDS, words))


def compact_instructions(budget: int) -> str:
    """The compaction prompt, with the summary length the budget allows."""
    return COMPACT_INSTRUCTIONS.format(words=summary_words(budget))


RELEVANCE_INSTRUCTIONS = """You condense parts of a coding-agent session that are only partly relevant to the current request, so they take less room in the context window. You receive the current request and several conversation groups, each headed by its group id (GID). Write one compact note that keeps, for each group: what was asked or done, decisions, names of files, functions and commands, numbers, and results or errors that may still matter. Leave out small talk, repetition and raw output. Start each group's part with "[GID <id>]" so it can be found again. Be brief: at most about {words} words in total. Write only the note."""  # noqa: E501

SUMMARY_TITLE = "## Summary of earlier context"
EXTRACTIVE_LABEL = "[extractive summary: sentences picked from the transcript without a model]"
_STATED_LENGTH = re.compile(r"at most (?:about )?(\d+) words")
_RESULT_CHARS = 1500
_TRANSCRIPT_CHARS = 120_000


def transcript(messages: list[Message], *, result_chars: int = _RESULT_CHARS, limit: int = _TRANSCRIPT_CHARS) -> str:
    """The messages as readable text: tool calls by name and arguments, results shortened."""
    parts: list[str] = []
    for msg in messages:
        head = f"[{msg.role} #{msg.id} GID {msg.group_id or '-'}]"
        if msg.role == Role.ASSISTANT and msg.status == Status.TOOL_CALL:
            parsed = parse(msg)
            body = parsed.text.strip()
            calls = "\n".join(f"-> {c.name}({_short(c.arguments, 400)})" for c in parsed.tool_calls)
            parts.append(f"{head}\n{body}\n{calls}".strip())
        elif msg.role == Role.TOOL:
            parts.append(f"{head} result ({msg.status}):\n{_clip(msg.content, result_chars)}")
        else:
            parts.append(f"{head}\n{msg.content.strip()}")
    text = "\n\n".join(parts)
    if len(text) > limit:  # keep the beginning and the end; the middle matters least
        half = limit // 2
        text = text[:half] + "\n\n[... transcript shortened ...]\n\n" + text[-half:]
    return text


def with_header(summary: str) -> str:
    """The continuation summary as stored: the seed's header line first, exactly once."""
    body = summary.strip()
    if body.startswith(CONTINUATION_HEADER):
        return body
    return f"{CONTINUATION_HEADER}\n\n{body}"


def _clip(text: str, limit: int) -> str:
    text = text.strip()
    if len(text) <= limit:
        return text
    head = limit // 3
    return text[:head] + " [...] " + text[-(limit - head) :]


def _short(arguments: str, limit: int) -> str:
    try:
        value = json.dumps(decode_json(arguments), ensure_ascii=False)
    except (ValueError, TypeError, RecursionError):
        value = arguments
    return value if len(value) <= limit else value[: limit - 3] + "..."


_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_PATH = re.compile(r"\b[\w./-]+\.(?:py|js|ts|tsx|go|rs|c|h|cpp|java|rb|md|json|toml|yaml|yml|txt|cfg|ini|sh)\b")


def extractive_summary(instructions: str, text: str, *, max_words: int = 700) -> str:
    """A deterministic summary without a model: the first request, the sentences that
    share the most keywords with the whole transcript, and the file names mentioned.
    Clearly labelled; used by the benchmarks and tests, never presented as a model's.
    Like a model, it keeps to a length the instructions state ("at most N words")."""
    stated = _STATED_LENGTH.search(instructions)
    if stated:
        max_words = min(max_words, int(stated.group(1)))
    entries = [e for e in re.split(r"\n\n(?=\[)", text) if e.strip()]
    first_user = next((e for e in entries if e.startswith("[user")), entries[0] if entries else "")
    vocabulary = keywords(text)
    freq = Counter(w for w in words(text) if w in vocabulary)
    sentences: list[tuple[float, int, str]] = []
    for i, sentence in enumerate(s.strip() for s in _SENTENCE.split(text)):
        if len(sentence) < 20 or sentence.startswith("["):
            continue
        terms = keywords(sentence)
        if not terms:
            continue
        score = sum(freq[t] for t in terms) / (len(terms) ** 0.5)
        sentences.append((score, i, sentence[:300]))
    budget = max_words - len(first_user.split())
    picked: list[tuple[int, str]] = []
    for _, i, sentence in sorted(sentences, key=lambda x: (-x[0], x[1])):
        n = len(sentence.split())
        if n > budget:
            continue
        picked.append((i, sentence))
        budget -= n
        if budget < 10:
            break
    paths = list(dict.fromkeys(_PATH.findall(text)))[:20]
    lines = [
        EXTRACTIVE_LABEL,
        "## Analysis",
        "1. Initial Request: " + _clip(first_user.split("\n", 1)[-1], 600),
        "## Summary",
        "Key sentences, in order:",
    ]
    lines += [f"- {s}" for _, s in sorted(picked)]
    if paths:
        lines.append("3. Artifacts: " + ", ".join(paths) + " (any file can be read again when needed).")
    return "\n".join(lines)
