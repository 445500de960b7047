"""What people type from other agents (Claude Code, Codex CLI, aider, llm) and the slop
command that does that job, for "did you mean": matched on meaning, not spelling."""

from __future__ import annotations

MEANINGS: dict[str, tuple[str, ...]] = {
    "/instructions": ("/init", "/skill"),  # AGENTS.md (written by /init), or a skill the model always gets
    "/system": ("/skill",),
    "/reset": ("/clear", "/session"),
    "/new": ("/session", "/clear"),
    "/quit": ("/exit",),
    "/q": ("/exit",),
    "/bye": ("/exit",),
    "/tokens": ("/usage", "/context"),
    "/stats": ("/usage",),
    "/status": ("/context", "/usage"),
    "/history": ("/message",),
    "/log": ("/message", "/context"),
    "/diff": ("/review",),
    "/run": ("/exec",),
    "/shell": ("/exec",),
    "/sh": ("/exec",),
    "/bash": ("/exec",),
    "/!": ("/exec",),
    "/config": ("/context", "/model"),
    "/settings": ("/context", "/model"),
    "/memory": ("/memo",),
    "/remember": ("/memo",),
    "/rewind": ("/undo",),
    "/revert": ("/undo",),
    "/continue": ("/resume",),
    "/sessions": ("/resume", "/session"),
    "/load": ("/resume",),
    "/tools": ("/tool",),
    "/summarize": ("/compact",),
    "/summary": ("/compact",),
}


def meant(name: str, known: list[str]) -> list[str]:
    """Commands that do what `name` does in other tools (only those that exist here)."""
    return [command for command in MEANINGS.get(name.lower(), ()) if command in known]
