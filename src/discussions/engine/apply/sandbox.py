"""The sandbox an apply's lead runs in: bubblewrap (``bwrap``) where it is installed.

    box = choose("auto")                  # Sandbox("bubblewrap", "/usr/bin/bwrap") or none
    argv, env = box.wrap(argv, env, clone, scratch, "claude")

Inside, the whole file system is mounted read-only (the user's home, the repository and the
temp dir included) but for three places left writable: the clone the lead works in, a private
temp folder beside it (``TMPDIR``, ``TMP`` and ``TEMP`` point there; ``/tmp`` itself is
read-only), and the state folders of the CLI that leads (`STATE_FOLDERS`), which the CLIs
write on every run (sessions, logs, caches) and fail without. What in those folders decides
what the CLI runs next time (its settings, hooks, instructions, commands, agents, plugins:
`CLI_SETTINGS`) stays read-only where it exists, and `planted` finds what the lead added where
nothing was, or a link of them it replaced (the run is refused and each is put back). The
session's runtime folder (``$XDG_RUNTIME_DIR``: the session bus, systemd's user manager,
agents' sockets, each a process outside that acts for whoever connects) is an empty one of
its own. It has a fresh
``/dev`` and ``/proc`` and a process namespace of its own: what the lead leaves running (a daemon
in a session of its own too) dies when it exits, or when the sandbox is killed.

The project's test command runs in the same sandbox (without a state folder): it runs code
the lead wrote.

Where a CLI keeps its own program there (`CLI_CODE`: copilot's unpacked package, opencode's
tools and packages), each entry that exists is read-only too.

What it does not cover: the rest of the CLI's state folders stays writable (caches, sessions;
what a CLI fetches or unpacks there during the run, and then runs, can be changed for its
next run); everything stays readable (the lead sees what you can read, your keys too, and the
network lets it send them); sockets outside the runtime folder and abstract ones (an X
display's) stay reachable; a CLI not in `STATE_FOLDERS` gets no writable state folder.
Without bubblewrap (`choose` says why) the lead runs unconfined, as you.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ...errors import ApplyError
from ...settings.apply import SANDBOX_SETTINGS as SETTINGS

__all__ = [
    "CLI_CODE",
    "CLI_SETTINGS",
    "SETTINGS",
    "STATE_FOLDERS",
    "Sandbox",
    "choose",
    "cli_code",
    "lead_settings",
    "planted",
    "seen",
    "state_folders",
]

_BUBBLEWRAP = "bubblewrap"

STATE_FOLDERS: dict[str, tuple[str, ...]] = {
    # Claude Code: settings, sessions and todos in ~/.claude (code.claude.com/docs/en/settings,
    # "Settings files"; CLAUDE_CONFIG_DIR moves it). Its state file ~/.claude.json is written
    # through a temp file and a rename in the home, which stays read-only: seen with 2.1.197,
    # it logs "continuing without persisting" and goes on (the counters it keeps there are not
    # updated by a sandboxed run).
    "claude": ("~/.claude", "$CLAUDE_CONFIG_DIR"),
    # Codex: config, auth, sessions and logs in CODEX_HOME, default ~/.codex
    # (developers.openai.com/codex/config-reference).
    "codex": ("~/.codex", "$CODEX_HOME"),
    # Gemini CLI: ~/.gemini (settings.json, tmp/<project>/ chats and checkpoints;
    # gemini-cli docs/get-started/configuration.md).
    "gemini": ("~/.gemini",),
    # Qwen Code, a Gemini CLI fork: ~/.qwen (settings.json, tmp/ chat recordings).
    "qwen": ("~/.qwen",),
    # opencode: the XDG folders (opencode.ai/docs/config, "Global"; its data, cache and
    # state under ~/.local/share, ~/.cache and ~/.local/state).
    "opencode": (
        "~/.config/opencode",
        "~/.local/share/opencode",
        "~/.cache/opencode",
        "~/.local/state/opencode",
    ),
    # Copilot CLI: one folder, ~/.copilot, moved by COPILOT_HOME (docs.github.com, copilot
    # "CLI configuration directory reference": config.json, session-state/, logs/, *.db);
    # seen here (1.0.102): its loader unpacks the bundled package into ~/.cache/copilot/pkg on
    # first use and exits 1 when it cannot, and writes ~/.cache/Microsoft/DeveloperTools.
    "copilot": ("~/.copilot", "$COPILOT_HOME", "~/.cache/copilot", "~/.cache/Microsoft"),
    # Cursor agent: ~/.cursor (cli-config.json, chats) (cursor.com/docs/cli/reference/config).
    "cursor-agent": ("~/.cursor", "~/.config/cursor"),
    # llm: its user folder (logs.db, keys.json), LLM_USER_PATH or ~/.config/io.datasette.llm
    # (llm.datasette.io/en/stable/setup.html, "Configuration").
    "llm": ("~/.config/io.datasette.llm", "$LLM_USER_PATH"),
}
"""The folders each CLI writes on every run, by the name of its executable: kept
writable in the sandbox. ``~`` is the user's home; ``$NAME`` an environment variable's path,
when set."""

CLI_SETTINGS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # (folders, names in them): what each CLI reads from its state folders to decide what it
    # runs (hooks, MCP servers, plugins, commands, agents) or what it is told (instructions).
    # Claude Code: settings.json hooks, CLAUDE.md, commands/, agents/, skills/, plugins/,
    # output-styles/ (code.claude.com/docs/en/settings, "Settings files"; hooks).
    # With CLAUDE_CONFIG_DIR set, its .claude.json (MCP servers) is there too.
    "claude": (
        ("~/.claude", "$CLAUDE_CONFIG_DIR"),
        (
            "settings.json",
            "settings.local.json",
            "CLAUDE.md",
            "commands",
            "agents",
            "skills",
            "hooks",
            "plugins",
            "output-styles",
            ".claude.json",
        ),
    ),
    # Codex: config.toml (mcp_servers, notify), AGENTS.md, prompts/, rules/
    # (developers.openai.com/codex/config-reference). Not skills/: codex 0.171 writes its own
    # system skills there on every run.
    "codex": (
        ("~/.codex", "$CODEX_HOME"),
        (
            "config.toml",
            "AGENTS.md",
            "AGENTS.override.md",
            "prompts",
            "rules",
        ),
    ),
    # Gemini CLI and Qwen Code: settings.json (mcpServers, hooks), the memory file, commands/,
    # extensions/, trustedFolders.json (gemini-cli docs/get-started/configuration.md).
    "gemini": (
        ("~/.gemini",),
        (
            "settings.json",
            "GEMINI.md",
            "commands",
            "extensions",
            "trustedFolders.json",
            "policies",
        ),
    ),
    "qwen": (
        ("~/.qwen",),
        (
            "settings.json",
            "QWEN.md",
            "commands",
            "extensions",
            "agents",
            "trustedFolders.json",
        ),
    ),
    # opencode: its config folder (opencode.ai/docs/config; plugins, agents, commands, tools).
    "opencode": (
        ("~/.config/opencode",),
        (
            "opencode.json",
            "opencode.jsonc",
            "config.json",
            "AGENTS.md",
            "agent",
            "agents",
            "command",
            "commands",
            "plugin",
            "plugins",
            "tool",
            "tools",
            "mode",
        ),
    ),
    # Copilot CLI: MCP servers, agents, skills, hooks (its config.json, which it writes
    # itself, stays writable).
    "copilot": (
        ("~/.copilot", "$COPILOT_HOME"),
        (
            "mcp-config.json",
            "agents",
            "skills",
            "hooks",
            "copilot-instructions.md",
        ),
    ),
    "cursor-agent": (("~/.cursor",), ("mcp.json", "rules", "commands", "hooks.json")),
    # llm: which models it calls, where, and with what (llm.datasette.io, "Configuration").
    "llm": (
        ("~/.config/io.datasette.llm", "$LLM_USER_PATH"),
        (
            "extra-openai-models.yaml",
            "aliases.json",
            "default_model.txt",
            "templates",
        ),
    ),
}

CLI_CODE: dict[str, tuple[str, ...]] = {
    # What a CLI keeps of its own program in its writable state folders, run by every later
    # call, the person's own outside the sandbox too: each entry there is read-only (a new
    # one, a version unpacked or a tool fetched during the run, can still be written).
    # Claude Code's local installation (`claude migrate-installer`): ~/.claude/local, which
    # the person's `claude` alias runs.
    "claude": ("~/.claude/local/*",),
    # Copilot CLI 1.0.102 unpacks itself into ~/.cache/copilot/pkg/<platform>/<version>.
    "copilot": ("~/.cache/copilot/pkg/*/*",),
    # opencode: the tools it downloads (ripgrep) and the packages it installs (providers,
    # plugins) under ~/.cache/opencode (seen: bin/), ~/.local/share/opencode/bin.
    "opencode": (
        "~/.cache/opencode/bin/*",
        "~/.cache/opencode/node_modules/*",
        "~/.local/share/opencode/bin/*",
    ),
}

Seen = dict[Path, str]
"""A path of `lead_settings` -> what it was (`_seen`): "" absent, else its kind and content."""


@dataclass(frozen=True, slots=True)
class Sandbox:
    """The confinement a lead runs in: bubblewrap at `program`, or none ("")."""

    kind: str = ""
    """`_BUBBLEWRAP` or "" (none)."""
    program: str = ""
    missing: str = "install bubblewrap"
    """Why there is none, as the consent text says it after ``no sandbox: ``."""

    def describe(self) -> str:
        """What the consent text and the APPLY block say: ``sandbox: bubblewrap`` or why
        there is none (``no sandbox: install bubblewrap``)."""
        return f"sandbox: {self.kind}" if self.kind else f"no sandbox: {self.missing}"

    @property
    def recorded(self) -> str:
        """The value of the APPLY block's ``sandbox`` field."""
        return self.kind or "none"

    def wrap(
        self, argv: list[str], env: dict[str, str], clone: Path, scratch: Path, cli: str
    ) -> tuple[list[str], dict[str, str]]:
        """`argv` and `env` as run in the sandbox (unchanged without one): `clone`, `scratch`
        (made here, the temp dir) and the state folders of `cli` writable, all else read-only."""
        if not self.kind:
            return argv, env
        scratch.mkdir(parents=True, exist_ok=True)
        inner = {**env, "TMPDIR": str(scratch), "TMP": str(scratch), "TEMP": str(scratch)}
        # bwrap(1): later mounts go over earlier ones, so the writable binds come after the
        # read-only root; --dev and --proc give a fresh /dev and a /proc of the new process
        # namespace; --die-with-parent kills the sandbox when we die. Tried with 0.8.0.
        box = [self.program, "--die-with-parent", "--unshare-pid", "--unshare-ipc"]
        box += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        box += [w for run in _runtime(env) for w in ("--tmpfs", str(run))]
        for path in (*state_folders(cli, env), scratch, clone):
            box += ["--bind", str(path), str(path)]
        for path in [*lead_settings(cli, env), *cli_code(cli, env)]:  # over the state folder
            if path.exists() and not path.is_symlink():
                box += ["--ro-bind", str(path), str(path)]
        return [*box, "--chdir", str(clone), "--", *argv], inner


