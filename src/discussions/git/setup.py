"""Setting a project up for discussions: `init_project` (``discussions.yaml``, the folder,
``.gitattributes``, the merge driver in the clone's configuration).

Git runs a merge driver from the clone's configuration, never from the repository, so the
driver is registered with an absolute command (this Python, on this package's own
`mergefile`): it keeps working from a GUI git client with a minimal PATH. A clone whose
``.gitattributes`` names the driver but whose configuration lacks it merges with git's
default (a safe conflict); `drivercheck.driver_warning` says so, and `driver.resolve_conflict`
redoes the merge from the index stages.
"""

from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import DiscussionsError
from .drivercheck import DRIVER, DRIVER_SCRIPT, DRIVER_SCRIPT_P
from .run import repo_root, run_git

_DRIVER_NAME = "discussions append-only merge"
_SUMMARY_DRIVER = "discussions-summary"
_SUMMARY_DRIVER_NAME = "discussions summaries: keep ours (rebuild with `discussions summary`)"


@dataclass(slots=True)
class _InitStep:
    """One thing `init_project` looked at."""

    what: str
    """What it is about (a file, a folder, a git setting)."""
    action: str
    """``created``, ``updated``, ``unchanged`` or ``skipped``."""
    detail: str = ""


@dataclass(slots=True)
class _InitReport:
    root: Path
    steps: list[_InitStep] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return any(s.action in ("created", "updated") for s in self.steps)

    def to_dict(self) -> dict[str, object]:
        return {
            "root": str(self.root),
            "changed": self.changed,
            "steps": [{"what": s.what, "action": s.action, "detail": s.detail} for s in self.steps],
        }


_DEFAULT_CONFIG = """\
# discussions.yaml — project settings for `discussions` (every key is optional;
# the values shown commented out are the defaults).

# Who takes part when a template names nobody:
# default_participants: [architect, security, pragmatist]
# default_template: feature

consensus:
  # Share of READY votes needed to reach consensus.
  threshold_ready: 0.67
  # Share of REJECT votes that blocks consensus.
  threshold_reject: 0.01
  # Whether at least one human must vote READY.
  human_required: false

providers:
  # Provider to try first (see `discussions providers list`); a persona file of your own
  # that names a provider_hint goes before it. null: each persona's hint.
  default: null
  # Providers to try, in order, when the first one fails.
  fallback: []
  # timeout: 300

output:
  # Where discussion files are created and looked up.
  directory: ./discussions
  # summary_files: false
"""


def driver_command(python: str | None = None) -> str:
    """The command git runs (with its ``sh``) for the merge driver: `DRIVER_SCRIPT` after its
    arguments, `python` (default this installation's, by absolute path, so it works from any
    git client whatever its PATH) as the first candidate, run ``-I -S`` on this package's
    `mergefile` (the reasons are `DRIVER_SCRIPT`'s), then with ``-m discussions``. ``-P``
    there: git runs the driver from the work tree's root, and ``python -m`` would otherwise
    put that folder first on ``sys.path``, so a repository shipping
    ``discussions/__init__.py`` would get its own code run. A path with ``%`` in it would be
    taken for git's placeholders: the command is then the earlier one (`DRIVER_SCRIPT_P`),
    without the file."""
    python = shlex.quote(python or sys.executable)
    entry = str(Path(__file__).resolve().with_name("mergefile.py"))
    if "%" in entry:
        return f"sh -c {shlex.quote(DRIVER_SCRIPT_P)} {python} %O %A %B %L %P"
    return f"set -- {python} {shlex.quote(entry)} %O %A %B %L %P; {DRIVER_SCRIPT}"


def _attribute_lines(folder: str) -> list[str]:
    """The ``.gitattributes`` lines routing discussion files in `folder` (relative to the
    repository root, posix) to the driver; generated summaries keep our side."""
    prefix = "" if folder in ("", ".") else folder.rstrip("/") + "/"
    pattern = f"{prefix}*.md".replace(" ", "[[:space:]]")
    summary = f"{prefix}*.sum.md".replace(" ", "[[:space:]]")
    return [
        f"{pattern} merge={DRIVER}",
        f"{summary} merge={_SUMMARY_DRIVER} linguist-generated=true",
    ]


