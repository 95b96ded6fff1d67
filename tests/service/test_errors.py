"""Bad requests get a 4xx JSON error that names what was wrong."""

from __future__ import annotations

import httpx
import pytest

URL = "/api/v1/conversation/message"


@pytest.mark.parametrize(
    ("body", "names"),
    [
        ({"text": 42}, "text"),
        ({"text": ""}, "text"),
        ({"text": "   "}, "blank"),
        ({}, "either text"),
        ({"text": "hi", "confirmation": {"token": "t", "approve": True}}, "either text"),
        ({"confirmation": {"token": "t", "approve": True}}, "conversation_id"),
        (
            {"conversation_id": "c", "confirmation": {"token": "t", "approve": "yes"}},
            "confirmation.approve",
        ),
        ({"text": "hi", "surprise": 1}, "surprise"),
        ([1, 2], "the body must be a JSON object"),
        (None, "a JSON object body is required"),
    ],
)
async def test_wrong_message_bodies_are_422_naming_the_field(
    client: httpx.AsyncClient, body: object, names: str
) -> None:
    response = await client.post(URL, json=body)
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "INVALID_REQUEST"
    assert names in error["message"]


async def test_an_unknown_field_is_answered_with_the_fields_to_send(
    client: httpx.AsyncClient,
) -> None:
    response = await client.post(URL, json={"message": "hi"})
    assert response.status_code == 422
    message = response.json()["error"]["message"]
    assert "message is not an accepted field" in message
    assert "(send conversation_id, text, confirmation, confirmations)" in message


async def test_malformed_json_is_422_saying_so(client: httpx.AsyncClient) -> None:
    response = await client.post(
        URL, content=b'{"text": ', headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 422
    assert "not valid JSON" in response.json()["error"]["message"]


async def test_unknown_paths_and_methods_are_json_errors(client: httpx.AsyncClient) -> None:
    missing = await client.get("/api/v1/nope")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "NOT_FOUND"
    method = await client.put("/api/v1/policy")
    assert method.status_code == 405
    assert method.json()["error"]["code"] == "METHOD_NOT_ALLOWED"


async def test_an_unknown_confirmation_token_is_400(client: httpx.AsyncClient) -> None:
    response = await client.post(
        URL, json={"conversation_id": "c", "confirmation": {"token": "nope", "approve": True}}
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "INVALID_CONFIRMATION"


async def test_a_form_encoded_body_is_told_to_send_json(client: httpx.AsyncClient) -> None:
    response = await client.post(URL, data={"text": "hi"})
    assert response.status_code == 422
    assert "Content-Type: application/json" in response.json()["error"]["message"]
