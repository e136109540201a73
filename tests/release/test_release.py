"""The release: one version, named the same everywhere the documentation, the manifests and the
hooks print it; the trusted-publishing workflow; the release check's content rules.
(.ci/release-check builds, checks and installs the artefacts for real; it needs the index.)"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import tarfile
import zipfile
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

import discussions

from ..documentation import everything, page
from .schemas import load_yaml, problems

ROOT = Path(__file__).resolve().parents[2]
VERSION = discussions.__version__
README = everything()  # the README and the pages of docs/: wherever a release is named


def script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def as_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(x) for x in version.split("."))


def test_the_version_is_the_release_after_the_changelogs_last() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+", VERSION)
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    sections = re.findall(r"^## (\S+)", changelog, flags=re.M)
    released = [s for s in sections if re.fullmatch(r"\d+\.\d+\.\d+", s)]
    assert sections[0] in ("Unreleased", VERSION)
    newest_before = released[1] if released and released[0] == VERSION else released[0]
    assert as_tuple(VERSION) > as_tuple(newest_before)


def test_the_readme_pins_this_release_wherever_it_names_one() -> None:
    pins = re.findall(r"discussions(?:\[[\w,]+\])?==([\d.]+)", README)
    tags = re.findall(r"OWNER/discussions@(v[\d.]+)", README)
    assert len(pins) >= 5 and set(pins) == {VERSION}
    assert tags and set(tags) == {f"v{VERSION}"}
    assert f"This is {VERSION}," in README


def test_the_pre_commit_snippet_names_this_tag_and_existing_hooks() -> None:
    config = yaml.safe_load(script("readme_snippets").snippet("pre-commit"))
    [repo] = config["repos"]
    assert repo["rev"] == f"v{VERSION}"
    hooks = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    named = [h["id"] for h in repo["hooks"]]
    assert set(named) <= set(hooks), "the README names a hook .pre-commit-hooks.yaml lacks"
    for hook_id in set(re.findall(r"`(discussions-[\w-]+)`", README)) - {"discussions-review"}:
        assert hook_id in hooks, hook_id
    comment = (ROOT / ".pre-commit-hooks.yaml").read_text()
    assert f"rev: v{VERSION}\n" in comment


def test_each_hook_runs_a_command_that_exists() -> None:
    from discussions.cli import cli

    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    for hook in hooks:
        program, command, *options = hook["entry"].split()
        assert program == "discussions"
        found = cli.get_command(None, command)  # type: ignore[arg-type]
        assert found is not None, hook["entry"]
        known = {o for p in found.params for o in getattr(p, "opts", [])}
        assert {o for o in options if o.startswith("-")} <= known, hook["entry"]


def test_the_readme_workflows_follow_the_published_schema() -> None:
    workflow = load_yaml(script("readme_snippets").snippet("workflow"))
    assert problems("github-workflow", workflow) == []
    [job] = workflow["jobs"].values()
    assert job["steps"][1]["uses"] == f"OWNER/discussions@v{VERSION}"
    steps = re.search(r"Without the action.*?```yaml\n(.*?)```", page("ci.md"), flags=re.S)
    assert steps
    wrapped = {
        "on": "pull_request",
        "jobs": {"check": {"runs-on": "ubuntu-latest", "steps": load_yaml(steps[1])}},
    }
    assert problems("github-workflow", wrapped) == []
    del wrapped["jobs"]["check"]["runs-on"]
    assert problems("github-workflow", wrapped), "the schema check cannot fail"


def release_workflow() -> dict[str, Any]:
    return dict(load_yaml((ROOT / ".github" / "workflows" / "release.yml").read_text()))


def test_the_release_workflow_publishes_tags_by_trusted_publishing() -> None:
    workflow = release_workflow()
    assert problems("github-workflow", workflow) == []
    assert workflow["on"] == {"push": {"tags": ["v*"]}}
    assert workflow["permissions"] == {"contents": "read"}
    build, publish = workflow["jobs"]["build"], workflow["jobs"]["publish"]
    assert any(s.get("run") == "bash .ci/release-check dist" for s in build["steps"])
    assert publish["needs"] == "build"
    assert publish["permissions"] == {"id-token": "write"}
    assert publish["steps"][-1]["uses"].startswith("pypa/gh-action-pypi-publish@")
    assert "password" not in str(publish), "trusted publishing stores no token"


def test_ci_runs_the_release_check_before_the_tests() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    assert ci.index("\nbash .ci/release-check\n") < ci.index("python -m pytest")


def test_the_release_check_pins_its_tools() -> None:
    text = (ROOT / ".ci" / "release-check").read_text()
    install = re.search(r"pip install --disable-pip-version-check \\\n(.*)\n", text)
    assert install
    tools = install[1].split()
    assert {t.strip("'").split("==")[0] for t in tools} == {
        "build",
        "twine",
        "validate-pyproject[all]",
        "uv",
        "pipx",
        "pre-commit",
    }
    assert all("==" in t for t in tools)


def test_the_release_check_refuses_a_tag_that_is_not_the_version(tmp_path: Path) -> None:
    env = {**os.environ, "GITHUB_REF_TYPE": "tag", "GITHUB_REF_NAME": "v9.9.9"}
    result = subprocess.run(
        ["bash", str(ROOT / ".ci" / "release-check"), str(tmp_path / "dist")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert f"tag v9.9.9 does not name the package's version {VERSION}" in result.stderr
    assert not (tmp_path / "dist").exists()


# --------------------------------------------------------------------------- the content rules


def fake_artefacts(dist: Path, *, drop: str = "", version: str = VERSION) -> None:
    """A wheel and an sdist laid out as hatch lays them out from this checkout, less `drop`."""
    check = script("check_dist")
    dist.mkdir()
    with zipfile.ZipFile(dist / f"discussions-{VERSION}-py3-none-any.whl", "w") as z:
        for name in sorted(check.expected_in_wheel(ROOT)):
            if name != drop:
                z.writestr(name, "")
        info = f"discussions-{VERSION}.dist-info"
        z.writestr(
            f"{info}/METADATA", f"Metadata-Version: 2.4\nName: discussions\nVersion: {version}\n"
        )
        z.writestr(
            f"{info}/entry_points.txt", "[console_scripts]\ndiscussions = discussions.cli:main\n"
        )
    with tarfile.open(dist / f"discussions-{VERSION}.tar.gz", "w:gz") as t:
        for path in [
            "pyproject.toml",
            "README.md",
            "CHANGELOG.md",
            "src",
            "participants",
            "templates",
        ]:
            t.add(ROOT / path, arcname=f"discussions-{VERSION}/{path}", filter=_no_caches)


def _no_caches(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
    return None if "__pycache__" in info.name else info


def test_complete_artefacts_pass(tmp_path: Path) -> None:
    fake_artefacts(tmp_path / "dist")
    assert script("check_dist").main(["", str(tmp_path / "dist"), VERSION, str(ROOT)]) == 0


@pytest.mark.parametrize(
    "drop",
    [
        "discussions/_bundled/participants/security.yaml",
        "discussions/_bundled/templates/feature.yaml",
        "discussions/providers/policies/gemini-read.toml",
    ],
)
def test_a_missing_persona_template_or_policy_fails(
    tmp_path: Path, drop: str, capsys: pytest.CaptureFixture[str]
) -> None:
    check = script("check_dist")
    assert drop in check.expected_in_wheel(ROOT)
    fake_artefacts(tmp_path / "dist", drop=drop)
    assert check.main(["", str(tmp_path / "dist"), VERSION, str(ROOT)]) == 1
    assert f"release-check: wheel lacks {drop}" in capsys.readouterr().out


def test_a_wrong_version_in_the_metadata_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_artefacts(tmp_path / "dist", version="0.0.1")
    assert script("check_dist").main(["", str(tmp_path / "dist"), VERSION, str(ROOT)]) == 1
    assert f"wheel metadata does not say Version: {VERSION}" in capsys.readouterr().out
