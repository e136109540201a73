"""The built-in provider presets (one read-only command line per AI CLI and model, and where
the CLI documents one, the command line of its write mode: what leads ``discussions apply``),
the built-in mock's entry, and the order in which installed CLIs are tried when none of a
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

# -- write modes: the lead of `discussions apply` edits files in its working directory (a fresh
# git worktree), runs no shell command where the CLI can keep it from doing so, and prints plain
# text (its output streams to the turn display). Each is what the CLI's own documentation gives.
# Claude Code: `--permission-mode acceptEdits` approves file edits and writes without asking
# (code.claude.com/docs/en/permission-modes: default, acceptEdits, plan, auto, dontAsk,
# bypassPermissions); Bash and the network tools stay disallowed, so the engine runs the tests.
_CLAUDE_WRITE = (
    f"claude -p --output-format text {_CLAUDE_ISOLATED} --permission-mode acceptEdits "
    "--disallowedTools Bash,WebFetch,WebSearch,Task"
)
# Codex: `--sandbox workspace-write` lets `codex exec` write inside its working directory only
# (Codex docs, "Sandbox modes": read-only, workspace-write, danger-full-access).
_CODEX_WRITE = "codex exec - --sandbox workspace-write --color never --skip-git-repo-check"
# Gemini CLI: `--approval-mode auto_edit` approves the edit tools, nothing else (geminicli.com
# docs, configuration: default, auto_edit, plan; yolo only on the command line).
_GEMINI_WRITE = 'gemini -p "" --approval-mode auto_edit -o text'
# Qwen Code: approval mode `auto-edit` approves file edits, shell commands still need approval,
# which a headless run cannot give (qwen-code docs, users/features/approval-mode).
_QWEN_WRITE = "qwen --approval-mode auto-edit"
# opencode: `opencode run --auto` approves what is not explicitly denied (opencode docs,
# permissions, "Auto mode").
_OPENCODE_WRITE = "opencode run --auto"
# Antigravity CLI: no edit-only mode is documented; `--dangerously-skip-permissions` lifts the
# approvals and `--sandbox` keeps its terminal commands confined (Antigravity CLI docs on
# permissions; there is no `--yolo`).
_AGY_WRITE = "agy --sandbox --dangerously-skip-permissions"
# Copilot CLI: `--allow-tool=write` grants file writes without a prompt, `--deny-tool=shell`
# wins over any allow rule (GitHub docs, copilot-cli "Allowing and denying tool use" and the
# programmatic reference).
_COPILOT_WRITE = "copilot -s --no-color --no-ask-user --allow-tool=write --deny-tool=shell -p"
# Cursor agent: print mode has the write tools; `--force` lets them run without the question a
# headless run cannot answer (Cursor CLI parameters; read mode is `--mode ask`).
_CURSOR_WRITE = "cursor-agent -p --output-format text --force --trust"


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
            write_command=_CLAUDE_WRITE,
        ),
        _preset(
            "claude-sonnet",
            f"{_CLAUDE} --model sonnet",
            "Claude Code, Sonnet",
            env_remove=["CLAUDECODE"],
            output="claude-json",
            write_command=f"{_CLAUDE_WRITE} --model sonnet",
        ),
        _preset(
            "claude-haiku",
            f"{_CLAUDE} --model haiku",
            "Claude Code, Haiku (fast)",
            env_remove=["CLAUDECODE"],
            output="claude-json",
            write_command=f"{_CLAUDE_WRITE} --model haiku",
        ),
        _preset(
            "claude-opus",
            f"{_CLAUDE} --model opus",
            "Claude Code, Opus",
            env_remove=["CLAUDECODE"],
            output="claude-json",
            write_command=f"{_CLAUDE_WRITE} --model opus",
        ),
        _preset(
            "codex",
            _CODEX,
            "OpenAI Codex CLI, read-only sandbox",
            output="codex-jsonl",
            write_command=_CODEX_WRITE,
        ),
        _preset(
            "agy",
            _AGY,
            "Antigravity CLI, plan mode, sandboxed (prompt on stdin)",
            write_command=_AGY_WRITE,
        ),
        _preset(
            "gemini",
            _GEMINI,
            "Gemini CLI, plan mode (enterprise / API-key users)",
            nonzero_ok=True,
            write_command=_GEMINI_WRITE,
        ),
        _preset(
            "gemini-flash",
            f"{_GEMINI} -m gemini-2.5-flash",
            "Gemini CLI, Flash",
            nonzero_ok=True,
            write_command=f"{_GEMINI_WRITE} -m gemini-2.5-flash",
        ),
        _preset(
            "gemini-pro",
            f"{_GEMINI} -m gemini-2.5-pro",
            "Gemini CLI, Pro",
            nonzero_ok=True,
            write_command=f"{_GEMINI_WRITE} -m gemini-2.5-pro",
        ),
        _preset(
            "opencode", "opencode run", "opencode, default model", write_command=_OPENCODE_WRITE
        ),
        _preset(
            "opencode-deepseek",
            "opencode run --model deepseek/deepseek-chat",
            "opencode, DeepSeek chat",
            write_command=f"{_OPENCODE_WRITE} --model deepseek/deepseek-chat",
        ),
        _preset(
            "qwen",
            _QWEN,
            "Qwen Code, plan (read-only) mode (prompt on stdin)",
            write_command=_QWEN_WRITE,
        ),
        _preset(
            "copilot",
            _COPILOT,
            "GitHub Copilot CLI, no shell or writes (prompt as an argument: other local "
            "users can see it in the process list)",
            prompt_via="argument",
            write_command=_COPILOT_WRITE,
        ),
        _preset(
            "cursor-agent",
            _CURSOR,
            "Cursor agent, ask (read-only) mode (prompt as an argument: other local users "
            "can see it in the process list)",
            prompt_via="argument",
            write_command=_CURSOR_WRITE,
        ),
        # llm and ollama answer text and cannot edit files: no write mode, so they never lead.
        _preset("llm", "llm", "Simon Willison's llm, default model"),
        _preset("ollama", "ollama run llama3.2", "ollama, llama3.2 (local)"),
    ]
}
MOCK_SPEC = ProviderSpec(name="mock", command=None, description="Built-in mock (testing only)")

DETECT_ORDER = ("claude", "codex", "agy", "gemini", "opencode", "qwen", "llm", "ollama")
"""Presets tried, in this order, when none of a participant's configured providers is installed
(one per AI CLI family: its default preset)."""
