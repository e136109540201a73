"""The `discussions ui` terminal app (Textual). Imported only by that command."""

from .app import DiscussionsApp

__all__ = ["DiscussionsApp"]