def init_project(start: Path, *, use_git: bool = True, hooks: bool = False) -> _InitReport:
    """Set a project up for discussions (idempotent): ``discussions.yaml`` with commented
    defaults, the discussions folder, and with git, ``.gitattributes`` and the merge driver in
    this clone's configuration; with `hooks`, the pre-commit hook that lists the code comments
    summoning a council (`summons.install_hook`)."""
    from ..settings.config import PROJECT_FILE, Config, find_project_root

    start = start.resolve()
    git_root = repo_root(start) if use_git else None
    root = find_project_root(start) or start
    report = _InitReport(root)

    config_path = root / PROJECT_FILE
    if config_path.exists():
        report.steps.append(_InitStep(PROJECT_FILE, "unchanged", "already there; left as it is"))
    else:
        config_path.write_text(_DEFAULT_CONFIG, encoding="utf-8")
        report.steps.append(_InitStep(PROJECT_FILE, "created", "defaults, commented"))

    folder = Config.load(root).output_directory.resolve()
    shown = _shown(folder, root)
    if folder.is_dir():
        report.steps.append(_InitStep(shown + "/", "unchanged", "folder exists"))
    else:
        folder.mkdir(parents=True)
        report.steps.append(_InitStep(shown + "/", "created", "discussions folder"))

    if git_root is None:
        report.steps.append(_InitStep(".gitattributes", "skipped", "--no-git"))
        report.steps.append(_InitStep("merge driver", "skipped", "--no-git"))
        if hooks:
            report.steps.append(_InitStep("pre-commit hook", "skipped", "--no-git"))
        return report
    try:
        rel_folder = folder.relative_to(git_root).as_posix()
    except ValueError:
        raise DiscussionsError(
            f"the discussions folder {folder} is outside the repository at {git_root}"
        ) from None
    report.steps.append(_ensure_attributes(git_root, rel_folder))
    for key, value in (
        (f"merge.{DRIVER}.name", _DRIVER_NAME),
        (f"merge.{DRIVER}.driver", driver_command()),
        (f"merge.{_SUMMARY_DRIVER}.name", _SUMMARY_DRIVER_NAME),
        (f"merge.{_SUMMARY_DRIVER}.driver", "true"),
    ):
        report.steps.append(_ensure_config(git_root, key, value))
    if hooks:
        from .summons import install_hook

        action, detail = install_hook(git_root)
        report.steps.append(_InitStep("pre-commit hook", action, detail))
    return report


def _shown(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix() or "."
    except ValueError:
        return str(path)


def _ensure_attributes(git_root: Path, rel_folder: str) -> _InitStep:
    """Add our lines to ``.gitattributes``; a line for the same pattern that routes it to
    another merge (``merge=union`` damages discussions) has its ``merge`` replaced."""
    path = git_root / ".gitattributes"
    existing = path.read_text(encoding="utf-8") if path.exists() else ""
    lines = existing.splitlines()
    changes: list[str] = []
    for wanted in _attribute_lines(rel_folder):
        pattern, *attrs = wanted.split()
        same = [i for i, line in enumerate(lines) if line.split()[:1] == [pattern]]
        if same and _has_attrs(lines[same[-1]], attrs):
            continue
        if same:
            i = same[-1]  # the last line for a pattern is the one git uses
            kept = [a for a in lines[i].split()[1:] if a.lstrip("-!").split("=")[0] != "merge"]
            merged = [pattern, *kept, *(a for a in attrs if a not in kept)]
            changes.append(f"{lines[i].strip()} -> {' '.join(merged)}")
            lines[i] = " ".join(merged)
        else:
            if not changes and not any("discussions" in ln and ln.startswith("#") for ln in lines):
                lines.append("# discussions: merge appended comments block by block")
            lines.append(wanted)
            changes.append(wanted)
    if not changes:
        return _InitStep(".gitattributes", "unchanged", "routes discussion files to the driver")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return _InitStep(".gitattributes", "updated" if existing else "created", "; ".join(changes))


def _has_attrs(line: str, attrs: list[str]) -> bool:
    """Whether a ``.gitattributes`` line sets `attrs` and no other merge."""
    tokens = line.split()[1:]
    merges = [t for t in tokens if t.lstrip("-!").split("=")[0] == "merge"]
    return set(attrs) <= set(tokens) and len(merges) == 1


def _ensure_config(git_root: Path, key: str, value: str) -> _InitStep:
    proc = run_git(["config", "--local", "--get", key], git_root, check=False)
    current = proc.stdout.decode("utf-8", "replace").rstrip("\n") if proc.returncode == 0 else None
    if current == value:
        return _InitStep(f"git config {key}", "unchanged", _shown_value(key, value))
    run_git(["config", "--local", key, value], git_root)
    action = "created" if current is None else "updated"
    return _InitStep(f"git config {key}", action, _shown_value(key, value))


def _shown_value(key: str, value: str) -> str:
    """What `init` says it set `key` to: the value, but the merge driver's (a shell script of
    about a thousand characters, its candidates in turn) by what runs first."""
    if key != f"merge.{DRIVER}.driver" or len(value) <= 200:
        return value
    words = shlex.split(value.partition(";")[0])
    if words[:2] != ["set", "--"] or len(words) < 4:
        return value
    python, entry = shlex.quote(words[2]), shlex.quote(words[3])
    return f"runs {python} -I -S {entry}, with fallbacks; `git config {key}` shows it whole"
