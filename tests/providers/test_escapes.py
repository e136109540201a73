"""Escaped descendants of provider commands: found and killed per call, or once per turn."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from discussions import Discussion, Runner
from discussions.cli import cli
from discussions.providers import CommandProvider, ProviderRequest, ProviderSpec, escapes

from ..conftest import script_command, write
from ..support.waiting import kill_quietly, wait_dead, wait_pid


def test_a_quiet_daemon_dies_when_a_call_outside_a_turn_ends(tmp_path: Path) -> None:
    pidfile = tmp_path / "daemon"
    provider = CommandProvider(
        ProviderSpec(name="t", command=script_command("pf_quiet_daemon.py", str(pidfile)))
    )
    try:
        out = provider.complete(ProviderRequest(prompt="hello", timeout=60))
        assert "let go of the pipes" in out
        assert wait_dead(wait_pid(pidfile))
    finally:
        if pidfile.exists():
            kill_quietly(int(pidfile.read_text()))


def test_quiet_daemons_of_a_turn_die_with_one_search_for_all(
    isolated: Path, providers_file, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """Three calls that end cleanly: their escaped daemons are killed by the end of the turn,
    and ``/proc`` is searched once for the three (it was searched after each call)."""
    assert CliRunner().invoke(cli, ["new", "Auth"]).exit_code == 0
    pids = tmp_path / "daemons"
    pids.mkdir()
    providers_file({"quiet": script_command("pf_quiet_daemon.py", str(pids))})
    write(isolated / "discussions.yaml", "providers:\n  default: quiet\n  detect: false\n")
    searches: list[int] = []
    stop = escapes.stop_escaped

    def counted(calls: list[escapes.Call]) -> set[int]:
        searches.append(len(calls))
        return stop(calls)

    monkeypatch.setattr(escapes, "stop_escaped", counted)
    d = Discussion.load(isolated / "discussions" / "auth.md")
    try:
        result = Runner(d.workspace).run_turn(d, ["architect", "security", "pragmatist"])
        assert [o.status for o in result.outcomes] == ["posted"] * 3
        assert searches == [3]  # one search for the three calls
        daemons = [int(p.read_text()) for p in pids.iterdir()]
        assert len(daemons) == 3
        assert all(wait_dead(pid, 0.5) for pid in daemons)  # dead when the turn returns
    finally:
        for p in pids.iterdir():
            kill_quietly(int(p.read_text()))
