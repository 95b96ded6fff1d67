"""The in-process conversation grants: one conversation, one person, one capability, until
idle."""

from __future__ import annotations

from spyglass.core.grants import InMemoryGrants
from tests.support.executor import Clock


async def test_a_grant_is_live_for_its_conversation_person_and_capability_only() -> None:
    grants = InMemoryGrants(Clock())
    await grants.grant("c1", "a1", "web.fetch", 60)
    assert await grants.use("c1", "a1", "web.fetch", 60)
    assert not await grants.use("c2", "a1", "web.fetch", 60)
    assert not await grants.use("c1", "a2", "web.fetch", 60)
    assert not await grants.use("c1", "a1", "web.search", 60)


async def test_each_use_renews_a_grant_and_an_idle_one_lapses() -> None:
    clock = Clock()
    grants = InMemoryGrants(clock)
    await grants.grant("c1", "a1", "web.fetch", 60)
    clock.now += 50
    assert await grants.use("c1", "a1", "web.fetch", 60)
    clock.now += 50
    assert await grants.use("c1", "a1", "web.fetch", 60)
    clock.now += 61
    assert not await grants.use("c1", "a1", "web.fetch", 60)


async def test_signing_out_drops_every_grant_of_that_person_only() -> None:
    grants = InMemoryGrants(Clock())
    await grants.grant("c1", "a1", "web.fetch", 60)
    await grants.grant("c2", "a1", "web.search", 60)
    await grants.grant("c1", "a2", "web.fetch", 60)
    assert await grants.drop_person("a1") == 2
    assert not await grants.use("c1", "a1", "web.fetch", 60)
    assert await grants.use("c1", "a2", "web.fetch", 60)
