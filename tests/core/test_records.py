"""Versioned record codecs: every record written carries its version, records without one
are version 1, older ones are upgraded on reading and newer ones refused."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest

from spyglass.core.records import RecordCodec
from spyglass.errors import StorageError


@dataclass(frozen=True)
class Note:
    title: str
    words: int = 0


def test_a_record_is_written_with_its_version_and_read_back() -> None:
    codec = RecordCodec(Note, version=1)
    text = codec.dumps(Note("é", 3))
    assert json.loads(text) == {"title": "é", "words": 3, "schema": 1}
    assert codec.loads(text) == Note("é", 3)


def test_a_record_without_a_version_is_version_1() -> None:
    assert RecordCodec(Note, version=1).loads('{"title": "old"}') == Note("old")


def test_an_older_record_is_upgraded_one_version_at_a_time() -> None:
    def rename(data: dict[str, Any]) -> dict[str, Any]:
        return {"title": data.pop("name"), **data}

    def count(data: dict[str, Any]) -> dict[str, Any]:
        return {**data, "words": len(data["title"].split())}

    codec = RecordCodec(Note, version=3, upgrades={1: rename, 2: count})
    assert codec.loads('{"name": "two words"}') == Note("two words", 2)
    assert codec.loads('{"title": "one", "schema": 2}') == Note("one", 1)
    assert codec.loads('{"title": "kept", "words": 9, "schema": 3}') == Note("kept", 9)


def test_a_codec_without_an_upgrade_for_every_older_version_is_refused() -> None:
    with pytest.raises(ValueError, match="upgrade from version 1"):
        RecordCodec(Note, version=2)


def test_a_record_newer_than_this_spyglass_is_refused_rather_than_misread() -> None:
    with pytest.raises(StorageError, match="newer than this Spyglass knows"):
        RecordCodec(Note, version=1).loads('{"title": "x", "schema": 2}')


def test_a_record_that_does_not_match_its_form_is_refused() -> None:
    with pytest.raises(StorageError, match="Note does not match its schema"):
        RecordCodec(Note, version=1).loads('{"words": "many"}')
