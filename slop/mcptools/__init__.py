"""slop as an MCP client: configured servers' tools join the tool registry.

`config` and `naming` are stdlib only; `connection` is the one module that imports the
`mcp` SDK, and only `manager` imports it, lazily, once a server is to be started."""
