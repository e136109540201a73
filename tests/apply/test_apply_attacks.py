"""A hostile lead (tests/scripts/lead.py) that knows where the user's repository is and aims at
it: through `discussions apply --yes`, as a person runs it, each attack the adversarial test of
issue 32 found must leave the user's repository, home and temp dir as they were. With
bubblewrap installed (it is in CI) the lead runs in the sandbox and every attack is prevented;
without it (`apply.sandbox: off`), the checks after the lead refuse what it did."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from discussions.cli import cli

from ..conftest import SCRIPTS, write, write_signed

pytestmark = pytest.mark.skipif(
    subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
    reason="git is not installed",
)
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")

DISCUSSION = """<!-- DISCUSSION -->
<!-- Title: Retry budget -->
<!-- Phase: initial_feedback -->
<!-- Status: DECIDED -->
<!-- Participants: lead -->

# Retry budget

---

Name: AI-Lead
DECISION: implement three tries in retry().

VOTE: READY

---
"""
ESC = "\x1b"


def git(cwd: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return proc.stdout


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


@pytest.fixture
def user_tmp(tmp_path: Path) -> Path:
    folder = tmp_path / "tmp"
    folder.mkdir()
    return folder


@pytest.fixture
def project(
    isolated: Path, tmp_path: Path, userdir: Path, user_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """A repository with a decided discussion, a submodule `sub` (its git folder in
    .git/modules/sub), the user's ~/.gitconfig and providers.yaml; the clone goes to a cache
    folder outside the home, so that the home is the user's alone."""
    home = Path(os.environ["HOME"])
    (home / ".gitconfig").write_text("[user]\n\tname = Test User\n\temail = test@example.com\n")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("TMPDIR", str(user_tmp))  # the user's temp dir, which the lead inherits
    monkeypatch.delenv("CI", raising=False)
    use_lead(userdir, "edit", user_tmp, tmp_path / "ran")
    script = tmp_path / "ran.sh"  # what a planted fsmonitor runs
    script.write_text(f"#!/bin/sh\necho ran >> {tmp_path / 'ran'}\n")
    script.chmod(0o755)
    write(
        isolated / "participants" / "lead.yaml",
        """
        name: AI-Lead
        alias: lead
        role: Implementer
        personality: Writes the code.
        capabilities: [logic]
        provider_hint: fakewrite
        """,
    )
    write(isolated / "discussions.yaml", "providers:\n  fallback: []\n  detect: false\n")
    write_signed(isolated / "discussions" / "retry.md", DISCUSSION)
    (isolated / "app.py").write_text("def retry():\n    return 1\n")
    git(isolated, "init", "-q", "-b", "main")
    library = tmp_path / "library"
    library.mkdir()
    git(library, "init", "-q", "-b", "main")
    (library / "lib.py").write_text("X = 1\n")
    git(library, "add", "-A")
    git(library, "commit", "-q", "-m", "lib")
    git(isolated, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library), "sub")
    git(isolated, "add", "-A")
    git(isolated, "commit", "-q", "-m", "first")
    return isolated


def use_lead(userdir: Path, mode: str, user_tmp: Path, marker: Path, **env: str) -> None:
    """The user's providers.yaml: `fakewrite` leads with lead.py MODE, aimed at the project."""
    lead = f"{sys.executable} {SCRIPTS / 'lead.py'} {mode}"
    values = {
        "LEAD_TARGET": os.getcwd(),
        "LEAD_USER_TMP": str(user_tmp),
        "LEAD_MARKER": str(marker),
        **env,
    }
    write(
        userdir / "providers.yaml",
        f"""
        providers:
          - name: fakewrite
            command: {sys.executable} -c "print('reads only')"
            write_command: {lead}
            write_env: {json.dumps(values)}
        """,
    )


def sandbox(root: Path, setting: str) -> None:
    write(
        root / "discussions.yaml",
        f"providers:\n  fallback: []\n  detect: false\napply:\n  sandbox: {setting}\n",
    )


def apply(mode: str, userdir: Path, user_tmp: Path, marker: Path, **env: str) -> Result:
    use_lead(userdir, mode, user_tmp, marker, **env)
    return invoke("apply", "discussions/retry.md", "--yes", "--json")


def record(r: Result) -> dict[str, object]:
    return json.loads(r.output[r.output.index("{") :])["apply"]  # type: ignore[no-any-return]


# --------------------------------------------------------------------------- prevented


@needs_bwrap
def test_a_lead_cannot_rewrite_a_loose_object_of_head(
    project: Path, userdir: Path, user_tmp: Path, tmp_path: Path
) -> None:
    """The worktree shared the user's object store: the lead replaced the object HEAD:app.py
    names, and `git show HEAD:app.py` printed the lead's text afterwards."""
    r = apply("object", userdir, user_tmp, tmp_path / "ran")
    assert git(project, "show", "HEAD:app.py") == "def retry():\n    return 1\n"
    assert "return 999" not in git(project, "show", "HEAD:app.py"), r.output