def _runtime(env: dict[str, str]) -> list[Path]:
    """The session's runtime folder (``$XDG_RUNTIME_DIR``, else ``/run/user/<uid>``) when it
    exists: its sockets are processes outside the sandbox that act for whoever connects."""
    found = {Path(env.get("XDG_RUNTIME_DIR") or f"/run/user/{os.getuid()}")}
    return sorted(p for p in found if p.is_absolute() and p.is_dir())


def lead_settings(cli: str, env: dict[str, str]) -> list[Path]:
    """What the CLI named `cli` reads from its state folders to decide what it runs
    (`CLI_SETTINGS`), whether it exists or not."""
    folders, names = CLI_SETTINGS.get(cli, ((), ()))
    home = Path(env.get("HOME") or Path.home())
    found: list[Path] = []
    for spec in folders:
        folder = _expand(spec, home, env)
        if folder is not None:
            found += [folder / name for name in names]
    return list(dict.fromkeys(found))


def cli_code(cli: str, env: dict[str, str]) -> list[Path]:
    """The entries of `CLI_CODE` for the CLI named `cli` that exist."""
    home = Path(env.get("HOME") or Path.home())
    return [path for spec in CLI_CODE.get(cli, ()) for path in sorted(home.glob(spec[2:]))]


def _seen(path: Path) -> str:
    """What `path` is now: "" when absent, a link's target, a file's bytes, or "folder"."""
    if path.is_symlink():
        return "link:" + os.readlink(path)
    if path.is_file():
        return "file:" + path.read_bytes().hex()
    return "folder" if path.exists() else ""


