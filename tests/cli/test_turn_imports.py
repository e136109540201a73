"""What `discussions turn` loads before its first provider starts: only what the calls need.
What only the answers need (posting them, the phase rules, the council, the journal) loads
while the providers think; the mock, replays, chat servers and the evidence readers load only
when used. Each costs start-up time before the first call of every turn; so does making a
dataclass (~0.3 ms each): the engine's and the command line's records are `Record`s."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import code, out, result_of, run, script_command

NOT_BEFORE_THE_CALLS = (
    "discussions.engine.turn.posting",
    "discussions.engine.turn.failures",
    "discussions.engine.turn.phases",
    "discussions.engine.council.motions",
    "discussions.model.journal",
    "discussions.engine.turn.followup",  # reads the answers: cap, echo, vote, follow-up
    "discussions.syntax.answers",
    "discussions.engine.prompt.fitting",  # only when a provider's window is known
    "hashlib",  # OpenSSL: `syntax.digest` gives the turn's digests
    "discussions.providers.mock",
    "discussions.providers.replay",
    "discussions.providers.server_window",
    "discussions.engine.evidence.sources",
    "discussions.engine.evidence.gitread",
    "discussions.git.confine",
    "discussions.syntax.evidence",
)


def _turn_loading(*args: str) -> tuple[subprocess.CompletedProcess[str], list[str], list[str]]:
    """Run `discussions ARGS` in a fresh interpreter: the result, the modules loaded when the
    first provider process was started (and after them, ``dataclass:`` and the classes made
    by `dataclasses` that the engine and the command line had defined by then), and those
    loaded at exit."""
    probe = (
        "import atexit, sys\n"
        "first = []\n"
        "def made():\n"
        "    dc = sys.modules.get('dataclasses')\n"
        "    return [f'dataclass:{m}.{n}' for m, mod in list(sys.modules.items())\n"
        "            if m.startswith(('discussions.engine', 'discussions.cli'))\n"
        "            for n, v in vars(mod).items() if isinstance(v, type)\n"
        "            and v.__module__ == m and dc is not None and dc.is_dataclass(v)]\n"
        "def hook(event, args):\n"
        "    if event == 'subprocess.Popen' and not first:\n"
        "        first.append(' '.join([*sorted(sys.modules), *made()]))\n"
        "sys.addaudithook(hook)\n"
        "def show():\n"
        "    print('\\nFIRST', first[0] if first else '', file=sys.stderr)\n"
        "    print('\\nEXIT', ' '.join(sorted(sys.modules)), file=sys.stderr)\n"
        "atexit.register(show)\n"
        f"sys.argv = ['discussions', *{list(args)!r}]\n"
        "from discussions.cli import main\n"
        "main()\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=dict(os.environ)
    )
    rest, _, at_exit = r.stderr.rpartition("\nEXIT ")
    _, _, at_first = rest.rpartition("\nFIRST ")
    return r, at_first.split(), at_exit.split()


@pytest.mark.slow
def test_a_turn_starts_its_providers_before_loading_what_the_answers_need(
    isolated: Path,
    providers_file,  # type: ignore[no-untyped-def]
) -> None:
    providers_file({"quick": script_command("answer.py", '{"comment": "Fine.", "vote": null}')})
    created = result_of(run("new", "Start-up", "--json"))
    path = str(created["file"])
    r, at_first, at_exit = _turn_loading(
        "turn", path, "@architect", "@security", "--provider", "quick"
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "posted via quick" in r.stdout
    assert "discussions.engine.turn.runner" in at_first  # the probe saw the turn's first call
    assert [m for m in NOT_BEFORE_THE_CALLS if m in at_first] == []
    assert [m for m in at_first if m.startswith("dataclass:")] == []
    assert "discussions.engine.turn.posting" in at_exit  # loaded for the answers after all
    assert "discussions.providers.mock" not in at_exit
    text = Path(path).read_text(encoding="utf-8")
    assert text.count("Fine.") == 2
    assert code(run("check", path)) == 0, out(run("check", path))


@pytest.mark.slow
def test_a_turn_after_another_parses_no_yaml_before_its_first_call(
    isolated: Path,
    providers_file,  # type: ignore[no-untyped-def]
) -> None:
    """The settings, personas, templates and providers.yaml the first turn parsed are kept
    (`settings.yamlcache`): the next turn's start neither parses them nor loads PyYAML. A
    persona changed between the turns is read again, and its new name is the one written."""
    providers_file({"quick": script_command("answer.py", '{"comment": "Fine.", "vote": null}')})
    path = str(result_of(run("new", "Warm start", "--json"))["file"])
    first, at_first, _ = _turn_loading("turn", path, "@architect", "--provider", "quick")
    assert first.returncode == 0, first.stdout + first.stderr
    assert "yaml" in at_first  # nothing kept yet: parsed, and kept at exit
    second, at_first, _ = _turn_loading("turn", path, "@architect", "--provider", "quick")
    assert second.returncode == 0, second.stdout + second.stderr
    assert "discussions.engine.turn.runner" in at_first
    assert [m for m in at_first if m == "yaml" or m.startswith("yaml.")] == []
    persona = isolated / "participants" / "architect.yaml"
    persona.parent.mkdir(exist_ok=True)
    persona.write_text(
        "name: AI-Builder\nalias: architect\nrole: Builds\npersonality: You build.\n",
        encoding="utf-8",
    )
    third, _, _ = _turn_loading("turn", path, "@architect", "--provider", "quick")
    assert third.returncode == 0, third.stdout + third.stderr
    assert "Name: AI-Builder" in Path(path).read_text(encoding="utf-8")