@needs_bwrap
def test_a_lead_cannot_plant_an_fsmonitor_in_a_submodules_git_folder(
    project: Path, userdir: Path, user_tmp: Path, tmp_path: Path
) -> None:
    """``core.fsmonitor`` written into .git/modules/sub/config: the user's next `git status`
    (which asks the submodule) ran the lead's program."""
    marker = tmp_path / "ran"
    apply("fsmonitor", userdir, user_tmp, marker)
    git(project, "status")
    assert not marker.exists()
    assert "fsmonitor" not in (project / ".git" / "modules" / "sub" / "config").read_text()


@needs_bwrap
def test_a_lead_cannot_plant_merge_head(
    project: Path, userdir: Path, user_tmp: Path, tmp_path: Path
) -> None:
    """A planted .git/MERGE_HEAD made the user's next commit a merge of the lead's commit."""
    apply("merge", userdir, user_tmp, tmp_path / "ran")
    assert not (project / ".git" / "MERGE_HEAD").exists()
    git(project, "commit", "-q", "--allow-empty", "-m", "mine")
    assert len(git(project, "log", "-1", "--format=%P").split()) == 1


@needs_bwrap
def test_a_lead_cannot_write_the_home_the_user_dir_or_the_temp_dir(
    project: Path, userdir: Path, user_tmp: Path, tmp_path: Path
) -> None:
    home = Path(os.environ["HOME"])
    gitconfig = (home / ".gitconfig").read_bytes()
    use_lead(userdir, "home", user_tmp, tmp_path / "ran")
    providers = (userdir / "providers.yaml").read_bytes()
    r = invoke("apply", "discussions/retry.md", "--yes", "--json")
    assert (home / ".gitconfig").read_bytes() == gitconfig, r.output
    assert (userdir / "providers.yaml").read_bytes() == providers
    apply("tmp", userdir, user_tmp, tmp_path / "ran")
    assert list(user_tmp.iterdir()) == []


def fingerprint(folder: Path, skip: tuple[Path, ...] = ()) -> dict[str, str]:
    """Every file and link under `folder` -> a hash of its content (or its target)."""
    found: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        if any(path == s or s in path.parents for s in skip):
            continue
        if path.is_symlink():
            found[path.relative_to(folder).as_posix()] = "link:" + os.readlink(path)
        elif path.is_file():
            found[path.relative_to(folder).as_posix()] = hashlib.sha256(
                path.read_bytes()
            ).hexdigest()
    return found


def ours(name: str) -> bool:
    """What the apply itself adds to the user's git folder: its branch, its reflog and the
    objects of its commit (fetched)."""
    return name.startswith(
        (
            ".git/objects/",
            ".git/refs/heads/discussions/apply/",
            ".git/logs/refs/heads/discussions/apply/",
        )
    )


@pytest.mark.slow
@needs_bwrap
def test_every_attack_at_once_changes_nothing_outside_the_clone(
    project: Path, userdir: Path, user_tmp: Path, tmp_path: Path
) -> None:
    """The user's repository (its git folder included), home and temp dir hashed before and
    after: only the apply's own branch and commit were added; no file changed."""
    marker = tmp_path / "ran"
    use_lead(userdir, "attack", user_tmp, marker)
    home = Path(os.environ["HOME"])
    journal = (userdir / "appends.jsonl", userdir / "appends.lock")  # our own record of appends
    before = [
        fingerprint(project),
        fingerprint(home),
        fingerprint(user_tmp),
        fingerprint(userdir, journal),
    ]
    r = invoke("apply", "discussions/retry.md", "--yes", "--json")
    rec = record(r)
    assert rec["result"] == "committed" and rec["sandbox"] == "bubblewrap", r.output
    repo, *others = [
        fingerprint(project),
        fingerprint(home),
        fingerprint(user_tmp),
        fingerprint(userdir, journal),
    ]
    changed = {k for k in {*before[0], *repo} if before[0].get(k) != repo.get(k)}
    assert {k for k in changed if not ours(k) and k != "discussions/retry.md"} == set()
    assert all(before[0][k] == repo[k] for k in before[0] if k.startswith(".git/objects/"))
    assert others == before[1:]
    said = str(rec["output"])
    for attack in ("overwrite_object", "plant_fsmonitor", "plant_merge", "write_home", "write_tmp"):
        assert attack in said, said  # each one was tried and refused by the file system
    git(project, "status")
    assert not marker.exists()


@pytest.mark.slow
@needs_bwrap
def test_the_consent_text_and_the_block_name_the_sandbox(project: Path) -> None:
    r = invoke("apply", "discussions/retry.md", "--dry-run")
    assert "Confinement: sandbox: bubblewrap" in r.output, r.output
    r = invoke("apply", "discussions/retry.md", "--yes")
    assert r.exit_code == 0, r.output
    text = (project / "discussions" / "retry.md").read_text()
    assert "| sandbox: bubblewrap |" in text and "; sandbox: bubblewrap*" in text


