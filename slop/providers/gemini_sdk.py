"""REST `GenerateContentRequest` dicts <-> google-genai SDK types, and the JSON the SDK
puts on the wire for them. The SDK itself is imported inside the functions (it is slow
to import); this module is imported by the Gemini provider only."""

from __future__ import annotations

import base64
import json
from typing import Any

_PART_KEYS = {
    "text",
    "thought",
    "thoughtSignature",
    "functionCall",
    "functionResponse",
    "inlineData",
    "fileData",
    "executableCode",
    "codeExecutionResult",
}


def to_sdk_content(content: dict[str, Any]) -> Any:
    """A REST Content dict as `types.Content`. Validated from JSON so base64 thought
    signatures become the bytes the SDK wants; a part the SDK rejects is reduced to
    the fields it knows, and as a last resort to text."""
    from google.genai import types

    try:
        return types.Content.model_validate_json(json.dumps(content))
    except ValueError:
        pass
    parts = []
    for part in content.get("parts") or []:
        parts.append(_to_sdk_part(part, types))
    return types.Content(role=content.get("role") or "user", parts=parts)


def _to_sdk_part(part: Any, types: Any) -> Any:
    if isinstance(part, dict):
        known = {k: v for k, v in part.items() if k in _PART_KEYS}
        if isinstance(known.get("functionCall"), dict):
            known["functionCall"] = {k: v for k, v in known["functionCall"].items() if k in ("id", "name", "args")}
        if isinstance(known.get("functionResponse"), dict):
            known["functionResponse"] = {
                k: v for k, v in known["functionResponse"].items() if k in ("id", "name", "response")
            }
        try:
            if known:  # nothing the SDK knows left: an empty Part would be rejected by the API
                return types.Part.model_validate_json(json.dumps(known))
        except ValueError:
            pass
    return types.Part(text=json.dumps(part, ensure_ascii=False) if not isinstance(part, str) else part)


def sdk_to_rest(chunk: Any) -> dict[str, Any]:
    """An SDK GenerateContentResponse as the REST dict, signatures in standard base64
    (what the API sent; pydantic's own dump would use the URL-safe alphabet)."""
    data: dict[str, Any] = chunk.model_dump(mode="json", by_alias=True, exclude_none=True)
    for cand_obj, cand in zip(chunk.candidates or [], data.get("candidates") or [], strict=False):
        content_obj = getattr(cand_obj, "content", None)
        parts = (cand.get("content") or {}).get("parts") or []
        for part_obj, part in zip(getattr(content_obj, "parts", None) or [], parts, strict=False):
            signature = getattr(part_obj, "thought_signature", None)
            if isinstance(signature, bytes):
                part["thoughtSignature"] = base64.b64encode(signature).decode("ascii")
    return data


# ---- what the SDK sends --------------------------------------------------------------------
# google-genai serialises three things differently from the REST body slop builds (both
# forms are accepted by the API): these keys stay snake_case, and thought signatures
# (bytes in SDK types) go out in the URL-safe base64 alphabet.
SDK_SNAKE_KEYS = {"parametersJsonSchema": "parameters_json_schema", "includeThoughts": "include_thoughts"}


def sdk_wire_form(body: dict[str, Any]) -> dict[str, Any]:
    """The JSON google-genai sends for a REST body handed to it through `sdk_request`."""
    return _rewrite(body)  # type: ignore[no-any-return]


def _rewrite(value: Any) -> Any:
    if isinstance(value, list):
        return [_rewrite(v) for v in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key == "thoughtSignature" and isinstance(item, str):
            out[key] = _urlsafe(item)
        else:
            out[SDK_SNAKE_KEYS.get(str(key), str(key))] = _rewrite(item)
    return out


def _urlsafe(signature: str) -> str:
    try:
        raw = base64.b64decode(signature, validate=True)
    except ValueError:
        return signature  # not base64: the SDK would reject it anyway
    return base64.urlsafe_b64encode(raw).decode("ascii")
