"""The documentation: the README introduces, docs/ holds the reference, and both stay true.
Every relative link and anchor resolves (scripts/check_links.py, as GitHub resolves them;
`mkdocs build --strict` in .ci/run checks the site the same way), every page is in the site's
nav, and every `discussions ...` command printed in a shell block parses as the CLI has it."""

from __future__ import annotations

import re
import shlex
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
import yaml

from discussions.cli import cli

from .conftest import code, out, result_of, run
from .documentation import DOCS, ROOT, page, pages, script, section

# --------------------------------------------------------------------------- links


def test_every_relative_link_and_anchor_resolves() -> None:
    assert script("check_links").problems(ROOT) == []


def test_the_link_check_fails_on_a_broken_file_or_anchor(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "README.md").write_text(
        "# Top\n\n## Set up: `init` (once)\n\n## Set up: `init` (once)\n\n"
        "[ok](docs/a.md#the-page) [ok](#set-up-init-once-1) [web](https://example.invalid/x)\n"
        "[gone](docs/b.md) [no anchor](docs/a.md#nowhere)\n\n"
        "```markdown\n[in code](missing.md)\n```\n\n`[inline](missing.md)`\n"
        "<!-- [hidden](missing.md) -->\n![picture](docs/none.png)\n",
        encoding="utf-8",
    )
    (tmp_path / "docs" / "a.md").write_text(
        "# The page\n\nBack to [the top](../README.md#top), [here](#the-page), [x](#x).\n",
        encoding="utf-8",
    )
    assert script("check_links").problems(tmp_path) == [
        "README.md:8: docs/b.md: links to docs/b.md, which does not exist",
        "README.md:8: docs/a.md#nowhere: links to #nowhere, which docs/a.md has no heading for",
        "README.md:16: docs/none.png: links to docs/none.png, which does not exist",
        "docs/a.md:3: #x: links to #x, which this page has no heading for",
    ]


def test_anchors_are_githubs_slugs() -> None:
    anchors = script("check_links").anchors
    text = "# A\n\n## From decision to code: `discussions apply`\n\n## Q & A\n\n## Q & A\n"
    assert anchors(text) == {"a", "from-decision-to-code-discussions-apply", "q--a", "q--a-1"}


# --------------------------------------------------------------------------- the site


def test_every_page_is_in_the_sites_nav() -> None:
    def files(nav: list[object]) -> Iterator[str]:
        for entry in nav:
            for value in entry.values() if isinstance(entry, dict) else [entry]:
                yield from files(value) if isinstance(value, list) else [str(value)]

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    listed = list(files(config["nav"]))
    assert sorted(listed) == sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))
    assert config["strict"] is True and set(config["validation"].values()) == {"warn"}


def test_ci_builds_the_site_strictly_with_the_pinned_mkdocs() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["optional-dependencies"]["docs"] == ["mkdocs==1.6.1"]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "mkdocs build --strict" in ci and "python3 scripts/check_links.py" in ci


def test_the_commands_table_is_the_same_in_the_readme_and_on_its_page() -> None:
    def table(text: str) -> str:
        return "\n".join(re.findall(r"^\| `discussions .*$", text, flags=re.M))

    assert table(page("README.md")) == table(page("commands.md")) != ""


def test_the_configuration_page_lists_every_setting_and_its_keys() -> None:
    from discussions.settings.keys import SETTINGS
    from discussions.settings.schema import Fields

    table = section("configuration.md", "## Every setting, and where it is described")
    rows = {m[1]: m[2] for m in re.finditer(r"^\| `(\w+)` \| (.*?) \|", table, flags=re.M)}
    assert list(rows) == list(SETTINGS.keys)
    for name, spec in SETTINGS.keys.items():
        keys = list(spec.keys) if isinstance(spec, Fields) else []
        assert re.findall(r"`(\w+)`", rows[name]) == keys, name


