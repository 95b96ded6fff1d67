"""Command-line arguments that are not text: refused before any command runs.

Python decodes ``argv`` with the file-system encoding and keeps a byte that is not valid
there as a lone surrogate (``'caf\\udce9'`` for ``caf\\xe9``). Such a string cannot be
shown, sent or logged as UTF-8, so it is a usage error, reported by position.
"""

from __future__ import annotations

from collections.abc import Sequence

from spyglass.core.encoding import encodable


def undecodable(argv: Sequence[str]) -> str | None:
    """A message naming the first argument that is not valid text, or ``None``."""
    for position, argument in enumerate(argv, start=1):
        if not encodable(argument):
            shown = argument.encode("utf-8", "surrogateescape").decode("ascii", "backslashreplace")
            return (
                f"argument {position} ({shown[:60]}) is not valid UTF-8 text; "
                "type it again in a UTF-8 terminal (check LANG / LC_ALL)"
            )
    return None
