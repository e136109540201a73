"""`discussions init`'s setup wizard: the AI CLIs found on PATH (stand-ins that answer
``--version``, fail, or hang), a model server on loopback (a chat-completions stub listing its
models, as Ollama and llama.cpp do), a tiny real call to each, and the choice written into
discussions.yaml with every line of the person's kept; on a terminal, the questions asked and
answered at a real pseudo-terminal."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from discussions.settings.yamledit import append_items, set_keys

from ..conftest import code, out, result_of, run, write
from ..support.dialogue import converse
from ..support.openai_stub import StubServer, serve

_FAKE = """#!/bin/sh
echo "$0 $*" >> "{log}"
if [ "$1" = "--version" ]; then {version}; fi
echo "not logged in" >&2
exit 3
"""


def _fake(bin_dir: Path, name: str, version: str, log: Path) -> None:
    path = bin_dir / name
    path.write_text(_FAKE.format(log=log, version=version))
    path.chmod(0o755)


@pytest.fixture
def tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Stand-ins for claude and codex (answer --version, fail any call) first on a PATH that
    holds nothing else but git and sh; returns the log of their calls."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.log"
    _fake(bin_dir, "claude", 'echo "9.1.0 (Claude Code)"; exit 0', log)
    _fake(bin_dir, "codex", 'echo "codex-cli 0.99.0"; exit 0', log)
    system = os.pathsep.join(
        sorted({str(Path(shutil.which(p) or "/bin/sh").parent) for p in ("git", "sh")})
    )
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{system}")
    return log


@pytest.fixture
def server() -> Iterator[StubServer]:
    """A model server on loopback listing one model and answering chat calls."""
    stub = StubServer(mode="json", answer="ready", models={"data": [{"id": "qwen2.5:0.5b"}]})
    with serve(stub) as running:
        yield running


def _settings(project: Path) -> dict[str, object]:
    return yaml.safe_load((project / "discussions.yaml").read_text())["providers"]  # type: ignore[no-any-return]


def test_yes_finds_tries_and_writes_the_tools_that_answer(
    tools: Path, server: StubServer, isolated: Path, userdir: Path
) -> None:
    _fake(tools.parent / "bin", "gemini", "exec sleep 60", tools)  # never answers --version
    r = run("init", "--no-git", "--yes", "--json", "--server", server.base_url)
    assert code(r) == 0, out(r)
    found = {t["name"]: t for t in result_of(r)["providers"]["found"]}  # type: ignore[index]
    assert found["claude"]["detail"] == "9.1.0 (Claude Code)"
    assert found["claude"]["test"].startswith("failed")
    assert found["codex"]["test"].startswith("failed")
    assert not found["gemini"]["usable"]  # --version never answered: killed, left out
    name = f"server-{server.port}"
    assert found[name]["test"] == "ok"
    settings = _settings(isolated)
    assert (settings["default"], settings["fallback"], settings["personas"]) == (name, [], {})
    # the server is defined for this user (no trust needed), and a call reaches it
    defined = yaml.safe_load((userdir / "providers.yaml").read_text())["providers"]
    assert defined[0]["base_url"] == server.base_url and defined[0]["model"] == "qwen2.5:0.5b"
    tried = run("providers", "test", name, "--json")
    assert code(tried) == 0 and result_of(tried)["answer"] == "ready"


def test_no_test_spreads_the_voting_personas_over_vendors(
    tools: Path, server: StubServer, isolated: Path
) -> None:
    r = run("init", "--no-git", "--yes", "--no-test", "--json", "--server", server.base_url)
    assert code(r) == 0, out(r)
    settings = _settings(isolated)
    name = f"server-{server.port}"
    assert settings["default"] == "claude" and settings["fallback"] == ["codex", name]
    personas = settings["personas"]
    assert isinstance(personas, dict)
    assert personas["architect"] == "claude" and personas["security"] == "codex"
    assert personas["pragmatist"] == name
    assert set(personas.values()) == {"claude", "codex", name}
    # the chain each persona now tries starts with its own provider
    chains = result_of(run("providers", "list", "--json"))["chains"]
    assert [c["name"] for c in chains["security"]][:2] == ["codex", "claude"]  # type: ignore[index]
    assert "claude --version" in tools.read_text().replace(str(tools.parent / "bin") + "/", "")


def test_without_a_terminal_or_flags_no_tool_is_run(tools: Path, isolated: Path) -> None:
    r = run("init", "--no-git")
    assert code(r) == 0, out(r)
    assert not tools.exists()  # not even --version
    assert _settings(isolated)["default"] is None


def test_flags_name_the_chain_and_a_failing_test_writes_nothing(
    tools: Path, server: StubServer, isolated: Path
) -> None:
    before = run("init", "--no-git")
    assert code(before) == 0
    text = (isolated / "discussions.yaml").read_text()
    r = run("init", "--no-git", "--provider", "codex", "--server", server.base_url)
    assert code(r) == 1 and "codex did not answer a test call" in out(r)
    assert (isolated / "discussions.yaml").read_text() == text
    unknown = run("init", "--no-git", "--provider", "nosuch", "--no-test")
    assert code(unknown) != 0 and "no provider named 'nosuch'" in out(unknown)
    name = f"server-{server.port}"
    ok = run(
        "init", "--no-git", "--provider", "mock", "--fallback", name, "--server", server.base_url
    )
    assert code(ok) == 0, out(ok)
    assert _settings(isolated)["default"] == "mock" and _settings(isolated)["fallback"] == [name]


def test_the_wizard_on_a_terminal_keeps_what_the_file_held(
    tools: Path, server: StubServer, isolated: Path, git_identity: Path
) -> None:
    write(
        isolated / "discussions.yaml",
        """
        # our team's settings
        consensus:
          threshold_ready: 0.5   # we are few
        providers:
          timeout: 120  # slow laptop
        """,
    )
    name = f"server-{server.port}"
    talk = converse(
        ["init", "--no-git", "--server", server.base_url],
        [("Providers [", f"{name}, claude\r"), ("Write this into discussions.yaml?", "y\r")],
        env={"PATH": os.environ["PATH"]},
    )
    assert talk.code == 0 and not talk.unanswered, talk.output
    assert "9.1.0 (Claude Code)" in talk.output and "[ok]" in talk.output
    assert "[failed: " in talk.output  # claude and codex fail their test calls here
    text = (isolated / "discussions.yaml").read_text()
    assert text.startswith("# our team's settings\nconsensus:\n  threshold_ready: 0.5   # we are")
    assert "  timeout: 120  # slow laptop\n" in text
    settings = _settings(isolated)
    assert settings["default"] == name and settings["fallback"] == ["claude"]
    assert settings["personas"]["architect"] == name  # type: ignore[index]
    assert settings["personas"]["security"] == "claude"  # type: ignore[index]


def test_on_a_terminal_no_writes_nothing(tools: Path, server: StubServer, isolated: Path) -> None:
    talk = converse(
        ["init", "--no-git", "--no-test", "--server", server.base_url],
        [("Providers [", "\r"), ("Write this into discussions.yaml?", "n\r")],
    )
    assert talk.code == 0 and not talk.unanswered, talk.output
    assert _settings(isolated)["default"] is None


def test_setting_keys_keeps_every_other_line(tmp_path: Path) -> None:
    path = write(
        tmp_path / "d.yaml",
        """
        a: 1  # one
        providers: {default: x}
        # tail comment
        b:
        - 1
        """,
    )
    assert set_keys(path, "providers", {"fallback": ["y", "z"], "personas": {"p": "y"}})
    assert path.read_text() == (
        "a: 1  # one\nproviders:\n  default: x\n  fallback: [y, z]\n  personas: {p: y}\n"
        "# tail comment\nb:\n- 1\n"
    )
    assert not set_keys(path, "providers", {"default": "x"})  # nothing to do
    items = write(tmp_path / "p.yaml", "# mine\nproviders:\n- name: a\n  command: b  # c\nz: 1\n")
    append_items(items, "providers", [{"name": "s", "command": "t u"}])
    assert items.read_text() == (
        "# mine\nproviders:\n- name: a\n  command: b  # c\n- name: s\n  command: t u\nz: 1\n"
    )
    assert json.dumps(yaml.safe_load(items.read_text()))  # still YAML


def test_on_a_terminal_with_nothing_working_the_settings_are_kept(
    tools: Path, isolated: Path
) -> None:
    write(isolated / "discussions.yaml", "providers:\n  default: claude-haiku  # ours\n")
    before = (isolated / "discussions.yaml").read_text()
    talk = converse(
        ["init", "--no-git", "--server", "http://127.0.0.1:9/v1"], [("Providers [keep]", "\r")]
    )
    assert talk.code == 0 and not talk.unanswered, talk.output
    assert "Providers left as they are." in talk.output
    assert (isolated / "discussions.yaml").read_text() == before


def test_on_a_terminal_a_name_not_known_is_asked_again(
    tools: Path, server: StubServer, isolated: Path
) -> None:
    name = f"server-{server.port}"
    talk = converse(
        ["init", "--no-git", "--no-test", "--server", server.base_url],
        [
            ("Providers [", "cladue\r"),  # a typo: said, then asked again
            ("Providers [", f"{name}\r"),
            ("Write this into discussions.yaml?", "y\r"),
        ],
    )
    assert talk.code == 0 and not talk.unanswered, talk.output
    assert "no provider named 'cladue'" in talk.output
    assert _settings(isolated)["default"] == name


def test_a_server_url_is_checked_and_one_that_does_not_answer_is_named(
    tools: Path, isolated: Path
) -> None:
    bad = run("init", "--no-git", "--yes", "--server", "localhost:8000/v1")
    assert code(bad) == 2 and "--server" in out(bad) and "localhost:8000/v1" in out(bad)
    silent = run("init", "--no-git", "--yes", "--no-test", "--server", "http://127.0.0.1:9/v1")
    assert code(silent) == 0
    assert "no model server answered at http://127.0.0.1:9/v1" in out(silent), out(silent)


def test_the_test_calls_say_how_long_they_may_take(tools: Path, isolated: Path) -> None:
    """A CLI that is not logged in may wait out the whole limit (codex does): said first."""
    r = run("init", "--no-git", "--yes", "--server", "http://127.0.0.1:9/v1")
    assert code(r) == 0, out(r)
    assert "a tiny real call, 90 s at most (--no-test skips this)" in out(r), out(r)
