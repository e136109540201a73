"""The language server (`discussions lsp`): diagnostics, completion, hover, symbols and commands
for discussion files in any editor that speaks the Language Server Protocol."""
