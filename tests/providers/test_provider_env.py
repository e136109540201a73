"""Variables set for a provider's command (`ProviderSpec.env`, `write_env`): the opencode presets'
read-only and write configurations reach a fake `opencode` on PATH; providers.yaml ``env:`` is
parsed, checked and covered by trust; the apply's lead runs with the write mode's variables."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from discussions.cli import cli
from discussions.engine.apply import run as apply_run
from discussions.engine.apply.run import Job, LeadCommand
from discussions.errors import ConfigError, UntrustedProvider
from discussions.providers import CommandProvider, ProviderRegistry, ProviderRequest, ProviderSpec
from discussions.providers.presets import PRESETS
from discussions.providers.specs import read_specs
from discussions.providers.trust import trust_scope

from ..conftest import write
from ..support.apply import invoke as apply_cli
from ..support.git import commit_files

PY = shlex.quote(sys.executable)
SEEN = (
    "OPENCODE_CONFIG_CONTENT",
    "OPENCODE_DISABLE_PROJECT_CONFIG",
    "OPENCODE_CONFIG_PROJECT_DISABLE",
    "OPENCODE_DISABLE_MODELS_FETCH",
)

FAKE_OPENCODE = f"""#!{sys.executable}
import json, os, sys
sys.stdin.read()
seen = {{"argv": sys.argv[1:], "env": {{k: os.environ.get(k) for k in {SEEN!r}}}}}
if "build" in sys.argv:  # the write mode: leave what it saw in its working directory
    with open("seen.json", "w") as f:
        json.dump(seen, f)
    print(json.dumps(seen))
else:  # the read-only preset reads `--format json` events: the answer is a text part
    part = {{"type": "text", "messageID": "m1", "text": json.dumps(seen)}}
    print(json.dumps({{"type": "text", "part": part}}))
"""


@pytest.fixture
def fake_opencode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An `opencode` on PATH that prints its arguments and the variables opencode reads."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    exe = bin_dir / "opencode"
    exe.write_text(FAKE_OPENCODE)
    exe.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("OPENCODE_CONFIG_CONTENT", '{"permission": "allow"}')  # the user's own
    monkeypatch.delenv("OPENCODE_DISABLE_PROJECT_CONFIG", raising=False)
    return exe


def rules(config_text: str | None, agent: str) -> tuple[dict[str, object], dict[str, object]]:
    """The top-level and the agent's permission rules of an OPENCODE_CONFIG_CONTENT."""
    config = json.loads(config_text or "{}")
    assert config["share"] == "disabled" and config["lsp"] is False
    assert config["snapshot"] is False  # no copy of the working tree in HOME
    agent_config = config["agent"][agent]
    assert agent_config["disable"] is False
    return config["permission"], agent_config["permission"]


def ask(name: str, isolated: Path) -> dict[str, object]:
    provider = ProviderRegistry.load(isolated).get(name)
    answer = provider.complete(ProviderRequest(prompt="hello", timeout=30))
    seen: dict[str, object] = json.loads(answer)
    return seen


@pytest.mark.parametrize("name", ["opencode", "opencode-deepseek"])
def test_opencode_presets_run_the_plan_agent_with_everything_but_reading_denied(
    name: str, fake_opencode: Path, isolated: Path
) -> None:
    seen = ask(name, isolated)
    argv = seen["argv"]
    assert argv[:3] == ["run", "--agent", "plan"]  # type: ignore[index]
    assert "--title" in argv and "--format" in argv  # type: ignore[operator]
    assert ("--model" in argv) == (name == "opencode-deepseek")  # type: ignore[operator]
    env: dict[str, str] = seen["env"]  # type: ignore[assignment]
    assert env["OPENCODE_DISABLE_PROJECT_CONFIG"] == "1"  # the clone's opencode.json stays out
    assert env["OPENCODE_CONFIG_PROJECT_DISABLE"] == "1"
    assert env["OPENCODE_DISABLE_MODELS_FETCH"] == "1"
    for table in rules(env["OPENCODE_CONFIG_CONTENT"], "plan"):
        assert table["*"] == "deny"
        for tool in ("edit", "bash", "webfetch", "websearch", "task", "external_directory"):
            assert table[tool] == "deny", tool
        assert table["grep"] == "allow" and table["read"]["*.env"] == "deny"  # type: ignore[index]


def test_opencode_write_mode_allows_edits_and_nothing_that_runs_or_reaches_out() -> None:
    for name in ("opencode", "opencode-deepseek"):
        spec = PRESETS[name]
        assert spec.can_write and "--agent build" in (spec.write_command or "")
        assert "--auto" not in shlex.split(spec.write_command or "")
        lead = LeadCommand.of(spec)
        assert lead.env["OPENCODE_DISABLE_PROJECT_CONFIG"] == "1"  # from `env`
        for table in rules(lead.env["OPENCODE_CONFIG_CONTENT"], "build"):
            assert table["edit"] == {"*": "allow", ".git": "deny", ".git/*": "deny"}
            assert table["*"] == "deny"
            for tool in ("bash", "webfetch", "websearch", "task", "external_directory"):
                assert table[tool] == "deny", tool
        # the read command's own config still denies edits
        assert "edit" in spec.env["OPENCODE_CONFIG_CONTENT"]
        assert rules(spec.env["OPENCODE_CONFIG_CONTENT"], "plan")[0]["edit"] == "deny"


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout


