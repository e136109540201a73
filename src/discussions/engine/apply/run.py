"""Running a lead: its write command in a disposable clone of its own (`git.worktree`), in the
sandbox where bubblewrap is installed (`engine.apply.sandbox`), contained as a provider call is (own
process group, every escaped descendant killed, the parent-death signal), with a longer timeout
and its output streamed with terminal control sequences removed; then what it changed
committed and fetched onto the branch (or recorded as unchanged), the project's trusted
``test`` command run in the clone, and the user's repository checked to be as it was.

* Nothing runs in the user's working tree, and the clone shares nothing with the user's
  repository: the lead cannot write a file of it through git. In the sandbox it cannot write
  one at all (all but the clone, a private temp folder and the CLI's state folders is
  read-only). As a second line, when the user's repository changed while the lead ran
  (`watch.snapshot` before and after: working tree, index, references, the watched files
  of the git folder and its submodules'; `watch.written_since`: ignored files, by change
  time; `watch.rewritten_objects`: the object stores), or the engine's git folder beside
  the clone was changed (`worktree.tampering`), the result is ``refused-outside``: nothing is
  committed, the clone is kept and the difference is named. The change may be the person's
  own (an edit while the lead ran), so the words say so; the files our own output goes to are
  left out.
* A failure or a timeout keeps the clone for inspection and commits nothing; nothing is ever
  merged into the user's branch.
* The lead and the test command run without the ``GIT_*`` variables of our environment (set
  when `discussions` runs from a git hook, they would point the lead's git at the user's index).
  Their executables are never looked up in a relative PATH entry (``.``), and the test
  command's, written as a relative path, is the project's trusted copy, not the clone's.
* What the block keeps of the lead's output is its own summary (the last lines of its standard
  output), never its standard error (transcripts, warnings), and no control character."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ...errors import ApplyError, ProviderError, ProviderNotFound
from ...git import parley, watch, worktree
from ...git.confine import without_git_vars
from ...git.parley import FileChoice, Parley
from ...git.worktree import Worktree
from ...providers import escapes
from ...providers.argv_prompt import with_prompt_argument
from ...providers.base import ProviderSpec
from ...providers.command import ContainedRun, run_contained, split_command
from ...providers.environment import command_env
from ...providers.trust import evidence_trusted
from ...settings.apply import DEFAULT_TIMEOUT  # seconds a lead may take (apply.timeout)
from ...settings.evidence import EvidenceSettings
from ...syntax.controls import ControlFilter, strip_controls
from . import sandbox
from .sandbox import Sandbox

_KEPT_LINES = 40
"""Lines of the lead's and the test command's output kept for the record."""
_LEAD_OUTPUT = 16 << 20
_TEST_OUTPUT = 1 << 20


@dataclass(slots=True)
class LeadCommand:
    """The write command of the provider that leads, as configured."""

    provider: str
    command: str
    """The command line (split without a shell, as a provider's ``command``)."""
    prompt_via: str = "stdin"
    env_remove: tuple[str, ...] = ()
    base: str = ""
    """The project folder the command's relative file words were trusted from ("": none).
    The lead runs in its clone, whose copies of those files trust never hashed (and a
    revision's lead may have edited), so such words are made absolute from here (and so are
    `env` values that name such a file)."""
    env: dict[str, str] = field(default_factory=dict)
    """Variables set for the command: the provider's ``env`` with its ``write_env`` over it."""

    @classmethod
    def of(cls, spec: ProviderSpec, base: str = "") -> LeadCommand:
        """The write mode of `spec` (its ``write_command``, ``write_env`` over ``env``)."""
        return cls(
            spec.name,
            spec.write_command or "",
            spec.prompt_via,
            tuple(spec.env_remove),
            base,
            {**spec.env, **spec.write_env},
        )


@dataclass(slots=True)
class ProjectTests:
    """``evidence.commands`` ``test``, and whether the user trusts the project's commands."""

    command: str
    trusted: bool
    timeout: float = DEFAULT_TIMEOUT
    base: str = ""
    """The project folder the command was trusted in: an executable written as a relative
    path is that folder's file (the copy trust covers), never the clone's, which the lead
    may have rewritten ("": the clone's)."""

    def notice(self) -> str:
        """What the person should know before consenting: the command runs on the lead's
        change, so it runs code the lead wrote."""
        if not self.trusted:
            return f"{self.command} (not trusted: will not run)"
        return (
            f"{self.command} (runs in the clone after the change, so it runs code the lead wrote)"
        )


@dataclass(slots=True)
class Job:
    """One run of a lead: where, on which branch, with what, on whose behalf."""

    root: Path
    """The user's work tree (its top folder)."""
    branch: str
    prompt: str
    lead: LeadCommand
    author: str
    """``Name <email>`` of the person who consented (`worktree.identity`)."""
    coauthor: str
    """``Persona <address>`` for the ``Co-authored-by`` trailer."""
    subject: str
    body: str = ""
    timeout: float = DEFAULT_TIMEOUT
    tests: ProjectTests | None = None
    on_output: Callable[[str], None] | None = None
    """Called with the lead's (and the tests') output as it arrives: the turn display."""
    revise: bool = False
    """Work on the existing `branch` (a revision) instead of a new branch from HEAD."""
    sandbox: Sandbox = field(default_factory=Sandbox)
    """Where the lead runs: bubblewrap, or no sandbox (`sandbox.choose`)."""
    parley: FileChoice | None = None
    """Asks the person about each changed file before the commit (``apply --parley``)."""


@dataclass(slots=True)
class RunResult:
    """How a run ended: what the APPLY block records."""

    result: str
    """``committed``, ``unchanged``, ``failed``, ``timeout`` or ``refused-outside``."""
    branch: str
    base: str
    commit: str | None = None
    files: list[tuple[str, int | None, int | None]] = field(default_factory=list)
    tests: str = "not run"
    """``passed``, ``failed`` or ``not run``."""
    test_command: str = ""
    duration: float = 0.0
    reason: str = ""
    worktree: str = ""
    """The clone's folder when it is kept (after a failure), else ""."""
    lead_output: str = ""
    """The last lines of the lead's standard output (its summary), control characters
    removed."""
    test_output: str = ""
    """The last lines of the test command's output, or why it did not run."""
    lead_seconds: float = 0.0
    """How long the lead itself ran (the rest of `duration` is the apply's own work)."""
    sandbox: str = ""
    """``bubblewrap`` or ``none``: the confinement the lead ran in."""
    parley: Parley | None = None
    """What the person accepted and rejected, after a parley."""


def project_tests(root: Path, settings: EvidenceSettings, timeout: float) -> ProjectTests | None:
    """The project's ``evidence.commands`` ``test`` entry, if there is one."""
    command = settings.commands.get("test")
    if not command:
        return None
    return ProjectTests(command, evidence_trusted(root, settings.commands), timeout, str(root))


def execute(job: Job) -> RunResult:
    """Run `job`'s lead in a new clone of HEAD (or, with ``job.revise``, of its branch), then
    commit, test and check as the module docstring says. Raises before anything runs when the
    lead's command is not installed or the clone cannot be made (`ApplyError`)."""
    started = time.monotonic()
    argv, stdin, env = lead_argv(job.lead, job.prompt)
    # One search of /proc for what every command left behind, when the lead ends and at the
    # end, rather than one per git command.
    with escapes.one_sweep() as sweep:
        wt = (
            worktree.attach(job.root, job.branch)
            if job.revise
            else worktree.create(job.root, job.branch)
        )
        out = RunResult("failed", wt.branch, wt.base, sandbox=job.sandbox.recorded)
        try:
            guard = _Watch(
                job.root,
                wt,
                watch.snapshot(job.root, wt),
                watch.clock(wt),
                watch.object_files(job.root),
                sandbox.seen(_cli_name(job.lead), env),
            )
            _lead(job, wt, argv, stdin, env, out, sweep)
            if not out.reason:
                _settle(job, wt, guard, out)
            if out.result in ("committed", "unchanged"):
                worktree.remove(wt, drop_branch=out.result == "unchanged" and not job.revise)
        except (ApplyError, ProviderError, OSError) as exc:  # could not start, or git refused
            if out.result not in ("committed", "unchanged", "refused-outside"):
                out.result = "failed"
            out.reason = (out.reason + "; " if out.reason else "") + str(exc)
        if out.result not in ("committed", "unchanged") or wt.path.exists():
            out.worktree = str(wt.path)
    out.duration = time.monotonic() - started
    return out


def lead_argv(lead: LeadCommand, prompt: str) -> tuple[list[str], bytes, dict[str, str]]:
    """(argv, stdin, environment) of the lead's command; `ProviderNotFound` when its
    executable is not installed."""
    words = _anchored(split_command(lead.command), lead.base)
    exe = _which(words[0]) if words else None
    if exe is None:
        missing = words[0] if words else "(empty command)"
        raise ProviderNotFound(lead.provider, f"not installed: `{missing}` not found on PATH")
    env = _clean_env(lead.env_remove, _anchored_env(lead.env, lead.base))
    argv, stdin = [exe, *words[1:]], prompt.encode("utf-8")
    if lead.prompt_via == "argument":
        argv, stdin = with_prompt_argument(lead.provider, argv, prompt, env), b""
    return argv, stdin, env


def _anchored(words: list[str], base: str) -> list[str]:
    """`words` with each relative word (or ``--opt=value`` value) that names a file in `base`
    made absolute: the copy trust hashed runs, not the clone's. The executable only when
    it is written as a path (a bare name is looked up on PATH, as a shell would)."""
    if not base:
        return words
    out = []
    for n, word in enumerate(words):
        opt, eq, value = word.partition("=") if word.startswith("-") else ("", "", word)
        if n == 0 and "/" not in value:
            value = ""
        if value and not os.path.isabs(value) and not value.startswith("-"):
            found = Path(base, value)
            if found.is_file():
                word = opt + eq + str(found)
        out.append(word)
    return out


def _anchored_env(env: dict[str, str], base: str) -> dict[str, str]:
    """`env` with each relative value that names a file in `base` made absolute (as
    `_anchored` does for the command's words)."""
    if not base:
        return dict(env)
    return {
        name: str(Path(base, value))
        if value and not os.path.isabs(value) and Path(base, value).is_file()
        else value
        for name, value in env.items()
    }


def _clean_env(
    remove: tuple[str, ...] = (), values: dict[str, str] | None = None
) -> dict[str, str]:
    """Our environment without its ``GIT_*`` variables and `remove`, with `values` set."""
    return command_env(without_git_vars(), remove, values or {})


def _lead(
    job: Job,
    wt: Worktree,
    argv: list[str],
    stdin: bytes,
    env: dict[str, str],
    out: RunResult,
    sweep: escapes.EscapeSweep,
) -> None:
    """Run the lead in `wt`; set `out.reason` (and the result) when it did not finish well.
    What it left running is killed (`sweep`) before anything looks at the trees."""
    began = time.monotonic()
    argv, env = job.sandbox.wrap(
        argv, _here(env, wt.path), wt.path, wt.scratch, _cli_name(job.lead)
    )
    try:
        done = run_contained(
            job.lead.provider,
            argv,
            cwd=wt.path,
            env=env,
            timeout=job.timeout,
            max_output=_LEAD_OUTPUT,
            stdin=stdin,
            on_output=_filtered(job.on_output),
        )
    except KeyboardInterrupt:
        out.result, out.reason = "failed", "interrupted (Ctrl-C); the lead was stopped"
        return
    finally:
        out.lead_seconds = time.monotonic() - began
        sweep.run()
    out.lead_output = _summary(done)
    if done.timed_out:
        out.result = "timeout"
        out.reason = f"the lead ran past {job.timeout:g}s; its processes were killed"
    elif done.flooded:
        out.reason = f"the lead wrote more than {_LEAD_OUTPUT >> 20} MiB of output; stopped"
    elif done.returncode != 0:
        said = strip_controls(done.err).strip().splitlines()
        out.reason = f"the lead exited with status {done.returncode}" + (
            f": {said[-1].strip()}" if said else ""
        )


def _here(env: dict[str, str], folder: Path) -> dict[str, str]:
    """`env` telling a command it runs in `folder`: ``PWD`` says so (ours names where the
    person ran us, their repository, and shells trust it: a lead's ``cd "$OLDPWD"`` or
    ``rm -rf "$PWD/build"`` reached the user's tree), and no ``OLDPWD``."""
    out = {k: v for k, v in env.items() if k != "OLDPWD"}
    out["PWD"] = str(folder)
    return out


def _cli_name(lead: LeadCommand) -> str:
    """The name of the lead's executable as its command line writes it (``claude``), which
    names its state folders (`sandbox.STATE_FOLDERS`)."""
    words = split_command(lead.command)
    return os.path.basename(words[0]) if words else ""


def _filtered(on_output: Callable[[str], None] | None) -> Callable[[str], None] | None:
    """`on_output` fed the text without terminal control sequences (`ControlFilter`): the
    lead's output reaches a terminal, a pipe or a log file, and none may act on them."""
    if on_output is None:
        return None
    stream = ControlFilter()

    def feed(text: str) -> None:
        shown = stream.feed(text)
        if shown:
            on_output(shown)

    return feed


@dataclass(slots=True)
class _Watch:
    """The user's repository as it was when the lead started, to compare with later."""

    root: Path
    wt: Worktree
    before: watch.Snapshot
    since: int
    """`watch.clock` when the lead started: files written since are found by their
    change time (ignored files, which ``git status`` does not show, included)."""
    objects: watch.ObjectFiles
    """The files of the object stores then (`watch.object_files`)."""
    settings: sandbox.Seen
    """The settings of the lead's CLI then (`sandbox.seen`): what its next run obeys."""

    def changes(self, *, walk: bool = True, objects: bool = True) -> list[str]:
        """What changed in the user's tree, index, references and git folder since; with
        `walk`, ignored files written since too (not needed after our own git commands, which
        write no file of the user's tree), and with both the files of the object stores
        rewritten (not after our commit, whose git freshens the times of the objects it finds
        there)."""
        found = watch.differences(self.before, watch.snapshot(self.root, self.wt))
        if not walk:
            return found
        if objects:
            found += watch.rewritten_objects(self.objects, watch.object_files(self.root))
        named = {f.split(" ", 1)[0] for f in found}
        skip = (self.wt.path, worktree.apply_home())
        written = watch.written_since(self.root, self.since, skip)
        for path in written:  # a folder only when nothing in it is named
            inside = path.endswith("/") and any(
                n != path and (n.startswith(path) or path == "./") for n in (*named, *written)
            )
            if path not in named and not inside:
                found.append(f"{path} was written")
        return found


_CHANGED = "the working tree changed while the lead ran (by the lead or by you): "


def _settle(job: Job, wt: Worktree, guard: _Watch, out: RunResult) -> None:
    """After a lead that finished: refuse what changed outside its clone (or the engine's git
    folder beside it), else commit, check again, and test."""
    outside = guard.changes()
    tampered = worktree.tampering(wt)
    tampered += [f"the CLI's settings: {p}" for p in sandbox.planted(guard.settings)]
    if outside or tampered:
        _refuse(out, outside, tampered)
        return
    if job.parley is not None:
        out.parley = parley.hold(wt, job.parley)
    out.commit = worktree.commit(wt, job.author, job.coauthor, job.subject, job.body)
    moved = guard.changes(walk=False)
    if moved:
        out.commit = None
        _refuse(out, moved, [])
        return
    if out.commit is None:
        out.result = "unchanged"
        return
    out.result = "committed"
    out.files = worktree.numstat(wt, wt.base, out.commit)
    if job.tests is not None:
        _test(job.tests, wt, job.on_output, out, job.sandbox)
        moved = guard.changes(objects=False)
        if moved:
            out.tests = "failed"
            out.reason = "the working tree changed while the tests ran (by the test command "
            out.reason += "or by you): " + "; ".join(moved[:10])


def _refuse(out: RunResult, outside: list[str], tampered: list[str]) -> None:
    out.result = "refused-outside"
    said = []
    if tampered:
        said.append(
            "the lead changed what the engine's git or its CLI runs next: " + "; ".join(tampered)
        )
    if outside:
        said.append(_CHANGED + "; ".join(outside[:10]))
    out.reason = "; ".join(said)


def _test(
    tests: ProjectTests,
    wt: Worktree,
    on_output: Callable[[str], None] | None,
    out: RunResult,
    box: Sandbox,
) -> None:
    """Run the trusted test command in the worktree, in the lead's sandbox (it runs code the
    lead wrote); record its result and output."""
    out.test_command = tests.command
    if not tests.trusted:
        out.test_output = (
            "not run: evidence.commands is not trusted here; run `discussions trust` to allow it"
        )
        return
    words = split_command(tests.command)
    exe = _test_executable(words, Path(tests.base) if tests.base else wt.path)
    if exe is None:
        out.tests, out.test_output = "failed", f"`{words[0] if words else ''}` is not installed"
        return
    argv, env = box.wrap([exe, *words[1:]], _here(_clean_env(), wt.path), wt.path, wt.scratch, "")
    with escapes.one_sweep():
        done = run_contained(
            "test",
            argv,
            cwd=wt.path,
            env=env,
            timeout=tests.timeout,
            max_output=_TEST_OUTPUT,
            on_output=_filtered(on_output),
        )
    out.tests = "passed" if done.returncode == 0 and not done.timed_out else "failed"
    status = (
        f"timed out after {tests.timeout:g}s"
        if done.timed_out
        else (f"exit status {done.returncode}")
    )
    out.test_output = strip_controls(_tail(done)) + f"\n[{status}]"


def _test_executable(words: list[str], where: Path) -> str | None:
    """The test command's executable: a relative path is the file in `where` (the project
    folder trust covers), a bare name is looked up on PATH (`_which`)."""
    if not words:
        return None
    first = words[0]
    if "/" in first and not os.path.isabs(first):
        candidate = where / first
        return str(candidate) if os.access(candidate, os.X_OK) else None
    return _which(first)


def _which(name: str) -> str | None:
    """`name` looked up on PATH as `shutil.which` does, but only in its absolute folders: an
    entry such as ``.`` would find a file of the folder the person happens to be in."""
    if "/" in name:
        return shutil.which(name)
    folders = [p for p in os.environ.get("PATH", os.defpath).split(os.pathsep) if os.path.isabs(p)]
    return shutil.which(name, path=os.pathsep.join(folders))


def _summary(done: ContainedRun, lines: int = _KEPT_LINES) -> str:
    """The last `lines` lines of a lead's standard output, control characters removed: its
    own summary, never its standard error (a CLI's transcript and warnings go there)."""
    text = strip_controls(done.out.decode("utf-8", "replace")).rstrip()
    return "\n".join(text.splitlines()[-lines:])


def _tail(done: ContainedRun, lines: int = _KEPT_LINES) -> str:
    """The last `lines` lines of a run's stdout and stderr together."""
    text = done.out.decode("utf-8", "replace").rstrip()
    if done.err.strip():
        text = (text + "\n[stderr]\n" if text else "[stderr]\n") + done.err.strip()
    return "\n".join(text.splitlines()[-lines:])
