"""Prompt assembly as pure functions over records. Imports no store and no SDK."""