@pytest.mark.slow
def test_the_apply_lead_runs_with_the_write_modes_variables(
    fake_opencode: Path, isolated: Path, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commit_files(repo, {"app.py": "x = 1\n"})
    lead = LeadCommand.of(PRESETS["opencode"], str(isolated))
    job = Job(
        isolated, "discussions/apply/env-1", "Implement it.", lead,
        "Test User <test@example.com>", "AI <ai@discussions.invalid>", "Apply env",
    )  # fmt: skip
    out = apply_run.execute(job)
    assert out.result == "committed", out.reason
    seen = json.loads(git(isolated, "show", "discussions/apply/env-1:seen.json"))
    assert seen["argv"] == ["run", "--agent", "build", "--title", "discussions"]
    assert seen["env"]["OPENCODE_DISABLE_PROJECT_CONFIG"] == "1"
    top, _ = rules(seen["env"]["OPENCODE_CONFIG_CONTENT"], "build")
    assert top["edit"]["*"] == "allow" and top["bash"] == "deny"


# -- providers.yaml `env:` -------------------------------------------------------------------


def test_providers_yaml_env_is_set_for_the_command_over_the_inherited_value(
    isolated: Path, userdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_SETTING", "from the shell")
    monkeypatch.setenv("DROPPED", "x")
    code = "import os, sys; sys.stdin.read(); print(os.environ.get('MY_SETTING'), os.environ.get('DROPPED'))"
    write(
        userdir / "providers.yaml",
        f"""
        providers:
          - name: local
            command: {PY} -c {shlex.quote(code)}
            env_remove: [DROPPED]
            env:
              MY_SETTING: "$HOME stays as written"
            write_command: {PY} -c pass
            write_env:
              MY_SETTING: writing
        """,
    )
    spec = ProviderRegistry.load(isolated).specs["local"]
    assert spec.env == {"MY_SETTING": "$HOME stays as written"}
    assert spec.write_env == {"MY_SETTING": "writing"}
    answer = CommandProvider(spec).complete(ProviderRequest(prompt="hi", timeout=30))
    assert answer.strip() == "$HOME stays as written None"
    assert LeadCommand.of(spec).env == {"MY_SETTING": "writing"}


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("PATH: /tmp/bin", "env.PATH cannot be set by a provider entry"),
        ("LD_PRELOAD: ./x.so", "env.LD_PRELOAD cannot be set"),
        ("GIT_DIR: /elsewhere/.git", "env.GIT_DIR cannot be set"),
        ("RETRIES: 3", "env.RETRIES must be text (quote it), not int"),
        ("2FAST: x", "env.2FAST is not a variable name"),
        ("- A", "must be a mapping of environment variables"),
    ],
)
def test_providers_yaml_env_refuses(isolated: Path, entry: str, message: str) -> None:
    path = write(
        isolated / "providers.yaml",
        f"providers:\n  - name: local\n    command: {PY} -c pass\n    env:\n      {entry}\n",
    )
    with pytest.raises(ConfigError, match=re.escape(message)):
        read_specs(path, "project")


def trust_cli(*args: str) -> object:
    return CliRunner().invoke(cli, ["trust", *args])


def test_trust_covers_env_and_the_files_its_values_name(isolated: Path) -> None:
    write(isolated / "conf" / "tool.json", '{"permission": "deny"}\n')
    path = write(
        isolated / "providers.yaml",
        f"""
        providers:
          - name: local
            command: {PY} -c "print('hi')"
            env:
              TOOL_CONFIG: conf/tool.json
              TOOL_MODE: read-only
        """,
    )
    r = trust_cli("--yes")
    assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
    assert "env: TOOL_MODE=read-only" in r.output  # type: ignore[attr-defined]
    assert "conf/tool.json" in trust_scope(path)
    assert ProviderRegistry.load(isolated).specs["local"].env["TOOL_MODE"] == "read-only"

    path.write_text(path.read_text().replace("read-only", "everything"))
    reg = ProviderRegistry.load(isolated)
    with pytest.raises(UntrustedProvider, match=r"changed since you trusted it: providers\.yaml"):
        reg.get("local")
    assert trust_cli("--yes").exit_code == 0  # type: ignore[attr-defined]
    assert ProviderRegistry.load(isolated).specs["local"].env["TOOL_MODE"] == "everything"

    write(isolated / "conf" / "tool.json", '{"permission": "allow"}\n')
    with pytest.raises(UntrustedProvider, match=r"changed since you trusted it: conf/tool\.json"):
        ProviderRegistry.load(isolated).get("local")


def test_the_lead_runs_the_trusted_copy_of_an_env_named_file(tmp_path: Path) -> None:
    base = tmp_path / "project-root"
    write(base / "conf" / "tool.json", "{}\n")
    spec = ProviderSpec("t", f"{PY} -c pass", write_command=f"{PY} -c pass",
                        env={"TOOL_CONFIG": "conf/tool.json", "PLAIN": "conf/missing.json"})  # fmt: skip
    _, _, env = apply_run.lead_argv(LeadCommand.of(spec, str(base)), "prompt")
    assert env["TOOL_CONFIG"] == str(base / "conf" / "tool.json")
    assert env["PLAIN"] == "conf/missing.json"


@pytest.mark.slow
def test_the_apply_consent_names_the_variables_it_sets(apply_project: Path, userdir: Path) -> None:
    providers = userdir / "providers.yaml"
    providers.write_text(
        providers.read_text().replace(
            "    write_command:", "    write_env: {LEAD_MODE: edits}\n    write_command:", 1
        )
    )
    r = apply_cli("apply", "discussions/retry.md", "--dry-run")
    assert r.exit_code == 0, r.output
    assert "lead.py edit  (the hand-off on standard input; with LEAD_MODE set;" in r.output
