"""LLM provider adapters. Nothing here knows the store, the tools or the REPL."""
