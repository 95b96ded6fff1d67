"""The generated look-alike table is current: regenerating it from Unicode gives the same table."""

from __future__ import annotations

import importlib.util
import unicodedata
from pathlib import Path
from types import ModuleType

import pytest

from spyglass.untrusted import lookalikes

GENERATOR = Path(__file__).resolve().parents[2] / "scripts" / "lookalikes.py"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("lookalikes_generator", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(
    unicodedata.unidata_version != lookalikes.UNICODE_VERSION,
    reason="this Python's Unicode data differ from those the table was written from",
)
def test_the_table_is_what_the_generator_writes_today() -> None:
    namespace: dict[str, object] = {}
    exec(_generator().render(), namespace)
    assert namespace["READS_AS"] == lookalikes.READS_AS
    assert namespace["ASCII_ALIKES"] == lookalikes.ASCII_ALIKES


def test_every_lookalike_is_outside_ascii_and_reads_as_something_else() -> None:
    for reading, chars in lookalikes.READS_AS.items():
        assert chars, reading
        assert all(not char.isascii() and char != reading for char in chars)
