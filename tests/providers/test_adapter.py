"""The adapter base: its endpoint from settings, one exchange, and failures named for its tool."""

from __future__ import annotations

from typing import ClassVar

import pytest

from spyglass.providers.adapter import Adapter
from spyglass.providers.exchange import (
    REJECTED,
    Failures,
    ProviderFailure,
    ProviderRequest,
)
from tests.search.replay import ReplayServer, Reply


class LookupFailure(ProviderFailure):
    """The failure of the tool these tests stand in for."""


class Acme(Adapter[LookupFailure]):
    """A keyed provider that explains its own 418 and nothing else."""

    failures = Failures("search", LookupFailure)
    name: ClassVar[str] = "acme"
    default_base_url: ClassVar[str | None] = "https://api.acme.example"

    def explain_error(self, status: int, body: bytes) -> LookupFailure | None:
        if status == 418:
            return self.failure(REJECTED, "acme is a teapot")
        return None


class Open(Acme):
    """The same provider without a key."""

    name: ClassVar[str] = "open"
    needs_key: ClassVar[bool] = False


@pytest.mark.parametrize(
    ("status", "code", "retryable"),
    [
        (401, "SEARCH_AUTH_FAILED", False),
        (403, "SEARCH_AUTH_FAILED", False),
        (402, "SEARCH_QUOTA_EXCEEDED", False),
        (429, "SEARCH_RATE_LIMITED", True),
        (408, "SEARCH_PROVIDER_UNAVAILABLE", True),
        (500, "SEARCH_PROVIDER_UNAVAILABLE", True),
        (503, "SEARCH_PROVIDER_UNAVAILABLE", True),
        (400, "SEARCH_PROVIDER_REJECTED", False),
        (404, "SEARCH_PROVIDER_REJECTED", False),
    ],
)
def test_a_status_the_adapter_did_not_explain_gets_the_generic_failure(
    status: int, code: str, retryable: bool
) -> None:
    failure = Acme().status_failure(status)
    assert isinstance(failure, LookupFailure)
    assert (failure.code, failure.retryable) == (code, retryable)
    assert "acme" in failure.message and str(status) in failure.message


def test_a_keyless_provider_refusing_is_not_blamed_on_a_key() -> None:
    failure = Open().status_failure(401)
    assert failure.code == "SEARCH_PROVIDER_REJECTED" and "api_key" not in failure.message


def test_an_endpoint_without_an_address_or_key_names_the_setting_to_fix() -> None:
    with pytest.raises(LookupFailure) as no_address:
        Acme().endpoint(None, "k")
    assert no_address.value.code == "SEARCH_NOT_CONFIGURED"
    assert "search.acme.base_url" in no_address.value.message
    assert no_address.value.status == "rejected"
    with pytest.raises(LookupFailure, match=r"search\.acme\.base_url must start with http"):
        Acme().endpoint("ftp://api.acme.example", "k")
    with pytest.raises(LookupFailure) as no_key:
        Acme().endpoint("https://api.acme.example", "")
    assert "search.acme.api_key" in no_key.value.message
    assert "SPYGLASS_SEARCH__ACME__API_KEY" in no_key.value.message


def test_a_key_that_may_be_set_elsewhere_is_named_where() -> None:
    with pytest.raises(LookupFailure, match=r"set fetch\.acme\.api_key \(or search\.acme"):
        Acme().endpoint(
            "https://a.example", None, key_setting="fetch.acme.api_key (or search.acme.api_key)"
        )


def test_a_keyless_provider_gets_an_endpoint_without_a_key() -> None:
    endpoint = Open().endpoint("https://open.example/v1", "")
    assert endpoint.api_key is None and endpoint.url("/search") == "https://open.example/v1/search"


async def test_the_adapters_own_explanation_comes_before_the_generic_rules(
    replay: ReplayServer,
) -> None:
    replay.set("/brew", Reply(418, {"error": "short and stout"}))
    with pytest.raises(LookupFailure, match="acme is a teapot"):
        await Acme().exchange(
            ProviderRequest("GET", replay.url + "/brew"), timeout=5, max_bytes=1024
        )
    replay.set("/gone", Reply(503, b""))
    with pytest.raises(LookupFailure) as caught:
        await Acme().exchange(
            ProviderRequest("GET", replay.url + "/gone"), timeout=5, max_bytes=1024
        )
    assert caught.value.code == "SEARCH_PROVIDER_UNAVAILABLE" and caught.value.retryable


async def test_a_successful_answer_is_its_body(replay: ReplayServer) -> None:
    replay.set("/ok", Reply(200, {"fine": True}))
    body = await Open().exchange(
        ProviderRequest("GET", replay.url + "/ok"), timeout=5, max_bytes=1024
    )
    assert Open().load_json(body) == {"fine": True}


def test_an_answer_that_is_not_json_or_lacks_a_field_names_the_base_url_setting() -> None:
    with pytest.raises(LookupFailure) as caught:
        Acme().load_json(b"<html>")
    assert caught.value.code == "SEARCH_INVALID_OUTPUT"
    assert "search.acme.base_url" in caught.value.message
    assert "without a results list" in Acme().invalid("a results list").message
