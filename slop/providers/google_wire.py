"""The Gemini wire format (REST camelCase), spoken by the Gemini API provider (through
the google-genai SDK) and by Code Assist (inside its envelope): the
`GenerateContentRequest` built from a neutral Prompt, the streamed
`GenerateContentResponse` dicts reassembled, the native JSON a tool-call row stores, and
Code Assist's envelope around both (request wrapper, SSE events, `{"response": ...}`).
Thought signatures are kept exactly as the API sent them (standard base64), so a
multi-step tool loop sends them back byte for byte. No SDK import here."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from slop.errors import BadResponse
from slop.parser import (
    function_call,
    gemini_call_id,
    parse_cached,
    sendable_arguments,
    stored_native,
    tool_names_by_call_id,
)
from slop.providers.base import ProviderReply, ReasoningDelta, StreamEvent, TextDelta
from slop.providers.gemini_errors import GoogleHTTPError
from slop.providers.wirepairs import whole_pairs_gemini
from slop.records import HistoryEntry, Message, Prompt, Role, Status, ToolCall, ToolSpec, Usage, Wire
from slop.textsafe import scrub

_NO_THOUGHTS = re.compile(r"gemini-(1\.|2\.0)|gemma|embedding|learnlm", re.IGNORECASE)


# ---- the request ------------------------------------------------------------------------
def wants_thoughts(model: str, strip_reasoning: bool) -> bool:
    """Ask for thought summaries unless reasoning is stripped or the model cannot think."""
    return not strip_reasoning and not (_NO_THOUGHTS.search(model) and "thinking" not in model)


def function_declarations(tools: tuple[ToolSpec, ...] | list[ToolSpec]) -> list[dict[str, Any]]:
    return [
        {"name": t.name, "description": t.description, "parametersJsonSchema": t.parameters or {"type": "object"}}
        for t in tools
    ]


def rest_request(prompt: Prompt, *, include_thoughts: bool) -> dict[str, Any]:
    """A `GenerateContentRequest` (REST camelCase) for the prompt, without the model."""
    body: dict[str, Any] = {"contents": whole_pairs_gemini(gemini_contents(prompt))}
    if prompt.system_text:
        body["systemInstruction"] = {"role": "user", "parts": [{"text": prompt.system_text}]}
    if prompt.tools:
        body["tools"] = [{"functionDeclarations": function_declarations(prompt.tools)}]
    config: dict[str, Any] = {}
    if prompt.output_limit > 0:
        config["maxOutputTokens"] = prompt.output_limit
    if include_thoughts:
        config["thinkingConfig"] = {"includeThoughts": True}
    if config:
        body["generationConfig"] = config
    return body


def gemini_contents(prompt: Prompt) -> list[dict[str, Any]]:
    """Gemini `contents` (REST camelCase dicts) for the prompt; the system text goes
    in `systemInstruction`, which the provider sets from prompt.system_text."""
    names = tool_names_by_call_id(e.message for e in prompt.history)
    contents: list[dict[str, Any]] = []
    for entry in prompt.history:
        role, parts = _gemini_parts(entry, names)
        if not parts:
            continue
        if contents and contents[-1]["role"] == role:
            contents[-1]["parts"].extend(parts)  # Gemini wants user/model turns to alternate
        else:
            contents.append({"role": role, "parts": parts})
    return contents


def _gemini_parts(entry: HistoryEntry, names: dict[str, str]) -> tuple[str, list[dict[str, Any]]]:
    msg = entry.message
    if msg.role == Role.TOOL:
        call_id = msg.tool_call_id or ""
        key = "error" if msg.status in (Status.ERROR, Status.CANCELLED) else "output"
        response = {"id": call_id, "name": names.get(call_id, "tool"), "response": {key: entry.content}}
        return "user", [{"functionResponse": response}]
    if msg.role == Role.ASSISTANT and msg.status == Status.TOOL_CALL:
        return "model", _stored_model_parts(msg)
    if msg.role == Role.SYSTEM:
        return "user", [{"text": entry.content}] if entry.content else []
    role = "model" if msg.role == Role.ASSISTANT else "user"
    return role, [{"text": entry.content}] if entry.content else []


def _stored_model_parts(msg: Message) -> list[dict[str, Any]]:
    """A tool-call row as Gemini parts: a Gemini row's own parts, sent back unchanged
    (thought signatures included) except that every functionCall carries the id its
    result is linked by; a row of another shape is rebuilt from what it says."""
    native = stored_native(msg)
    if native is None:
        return [{"text": msg.content}] if msg.content else []
    kind, data = native
    if kind != Wire.GEMINI:
        parsed = parse_cached(msg)
        parts: list[dict[str, Any]] = [{"text": parsed.text}] if parsed.text else []
        parts += [
            {"functionCall": {"id": c.id, "name": c.name, "args": gemini_args(c.arguments)}} for c in parsed.tool_calls
        ]
        return parts
    out: list[dict[str, Any]] = []
    raw_parts = data.get("parts")
    for i, part in enumerate(raw_parts if isinstance(raw_parts, list) else []):
        if not isinstance(part, dict):
            continue
        signed = "thoughtSignature" in part
        fc = function_call(part)
        if fc is not None:
            part = dict(part)
            part.pop("function_call", None)
            part["functionCall"] = {**fc, "id": gemini_call_id(fc, i)}
        elif part.get("thought") and not signed:
            continue  # unsigned thoughts are not replayed
        elif part.get("text") == "" and not signed:
            continue
        out.append(part)
    return out


def gemini_args(arguments: str) -> dict[str, Any]:
    """A call's JSON argument text as the object Gemini's functionCall.args wants
    (the placeholder {} when it is not a JSON object, as for OpenAI)."""
    value = json.loads(sendable_arguments(arguments or "{}"))
    return value if isinstance(value, dict) else {}


# ---- what a tool-call row stores ---------------------------------------------------------
def gemini_native(parts: list[dict[str, Any]]) -> str:
    """`parts` in Gemini REST camelCase (thought signatures as base64 strings, kept
    exactly as the API sent them)."""
    return json.dumps({"role": "model", "parts": parts}, ensure_ascii=False)


# ---- the reply ----------------------------------------------------------------------------
_FINISH = {"STOP": "stop", "MAX_TOKENS": "length"}
_BLOCKED = ("SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "LANGUAGE")


class GeminiAccumulator:
    """Reassembles streamed GenerateContentResponse dicts (REST camelCase): text,
    thoughts, function calls (each given an id when the API sent none), signatures
    and usage."""

    def __init__(self, model: str, new_id: Callable[[], str] | None = None) -> None:
        self.model = model
        self.parts: list[dict[str, Any]] = []
        self.text = ""
        self.reasoning = ""
        self.calls: list[ToolCall] = []
        self.usage: Usage | None = None
        self.finish_reason: str | None = None
        self.finish_message = ""
        self.block_reason = ""
        self.saw_candidate = False
        self._new_id = new_id or (lambda: "call_" + uuid.uuid4().hex[:16])

    @property
    def started(self) -> bool:
        return bool(self.parts)

    def add(self, response: Any) -> list[StreamEvent]:
        if not isinstance(response, dict):
            raise BadResponse(f"Gemini sent an unreadable chunk ({type(response).__name__}); try again")
        if response.get("modelVersion"):
            self.model = str(response["modelVersion"])
        meta = response.get("usageMetadata")
        if isinstance(meta, dict):
            self._usage(meta)
        feedback = response.get("promptFeedback")
        if isinstance(feedback, dict) and feedback.get("blockReason"):
            self.block_reason = str(feedback["blockReason"])
        candidates = response.get("candidates")
        if not isinstance(candidates, list) or not candidates or not isinstance(candidates[0], dict):
            return []
        self.saw_candidate = True
        candidate = candidates[0]
        content = candidate.get("content")
        parts = content.get("parts") if isinstance(content, dict) else None
        events: list[StreamEvent] = []
        for part in parts if isinstance(parts, list) else []:
            if isinstance(part, dict):
                events += self._add_part(part)
        if candidate.get("finishReason"):
            self.finish_reason = str(candidate["finishReason"])
            self.finish_message = str(candidate.get("finishMessage") or "")
        return events

    def _usage(self, meta: dict[str, Any]) -> None:
        # Gemini counts thinking apart from the candidates, and bills both as output.
        prompt = int(meta.get("promptTokenCount") or 0)
        thoughts = int(meta.get("thoughtsTokenCount") or 0)
        completion = int(meta.get("candidatesTokenCount") or 0) + thoughts
        cached = int(meta.get("cachedContentTokenCount") or 0)
        self.usage = Usage(prompt, completion, prompt + completion, self.model, cached, thoughts)

    def _add_part(self, part: dict[str, Any]) -> list[StreamEvent]:
        fc = part.get("functionCall")
        if isinstance(fc, dict):
            fc = dict(fc)
            fc["id"] = str(fc.get("id") or self._new_id())
            self.parts.append({**part, "functionCall": fc})
            self.calls.append(ToolCall(fc["id"], str(fc.get("name") or ""), json.dumps(fc.get("args") or {})))
            return []
        text = part.get("text")
        if not isinstance(text, str):
            self.parts.append(dict(part))  # other kinds (code, inline data) are kept as sent
            return []
        text = scrub(text)
        part = {**part, "text": text}
        thought = bool(part.get("thought"))
        last = self.parts[-1] if self.parts else None
        mergeable = (
            last is not None
            and isinstance(last.get("text"), str)
            and bool(last.get("thought")) == thought
            and "thoughtSignature" not in last
            and "thoughtSignature" not in part
        )
        if last is not None and mergeable:
            last["text"] += text  # never merge a signed part with another (Gemini's rule)
        else:
            self.parts.append(dict(part))
        if not text:
            return []
        if thought:
            self.reasoning += text
            return [ReasoningDelta(text)]
        self.text += text
        return [TextDelta(text)]

    def check(self) -> None:
        """After a complete stream: a reply slop can use, or a clear BadResponse."""
        partial = self.text
        if not self.saw_candidate:
            if self.block_reason:
                raise BadResponse(f"Gemini blocked the prompt ({self.block_reason}); rephrase the request")
            raise BadResponse("Gemini returned no candidates (an empty reply); try again or rephrase the request")
        reason = self.finish_reason
        if reason is None:
            raise BadResponse("the model's reply was cut off before it finished; try again", partial=partial)
        if reason == "MALFORMED_FUNCTION_CALL":
            detail = f": {self.finish_message[:200]}" if self.finish_message else ""
            raise BadResponse(
                f"Gemini produced a malformed function call (MALFORMED_FUNCTION_CALL){detail}; "
                "try again or ask for one step at a time",
                partial=partial,
            )
        if reason in _BLOCKED:
            raise BadResponse(f"Gemini stopped the reply ({reason}); rephrase the request", partial=partial)
        # MAX_TOKENS and empty replies are not errors here: the orchestrator reports a
        # truncated or empty reply the same way for every provider.

    def reply(self, cancelled: bool) -> ProviderReply:
        calls = () if cancelled else tuple(self.calls)
        if cancelled:
            finish = "cancelled"
        elif self.finish_reason == "MAX_TOKENS":
            finish = "length"  # even with calls: the last one may be cut
        elif calls:
            finish = "tool_calls"
        else:
            finish = _FINISH.get(self.finish_reason or "STOP", (self.finish_reason or "stop").lower())
        return ProviderReply(
            text=self.text,
            reasoning=self.reasoning,
            tool_calls=calls,
            native=gemini_native(self.parts) if calls else "",
            usage=self.usage,
            finish_reason=finish,
            model=self.model,
        )


# ---- Code Assist's envelope ----------------------------------------------------------------------
def code_assist_envelope(prompt: Prompt, model: str, project: str, *, strip_reasoning: bool) -> dict[str, Any]:
    """The Gemini request wrapped for `v1internal:streamGenerateContent`; `user_prompt_id`
    is new for every request."""
    return {
        "model": model,
        "project": project,
        "user_prompt_id": uuid.uuid4().hex,
        "request": rest_request(prompt, include_thoughts=wants_thoughts(model, strip_reasoning)),
    }


def sse_payloads(lines: Iterable[str]) -> Iterator[Any]:
    """JSON payloads of an SSE stream (multi-line `data:` fields joined)."""
    data: list[str] = []
    for line in lines:
        if line.startswith("data:"):
            data.append(line[5:].lstrip())
            continue
        if line.strip() == "" and data:
            yield _load_event("\n".join(data))
            data = []
    if data:
        yield _load_event("\n".join(data))


def _load_event(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        raise BadResponse(f"Gemini Code Assist sent a malformed stream event ({exc}); try again") from exc


def unwrap(payload: Any) -> Any:
    """`{"response": {...}}` -> the GenerateContentResponse inside."""
    if isinstance(payload, dict) and isinstance(payload.get("response"), dict):
        return payload["response"]
    if isinstance(payload, dict) and "error" in payload:  # an error sent inside the 200 stream
        error = payload["error"]
        code = error.get("code") if isinstance(error, dict) else None
        raise GoogleHTTPError(code if isinstance(code, int) and 400 <= code < 600 else 500, payload)
    return payload
