"""The `discussions ui` terminal app (Textual). Imported only by that command."""

from __future__ import annotations

from ..syntax.faces import face

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from .app import DiscussionsApp

# The face (`syntax.faces`): Textual loads when the app is first used, not with the package.
__getattr__, __dir__ = face(__name__, {"DiscussionsApp": "app"})

__all__ = ["DiscussionsApp"]
