"""Request bodies of the HTTP API, validated strictly (wrong types are 422, never coerced)."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from spyglass.core.encoding import unencodable

MAX_TEXT = 20000


class _Checked(BaseModel):
    """Refuses a body holding text UTF-8 cannot encode (a lone surrogate), naming the field.

    JSON may escape a lone surrogate (``"\\ud800"``); the value decodes but could never be
    written to a response, the history or the audit log. Fields in ``_passed_on`` are
    checked by whoever receives them (capability arguments, by the executor's validation).
    """

    _passed_on: ClassVar[frozenset[str]] = frozenset()

    @model_validator(mode="before")
    @classmethod
    def _encodable(cls, data: Any) -> Any:
        if isinstance(data, dict):
            checked = {k: v for k, v in data.items() if k not in cls._passed_on}
            schema: dict[str, Any] = {"properties": {key: {} for key in cls.model_fields}}
            problem = unencodable(checked, schema)
            if problem is not None:
                raise ValueError(problem.replace("an argument name", "a field name"))
        return data


class _Body(_Checked):
    model_config = ConfigDict(extra="forbid", strict=True)


class ConfirmationAnswer(_Body):
    token: str = Field(min_length=1, max_length=256, description="The pending token.")
    approve: bool = Field(description="true runs the call; false declines it.")
    scope: Literal["call", "conversation"] = Field(
        default="call",
        description="How far an approval reaches: this call, or (conversation) this call and "
        "the same capability's later calls in this conversation under the flagged rule.",
    )


#: The most answers one batch carries: a round has at most this many calls.
MAX_ANSWERS = 8


class MessageRequest(_Body):
    """Start or continue a turn (``text``), or answer the round's pending confirmations:
    one (``confirmation``) or several at once (``confirmations``)."""

    conversation_id: str | None = Field(default=None, min_length=1, max_length=64)
    text: str | None = Field(default=None, min_length=1, max_length=MAX_TEXT)
    confirmation: ConfirmationAnswer | None = None
    confirmations: list[ConfirmationAnswer] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_ANSWERS,
        description="Answers to several cards of one round (the tokens of "
        "pending_confirmations); the turn goes on once every card of the round is answered.",
    )

    @model_validator(mode="after")
    def _one_kind(self) -> MessageRequest:
        if self.confirmation is not None and self.confirmations is not None:
            raise ValueError(
                "send confirmation (one answer) or confirmations (a list of answers), not both"
            )
        answers = self.answers()
        if (self.text is None) == (not answers):
            raise ValueError("send either text (a message) or confirmation/confirmations (answers)")
        if answers and self.conversation_id is None:
            raise ValueError("conversation_id is required with a confirmation")
        tokens = [a.token for a in answers]
        if len(set(tokens)) != len(tokens):
            raise ValueError("each token may appear once in confirmations; remove the repeats")
        if self.text is not None and not self.text.strip():
            raise ValueError("text must not be blank")
        return self

    def answers(self) -> list[ConfirmationAnswer]:
        """The answers this request carries, in the order sent (none for a message)."""
        if self.confirmation is not None:
            return [self.confirmation]
        return list(self.confirmations or [])


class StopRequest(_Body):
    """End the turn running for a conversation."""

    conversation_id: str = Field(min_length=1, max_length=64)


class ModelPick(_Body):
    """One of the models found on this machine, picked by the owner."""

    base_url: str = Field(min_length=1, max_length=2000, description="The server's base_url.")
    model: str = Field(min_length=1, max_length=500, description="The model's name.")


class PolicyBody(_Body):
    """The switches to change; any left out keep their value."""

    web_access_enabled: bool | None = Field(
        default=None, description="The master switch: off means no web capability at all."
    )
    web_search_enabled: bool | None = Field(
        default=None, description="web.search, under the master switch (on unless set off)."
    )
    web_fetch_enabled: bool | None = Field(
        default=None, description="web.fetch, under the master switch (on unless set off)."
    )
    approvals_search: Literal["each", "flagged", "default"] | None = Field(
        default=None,
        description="How often web.search asks in Spyglass's own conversations: each (every "
        "call), flagged (only a query the privacy check flags), or default (follow the "
        "approvals.search setting).",
    )
    approvals_fetch: Literal["each", "flagged", "default"] | None = Field(
        default=None,
        description="How often web.fetch asks in Spyglass's own conversations: each, flagged "
        "(only an unusual address: not from the conversation, on your network, to a hosted "
        "reader, or flagged by the privacy check), or default (follow approvals.fetch).",
    )

    @model_validator(mode="after")
    def _some_switch(self) -> PolicyBody:
        if not self.changes() and not self.approval_changes():
            raise ValueError(
                "name at least one switch: web_access_enabled, web_search_enabled or "
                "web_fetch_enabled, each true or false; or approvals_search or "
                "approvals_fetch, each each, flagged or default"
            )
        return self

    def changes(self) -> dict[str, bool]:
        """The switches this body sets, by policy key."""
        return {
            key: value
            for key, value in self.model_dump().items()
            if value is not None and not key.startswith("approvals_")
        }

    def approval_changes(self) -> dict[str, str]:
        """The approval modes this body sets, by ``[approvals]`` key."""
        return {
            key.removeprefix("approvals_"): value
            for key, value in self.model_dump().items()
            if value is not None and key.startswith("approvals_")
        }


class InvokeRequest(_Body):
    _passed_on: ClassVar[frozenset[str]] = frozenset({"arguments"})

    arguments: dict[str, Any] = Field(default_factory=dict)
    version: int | None = Field(default=None, ge=1, le=1000)
    confirmation: ConfirmationAnswer | None = None


class OpenWebUISearch(_Checked):
    # Open WebUI may add fields in later versions; unknown ones are ignored.
    model_config = ConfigDict(extra="ignore", strict=True)

    query: str = Field(min_length=1, max_length=500)
    count: int = Field(default=5, ge=1, le=50)


class OpenWebUILoad(_Checked):
    model_config = ConfigDict(extra="ignore", strict=True)

    urls: list[str] = Field(min_length=1, max_length=20)


class PasswordLogin(_Body):
    """Sign in with an account's name and password (set by `spyglass users password`)."""

    name: str = Field(min_length=1, max_length=40)
    password: str = Field(min_length=1, max_length=1024)


class PersonNew(_Body):
    """A person to add: their name and role (owner, member, child, guest)."""

    name: str = Field(min_length=1, max_length=40)
    role: str = Field(default="member", min_length=1, max_length=20)
    parent: bool = Field(default=False, description="Approves other people's waiting calls.")


class PersonChange(_Body):
    """What to change about a person; fields left out stay as they are."""

    role: str | None = Field(default=None, min_length=1, max_length=20)
    disabled: bool | None = None
    parent: bool | None = None
    capabilities: list[str] | None = Field(default=None, max_length=20)
    allow_domains: list[str] | None = Field(default=None, max_length=200)
    deny_domains: list[str] | None = Field(default=None, max_length=200)
    #: A number of calls per day; ``no_daily_limit`` removes the limit instead.
    daily_budget: int | None = Field(default=None, ge=0, le=100000)
    no_daily_limit: bool = Field(default=False, description="true removes the daily limit.")
    owner_keys: bool | None = None
    needs_approval: bool | None = None
    approvals_search: Literal["each", "flagged", "household"] | None = Field(
        default=None,
        description="How often this person's searches ask; household follows the owner's "
        "choice. A child's calls, or a person's who needs approval, keep their rules.",
    )
    approvals_fetch: Literal["each", "flagged", "household"] | None = Field(
        default=None,
        description="How often this person's page reads ask; household follows the owner's.",
    )


class ApprovalAnswer(_Body):
    """An owner's or parent's answer to a waiting call."""

    approve: bool = Field(description="true lets the call run once; false declines it.")
    scope: Literal["call", "conversation"] = Field(
        default="call",
        description="conversation also lets this person's later calls of the same capability "
        "in the same conversation run under the flagged rule (calls a check flags still wait).",
    )


class ShareBody(_Body):
    """Whether the owners may read this conversation."""

    shared: bool


class KeyBody(_Body):
    """A provider key of one's own; stored as a secret, never shown again."""

    secret: str = Field(min_length=1, max_length=512)
