"""What `discussions status` loads: only what a status needs. The evidence rules, the
budgets, the project set-up, the engine, the providers and (with no revisit condition in the
folder) the memory and the ledger stay unloaded (each costs start-up time on every run)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import code, out, result_of, run

NOT_FOR_STATUS = (
    "hashlib",
    "discussions.syntax.evidence",
    "discussions.derive.evidence",
    "discussions.model.budget",
    "discussions.git.setup",
    "discussions.engine",
    "discussions.providers",
    "discussions.model.memory",  # no other discussion holds a REVISIT-WHEN: condition
    "discussions.model.ledger",
)


def _loaded_by(*args: str) -> tuple[str, list[str]]:
    """Run `discussions ARGS` in a fresh interpreter: its output and the modules it loaded
    (printed at exit, after the command's own output)."""
    probe = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('\\nMODULES', ' '.join(sorted(sys.modules))))\n"
        f"sys.argv = ['discussions', *{list(args)!r}]\n"
        "from discussions.cli import main\n"
        "main()\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=dict(os.environ)
    )
    assert r.returncode == 0, r.stderr
    output, _, modules = r.stdout.rpartition("\nMODULES ")
    return output, modules.split()


def _unneeded(modules: list[str]) -> list[str]:
    return [m for m in modules if any(m == n or m.startswith(n + ".") for n in NOT_FOR_STATUS)]


@pytest.mark.parametrize("as_json", [False, True])
def test_status_loads_only_what_it_needs(isolated: Path, as_json: bool) -> None:
    created = result_of(run("new", "Start-up", "--json"))
    path = str(created["file"])
    assert code(run("comment", path, "Looks right.", "--author", "Robin", "--vote", "READY")) == 0
    output, modules = _loaded_by("status", path, *(["--json"] if as_json else []))
    assert "discussions.views.status" in modules
    assert _unneeded(modules) == []
    if as_json:
        assert json.loads(output)["votes"] == {"Robin": "READY"}
    else:
        assert "Robin" in output


@pytest.mark.slow
def test_status_of_a_file_with_evidence_loads_the_evidence_rules(isolated: Path) -> None:
    created = result_of(run("new", "Evidence", "--json"))
    path = str(created["file"])
    r = run("comment", path, "Please look.\n\nEVIDENCE: read README.md", "--author", "Robin")
    assert code(r) == 0, out(r)
    output, modules = _loaded_by("status", path, "--json")
    assert "discussions.derive.evidence" in modules
    evidence = json.loads(output)["evidence"]
    assert [e["status"] for e in evidence] == ["pending"]
