"""Providers whose children misbehave: daemons in new sessions, signals, timeouts that must hold."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from discussions.cli import cli
from discussions.errors import ProviderFailed, ProviderTimeout
from discussions.providers import CommandProvider, ProviderRequest, ProviderSpec
from discussions.providers.command import _GUARD, _setpriv, _with_pdeathsig, terminate_all

from ..conftest import script_command, write
from ..support.waiting import alive, kill_quietly, wait_dead, wait_pid


def call(
    command: str, timeout: float, *, explicit: bool = False, spec_timeout: float | None = None
) -> str:
    provider = CommandProvider(ProviderSpec(name="t", command=command, timeout=spec_timeout))
    request = ProviderRequest(prompt="hello", timeout=timeout, timeout_explicit=explicit)
    return provider.complete(request)


@pytest.mark.slow
@pytest.mark.parametrize("double", [False, True], ids=["setsid", "setsid-double-fork"])
def test_timeout_holds_when_a_daemon_in_a_new_session_keeps_the_pipes(
    tmp_path: Path, double: bool
) -> None:
    pidfile = tmp_path / "daemon"
    args = [str(pidfile), "hang", *(["double"] if double else [])]
    try:
        with pytest.raises(ProviderTimeout, match=r"timed out after 2s"):
            call(script_command("pf_daemon.py", *args), timeout=2)
        assert wait_dead(wait_pid(pidfile))  # escaped the group, killed all the same
    finally:
        if pidfile.exists():
            kill_quietly(int(pidfile.read_text()))


@pytest.mark.slow
@pytest.mark.parametrize("double", [False, True], ids=["setsid", "setsid-double-fork"])
def test_answer_returned_when_a_daemon_keeps_the_pipes_after_exit(
    tmp_path: Path, double: bool
) -> None:
    pidfile = tmp_path / "daemon"
    args = [str(pidfile), "answer", *(["double"] if double else [])]
    try:
        out = call(script_command("pf_daemon.py", *args), timeout=60)
        # the answer, not the 60 s timeout: the pipes are let go once the provider exits
        assert out == '{"comment": "answered while a daemon holds the pipes"}'
        assert wait_dead(wait_pid(pidfile))
    finally:
        if pidfile.exists():
            kill_quietly(int(pidfile.read_text()))


def test_terminate_all_reaches_a_daemon_in_a_new_session(tmp_path: Path) -> None:
    pidfile = tmp_path / "daemon"
    errors: list[BaseException] = []

    def run() -> None:
        try:
            call(script_command("pf_daemon.py", str(pidfile), "hang", "double"), timeout=120)
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    t = threading.Thread(target=run)
    t.start()
    try:
        daemon = wait_pid(pidfile)
        assert terminate_all() == 1
        t.join(timeout=30)
        assert not t.is_alive()
        assert isinstance(errors[0], ProviderFailed) and "SIGKILL" in str(errors[0])
        assert wait_dead(daemon)
    finally:
        kill_quietly(int(pidfile.read_text()))
        t.join(timeout=30)


def test_a_call_stopped_between_its_fork_and_its_registration_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ctrl-C landing after a call's process was forked but before `terminate_all` could see
    the call (a thread of a turn still between the two under load): the call is ended all the
    same, instead of running out its answer while the run waits for it (the run hung)."""
    from discussions.providers import escapes

    started = escapes.start_tick  # read between the fork and the registration

    def stop_there(pid: int) -> int:
        terminate_all()
        return started(pid)

    monkeypatch.setattr(escapes, "start_tick", stop_there)
    with pytest.raises(ProviderFailed, match="SIGKILL"):
        call(script_command("answer.py", '{"comment": "never seen"}', "30"), timeout=60)


# -- the command line's --timeout wins over the provider's own ----------------------------------