def seen(cli: str, env: dict[str, str]) -> Seen:
    """`lead_settings` as they are before a lead runs, for `planted` after."""
    return {path: _seen(path) for path in lead_settings(cli, env)}


def planted(before: Seen) -> list[str]:
    """What changed in the CLI's settings since `before` (the lead's doing: in the sandbox they
    are read-only to it where they existed, but for a link, which it can replace), one phrase
    each. What the CLI's next run would obey is put back as it was: what was added where
    nothing was is removed, a link or a file is written again (a folder's content cannot be)."""
    found: list[str] = []
    for path, was in before.items():
        if _seen(path) == was:
            continue
        if was == "folder":
            found.append(f"{path} changed")
            continue
        _remove(path)
        if was.startswith("link:"):
            os.symlink(was.removeprefix("link:"), path)
        elif was.startswith("file:"):
            path.write_bytes(bytes.fromhex(was.removeprefix("file:")))
        found.append(f"{path} was {'changed (put back)' if was else 'added (removed)'}")
    return found


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def state_folders(cli: str, env: dict[str, str]) -> list[Path]:
    """The state folders of the CLI named `cli` (its executable's name), the missing ones
    made first (a CLI would make them, and cannot under a read-only home)."""
    home = Path(env.get("HOME") or Path.home())
    found: list[Path] = []
    for spec in STATE_FOLDERS.get(cli, ()):
        path = _expand(spec, home, env)
        if path is None or path in found:
            continue
        if not path.exists():
            path.mkdir(parents=True, exist_ok=True)
        if path.exists():
            found.append(path.resolve())
    return found


