"""The `tools` and `skills` tables: what the model can use, with call and activation counts."""

from __future__ import annotations

import json

from slop.records import Skill, ToolSpec
from slop.store.db import Database

DEFAULT_SKILLS: tuple[tuple[str, str, str], ...] = (
    (
        "planner",
        "Plans before anyone writes code",
        "You are acting as a planner. Before proposing anything, check the memos and the scratchpad for "
        "earlier decisions. Write the plan as a checklist in the scratchpad with manage_scratchpad: small, "
        "verifiable steps, each naming the files it touches and how it will be tested. Do not edit files "
        "or run mutating commands while planning; ask the user to confirm or change the plan, and revise it "
        "until they approve it.",
    ),
    (
        "code_reviewer",
        "Reviews changes; does not implement them",
        "You are acting as a code reviewer. Read the diff (use `git add --intent-to-add` for new files "
        "before `git diff` so they show), then the code around it. Report findings ordered by severity: "
        "correctness, security, error handling, tests, then style. Quote file and line for each finding and "
        "suggest the smallest fix. Do not change files unless the user explicitly asks you to. End with the "
        "list of files you reviewed.",
    ),
    (
        "dba",
        "Careful steward of SQLite databases",
        "You are acting as a database engineer. Look at the schema (describe_db, sqlite_master) before "
        "writing a query. Use parameterised SQL, explicit transactions for multi-step changes, and indices "
        "that match the queries you run; check plans with EXPLAIN QUERY PLAN. Explain every schema change, "
        "its migration and how to roll it back before applying it.",
    ),
    (
        "python_expert",
        "Idiomatic, typed, tested Python",
        "You are acting as a senior Python engineer. Write idiomatic Python 3.10+ with type hints, dataclasses "
        "for records, small functions and clear names; prefer the standard library; handle errors with "
        "specific exceptions and messages that say what to do. Run the tests (pytest) and the linter (ruff) "
        "after every change and fix what they report before you say you are done.",
    ),
)


class Catalog:
    def __init__(self, db: Database) -> None:
        self._db = db

    # ---- skills --------------------------------------------------------------------
    def install_default_skills(self) -> None:
        """Put back any missing default skill (user edits to existing ones are kept).
        Checked with a read first so an ordinary start-up writes nothing."""
        names = {r[0] for r in self._db.query("SELECT name FROM skills")}
        if all(name in names for name, _, _ in DEFAULT_SKILLS):
            return
        with self._db.transaction():
            self._db.executemany(
                "INSERT OR IGNORE INTO skills(name, description, system_prompt_patch) VALUES (?, ?, ?)",
                list(DEFAULT_SKILLS),
            )

    def skills(self) -> list[Skill]:
        return [_to_skill(r) for r in self._db.query("SELECT * FROM skills ORDER BY id")]

    def skill(self, name_or_id: str) -> Skill | None:
        if name_or_id.isascii() and name_or_id.isdigit():
            if len(name_or_id) > 18:  # past SQLite's 64-bit integers: no such id
                return None
            row = self._db.row("SELECT * FROM skills WHERE id=?", (int(name_or_id),))
        else:
            row = self._db.row("SELECT * FROM skills WHERE name=?", (name_or_id,))
        return None if row is None else _to_skill(row)

    def save_skill(self, name: str, description: str, patch: str) -> None:
        with self._db.transaction():
            self._db.execute(
                "INSERT INTO skills(name, description, system_prompt_patch) VALUES (?, ?, ?)"
                " ON CONFLICT(name) DO UPDATE SET description=excluded.description,"
                " system_prompt_patch=excluded.system_prompt_patch",
                (name, description, patch),
            )

    def rename_skill(self, skill_id: int, new_name: str) -> None:
        """Rename in place: the id and activation count stay."""
        with self._db.transaction():
            self._db.execute("UPDATE skills SET name=? WHERE id=?", (new_name, skill_id))

    def delete_skill(self, name: str) -> bool:
        with self._db.transaction():
            return self._db.execute("DELETE FROM skills WHERE name=?", (name,)).rowcount > 0

    def count_activation(self, name: str) -> None:
        with self._db.transaction():
            self._db.execute("UPDATE skills SET activation_count = activation_count + 1 WHERE name=?", (name,))

    # ---- tools ---------------------------------------------------------------------
    def register_tools(self, specs: list[ToolSpec]) -> None:
        with self._db.transaction():
            for spec in specs:
                self._db.execute(
                    "INSERT INTO tools(name, description, json_schema) VALUES (?, ?, ?)"
                    " ON CONFLICT(name) DO UPDATE SET description=excluded.description,"
                    " json_schema=excluded.json_schema",
                    (spec.name, spec.description, json.dumps(spec.parameters)),
                )

    def count_tool_call(self, name: str) -> None:
        with self._db.transaction():
            self._db.execute("UPDATE tools SET call_count = call_count + 1 WHERE name=?", (name,))

    def tool_counts(self) -> list[tuple[str, int]]:
        rows = self._db.query("SELECT name, call_count FROM tools WHERE call_count > 0 ORDER BY call_count DESC, name")
        return [(r[0], r[1]) for r in rows]

    def set_tool_enabled(self, name: str, enabled: bool) -> bool:
        """Enable or disable a registered tool; False when there is no such tool."""
        with self._db.transaction():
            cur = self._db.execute("UPDATE tools SET is_enabled=? WHERE name=?", (1 if enabled else 0, name))
            return cur.rowcount > 0

    def disabled_tools(self) -> set[str]:
        return {r[0] for r in self._db.query("SELECT name FROM tools WHERE is_enabled = 0")}


def _to_skill(row: object) -> Skill:
    return Skill(
        id=int(row["id"]),  # type: ignore[index]
        name=row["name"],  # type: ignore[index]
        description=row["description"] or "",  # type: ignore[index]
        patch=row["system_prompt_patch"] or "",  # type: ignore[index]
        activation_count=int(row["activation_count"] or 0),  # type: ignore[index]
    )
