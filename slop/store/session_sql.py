"""SQL shared by the ledger modules that may create a session row."""

# context_size NULL = "never set": the configured default window applies until /context window N
ENSURE_SESSION = "INSERT OR IGNORE INTO sessions(id, name, context_size) VALUES (?, ?, NULL)"
