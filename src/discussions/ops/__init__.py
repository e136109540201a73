"""The operations: one function per act a person can take (create, comment, check, export,
watch, memory, probe), which every interface (CLI, TUI, web, MCP, LSP) calls."""
