"""The act of re-trying a decision: its first ballot asked again of another provider or model
(`engine.council.retrial`), recorded in the discussion as a ``RETRIAL`` block."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..derive.retrials import RetrialVote
from ..engine.council.retrial import RetrialDone, retrial
from ..engine.runner import Runner
from ..model.discussion import Discussion
from ..providers.registry import ProviderRegistry
from ..providers.variants import model_variant
from ..settings.workspace import Workspace


def retry(
    ws: Workspace,
    path: Path,
    provider: str,
    model: str = "",
    *,
    timeout: float | None = None,
    on_vote: Callable[[RetrialVote], None] | None = None,
) -> RetrialDone:
    """Re-try the decision of the discussion at `path` on `provider` (with `model`, for a
    provider whose model a request names: `providers.variants`); `on_vote` hears each
    answer as it comes."""
    registry = ProviderRegistry.load(ws.config.base_dir)
    asked = model_variant(registry, provider, model)
    runner = Runner(ws, steps=(), providers=registry, timeout=timeout)
    d = Discussion.load(path, ws)
    return retrial(runner, d, asked, model.strip(), on_vote, named=provider)
