"""`prompt_via: argument`: the prompt as a command's last argument, never through a shell."""

from __future__ import annotations

import errno
import json
import subprocess
import sys
from pathlib import Path

import pytest

from discussions.errors import ConfigError, ProviderFailed
from discussions.providers import CommandProvider, ProviderRegistry, ProviderRequest, ProviderSpec
from discussions.providers.argv_prompt import MAX_ARG_STRLEN
from discussions.providers.presets import DETECT_ORDER, PRESETS

from ..conftest import script_command, write

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux limits")


def report(command: str, prompt: str, **spec: object) -> dict[str, object]:
    provider = CommandProvider(
        ProviderSpec(name="arg", command=command, prompt_via="argument", **spec)  # type: ignore[arg-type]
    )
    answer = json.loads(provider.complete(ProviderRequest(prompt=prompt, timeout=20)))
    data: dict[str, object] = json.loads(answer["comment"])
    return data


def test_the_prompt_is_the_last_argument_and_stdin_is_empty(isolated: Path) -> None:
    prompt = "Review this: $(touch pwned) `touch pwned2`; rm -rf x && echo 'quoted' \"too\"\nline 2"
    got = report(script_command("argv_prompt.py", "--mode", "ask"), prompt)
    assert got["args"] == ["--mode", "ask"]
    assert got["last_len"] == len(prompt) and got["last"] == prompt[:80]
    assert got["stdin_len"] == 0
    assert not (isolated / "pwned").exists() and not (isolated / "pwned2").exists()


@linux_only
def test_the_prompt_is_visible_in_the_process_list() -> None:
    assert report(script_command("argv_prompt.py"), "a secret design")["in_cmdline"] is True


@linux_only
def test_the_largest_argument_linux_takes_goes_through() -> None:
    got = report(script_command("argv_prompt.py"), "x" * (MAX_ARG_STRLEN - 1))
    assert got["last_len"] == MAX_ARG_STRLEN - 1


@linux_only
def test_one_byte_more_is_refused_before_anything_runs(isolated: Path) -> None:
    # The bound is the kernel's: execve itself refuses such an argument.
    with pytest.raises(OSError) as exc:
        subprocess.run(["true", "x" * MAX_ARG_STRLEN], check=False)
    assert exc.value.errno == errno.E2BIG
    provider = CommandProvider(ProviderSpec(name="arg", command="touch ran", prompt_via="argument"))
    with pytest.raises(ProviderFailed, match="131,072 bytes; as one argument Linux accepts"):
        provider.complete(ProviderRequest(prompt="é" * (MAX_ARG_STRLEN // 2), timeout=5))
    assert not (isolated / "ran").exists()


def test_a_nul_byte_is_refused() -> None:
    provider = CommandProvider(ProviderSpec(name="arg", command="true", prompt_via="argument"))
    with pytest.raises(ProviderFailed, match="NUL byte"):
        provider.complete(ProviderRequest(prompt="a\0b", timeout=5))


def test_stdin_stays_the_default(isolated: Path) -> None:
    provider = CommandProvider(ProviderSpec(name="s", command=script_command("argv_prompt.py")))
    answer = json.loads(provider.complete(ProviderRequest(prompt="on stdin", timeout=20)))
    assert json.loads(answer["comment"])["stdin_len"] == len("on stdin")


def test_prompt_via_is_read_from_providers_yaml(userdir: Path) -> None:
    path = write(
        userdir / "providers.yaml",
        """
        providers:
          - name: mine
            command: my-cli -p
            prompt_via: argument
        """,
    )
    assert ProviderRegistry.load(None).specs["mine"].prompt_via == "argument"
    path.write_text(path.read_text().replace("argument", "argv"), encoding="utf-8")
    with pytest.raises(ConfigError, match="must be one of stdin, argument"):
        ProviderRegistry.load(None)


def fake_cli(bin_dir: Path, name: str) -> None:
    exe = bin_dir / name
    exe.write_text(
        f"#!{sys.executable}\nimport json, sys\nsys.stdin.read()\n"
        "said = json.dumps({'comment': json.dumps(sys.argv[1:]), 'vote': None})\n"
        "if 'json' in sys.argv:  # copilot's events: the answer is an assistant.message\n"
        "    said = json.dumps({'type': 'assistant.message', 'data': {'content': said}})\n"
        "print(said)\n",
        encoding="utf-8",
    )
    exe.chmod(0o755)


@pytest.mark.parametrize(
    ("preset", "flags"),
    [
        (
            "copilot",
            [
                *("-s", "--no-color", "--no-ask-user", "--no-auto-update", "--output-format"),
                *("json", "--available-tools=view,grep,glob", "--deny-tool=shell"),
                *("--deny-tool=write", "-p"),
            ],
        ),
        ("cursor-agent", ["-p", "--output-format", "text", "--mode", "ask", "--trust"]),
    ],
)
def test_presets_for_argument_clis_are_read_only_and_opt_in(
    preset: str, flags: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake_cli(bin_dir, preset)
    monkeypatch.setenv("PATH", str(bin_dir))
    spec = PRESETS[preset]
    assert spec.prompt_via == "argument" and "process list" in spec.description
    assert preset not in DETECT_ORDER  # used only when named: an explicit opt-in
    provider = ProviderRegistry.load(None).get(preset)
    answer = json.loads(provider.complete(ProviderRequest(prompt="Is it ready?", timeout=20)))
    assert json.loads(answer["comment"]) == [*flags, "Is it ready?"]


def test_agy_preset_reads_stdin_without_a_prompt_flag() -> None:
    spec = PRESETS["agy"]
    assert spec.prompt_via == "stdin"
    words = (spec.command or "").split()
    assert not {"-p", "--print", "--prompt", "--input-format"} & set(words)


def test_a_prompt_starting_with_a_dash_is_never_read_as_an_option() -> None:
    """The prompt opens with the persona's text, which a cloned project brings: as a word
    starting with ``-`` the CLI would parse it as its own option (``--mode=agent ...``)."""
    prompt = "--mode=agent\n\nYou are @ada."
    got = report(script_command("argv_prompt.py", "--mode", "ask"), prompt)
    assert not str(got["last"]).startswith("-")
    assert str(got["last"]).strip() == prompt
