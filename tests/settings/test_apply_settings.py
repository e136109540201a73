"""The ``apply:`` key of ``discussions.yaml`` and of a template (`settings.apply`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from discussions.errors import ConfigError, TemplateError
from discussions.settings.apply import apply_settings
from discussions.settings.config import Config
from discussions.settings.templates import Template

from ..conftest import write

PHASES = [{"id": "review"}]


def test_defaults_without_an_apply_key(isolated: Path) -> None:
    s = apply_settings(Config.load(isolated))
    assert (s.max_revisions, s.timeout, s.review) == (2, 1800.0, False)


def test_the_template_sets_keys_over_discussions_yaml(isolated: Path) -> None:
    write(isolated / "discussions.yaml", "apply:\n  max_revisions: 4\n  timeout: 60\n")
    config = Config.load(isolated)
    assert apply_settings(config).to_dict() == {
        "max_revisions": 4,
        "timeout": 60.0,
        "review": False,
        "sandbox": "auto",
    }
    t = Template.from_dict(
        {"name": "t", "phases": PHASES, "apply": {"review": True, "max_revisions": 0}}
    )
    assert t.apply == {"review": True, "max_revisions": 0}
    s = apply_settings(config, t)
    assert (s.max_revisions, s.timeout, s.review) == (0, 60.0, True)
    assert Template.from_dict({"name": "plain", "phases": PHASES}).apply is None


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("max_revisions: -1", "apply.max_revisions"),
        ("timeout: 0", "apply.timeout"),
        ("review: maybe", "apply.review"),
        ("sandbox: sometimes", "apply.sandbox"),
    ],
)
def test_a_bad_value_is_refused(isolated: Path, value: str, message: str) -> None:
    write(isolated / "discussions.yaml", f"apply:\n  {value}\n")
    with pytest.raises(ConfigError, match=message.replace(".", r"\.")):
        Config.load(isolated)
    with pytest.raises(TemplateError, match="apply"):
        Template.from_dict(
            {"name": "t", "phases": PHASES, "apply": dict([value.split(": ")])}, Path("t.yaml")
        )


@pytest.mark.parametrize(
    ("value", "setting"), [("off", "off"), ("'off'", "off"), ("required", "required"), ("", "auto")]
)
def test_the_sandbox_setting(isolated: Path, value: str, setting: str) -> None:
    """A bare `off` is YAML's false: it means off all the same."""
    if value:
        write(isolated / "discussions.yaml", f"apply:\n  sandbox: {value}\n")
    assert apply_settings(Config.load(isolated)).sandbox == setting


def test_an_unknown_apply_key_is_named(isolated: Path) -> None:
    write(isolated / "discussions.yaml", "apply:\n  max_revision: 1\n")
    problems = Config.load(isolated).problems
    assert any("max_revisions" in p.message for p in problems)
