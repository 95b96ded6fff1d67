"""Tokens are unguessable, single use and taken atomically."""

from __future__ import annotations

import threading

from spyglass.core.confirmation import (
    TOKEN_TTL_SECONDS,
    Binding,
    InMemoryConfirmationStore,
    PendingRecord,
    canonical_json,
    new_token,
)


def _record(token: str, expires_at: float = 100.0) -> PendingRecord:
    return PendingRecord(
        token, Binding("web.search", 1, canonical_json({"q": 1}), None), "inv", expires_at
    )


def test_tokens_are_url_safe_and_carry_at_least_128_bits() -> None:
    tokens = {new_token() for _ in range(1000)}
    assert len(tokens) == 1000
    for token in tokens:
        assert len(token) * 6 >= 128
        assert set(token) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def test_canonical_json_does_not_depend_on_key_order_or_spacing() -> None:
    assert canonical_json({"b": 1, "a": "é"}) == canonical_json({"a": "é", "b": 1})
    assert canonical_json({"a": "é"}) == '{"a":"é"}'


def test_a_token_can_be_taken_only_once() -> None:
    store = InMemoryConfirmationStore()
    store.put(_record("t1"))
    assert store.take("t1") is not None
    assert store.take("t1") is None


def test_fifty_threads_racing_on_one_token_get_exactly_one_record() -> None:
    store = InMemoryConfirmationStore()
    store.put(_record("race"))
    barrier = threading.Barrier(50)
    results: list[object] = []
    lock = threading.Lock()

    def worker() -> None:
        barrier.wait(timeout=10)
        value = store.take("race")
        with lock:
            results.append(value)

    threads = [threading.Thread(target=worker) for _ in range(50)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert sum(r is not None for r in results) == 1
    assert len(results) == 50


def test_expired_records_are_pruned_after_a_grace_period() -> None:
    now = [0.0]
    store = InMemoryConfirmationStore(clock=lambda: now[0])
    store.put(_record("old", expires_at=TOKEN_TTL_SECONDS))
    now[0] = TOKEN_TTL_SECONDS * 3
    store.put(_record("new", expires_at=now[0] + TOKEN_TTL_SECONDS))
    assert store.take("old") is None
    assert store.take("new") is not None