@pytest.mark.slow
def test_explicit_timeout_overrides_the_provider_timeout(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    with pytest.raises(ProviderTimeout, match=r"timed out after 1s"):
        call(script_command("pf_hang_self.py", str(pidfile)), 1, explicit=True, spec_timeout=60)
    assert wait_dead(wait_pid(pidfile))


@pytest.mark.slow
def test_provider_timeout_applies_without_an_explicit_one(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    with pytest.raises(ProviderTimeout, match=r"timed out after 1s"):
        call(script_command("pf_hang_self.py", str(pidfile)), 300, spec_timeout=1)
    assert wait_dead(wait_pid(pidfile))


@pytest.mark.slow
def test_providers_test_timeout_option_wins(providers_file, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    pidfile = tmp_path / "pid"
    providers_file({"slow": script_command("pf_hang_self.py", str(pidfile))}, slow={"timeout": 60})
    r = CliRunner().invoke(cli, ["providers", "test", "slow", "--timeout", "1"])
    assert r.exit_code == 1
    assert r.output == "Error: slow: timed out after 1s; process group killed\n"
    assert wait_dead(wait_pid(pidfile))


# -- signals ------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("armed_by", ["setpriv", "preexec"])
def test_provider_dies_with_a_killed_parent(tmp_path: Path, armed_by: str) -> None:
    """SIGKILL leaves no chance to clean up; PR_SET_PDEATHSIG makes the kernel do it, armed
    by ``setpriv`` or, where it is not on PATH, by a preexec function."""
    if not sys.platform.startswith("linux"):
        pytest.skip("PR_SET_PDEATHSIG is Linux only")
    if armed_by == "setpriv" and _setpriv() is None:
        pytest.skip("setpriv with --pdeathsig is not installed")
    env = {**os.environ, "PATH": str(tmp_path)} if armed_by == "preexec" else None
    pidfile = tmp_path / "pid"
    child_cmd = [sys.executable, str(Path(__file__).parent.parent / "scripts" / "pf_hang_self.py")]
    parent = subprocess.Popen(
        [sys.executable, str(Path(__file__).parent.parent / "scripts" / "pf_parent.py"), *child_cmd]
        + [str(pidfile)],
        env=env,
    )
    try:
        pid = wait_pid(pidfile)
        assert alive(pid)
        parent.kill()
        parent.wait(timeout=30)
        assert wait_dead(pid, 10)
    finally:
        parent.kill()
        parent.wait(timeout=30)
        if pidfile.exists():
            kill_quietly(int(pidfile.read_text()))


def test_a_command_whose_parent_died_before_the_signal_was_armed_does_not_run(
    tmp_path: Path,
) -> None:
    """The window between fork and ``setpriv`` arming the death signal: a command whose
    parent is no longer the process that started it stops before it runs."""
    setpriv = _setpriv()
    if setpriv is None:
        pytest.skip("setpriv with --pdeathsig is not installed")
    ran = tmp_path / "ran"
    not_our_parent = "1"
    argv = [setpriv, "--pdeathsig", "KILL", "--", "/bin/sh", "-c", _GUARD, "sh", not_our_parent]
    r = subprocess.run([*argv, "/bin/sh", "-c", f"touch {ran}"], timeout=30)
    assert r.returncode == 137 and not ran.exists()
    mine = subprocess.run(
        [*argv[:-1], str(os.getpid()), "/bin/sh", "-c", f"touch {ran}"], timeout=30
    )
    assert mine.returncode == 0 and ran.exists()


def test_the_spawn_needs_no_preexec_function_where_setpriv_arms_the_signal() -> None:
    """A ``preexec_fn`` forces Python's slow fork path (the whole process copied, the
    interpreter lock held): with setpriv the spawn goes without one."""
    if not sys.platform.startswith("linux") or _setpriv() is None:
        pytest.skip("setpriv with --pdeathsig is not installed")
    argv, preexec = _with_pdeathsig(["/bin/true", "x"])
    assert preexec is None and argv[-2:] == ["/bin/true", "x"] and argv[0] == _setpriv()


@pytest.mark.slow
def test_install_signal_handlers_for_library_hosts(tmp_path: Path) -> None:
    """A program using the library directly gets the same guarantee from one call."""
    pidfile = tmp_path / "pids"
    scripts = Path(__file__).parent.parent / "scripts"
    host = subprocess.Popen(
        [sys.executable, str(scripts / "pf_parent.py"), "--handlers"]
        + [sys.executable, str(scripts / "hang.py"), str(pidfile)],
        stderr=subprocess.PIPE,
    )
    try:
        grandchild = wait_pid(pidfile)
        host.send_signal(signal.SIGTERM)
        _, err = host.communicate(timeout=30)
        assert host.returncode == 128 + signal.SIGTERM, err.decode()
        assert b"Traceback" not in err
        assert wait_dead(grandchild)
    finally:
        host.kill()
        host.communicate(timeout=30)
        if pidfile.exists():
            kill_quietly(int(pidfile.read_text()))


@pytest.mark.slow
@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_signal_to_turn_kills_the_provider_and_exits_cleanly(
    isolated: Path, userdir: Path, tmp_path: Path, signame: str
) -> None:
    pidfile = tmp_path / "pids"
    write(
        userdir / "providers.yaml",
        f"providers:\n  - name: stuck\n    command: {script_command('hang.py', str(pidfile))!r}\n",
    )
    write(isolated / "discussions.yaml", "providers:\n  default: stuck\n")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parents[1] / "src")}
    subprocess.run(
        [sys.executable, "-m", "discussions", "new", "Auth"], check=True, env=env, timeout=60
    )
    cli = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "discussions",
            "turn",
            "auth.md",
            "@architect",
            "--provider",
            "stuck",
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        grandchild = wait_pid(pidfile)
        cli.send_signal(getattr(signal, signame))
        _, err = cli.communicate(timeout=30)
        assert cli.returncode == 128 + getattr(signal, signame)
        assert b"Traceback" not in err, err.decode()
        assert wait_dead(grandchild)
    finally:
        cli.kill()
        cli.communicate(timeout=30)
        if pidfile.exists():
            kill_quietly(int(pidfile.read_text()))
