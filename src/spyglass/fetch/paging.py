"""Serving long text in parts: ``offset`` and ``max_chars``, cut at a line break."""

from __future__ import annotations

from dataclasses import dataclass

from spyglass.errors import CapabilityError
from spyglass.net.errors import OFFSET_OUT_OF_RANGE


@dataclass(frozen=True)
class Part:
    text: str
    offset: int
    next_offset: int | None
    total_chars: int

    @property
    def truncated(self) -> bool:
        return self.next_offset is not None


def part(text: str, offset: int, max_chars: int) -> Part:
    """The part of ``text`` starting at ``offset``, at most ``max_chars`` long.

    The part ends after the last line break in its second half when there is one (else the
    last space there), so a model never gets half a line it must stitch together.
    """
    total = len(text)
    if offset < 0 or (offset > 0 and offset >= total):
        raise CapabilityError(
            OFFSET_OUT_OF_RANGE,
            f"offset {offset} is past the end of the text ({total} characters); "
            "start again from offset 0",
        )
    end = offset + max_chars
    if end >= total:
        return Part(text[offset:], offset, None, total)
    window = text[offset:end]
    floor = max_chars // 2
    cut = window.rfind("\n", floor)
    if cut < 0:
        cut = window.rfind(" ", floor)
    stop = offset + cut + 1 if cut >= 0 else end
    return Part(text[offset:stop], offset, stop, total)