def test_the_mcp_page_lists_the_tools_the_server_has() -> None:
    pytest.importorskip("mcp")
    import anyio

    from discussions.mcp.server import build_server

    tools = anyio.run(build_server().list_tools)
    table = re.findall(r"^\| `(\w+)` \|", page("mcp.md").split("\n## ", 1)[0], flags=re.M)
    assert sorted(table) == sorted(t.name for t in tools)


# --------------------------------------------------------------------------- examples


def test_the_readmes_example_file_reads_as_the_tour_says(isolated: Path) -> None:
    """The tour's file is a discussion `check` passes: the participant's comment carries the
    engine's digest, so its vote and question count, as the text around it says."""
    tour = section("README.md", "### A discussion is one markdown file")
    example = re.search(r"```markdown\n(.*?)```", tour, flags=re.S)
    assert example
    folder = isolated / "discussions"
    folder.mkdir()
    (folder / "auth.md").write_text(example[1], encoding="utf-8")
    assert code(r := run("check", "discussions/auth.md")) == 0, out(r)
    state: dict[str, Any] = result_of(run("status", "discussions/auth.md", "--json"))
    assert state["votes"] == {"AI-Security": "CHANGES", "Rob": "READY"}
    assert [q["author"] for q in state["questions"]] == ["AI-Security"]
    assert [d["author"] for d in state["decisions"]] == ["Rob"]
    assert state["pending_mentions"] == [{"alias": "security", "by": "Rob", "line": 29}]


def printed_commands(text: str) -> Iterator[list[str]]:
    """The arguments of each `discussions` command in the text's bash and sh blocks (a line
    may chain several with `&&`, `|` or `;`; `#` starts a comment)."""
    for block in re.findall(r"^```(?:bash|sh)\n(.*?)^```", text, flags=re.M | re.S):
        for line in block.replace("\\\n", " ").split("\n"):
            command: list[str] = []
            for word in [*shlex.split(line, comments=True), ";"]:
                if word not in ("&&", "||", "|", ";", "&"):
                    command.append(word)
                    continue
                if command[:1] == ["discussions"]:
                    yield command[1:]
                command = []


def parse(args: list[str]) -> None:
    """Parse `discussions ARGS` as the CLI would, down to the command, without running it:
    an unknown command or option, a missing argument or a bad value raises UsageError. The
    root context takes the CLI's own settings (`-h`): click keeps a command's help option
    from the first context that asks for it, so a bare one would take `-h` away for good."""
    context = click.Context(cli, info_name="discussions", **cli.context_settings)
    command: click.Command = cli
    while isinstance(command, click.Group) and args and not args[0].startswith("-"):
        found = command.get_command(context, args[0])
        if found is None:
            raise click.UsageError(f"no such command: {args[0]}", context)
        command, context = found, click.Context(found, info_name=args[0], parent=context)
        args = args[1:]
    try:
        command.make_context(context.info_name, args, parent=context.parent)
    except click.exceptions.Exit:  # --help, --version
        pass


def test_every_printed_command_parses() -> None:
    seen, failed = 0, []
    for path in pages():
        for args in printed_commands(path.read_text(encoding="utf-8")):
            seen += 1
            try:
                parse(args)
            except click.UsageError as exc:
                failed.append((path.name, args, exc.format_message()))
    assert failed == []
    assert seen >= 50  # the README's and the pages' examples, not a handful


def test_a_command_the_cli_lacks_does_not_parse() -> None:
    parse(["turn", "f.md", "@architect", "--provider", "mock"])
    parse(["participants", "show", "security"])
    for wrong in (["status", "f.md", "--bogus"], ["participants", "nope"], ["advance"]):
        with pytest.raises(click.UsageError):
            parse(wrong)
    text = "```bash\ndiscussions new T && cd x && discussions turn t.md @a # a note\n```\n"
    assert list(printed_commands(text)) == [["new", "T"], ["turn", "t.md", "@a"]]
