"""Short options mean the same thing in every command."""

from __future__ import annotations

import click

from discussions.cli import cli


def _walk(
    group: click.Group, ctx: click.Context, prefix: str = ""
) -> list[tuple[str, click.Command]]:
    found: list[tuple[str, click.Command]] = []
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        assert cmd is not None
        full = f"{prefix}{name}"
        found.append((full, cmd))
        if isinstance(cmd, click.Group):
            found.extend(_walk(cmd, ctx, full + " "))
    return found


def test_each_short_option_has_one_meaning() -> None:
    ctx = click.Context(cli)
    meaning: dict[str, tuple[str, str]] = {}
    clashes: list[str] = []
    for name, cmd in _walk(cli, ctx):
        for param in cmd.params:
            if not isinstance(param, click.Option):
                continue
            longs = [o for o in param.opts if o.startswith("--")]
            for short in (o for o in param.opts + param.secondary_opts if len(o) == 2):
                if short == "-h":
                    continue
                long_name = longs[0] if longs else short
                if short in meaning and meaning[short][1] != long_name:
                    clashes.append(
                        f"{short}: {meaning[short][1]} in `{meaning[short][0]}`, {long_name} in `{name}`"
                    )
                meaning.setdefault(short, (name, long_name))
    assert clashes == []


# One convention per flag: the long option, and the short form it has (None: no short form).
CONVENTION: dict[str, str | None] = {
    "--verbose": "-v",
    "--dir": "-d",
    "--provider": "-p",
    "--callout": "-c",
    "--sequential": "-s",
    "--author": "-a",
    "--template": "-t",
    "--file": "-f",
    "--out": "-o",
    "--interactive": "-i",
    "--yes": "-y",
    "--json": None,
    "--vote": None,
    "--timeout": None,
    "--status": None,
}

# Commands whose output a script would want to read.
WITH_JSON = {
    "status",
    "list",
    "new",
    "comment",
    "advance",
    "close",
    "reopen",
    "turn",
    "run",
    "check",
    "init",
    "resolve",
    "review",
    "decisions",
    "adr",
    "participants list",
    "participants show",
    "templates list",
    "providers list",
    "providers test",
}


def _options() -> list[tuple[str, click.Option]]:
    ctx = click.Context(cli)
    return [
        (name, p)
        for name, cmd in _walk(cli, ctx)
        for p in cmd.params
        if isinstance(p, click.Option)
    ]


def test_every_option_follows_the_convention_of_its_flag() -> None:
    wrong = []
    for name, option in _options():
        longs = [o for o in option.opts if o.startswith("--")]
        shorts = sorted(o for o in option.opts + option.secondary_opts if len(o) == 2)
        for long_name in longs:
            if long_name in CONVENTION:
                want = [CONVENTION[long_name]] if CONVENTION[long_name] else []
                if shorts != want:
                    wrong.append(f"`{name}` {long_name}: short {shorts}, convention {want}")
        for short in shorts:
            owner = [flag for flag, s in CONVENTION.items() if s == short]
            if owner and owner[0] not in longs:
                wrong.append(f"`{name}` {short} is {longs}, convention {owner[0]}")
    assert wrong == []


def test_json_is_one_flag_everywhere_a_script_reads_the_output() -> None:
    have = set()
    for name, option in _options():
        if "--json" in option.opts:
            assert option.is_flag and option.name == "as_json", name
            have.add(name)
    assert WITH_JSON - have == set()


def test_every_command_takes_dash_h_and_shows_examples() -> None:
    from click.testing import CliRunner

    ctx = click.Context(cli)
    for name, cmd in _walk(cli, ctx):
        r = CliRunner().invoke(cli, [*name.split(), "-h"])
        assert r.exit_code == 0 and r.output.startswith("Usage: "), name
        if not isinstance(cmd, click.Group):
            assert "Examples:" in r.output, name
