"""Which providers a participant tries: configured ones first, then the AI CLIs found on PATH."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from discussions.cli import cli
from discussions.providers import ProviderRegistry
from discussions.providers.chains import provider_chain
from discussions.providers.kinds.command import find_executable
from discussions.providers.presets import DETECT_ORDER

from ..conftest import script_command, write


@pytest.fixture
def path_bin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """Put executables of the given names (and nothing else) on PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))

    def install(*names: str) -> Path:
        for name in names:
            exe = bin_dir / name
            exe.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
            exe.chmod(0o755)
        return bin_dir

    return install


def chain(**kw: object) -> list[str]:
    args: dict[str, object] = {"hint": "claude-sonnet", "default": None, "fallbacks": []}
    args.update(kw)
    return provider_chain(ProviderRegistry.load(None), **args)  # type: ignore[arg-type]


def test_installed_cli_follows_the_missing_hint(path_bin) -> None:  # type: ignore[no-untyped-def]
    path_bin("codex")
    assert chain() == ["claude-sonnet", "codex"]


def test_detection_order_one_preset_per_family(path_bin) -> None:  # type: ignore[no-untyped-def]
    path_bin("ollama", "llm", "agy", "gemini", "opencode", "codex")
    assert chain() == ["claude-sonnet", "codex", "agy", "gemini", "opencode", "llm", "ollama"]
    assert DETECT_ORDER[:3] == ("claude", "codex", "agy")


def test_no_detection_when_a_configured_provider_is_installed(path_bin) -> None:  # type: ignore[no-untyped-def]
    path_bin("claude", "codex")
    assert chain(default="gemini", fallbacks=["llm"]) == ["claude-sonnet", "gemini", "llm"]


def test_detection_switched_off(path_bin) -> None:  # type: ignore[no-untyped-def]
    path_bin("codex")
    assert chain(detect=False) == ["claude-sonnet"]


def test_forced_provider_alone(path_bin) -> None:  # type: ignore[no-untyped-def]
    path_bin("codex")
    assert chain(forced="gemini", default="llm") == ["gemini"]


def test_no_duplicates(path_bin) -> None:  # type: ignore[no-untyped-def]
    path_bin("codex")
    assert chain(default="codex", fallbacks=["claude-sonnet", "codex"]) == [
        "claude-sonnet",
        "codex",
    ]
    path_bin("ollama")
    assert chain(default="ollama", fallbacks=["gemini"]) == ["claude-sonnet", "ollama", "gemini"]


def test_nothing_configured_nothing_installed_is_the_mock(path_bin) -> None:  # type: ignore[no-untyped-def]
    path_bin()
    assert chain(hint=None) == ["mock"]


def test_nothing_configured_uses_what_is_installed(path_bin) -> None:  # type: ignore[no-untyped-def]
    path_bin("llm")
    assert chain(hint=None) == ["llm"]


