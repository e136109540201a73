"""The file format: text in, a syntax tree with line numbers out; appends out. Pure."""
