"""The built-in provider presets (one read-only command line per AI CLI and model, and where
the CLI documents one, the command line of its write mode: what leads ``discussions apply``),
the built-in mock's entry, and the order in which installed CLIs are tried when none of a
participant's configured providers is installed."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from .base import ProviderSpec

# Claude Code: an allow list. `--tools` names "the list of available tools from the built-in
# set" (`claude --help`), so the model is offered exactly these; a deny list left every tool it
# did not name open (EnterWorktree runs `git worktree add` in the user's repository; CronCreate,
# Workflow, Skill, ... and whatever a later version adds). Checked against the real binary by
# tests/realcli/test_claude.py.
_CLAUDE_READ_TOOLS = "--tools Read,Glob,Grep"
# `--output-format json`: one object with the answer, token usage and cost (read as
# `claude-json`). No MCP servers but those given on the command line (none), settings from the
# user only (not the project's .claude/ files, which come with a clone), no session saved.
# `--name`: the session has a name, so `-p` makes no hidden call to title it (that call resent
# the prompt: the whole discussion).
_CLAUDE_ISOLATED = (
    "--strict-mcp-config --setting-sources user --no-session-persistence --name discussions"
)
_CLAUDE = f"claude -p --output-format json {_CLAUDE_ISOLATED} {_CLAUDE_READ_TOOLS}"
# CLAUDE_CODE_MAX_RETRIES: Claude Code retries a failed API request 10 times by default with a
# growing back-off (code.claude.com/docs/en/env-vars; /docs/en/errors, "automatic retries"),
# past any turn's timeout: a server error ended as "timed out". Two retries still ride out a
# blip, and the server's reason reaches the user in seconds.
_CLAUDE_ENV = {"CLAUDE_CODE_MAX_RETRIES": "2"}
# Codex: `--ephemeral` "Run without persisting session files to disk" (`codex exec --help`):
# without it every call left the whole prompt in ~/.codex (sessions/, history databases).
# `-c project_doc_max_bytes=0` reads no AGENTS.md (the repository's instructions to the model;
# `-c` overrides win over every config file), as claude's `--setting-sources user` and
# opencode's presets keep theirs out. The repository's .codex/ is loaded only in a project you
# trusted in codex, and then no override empties its `mcp_servers` (docs/providers.md).
_CODEX_ISOLATED = "--ephemeral -c project_doc_max_bytes=0"
_CODEX = (
    f"codex exec - --sandbox read-only --json --color never --skip-git-repo-check {_CODEX_ISOLATED}"
)
# Gemini CLI: plan mode is its read-only mode, narrowed further by a policy file shipped with
# this package (policies/gemini-read.toml: read tools only, so plan mode's own plan-file writes
# under ~/.gemini/tmp, web search and subagents are denied too). `--skip-trust` trusts the
# folder for this run only: without it 0.61 exits 55 in any folder not trusted interactively
# (every apply worktree), and unlike GEMINI_CLI_TRUST_WORKSPACE=true it takes effect after the
# settings are loaded, so the folder's .gemini/settings.json (MCP servers, hooks) and
# .gemini/.env stay out (tests/realcli/test_gemini.py). `-o json` gives the last turn's text
# and the token counts (read as `gemini-json`), and on failure the API's error.
_GEMINI_POLICIES = Path(__file__).with_name("policies")
_GEMINI_READ_POLICY = shlex.quote(str(_GEMINI_POLICIES / "gemini-read.toml"))
_GEMINI = f'gemini -p "" --skip-trust --approval-mode plan --policy {_GEMINI_READ_POLICY} -o json'
# Antigravity CLI (Gemini CLI's successor for individual accounts). With no prompt flag and a
# non-terminal stdin, `agy` runs one headless turn on the plain prompt read from stdin (agy >=
# 1.1.1, which stopped reading stdin when `-p ""` is given). The JSON-lines input some report is
# a different, opt-in mode (`--input-format stream-json`, one NDJSON message per line, with
# `--output-format stream-json`), not what a bare stdin does. `-p` takes the prompt in argv,
# which this preset does not need. `--mode plan` keeps the edit tools gated, `--sandbox`
# confines terminal commands; headless runs cannot grant permissions anyway.
_AGY = "agy --mode plan --sandbox"
# GitHub Copilot CLI: `-p PROMPT` runs one prompt non-interactively; the prompt is its value,
# so `-p` comes last and the prompt is appended as one argument (`prompt_via: argument`).
# `--no-ask-user` never waits for input; `--available-tools` offers the model only the tools
# named (`copilot --help` 1.0.102: "Only these tools will be available to the model"): reading
# ones, so no shell, edit, subagent, SQL or skill tool is there to call; `--deny-tool` still
# wins over any allow rule. `--output-format json` prints one event a line: the last
# `assistant.message` is the answer (narration before a tool call is a message of its own;
# read as `copilot-json`), `session.error` says why a run failed. `--no-auto-update` runs the
# installed version, never one it downloaded.
_COPILOT_BASE = "copilot -s --no-color --no-ask-user --no-auto-update"
_COPILOT = (
    f"{_COPILOT_BASE} --output-format json --available-tools=view,grep,glob "
    "--deny-tool=shell --deny-tool=write -p"
)
# Cursor's agent: `-p`/`--print` runs headless, the prompt is the positional argument; `--mode
# ask` is its read-only mode (no edits, no commands); `--trust` accepts the workspace without
# the interactive question a headless run cannot answer; plain text output.
_CURSOR = "cursor-agent -p --output-format text --mode ask --trust"
# Qwen Code reads the prompt from stdin when it is not a terminal (headless mode); plan mode
# is its read-only approval mode (no edits, no shell commands). `--bare` ("skip implicit startup
# auto-discovery and only honor explicitly provided CLI inputs", `qwen --help` 0.15) keeps the
# repository's .qwen/settings.json MCP servers from starting and stops the hidden "managed
# memory" call that resends the discussion; `--chat-recording false` saves no chat in HOME;
# `-o json` ends with a `result` event holding the answer and its tokens (read as `qwen-json`).
_QWEN = "qwen --approval-mode plan --bare --chat-recording false -o json"

# -- write modes: the lead of `discussions apply` edits files in its working directory (a fresh
# git worktree) and prints plain text (its output streams to the turn display). A preset has one
# only where the CLI documents a mode that approves edits without also approving arbitrary shell
# commands or web fetches, and that mode can be written as a command line and the variables
# set for it (`write_env`; opencode's below). A CLI that reads the repository's own agent
# configuration (cursor's .cursor/cli.json permissions, for one; claude does not, given
# `--setting-sources user`, nor opencode, given OPENCODE_DISABLE_PROJECT_CONFIG) reads the
# worktree's copy, which `discussions trust` does not cover (docs/providers.md).
# Claude Code: `--permission-mode acceptEdits` approves file edits and writes without asking
# (code.claude.com/docs/en/permission-modes: default, acceptEdits, plan, auto, dontAsk,
# bypassPermissions), inside the working directory only (a write elsewhere asks, and `-p`
# cannot answer); the tools are an allow list as above plus Edit and Write: no shell, no web,
# no worktree, so the engine runs the tests.
_CLAUDE_WRITE = (
    f"claude -p --output-format text {_CLAUDE_ISOLATED} --permission-mode acceptEdits "
    "--tools Read,Glob,Grep,Edit,Write"
)
# Codex: `--sandbox workspace-write` lets `codex exec` write inside its working directory, and it
# also runs shell commands, inside the OS sandbox: writes confined to the workspace, network off
# unless `sandbox_workspace_write.network_access` is set (developers.openai.com/codex/sandbox:
# "Defaults include no network access and write permissions limited to the active workspace").
# The workspace also includes /tmp and $TMPDIR unless `sandbox_workspace_write.exclude_slash_tmp`
# and `exclude_tmpdir_env_var` are set (openai/codex, codex-rs config `SandboxWorkspaceWrite`;
# codex 0.171 prints "sandbox: workspace-write [workdir, /tmp, $TMPDIR]" without them): set,
# so the lead writes its worktree only.
_CODEX_WRITE = (
    f"codex exec - --sandbox workspace-write --color never --skip-git-repo-check {_CODEX_ISOLATED} "
    "-c sandbox_workspace_write.exclude_slash_tmp=true "
    "-c sandbox_workspace_write.exclude_tmpdir_env_var=true"
)
# Copilot CLI: `--allow-tool=write` grants file writes without a prompt, `--deny-tool=shell`
# wins over any allow rule, and URL access needs an approval that `--no-ask-user` never gives
# (docs.github.com, copilot-cli "Allowing and denying tool use" and the programmatic reference).
# `--disallow-temp-dir` ("Prevent automatic access to the system temporary directory"): without
# it the write tool writes the temp dir, outside the worktree, without asking.
_COPILOT_WRITE = (
    f"{_COPILOT_BASE} --disallow-temp-dir --available-tools=view,grep,glob,edit,create "
    "--allow-tool=write --deny-tool=shell -p"
)
# Cursor agent: print mode without `--force` edits files inside the workspace and rejects what
# would need an approval: writes outside it or to .git/hooks, shell commands, MCP tools and web
# fetches not allowed (cursor.com/docs/cli, "Using Headless CLI", "File modification in
# scripts"); `--force`/`--yolo` would run every action, so it is not given. Shell commands that
# can run in Cursor's sandbox also run "when sandboxing is on": `--sandbox disabled` turns that
# off, leaving only the user's allowlist. `--trust` answers the workspace question.
_CURSOR_WRITE = "cursor-agent -p --output-format text --sandbox disabled --trust"
# Gemini CLI: not `--approval-mode auto_edit`, which approves web_fetch too (gemini-cli
# packages/core/src/policy/policies/write.toml: a `web_fetch` allow rule for autoEdit). In the
# default mode every tool that needs a confirmation is denied in a headless run ("ask_user: In
# non-interactive mode, this is treated as deny", docs/reference/policy-engine.md), and the
# policy file (policies/gemini-write.toml, `--policy`, which replaced the deprecated
# `--allowed-tools`) allows the two edit tools and the read tools, nothing else, and no write
# into Gemini CLI's temp folder or git's files: edits, no shell command, no web fetch.
# `--policy` files take the place of ~/.gemini/policies for the run (docs/providers.md).
_GEMINI_WRITE_POLICY = shlex.quote(str(_GEMINI_POLICIES / "gemini-write.toml"))
_GEMINI_WRITE = (
    f'gemini -p "" --skip-trust --approval-mode default --policy {_GEMINI_WRITE_POLICY} -o text'
)
# No write mode, on purpose:
# - Qwen Code `--approval-mode auto-edit` approves every 'edit' and 'info' confirmation, and
#   web_fetch asks with an 'info' one (qwen-code packages/core/src/core/permissionFlow.ts
#   isAutoEditApproved; tools/web-fetch.ts): a fetched URL can carry the repository out, and no
#   narrower command line is documented.
# - Antigravity CLI documents no edit-only mode; `--dangerously-skip-permissions` also approves
#   the agent's request to leave `--sandbox` (google-antigravity/antigravity-cli issue #36).
# Such a CLI can still lead through your own `write_command:` in providers.yaml.

# opencode has no read-only flag: its default agent (build) allows every tool, and its plan
# agent denies edits but still allows bash and may start a `general` subagent that edits
# (opencode.ai/docs/permissions, "Defaults"; opencode packages/opencode/src/agent/agent.ts).
# So the presets configure it through its environment (`ProviderSpec.env`):
# - OPENCODE_CONFIG_CONTENT holds the permission rules. It is merged after the global config,
#   the project's opencode.json and its .opencode folders (opencode.ai/docs/config, "Precedence
#   order"), so they cannot re-allow what it denies. Rules are matched last-match-wins and an
#   agent's own rules win over the top-level ones (docs/permissions, "Agents"), so the rules
#   are given at the top level and for the agent the preset runs, each tool named (a name the
#   user's config puts after our "*" would otherwise keep its own rule). `task` (subagents),
#   `skill`, `lsp`, web fetch and search, `external_directory` and the plan/question tools are
#   denied; `share` is disabled (no upload of the discussion), language servers and formatters
#   off (they start programs), and `snapshot` (a git copy of the whole working tree that
#   opencode keeps in HOME to undo its edits; opencode.ai/docs/config) off.
# - OPENCODE_DISABLE_PROJECT_CONFIG (and OPENCODE_CONFIG_PROJECT_DISABLE, its newer name) keep
#   the repository's opencode.json, .opencode/ folders (plugins and MCP servers, which are code
#   that runs when opencode starts) and AGENTS.md out of the run: a clone is not trusted.
# Needs an opencode from February 2026 on (inline config last in the merge, the project switch);
# an older one may let a repository's .opencode/ override the rules.
_OPENCODE_READ_TOOLS = ("read", "glob", "grep", "list")
_OPENCODE_DENIED = (
    "bash", "task", "skill", "lsp", "webfetch", "websearch", "codesearch",
    "external_directory", "todowrite", "todoread", "question", "plan_enter", "plan_exit",
    "doom_loop",
)  # fmt: skip
_OPENCODE_READ = {
    "read": {"*": "allow", "*.env": "deny", "*.env.*": "deny", "*.env.example": "allow"},
    **dict.fromkeys(_OPENCODE_READ_TOOLS[1:], "allow"),
}


def _opencode_config(agent: str, edit: object) -> str:
    """OPENCODE_CONFIG_CONTENT for a run of `agent` whose ``edit`` rule is `edit`."""
    rules = {"*": "deny", **_OPENCODE_READ, "edit": edit, **dict.fromkeys(_OPENCODE_DENIED, "deny")}
    config = {
        "permission": rules,
        "agent": {agent: {"disable": False, "permission": rules}},
        "share": "disabled",
        "lsp": False,
        "formatter": False,
        "snapshot": False,
    }
    return json.dumps(config, separators=(",", ":"))


# - OPENCODE_DISABLE_MODELS_FETCH: no fetch of its online model catalogue before each call (a
#   network round trip, or a wait where the network is closed; the flag is in opencode 1.18's
#   flags list, packages/opencode/src/flag/flag.ts).
# `--title` names the session, so opencode makes no hidden title call resending the prompt
# (`opencode run --help`: "uses truncated prompt if no value provided"); `--format json` prints
# one event a line: the last message's text is the answer, its tokens are read (`opencode-json`).
_OPENCODE_ISOLATED = {
    "OPENCODE_DISABLE_PROJECT_CONFIG": "1",
    "OPENCODE_CONFIG_PROJECT_DISABLE": "1",
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
}
_OPENCODE = "opencode run --agent plan --title discussions --format json"
_OPENCODE_ENV = {**_OPENCODE_ISOLATED, "OPENCODE_CONFIG_CONTENT": _opencode_config("plan", "deny")}
# The write mode: the build agent with edits allowed inside its working directory (the apply's
# worktree; `external_directory` stays denied, and so is git's own folder), every other tool
# as above: edits, no shell command, no web fetch, no subagent.
_OPENCODE_WRITE = "opencode run --agent build --title discussions"
_OPENCODE_WRITE_ENV = {
    "OPENCODE_CONFIG_CONTENT": _opencode_config(
        "build", {"*": "allow", ".git": "deny", ".git/*": "deny"}
    )
}


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
            env=_CLAUDE_ENV,
            output="claude-json",
            write_command=_CLAUDE_WRITE,
        ),
        _preset(
            "claude-sonnet",
            f"{_CLAUDE} --model sonnet",
            "Claude Code, Sonnet",
            env_remove=["CLAUDECODE"],
            env=_CLAUDE_ENV,
            output="claude-json",
            write_command=f"{_CLAUDE_WRITE} --model sonnet",
        ),
        _preset(
            "claude-haiku",
            f"{_CLAUDE} --model haiku",
            "Claude Code, Haiku (fast)",
            env_remove=["CLAUDECODE"],
            env=_CLAUDE_ENV,
            output="claude-json",
            write_command=f"{_CLAUDE_WRITE} --model haiku",
        ),
        _preset(
            "claude-opus",
            f"{_CLAUDE} --model opus",
            "Claude Code, Opus",
            env_remove=["CLAUDECODE"],
            env=_CLAUDE_ENV,
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
        ),
        _preset(
            "gemini",
            _GEMINI,
            "Gemini CLI, plan mode (enterprise / API-key users)",
            output="gemini-json",
            write_command=_GEMINI_WRITE,
        ),
        _preset(
            "gemini-flash",
            f"{_GEMINI} -m gemini-2.5-flash",
            "Gemini CLI, Flash",
            output="gemini-json",
            write_command=f"{_GEMINI_WRITE} -m gemini-2.5-flash",
        ),
        _preset(
            "gemini-pro",
            f"{_GEMINI} -m gemini-2.5-pro",
            "Gemini CLI, Pro",
            output="gemini-json",
            write_command=f"{_GEMINI_WRITE} -m gemini-2.5-pro",
        ),
        _preset(
            "opencode",
            _OPENCODE,
            "opencode, default model, plan agent with every tool but reading denied",
            output="opencode-json",
            env=_OPENCODE_ENV,
            write_command=_OPENCODE_WRITE,
            write_env=_OPENCODE_WRITE_ENV,
        ),
        _preset(
            "opencode-deepseek",
            f"{_OPENCODE} --model deepseek/deepseek-chat",
            "opencode, DeepSeek chat, read-only like opencode",
            output="opencode-json",
            env=_OPENCODE_ENV,
            write_command=f"{_OPENCODE_WRITE} --model deepseek/deepseek-chat",
            write_env=_OPENCODE_WRITE_ENV,
        ),
        _preset(
            "qwen",
            _QWEN,
            "Qwen Code, plan (read-only) mode (prompt on stdin)",
            output="qwen-json",
        ),
        _preset(
            "copilot",
            _COPILOT,
            "GitHub Copilot CLI, no shell or writes (prompt as an argument: other local "
            "users can see it in the process list)",
            prompt_via="argument",
            output="copilot-json",
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
        # llm: `-u` writes the tokens on stderr after the answer (read as `llm-usage`); `-n`
        # logs no copy of the prompt and answer (llm.datasette.io, "Usage"). `-d :memory:`:
        # llm 0.36's `prompt` opens and migrates its logs database (`-d`, else logs.db in its
        # user folder) before it looks at `-n` (llm/cli.py `prompt`: `migrate(db)`), and calls
        # started at once on a new user folder failed creating its tables; sqlite's in-memory
        # name keeps each call's to itself and writes no file (the discussion is the record).
        _preset(
            "llm",
            "llm -u -n -d :memory:",
            "Simon Willison's llm, default model",
            output="llm-usage",
        ),
        _preset("ollama", "ollama run llama3.2", "ollama, llama3.2 (local)"),
    ]
}
MOCK_SPEC = ProviderSpec(
    name="mock", command=None, description="Built-in mock (testing only)", type="mock"
)

DETECT_ORDER = ("claude", "codex", "agy", "gemini", "opencode", "qwen", "llm", "ollama")
"""Presets tried, in this order, when none of a participant's configured providers is installed
(one per AI CLI family: its default preset)."""
