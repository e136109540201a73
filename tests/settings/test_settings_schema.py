"""Settings, personas, templates and providers.yaml are checked against one description each
by one validator: unknown keys come with the closest known key, bad values are errors, and
every report names the file and the line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from discussions.cli import cli
from discussions.settings.keys import SETTINGS
from discussions.settings.schema import Fields, Number, Text, validate

from ..conftest import write
from ..documentation import everything


def invoke(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(cli, list(args))


@pytest.fixture
def talk(isolated: Path) -> str:
    assert invoke("new", "Talk").exit_code == 0
    return "talk.md"


def test_the_validator_reports_every_problem_with_its_key() -> None:
    spec = Fields({"a": Fields({"threshold_ready": Number(0, 1)}, "output setting"), "b": Text()})
    problems = validate({"a": {"threshold": 5, "threshold_ready": 2}, "b": [1], "c": 1}, spec)
    assert [(p.keys, p.unknown) for p in problems] == [
        (("a", "threshold"), True),
        (("a", "threshold_ready"), False),
        (("b",), False),
        (("c",), True),
    ]
    assert (
        problems[0].message
        == "key 'a.threshold' is not an output setting; did you mean 'threshold_ready'?"
    )
    assert problems[1].message == "key 'a.threshold_ready' must be a number from 0 to 1, got 2"
    assert problems[3].message == "key 'c' is not a key (known: a, b)"


def test_a_misspelt_setting_is_reported_by_status_check_and_other_commands(
    isolated: Path, talk: str
) -> None:
    write(isolated / "discussions.yaml", "consensus:\n  threshold: 5\n")
    warning = (
        "discussions.yaml:2: key 'consensus.threshold' is not a consensus setting; "
        "did you mean 'threshold_ready'?"
    )
    r = invoke("status", talk)
    assert r.exit_code == 0 and f"Warning: {warning} (ignored)" in r.output
    assert r.output.count(warning) == 1
    r = invoke("check", talk)
    assert r.exit_code == 1 and f"{warning}\n" in r.output
    r = invoke("comment", talk, "hi", "--author", "Rob")
    assert r.exit_code == 0 and f"Warning: {warning} (ignored)" in r.output


def test_an_out_of_range_setting_is_an_error(isolated: Path, talk: str) -> None:
    write(isolated / "discussions.yaml", "consensus:\n  threshold_ready: 5\n")
    for args in (["status", talk], ["check", talk], ["list"]):
        r = invoke(*args)
        assert r.exit_code == 1, args
        assert r.output.strip().endswith(
            "discussions.yaml: line 2: key 'consensus.threshold_ready' must be a number "
            "between 0 and 1, got 5"
        )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("watch:\n  debounce: soon\n", "key 'watch.debounce' must be a number (0 or more)"),
        ("budget:\n  max_calls: -1\n", "key 'budget.max_calls' must be a whole number (0 or more)"),
        ("memory:\n  enabled: 'no'\n", "key 'memory.enabled' must be true or false"),
        ("providers:\n  detect: 1\n", "key 'providers.detect' must be true or false"),
        ("output: {}\nrun: 3\n", "key 'run' must be a mapping of run settings"),
    ],
)
def test_a_setting_of_the_wrong_type_is_an_error(
    isolated: Path, talk: str, text: str, message: str
) -> None:
    write(isolated / "discussions.yaml", text)
    r = invoke("status", talk)
    assert r.exit_code == 1 and f"discussions.yaml: line 2: {message}" in r.output


def test_a_misspelt_persona_key(isolated: Path, talk: str) -> None:
    write(isolated / "participants" / "ux.yaml", "name: AI-Ux\nalias: ux\npersonalty: You...\n")
    line = (
        "participants/ux.yaml:3: key 'personalty' is not a participant setting; "
        "did you mean 'personality'?"
    )
    assert f"Warning: {line} (skipped)" in invoke("status", talk).output
    r = invoke("check", talk)
    assert r.exit_code == 1 and line in r.output


def test_a_misspelt_template_key(isolated: Path, talk: str) -> None:
    write(
        isolated / "templates" / "t.yaml",
        "name: t\nphases:\n  - id: a\n    voting_mod: true\n",
    )
    line = "templates/t.yaml:4: key 'phases[0].voting_mod' is not a phase setting; did you mean 'voting_mode'?"
    assert f"Warning: {line} (skipped)" in invoke("status", talk).output
    assert line in invoke("check", talk).output
    r = invoke("new", "X", "--template", "t")
    assert r.exit_code == 1 and "t.yaml: line 4: key 'phases[0].voting_mod'" in r.output


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (
            "    comand: echo hi\n",
            "line 3: key 'providers[0].comand' is not a provider setting; did you mean 'command'?",
        ),
        (
            "    command: echo hi\n    timeout: soon\n",
            "line 4: key 'providers[0].timeout' must be a positive number of seconds",
        ),
        (
            "    command: echo hi\n    output: xml\n",
            "line 4: key 'providers[0].output' must be one of",
        ),
    ],
)
def test_providers_yaml(userdir: Path, entry: str, message: str) -> None:
    write(userdir / "providers.yaml", "providers:\n  - name: mine\n" + entry)
    r = invoke("providers", "list")
    assert r.exit_code == 1 and f"providers.yaml: {message}" in r.output


def test_smarttools_keys_of_its_own_are_left_alone(tmp_path: Path) -> None:
    write(
        tmp_path / "home" / ".smarttools" / "providers.yaml",
        "providers:\n  - name: st\n    command: echo hi\n    model: x\nversion: 2\n",
    )
    r = invoke("providers", "list", "--json")
    assert r.exit_code == 0 and '"st"' in r.output


def test_every_setting_the_readme_shows_is_known() -> None:
    readme = everything()  # the README and every page of docs/
    blocks = re.findall(r"```yaml\n# discussions\.yaml\n(.*?)```", readme, re.S)
    assert len(blocks) >= 3
    for block in blocks:
        assert validate(yaml.safe_load(block), SETTINGS) == [], block


def test_the_settings_init_writes_are_known(isolated: Path) -> None:
    assert invoke("init", "--no-git").exit_code == 0
    data = yaml.safe_load((isolated / "discussions.yaml").read_text(encoding="utf-8"))
    assert validate(data, SETTINGS) == []


def test_turn_says_it_skipped_a_broken_persona_file(isolated: Path, talk: str) -> None:
    write(isolated / "participants" / "broken.yaml", "name: B\nalias: broken\ntype: often\n")
    r = invoke("turn", talk, "@architect", "--provider", "mock")
    assert r.exit_code == 0, r.output
    lines = [ln for ln in r.output.splitlines() if "broken.yaml" in ln]
    assert lines == [
        "Warning: participants/broken.yaml:3: key 'type' must be one of voting, background, "
        "got 'often' (skipped)"
    ]
    r = invoke("run", talk, "@architect", "--provider", "mock", "--rounds", "1")
    assert [ln for ln in r.output.splitlines() if "broken.yaml" in ln] == lines


def test_a_key_given_twice_is_an_error(isolated: Path, talk: str) -> None:
    write(
        isolated / "discussions.yaml",
        "consensus:\n  threshold_ready: 0.5\nconsensus:\n  human_required: true\n",
    )
    r = invoke("status", talk)
    assert r.exit_code == 1
    assert r.output.strip().endswith(
        "discussions.yaml: line 3: key 'consensus' is given twice (lines 1 and 3); keep one"
    )
