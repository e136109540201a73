"""Tests of the MCP server (the `mcp` package)."""
