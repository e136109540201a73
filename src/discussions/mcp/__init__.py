"""The MCP server for AI coding agents (stdio)."""
