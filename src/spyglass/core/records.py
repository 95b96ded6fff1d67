"""Records kept outside the process (a state file, Redis) as versioned JSON.

Each kind of record declares its stored form once, as a dataclass, and a :class:`RecordCodec`
over it: pydantic's ``TypeAdapter`` checks what is read against the declared types and writes
what is kept. Every record written carries its schema version (``"schema": n``); a record
written before versions were kept has no such field and is version 1. Reading a record of an
older version runs the codec's upgrades, one version at a time, before it is checked; a record
of a newer version than this Spyglass knows is refused rather than misread.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

from pydantic import TypeAdapter, ValidationError

from spyglass.errors import StorageError

T = TypeVar("T")

#: The field every stored record carries its schema version in.
SCHEMA_FIELD = "schema"

#: The version of a record written before versions were kept (no :data:`SCHEMA_FIELD`).
UNVERSIONED = 1

#: Turns a record of version ``n`` (as JSON data) into one of version ``n + 1``.
Upgrade = Callable[[dict[str, Any]], dict[str, Any]]


class RecordCodec(Generic[T]):
    """The JSON a store keeps for records of the declared ``form``, at schema ``version``.

    ``upgrades[n]`` turns a record of version ``n`` into one of version ``n + 1``: a codec
    at version 3 has upgrades for 1 and 2.
    """

    def __init__(
        self, form: type[T], *, version: int, upgrades: Mapping[int, Upgrade] | None = None
    ) -> None:
        missing = [n for n in range(UNVERSIONED, version) if n not in (upgrades or {})]
        if missing:
            raise ValueError(f"{form.__name__} needs an upgrade from version {missing[0]}")
        self.form = form
        self.version = version
        self.upgrades = dict(upgrades or {})
        self._adapter: TypeAdapter[T] | None = None

    @property
    def adapter(self) -> TypeAdapter[T]:
        # Built on first use: a command that never keeps a record never pays for it.
        if self._adapter is None:
            self._adapter = TypeAdapter(self.form)
        return self._adapter

    def dumps(self, record: T) -> str:
        """``record`` as compact JSON, with its schema version."""
        data = self.adapter.dump_python(record, mode="json")
        data[SCHEMA_FIELD] = self.version
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False)

    def loads(self, text: str | bytes) -> T:
        """The record ``text`` holds, upgraded to this version; :class:`StorageError` when it
        is newer than this Spyglass knows or does not match its declared form."""
        data = json.loads(text)
        version = data.pop(SCHEMA_FIELD, UNVERSIONED)
        name = self.form.__name__
        if not isinstance(version, int) or version > self.version:
            raise StorageError(
                f"a stored {name} has schema version {version!r}, newer than this Spyglass "
                f"knows ({self.version}); upgrade Spyglass"
            )
        for step in range(version, self.version):
            data = self.upgrades[step](data)
        try:
            return self.adapter.validate_python(data)
        except ValidationError as exc:
            raise StorageError(f"a stored {name} does not match its schema: {exc}") from exc
