"""The provider definitions visible from a project, by name, ready to use.

Precedence, lowest first: built-in presets, ``$SMARTTOOLS_HOME`` (default ``~/.smarttools``)
``/providers.yaml``, the user dir's ``providers.yaml``, the project's ``providers.yaml`` (its
shape: `specs`), whose definitions are used only once the user trusts them (`trust`).

Which providers a participant tries: `chains`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ProviderNotFound, UnknownProvider, UntrustedProvider
from ..settings.config import user_dir
from ..syntax.record import Record
from .base import REPLAY_PREFIX, Provider, ProviderSpec
from .kinds import kind_of
from .kinds.command import program, program_on_path
from .presets import MOCK_SPEC, PRESETS
from .specs import PROVIDERS_FILE, read_specs, smarttools_file
from .trust import changed_since_trust, trust_refusal, trust_scope

if TYPE_CHECKING:  # replays: loaded when one is used
    from .replay import ReplayProvider


class ProviderRegistry(Record):
    """All provider definitions visible from a project.
    (A slotted `Record`: making a dataclass costs start-up time before a turn's first call.)"""

    __slots__ = ("specs", "untrusted", "project_file", "untrusted_reason", "replays")
    specs: dict[str, ProviderSpec]
    """Usable definitions by name."""
    untrusted: dict[str, ProviderSpec]
    """Project definitions withheld until the project is trusted."""
    project_file: Path | None
    """The project's providers.yaml, if there is one."""
    untrusted_reason: str
    """Why the project's definitions are withheld (not trusted, changed since, a link)."""
    replays: dict[str, ReplayProvider]
    """``replay:PATH`` providers handed out, one per name (each keeps its position)."""

    def __init__(
        self,
        specs: dict[str, ProviderSpec] | None = None,
        untrusted: dict[str, ProviderSpec] | None = None,
        project_file: Path | None = None,
        untrusted_reason: str = "",
        replays: dict[str, ReplayProvider] | None = None,
    ) -> None:
        self.specs = {} if specs is None else specs
        self.untrusted = {} if untrusted is None else untrusted
        self.project_file = project_file
        self.untrusted_reason = untrusted_reason
        self.replays = {} if replays is None else replays

    @classmethod
    def load(cls, project_root: Path | None) -> ProviderRegistry:
        reg = cls(specs=dict(PRESETS))
        reg.specs["mock"] = MOCK_SPEC
        st = smarttools_file()
        if st.is_file():
            for s in read_specs(st, "smarttools"):
                reg.specs[s.name] = s
        uf = user_dir() / PROVIDERS_FILE
        if uf.is_file():
            for s in read_specs(uf, "user"):
                reg.specs[s.name] = s
        if project_root is not None:
            pf = project_root / PROVIDERS_FILE
            if pf.is_file():
                reg.project_file = pf
                project_specs = read_specs(pf, "project")
                reg._add_project(pf, project_specs)
        return reg

    def _add_project(self, pf: Path, project_specs: list[ProviderSpec]) -> None:
        refusal = trust_refusal(pf)
        changed = changed_since_trust(pf, project_specs) if refusal is None else None
        if refusal is None and changed is None:
            for s in project_specs:
                self.specs[s.name] = s
            return
        self.untrusted = {s.name: s for s in project_specs}
        if refusal is not None:
            self.untrusted_reason = refusal
        elif set(changed or ()) == set(trust_scope(pf, project_specs)):
            self.untrusted_reason = f"defined in {pf}, which you have not trusted"
        else:
            self.untrusted_reason = (
                f"defined in {pf}; changed since you trusted it: {', '.join(changed or ())}"
            )

    def names(self) -> list[str]:
        return sorted(self.specs)

    def get(self, name: str) -> Provider:
        """The provider called `name`, ready to use."""
        # An untrusted project definition never runs. Where the user (or a preset) defines the
        # same name, theirs is used; where only the project does, say how to opt in.
        if name in self.untrusted and name not in self.specs:
            raise UntrustedProvider(
                name,
                self.untrusted_reason or f"defined in {self.project_file}, not trusted",
                "review that file, then run `discussions trust` in the project",
            )
        if name.startswith(REPLAY_PREFIX) and name not in self.specs:
            return self._replay(name)
        spec = self.specs.get(name)
        if spec is None:
            raise UnknownProvider(
                name,
                "no provider of that name",
                "add it to providers.yaml or see `discussions providers list`",
            )
        return kind_of(spec).build(spec)

    def _replay(self, name: str) -> ReplayProvider:
        """The ``replay:PATH`` provider (a recorded discussion answers; see `replay`)."""
        if name not in self.replays:
            path = Path(os.path.expanduser(name[len(REPLAY_PREFIX) :]))
            if not path.is_file():
                raise UnknownProvider(
                    name, f"no recording at {path}", "give the path of a discussion file"
                )
            from .replay import ReplayProvider

            self.replays[name] = ReplayProvider(path, name)
        return self.replays[name]

    def status(self, name: str) -> str:
        """``installed``, ``missing`` (executable not on PATH), ``built in`` (the mock),
        ``untrusted`` (only an untrusted project defines it) or ``unknown``."""
        spec = self.specs.get(name)
        if spec is None and name.startswith(REPLAY_PREFIX):
            path = Path(os.path.expanduser(name[len(REPLAY_PREFIX) :]))
            return "built in" if path.is_file() else "missing"
        if spec is None:
            return "untrusted" if name in self.untrusted else "unknown"
        return kind_of(spec).status(spec)

    def can_write(self, name: str) -> bool:
        """Whether `name` has a write mode (`ProviderSpec.write_command`) whose executable is
        on PATH here: whether it can lead an apply."""
        spec = self.specs.get(name)
        if spec is None or not spec.can_write:
            return False
        return program_on_path(spec.write_command or "") is not None

    def installed(self, name: str) -> bool:
        """Whether `name` can run here (the mock always can)."""
        return self.status(name) in ("installed", "built in")

    def require(self, name: str) -> Provider:
        """The provider `name` a person asked for by name (``--provider``), when it can run
        here: `UnknownProvider` / `UntrustedProvider` as `get`, and `ProviderNotFound` for one
        whose executable is not on PATH. A configuration error, refused before anything is
        written: a call that cannot start is no call, and the file records only calls."""
        provider = self.get(name)
        if self.status(name) == "missing":
            spec = self.specs.get(name)
            what = f"`{program(spec.command)}`" if spec and spec.command else "its recording"
            raise ProviderNotFound(
                name,
                f"not installed: {what} not found on PATH",
                "install it, or leave out --provider to use the participants' providers; "
                "`discussions providers list` shows what is installed",
            )
        return provider
