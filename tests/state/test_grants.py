"""Conversation grants on every backend: the in-process store, the state file and Redis,
each seen from a second process too."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest

from spyglass.core.grants import GrantStore
from tests.support.service import Clock
from tests.support.stores import LiveStores

IDLE = 3600.0


@pytest.fixture
def grants(live: LiveStores) -> tuple[Clock, GrantStore, Callable[[], GrantStore]]:
    """Each backend's grants (``live``: memory, the state file, Redis on a real server), and
    a second process's view of the same storage."""

    def other() -> GrantStore:
        more = live.other().grants
        assert more is not None
        return more

    assert live.grants is not None
    return live.clock, live.grants, other


def _ids() -> tuple[str, str]:
    return uuid.uuid4().hex, uuid.uuid4().hex


async def test_a_grant_covers_its_conversation_person_and_capability_only(grants: Any) -> None:
    _, store, _ = grants
    conversation, person = _ids()
    await store.grant(conversation, person, "web.fetch", IDLE)
    assert await store.use(conversation, person, "web.fetch", IDLE)
    assert not await store.use(conversation, person, "web.search", IDLE)
    assert not await store.use(uuid.uuid4().hex, person, "web.fetch", IDLE)
    assert not await store.use(conversation, uuid.uuid4().hex, "web.fetch", IDLE)


async def test_a_grant_given_in_one_process_is_used_in_another(grants: Any) -> None:
    _, store, other = grants
    conversation, person = _ids()
    await store.grant(conversation, person, "web.fetch", IDLE)
    assert await other().use(conversation, person, "web.fetch", IDLE)


async def test_each_use_renews_a_grant_and_an_idle_one_lapses(grants: Any) -> None:
    clock, store, _ = grants
    conversation, person = _ids()
    await store.grant(conversation, person, "web.fetch", IDLE)
    clock.now += IDLE - 10
    assert await store.use(conversation, person, "web.fetch", IDLE)
    clock.now += IDLE - 10
    assert await store.use(conversation, person, "web.fetch", IDLE)
    clock.now += IDLE + 1
    assert not await store.use(conversation, person, "web.fetch", IDLE)


async def test_signing_out_drops_that_person_s_grants_everywhere(grants: Any) -> None:
    _, store, _ = grants
    (c1, person), (c2, someone) = _ids(), _ids()
    await store.grant(c1, person, "web.fetch", IDLE)
    await store.grant(c2, person, "web.search", IDLE)
    await store.grant(c1, someone, "web.fetch", IDLE)
    assert await store.drop_person(person) == 2
    assert not await store.use(c1, person, "web.fetch", IDLE)
    assert not await store.use(c2, person, "web.search", IDLE)
    assert await store.use(c1, someone, "web.fetch", IDLE)
    assert await store.drop_person(person) == 0
