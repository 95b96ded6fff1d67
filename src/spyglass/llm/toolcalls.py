"""Tool calls as local servers really send them, normalised into one ``ToolCall`` shape.

Streaming servers disagree on the details: fragments keyed by ``index`` whose ``arguments``
strings must be concatenated; Ollama sending every call with index 0; empty ids, or an index
reused with a new id; ``arguments`` as an object instead of a JSON string. Some models (Qwen
and relatives) also leak calls into plain text as ``<tool_call>{...}</tool_call>`` or
``<function=NAME><parameter=K>V</parameter></function>``; those are recovered here and
marked so the executor can audit them as such.
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass, field
from typing import Any

from spyglass import jsontext
from spyglass.core.encoding import encodable

MARKERS = ("<tool_call", "<function=")


@dataclass(frozen=True)
class ToolCall:
    """One proposed call. ``arguments`` is a dict, or the raw text when it was not JSON."""

    id: str
    name: str
    arguments: dict[str, Any] | str
    recovered: bool = False

    @property
    def arguments_text(self) -> str:
        """The arguments as the JSON string the OpenAI protocol carries."""
        if isinstance(self.arguments, str):
            return self.arguments
        text = json.dumps(self.arguments, ensure_ascii=False)
        # Escaped, a lone surrogate the model sent goes back to it (and to the history)
        # exactly as it came, as text every writer can encode.
        return text if encodable(text) else json.dumps(self.arguments)

    def as_message_entry(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments_text},
        }


def new_call_id() -> str:
    return f"call_{uuid.uuid4().hex[:24]}"


def parse_arguments(raw: str) -> dict[str, Any] | str:
    """JSON object text → dict; anything else is kept as text so validation can say why."""
    text = raw.strip() or "{}"
    try:
        value = jsontext.loads(text)
    except ValueError:
        return raw
    return value if isinstance(value, dict) else raw


@dataclass
class _Slot:
    id: str = ""
    name: str = ""
    parts: list[str] = field(default_factory=list)
    whole: dict[str, Any] | None = None

    def complete(self) -> bool:
        return bool(self.name) and (self.whole is not None or bool("".join(self.parts).strip()))


class ToolCallAccumulator:
    """Collects ``delta.tool_calls`` fragments of one streamed response into whole calls."""

    def __init__(self) -> None:
        self._slots: list[_Slot] = []
        self._by_index: dict[int, _Slot] = {}

    def add(self, fragment: Any) -> None:
        if not isinstance(fragment, dict):
            return
        index = fragment.get("index")
        index = index if isinstance(index, int) else 0
        call_id = fragment.get("id") if isinstance(fragment.get("id"), str) else ""
        function = fragment.get("function")
        function = function if isinstance(function, dict) else {}
        name = function.get("name") if isinstance(function.get("name"), str) else ""
        slot = self._by_index.get(index)
        # A different non-empty id at a used index, or a second complete call arriving at
        # the same index (Ollama streams each whole call at index 0), starts a new call.
        fresh = slot is None
        if slot is not None and call_id and slot.id and call_id != slot.id:
            fresh = True
        if slot is not None and name and not call_id and slot.complete():
            fresh = True
        if fresh:
            slot = _Slot()
            self._slots.append(slot)
            self._by_index[index] = slot
        assert slot is not None
        if call_id and not slot.id:
            slot.id = call_id
        if name and not slot.name:
            slot.name = name
        arguments = function.get("arguments")
        if isinstance(arguments, dict):
            slot.whole = arguments
        elif isinstance(arguments, str):
            slot.parts.append(arguments)

    def calls(self) -> list[ToolCall]:
        result = []
        seen: set[str] = set()
        for slot in self._slots:
            if not slot.name:
                continue
            call_id = slot.id if slot.id and slot.id not in seen else new_call_id()
            seen.add(call_id)
            arguments = (
                slot.whole if slot.whole is not None else parse_arguments("".join(slot.parts))
            )
            result.append(ToolCall(call_id, slot.name, arguments))
        return result


# -- leaked calls in text -----------------------------------------------------------------

_BLOCK = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL)
_FUNCTION = re.compile(r"<function=([^>\s]+)>(.*?)</function>", re.DOTALL)
_PARAMETER = re.compile(r"<parameter=([^>\s]+)>(.*?)</parameter>", re.DOTALL)


@dataclass(frozen=True)
class Salvage:
    """Text with every leaked call block removed, and the calls that parsed."""

    text: str
    calls: list[ToolCall]
    malformed: int


def _json_call(body: str) -> ToolCall | None:
    try:
        data = jsontext.loads(body)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        return None
    arguments = data.get("arguments", data.get("parameters", {}))
    if isinstance(arguments, str):
        arguments = parse_arguments(arguments)
    if not isinstance(arguments, dict):
        return None
    return ToolCall(new_call_id(), data["name"], arguments, recovered=True)


def _function_call(name: str, body: str) -> ToolCall:
    arguments: dict[str, Any] = {}
    for key, raw in _PARAMETER.findall(body):
        value = raw.strip()
        try:
            arguments[key] = jsontext.loads(value)
        except ValueError:
            arguments[key] = value
    return ToolCall(new_call_id(), name, arguments, recovered=True)


def salvage(text: str) -> Salvage:
    """Parse leaked call blocks out of ``text``. Malformed blocks are dropped, never shown."""
    calls: list[ToolCall] = []
    malformed = 0

    def block(match: re.Match[str]) -> str:
        nonlocal malformed
        body = match.group(1).strip()
        function = _FUNCTION.fullmatch(body)
        call = _function_call(*function.groups()) if function else _json_call(body)
        if call is None:
            malformed += 1
        else:
            calls.append(call)
        return ""

    def bare(match: re.Match[str]) -> str:
        calls.append(_function_call(match.group(1), match.group(2)))
        return ""

    cleaned = _BLOCK.sub(block, text)
    cleaned = _FUNCTION.sub(bare, cleaned)
    # An opening marker left over has no end: a malformed fragment, cut off with all after it.
    cut = min((i for i in (cleaned.find(m) for m in MARKERS) if i >= 0), default=-1)
    if cut >= 0:
        malformed += 1
        cleaned = cleaned[:cut]
    return Salvage(cleaned.strip() if calls or malformed else cleaned, calls, malformed)


class LeakGuard:
    """Streams text through while holding back anything that may be a leaked call block.

    Text before a marker is released as it arrives; from the first marker on everything is
    held until :meth:`finish`, which parses the held text with :func:`salvage`.
    """

    def __init__(self) -> None:
        self._text = ""
        self._released = 0
        self._holding = False

    def feed(self, delta: str) -> str:
        self._text += delta
        if self._holding:
            return ""
        start = self._released
        hits = [i for i in (self._text.find(m, start) for m in MARKERS) if i >= 0]
        if hits:
            self._holding = True
            end = min(hits)
        else:
            end = len(self._text) - _partial_marker_suffix(self._text)
        out = self._text[start:end]
        self._released = max(start, end)
        return out

    def finish(self) -> tuple[str, Salvage]:
        """The rest of the safe text, and what was salvaged from the held part."""
        rest = salvage(self._text[self._released :])
        return rest.text, rest

    @property
    def released(self) -> str:
        return self._text[: self._released]


#: Every proper beginning of a marker, and the longest one's length.
_MARKER_STARTS = frozenset(m[:size] for m in MARKERS for size in range(1, len(m)))
_LONGEST_START = max(len(start) for start in _MARKER_STARTS)
_FIRST_CHARACTERS = frozenset(m[0] for m in MARKERS)


def _partial_marker_suffix(text: str) -> int:
    """Length of the longest end of ``text`` that could begin a marker."""
    tail = text[-_LONGEST_START:]
    # Most pieces of a streamed answer hold no character a marker starts with.
    if not any(character in tail for character in _FIRST_CHARACTERS):
        return 0
    for size in range(min(_LONGEST_START, len(text)), 0, -1):
        if text[-size:] in _MARKER_STARTS:
            return size
    return 0
