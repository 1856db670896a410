"""Errors of the vision pipeline, all ValueError subclasses with player-readable text."""

from __future__ import annotations


class VisionError(ValueError):
    """The frame or a vision setting cannot be used; the message says why."""


class BadFrame(VisionError):
    """The frame itself is unusable (not an image, wrong size or type)."""