def test_a_required_sandbox_without_bubblewrap_is_refused_before_anyone_is_asked(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sandbox(project, "required")
    monkeypatch.setattr("discussions.engine.apply.sandbox.find_bubblewrap", lambda: "")
    r = invoke("apply", "discussions/retry.md")
    assert r.exit_code == 1 and "apply.sandbox is `required`" in r.output, r.output
    assert "install bubblewrap" in r.output
    assert "Let AI-Lead" not in r.output and "Nothing was run" in r.output
    r = invoke("apply", "discussions/retry.md", "--dry-run")
    assert "apply.sandbox is `required`" in r.output
    sandbox(project, "auto")
    r = invoke("apply", "discussions/retry.md", "--dry-run")
    assert "Confinement: no sandbox: install bubblewrap" in r.output, r.output


# --------------------------------------------------------------------------- the second line


@pytest.mark.parametrize(
    ("mode", "named"),
    [
        ("object", ".git/objects/"),
        ("fsmonitor", ".git/modules/sub/config changed"),
        ("merge", ".git/MERGE_HEAD changed"),
    ],
)
def test_without_a_sandbox_the_attack_is_found_and_refused(
    project: Path, userdir: Path, user_tmp: Path, tmp_path: Path, mode: str, named: str
) -> None:
    sandbox(project, "off")
    r = apply(mode, userdir, user_tmp, tmp_path / "ran")
    rec = record(r)
    assert rec["result"] == "refused-outside" and rec["sandbox"] == "none", r.output
    assert named in str(rec["reason"]) and rec["commit"] is None


# --------------------------------------------------------------------------- control sequences


@pytest.mark.slow
@pytest.mark.parametrize("status", ["0", "1"])
def test_no_terminal_control_sequence_reaches_a_stream_or_the_file(
    project: Path, userdir: Path, user_tmp: Path, tmp_path: Path, status: str
) -> None:
    """The lead prints an OSC title, an OSC 52 clipboard write and text hidden by SGR 8, on
    stdout and stderr: the output streamed to a non-terminal (here a pipe) and the APPLY block
    hold none of them (a failed apply wrote raw ESC bytes into the file); the block keeps the
    lead's own summary (stdout), not its stderr."""
    use_lead(userdir, "escapes", user_tmp, tmp_path / "ran", EXIT=status)
    r = invoke("apply", "discussions/retry.md", "--yes")  # streamed: stderr is not a terminal
    assert "done" in r.output and "hidden text" in r.output, r.output
    assert ESC not in r.output and "\x07" not in r.output and "ZWNobyBvd25lZA" not in r.output
    text = (project / "discussions" / "retry.md").read_text()
    assert ESC not in text and "\x07" not in text and "\ufffd" not in text
    block = text[text.index("<!-- APPLY:") :]
    assert "hidden text" in block and "summary" in block
    assert "warning" not in block.split("```", 1)[1]  # stderr stays out of what the lead said
    assert "ZWNobyBvd25lZA" not in text  # the clipboard payload is dropped, not shown
    assert ("result: failed" in block) == (status == "1")
    r = invoke("check", "discussions/retry.md")
    assert r.exit_code == 0, r.output


def test_check_reports_a_control_character_a_hand_edit_brings(project: Path) -> None:
    path = project / "discussions" / "retry.md"
    text = path.read_text()
    path.write_text(text.replace("DECISION: implement", "DECISION: \x1b]0;owned\x07implement"))
    lines = path.read_text().split("\n")
    line = next(n for n, t in enumerate(lines, 1) if t.startswith("DECISION: \x1b"))
    r = invoke("check", "discussions/retry.md")
    assert f"retry.md:{line}:" in r.output and "control character U+001B" in r.output, r.output
    assert ESC not in r.output  # the report shows the line number, not the byte


def test_a_bubblewrap_that_cannot_run_here_is_no_sandbox(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Installed but forbidden its namespaces (Ubuntu's AppArmor does so for unprivileged
    users): auto runs without it and says why; required refuses."""
    fake = tmp_path / "bwrap"
    fake.write_text(
        "#!/bin/sh\necho 'bwrap: No permissions to create a new namespace' >&2\nexit 1\n"
    )
    fake.chmod(0o755)
    monkeypatch.setattr("discussions.engine.apply.sandbox.find_bubblewrap", lambda: str(fake))
    r = invoke("apply", "discussions/retry.md", "--dry-run")
    assert "Confinement: no sandbox: bubblewrap cannot run here: bwrap: No permissions" in r.output
    sandbox(project, "required")
    r = invoke("apply", "discussions/retry.md", "--yes")
    assert r.exit_code == 1 and "bubblewrap cannot run here" in r.output, r.output
    assert "Nothing was run" in r.output and not (
        project / "discussions" / "retry.md"
    ).read_text().count("<!-- APPLY:")
