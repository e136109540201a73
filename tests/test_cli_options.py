"""Short options mean the same thing in every command."""

from __future__ import annotations

import click

from discussions.cli import cli


def _walk(group: click.Group, ctx: click.Context, prefix: str = "") -> list[tuple[str, click.Command]]:
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