def _expand(spec: str, home: Path, env: dict[str, str]) -> Path | None:
    """``~/x`` under `home`, ``$NAME`` as `env` sets it (None when unset or relative)."""
    if spec.startswith("$"):
        value = env.get(spec[1:], "")
        return Path(value) if os.path.isabs(value) else None
    return home / spec.removeprefix("~/")


def find_bubblewrap() -> str:
    """The path of ``bwrap`` on PATH (only its absolute folders), or ""."""
    folders = [p for p in os.environ.get("PATH", os.defpath).split(os.pathsep) if os.path.isabs(p)]
    return shutil.which("bwrap", path=os.pathsep.join(folders)) or ""


def choose(setting: str) -> Sandbox:
    """The sandbox `setting` (`SETTINGS`) asks for on this machine; `ApplyError` when it is
    ``required`` and bubblewrap is not installed or cannot run here (said before anyone is
    asked to consent)."""
    if setting == "off":
        return Sandbox(missing="apply.sandbox is off")
    program = find_bubblewrap()
    why = _cannot_run(program) if program else "install bubblewrap"
    if not why:
        return Sandbox(_BUBBLEWRAP, program)
    if setting == "required":
        raise ApplyError(
            f"apply.sandbox is `required` and there is no sandbox here ({why}): install "
            "bubblewrap (`bwrap`, the `bubblewrap` package) where it can run, or set "
            "apply.sandbox to `auto`. Nothing was run."
        )
    return Sandbox(missing=why)


@functools.lru_cache(maxsize=4)
def _cannot_run(program: str) -> str:
    """Why `program` (bwrap) cannot make a sandbox here, or "": it is tried once, as a lead
    would run (a system may forbid the namespaces it needs, as Ubuntu's AppArmor does for
    unprivileged users)."""
    probe = [
        program,
        "--die-with-parent",
        "--unshare-pid",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--",
        "true",
    ]
    try:
        run = subprocess.run(probe, capture_output=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap cannot run here: {exc}"
    said = run.stderr.decode("utf-8", "replace").strip().splitlines()
    if run.returncode == 0:
        return ""
    return "bubblewrap cannot run here: " + (said[-1] if said else f"exit status {run.returncode}")
