"""Fixtures for capability tests: a replaying loopback server standing in for a provider."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.search.replay import ReplayServer, serving


@pytest.fixture
def replay() -> Iterator[ReplayServer]:
    with serving() as server:
        yield server
