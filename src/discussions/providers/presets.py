"""The built-in provider presets (one read-only command line per AI CLI and model), the
built-in mock's entry, and the order in which installed CLIs are tried when none of a
participant's configured providers is installed."""

from __future__ import annotations

from typing import Any

from .base import ProviderSpec

_CLAUDE_TOOLS_OFF = (
    "--disallowedTools Bash,Edit,Write,MultiEdit,NotebookEdit,WebFetch,WebSearch,Task"
)
# `--output-format json`: one object with the answer, token usage and cost (read as
# `claude-json`). No MCP servers but those given on the command line (none), settings from the
# user only (not the project's .claude/ files, which come with a clone), no session saved.
_CLAUDE_ISOLATED = "--strict-mcp-config --setting-sources user --no-session-persistence"
_CLAUDE = f"claude -p --output-format json {_CLAUDE_ISOLATED} {_CLAUDE_TOOLS_OFF}"
_CODEX = "codex exec - --sandbox read-only --json --color never --skip-git-repo-check"
_GEMINI = 'gemini -p "" --approval-mode plan -o text'
# Antigravity CLI (Gemini CLI's successor for individual accounts). With no prompt flag and a
# non-terminal stdin, `agy` runs one headless turn on the plain prompt read from stdin (agy >=
# 1.1.1, which stopped reading stdin when `-p ""` is given). The JSON-lines input some report is
# a different, opt-in mode (`--input-format stream-json`, one NDJSON message per line, with
# `--output-format stream-json`), not what a bare stdin does. `-p` takes the prompt in argv,
# which this preset does not need. `--mode plan` keeps the edit tools gated, `--sandbox`
# confines terminal commands; headless runs cannot grant permissions anyway.
_AGY = "agy --mode plan --sandbox"
# GitHub Copilot CLI: `-p PROMPT` runs one prompt non-interactively; the prompt is its value,
# so `-p` comes last and the prompt is appended as one argument (`prompt_via: argument`). `-s`
# prints only the answer; `--no-ask-user` never waits for input; `--deny-tool` wins over any
# allow rule, so no shell command and no file write runs.
_COPILOT = "copilot -s --no-color --no-ask-user --deny-tool=shell --deny-tool=write -p"
# Cursor's agent: `-p`/`--print` runs headless, the prompt is the positional argument; `--mode
# ask` is its read-only mode (no edits, no commands); `--trust` accepts the workspace without
# the interactive question a headless run cannot answer; plain text output.
_CURSOR = "cursor-agent -p --output-format text --mode ask --trust"
# Qwen Code reads the prompt from stdin when it is not a terminal (headless mode); plan mode
# is its read-only approval mode (no edits, no shell commands).
_QWEN = "qwen --approval-mode plan"


def _preset(name: str, command: str, description: str, **kw: Any) -> ProviderSpec:
    return ProviderSpec(name=name, command=command, description=description, **kw)


PRESETS: dict[str, ProviderSpec] = {
    p.name: p
    for p in [
        _preset(
            "claude",
            _CLAUDE,
            "Claude Code, default model",
            env_remove=["CLAUDECODE"],
            output="claude-json",
        ),
        _preset(
            "claude-sonnet",
            f"{_CLAUDE} --model sonnet",
            "Claude Code, Sonnet",
            env_remove=["CLAUDECODE"],
            output="claude-json",
        ),
        _preset(
            "claude-haiku",
            f"{_CLAUDE} --model haiku",
            "Claude Code, Haiku (fast)",
            env_remove=["CLAUDECODE"],
            output="claude-json",
        ),
        _preset(
            "claude-opus",
            f"{_CLAUDE} --model opus",
            "Claude Code, Opus",
            env_remove=["CLAUDECODE"],
            output="claude-json",
        ),
        _preset("codex", _CODEX, "OpenAI Codex CLI, read-only sandbox", output="codex-jsonl"),
        _preset("agy", _AGY, "Antigravity CLI, plan mode, sandboxed (prompt on stdin)"),
        _preset(
            "gemini", _GEMINI, "Gemini CLI, plan mode (enterprise / API-key users)", nonzero_ok=True
        ),
        _preset(
            "gemini-flash", f"{_GEMINI} -m gemini-2.5-flash", "Gemini CLI, Flash", nonzero_ok=True
        ),
        _preset("gemini-pro", f"{_GEMINI} -m gemini-2.5-pro", "Gemini CLI, Pro", nonzero_ok=True),
        _preset("opencode", "opencode run", "opencode, default model"),
        _preset(
            "opencode-deepseek",
            "opencode run --model deepseek/deepseek-chat",
            "opencode, DeepSeek chat",
        ),
        _preset("qwen", _QWEN, "Qwen Code, plan (read-only) mode (prompt on stdin)"),
        _preset(
            "copilot",
            _COPILOT,
            "GitHub Copilot CLI, no shell or writes (prompt as an argument: other local "
            "users can see it in the process list)",
            prompt_via="argument",
        ),
        _preset(
            "cursor-agent",
            _CURSOR,
            "Cursor agent, ask (read-only) mode (prompt as an argument: other local users "
            "can see it in the process list)",
            prompt_via="argument",
        ),
        _preset("llm", "llm", "Simon Willison's llm, default model"),
        _preset("ollama", "ollama run llama3.2", "ollama, llama3.2 (local)"),
    ]
}
MOCK_SPEC = ProviderSpec(name="mock", command=None, description="Built-in mock (testing only)")

DETECT_ORDER = ("claude", "codex", "agy", "gemini", "opencode", "qwen", "llm", "ollama")
"""Presets tried, in this order, when none of a participant's configured providers is installed
(one per AI CLI family: its default preset)."""
