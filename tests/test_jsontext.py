"""JSON from outside: too deep to read is "not JSON", like any other text that is not."""

from __future__ import annotations

import json

import pytest

from spyglass.jsontext import TOO_DEEP, loads


def test_json_reads_as_json_loads_reads_it() -> None:
    assert loads('{"a": [1, 2.5, null, "x"]}') == {"a": [1, 2.5, None, "x"]}
    assert loads(b"[true]") == [True]


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, b"{" + b'"a":{' * 50_000])
def test_text_nested_deeper_than_python_reads_is_a_json_decode_error(text: str | bytes) -> None:
    with pytest.raises(json.JSONDecodeError, match=TOO_DEEP):
        loads(text)


def test_text_that_is_not_json_raises_as_json_loads_does() -> None:
    with pytest.raises(json.JSONDecodeError, match="Expecting value"):
        loads("[not json")
