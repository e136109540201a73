"""The operations: one function per act a person can take, each taking plain typed inputs and
returning a typed result with `to_dict()`, which every interface (CLI, TUI, web, MCP, LSP)
calls and renders: `comments.comment`; `lifecycle.create`, `advance`, `close`, `reopen`;
`turns.turn`, `run`, `evidence`; `review.review`; `decided.draft`, `plan_apply`, `apply`,
`review_after`, `review_applied`; `export.export`; `memory.memory`; `check.check`; and
`watch`, `probe`. `service` keeps what a long-running server needs besides: the files it may
serve, the providers a client may name, turns in the background."""