def test_detection_is_cached_per_path_value(path_bin, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    bin_dir = path_bin("codex")
    assert find_executable("codex") == str(bin_dir / "codex")
    (bin_dir / "codex").unlink()
    assert find_executable("codex") == str(bin_dir / "codex")  # cached in this process
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{bin_dir}")
    assert find_executable("codex") is None  # another PATH is looked up afresh


def test_providers_list_shows_each_participants_chain(path_bin) -> None:  # type: ignore[no-untyped-def]
    path_bin("codex")
    r = CliRunner().invoke(cli, ["providers", "list"])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert "Chains:" in lines
    assert "  architect: claude-sonnet (missing) -> codex (installed)" in lines
    assert next(ln for ln in lines if ln.startswith("agy ")).split()[1] == "missing"

    data = json.loads(CliRunner().invoke(cli, ["providers", "list", "--json"]).output)
    assert {"name": "codex", "status": "installed"} in data["chains"]["architect"]
    assert any(p["name"] == "agy" for p in data["providers"])
    assert data["mock_fallback"] is True


def test_providers_list_mock_when_nothing_is_installed(path_bin, isolated: Path) -> None:  # type: ignore[no-untyped-def]
    path_bin()
    r = CliRunner().invoke(cli, ["providers", "list"])
    assert "  architect: claude-sonnet (missing) -> mock (nothing installed)" in r.output


def test_providers_list_honours_detect_false(path_bin, isolated: Path) -> None:  # type: ignore[no-untyped-def]
    write(isolated / "discussions.yaml", "providers:\n  detect: false\n")
    path_bin("codex")
    r = CliRunner().invoke(cli, ["providers", "list"])
    assert r.exit_code == 0, r.output
    assert "  architect: claude-sonnet (missing) -> mock (nothing installed)" in r.output


def test_user_provider_hint_is_installed_by_its_executable(
    path_bin, providers_file, isolated: Path
) -> None:  # type: ignore[no-untyped-def]
    path_bin("codex")
    providers_file({"mine": script_command("answer.py", "hi")})
    write(isolated / "discussions.yaml", "providers:\n  default: mine\n")
    r = CliRunner().invoke(cli, ["providers", "list"])
    # providers.default goes before the hint of a bundled persona
    assert "  architect: mine (installed) -> claude-sonnet (missing)" in r.output


def test_agy_preset_reads_the_prompt_from_stdin() -> None:
    agy = ProviderRegistry.load(None).specs["agy"]
    assert agy.command == "agy --mode plan --sandbox"
    assert "-p" not in (agy.command or "").split()  # -p would take the prompt in argv


def test_the_default_goes_before_a_bundled_personas_hint(
    path_bin, providers_file, isolated: Path
) -> None:  # type: ignore[no-untyped-def]
    """`init` comments providers.default "Provider to try first", but the bundled personas'
    claude-sonnet went first: every call said it was not installed (issue 34, item 6)."""
    from discussions import Discussion

    path_bin()
    providers_file({"mine": script_command("answer.py", '{"comment": "Fine.", "vote": null}')})
    write(isolated / "discussions.yaml", "providers:\n  default: mine\n  detect: false\n")
    r = CliRunner().invoke(cli, ["new", "Auth"])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(cli, ["turn", "auth.md", "@all"])
    assert r.exit_code == 0, r.output
    assert "claude" not in r.output and "not installed" not in r.output
    d = Discussion.load(isolated / "discussions" / "auth.md")
    assert [c.meta["provider"] for c in d.comments] == ["mine"] * 3
    assert all("failed" not in c.meta for c in d.comments)


def test_a_personas_own_hint_still_goes_first(path_bin, providers_file, isolated: Path) -> None:  # type: ignore[no-untyped-def]
    """A persona file of the project naming a provider is the more specific setting."""
    path_bin()
    providers_file(
        {"mine": script_command("answer.py", "hi"), "own": script_command("answer.py", "x")}
    )
    write(isolated / "discussions.yaml", "providers:\n  default: mine\n")
    write(
        isolated / "participants" / "security.yaml",
        "name: AI-Security\nalias: security\nrole: Sec\npersonality: p\nprovider_hint: own\n",
    )
    r = CliRunner().invoke(cli, ["providers", "list"])
    assert "  security: own (installed) -> mine (installed)" in r.output
    assert "  architect: mine (installed) -> claude-sonnet (missing)" in r.output


@pytest.mark.slow
@pytest.mark.parametrize(
    "command", [["turn", "auth.md", "@all"], ["run", "auth.md", "--rounds", "2"]]
)
def test_a_missing_preferred_cli_is_said_once_per_command(
    path_bin, providers_file, isolated: Path, command: list[str]
) -> None:  # type: ignore[no-untyped-def]
    path_bin()
    providers_file({"mine": script_command("answer.py", '{"comment": "Fine.", "vote": null}')})
    write(isolated / "discussions.yaml", "providers:\n  fallback: [mine]\n  detect: false\n")
    assert CliRunner().invoke(cli, ["new", "Auth"]).exit_code == 0
    r = CliRunner().invoke(cli, command)
    assert r.exit_code == 0, r.output
    assert r.output.count("claude-sonnet: not installed") == 1, r.output
    assert r.output.count("trying the next provider") == 1, r.output
    assert "after claude-sonnet failed" not in r.output  # no call was made
