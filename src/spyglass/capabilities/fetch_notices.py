"""What the person approving a ``web.fetch`` is told, and why a page read asks under the
``flagged`` rule (:mod:`spyglass.core.flagged`): who receives the URL, whether the page may
be rendered, and what about the call is unusual."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from spyglass.core.outcome import DIRECT_RECIPIENT, RECIPIENT, Notice

if TYPE_CHECKING:
    from spyglass.settings import FetchSettings

#: The fetch provider that is Spyglass itself (``spyglass.fetch.hosted.DIRECT``).
DIRECT = "direct"
#: The approval card's notice that the page may be rendered.
RENDER_NOTICE = "fetch.render"
#: Why a page read asks under the ``flagged`` rule (:mod:`spyglass.core.flagged`).
NOT_FROM_CONVERSATION = "this address did not come from this conversation"
ON_OWN_NETWORK = "this address is on your own network"
FALLBACK_READER = "a hosted reader may fetch this page for you if Spyglass cannot read it"
#: The notice kind naming the hosted readers that may see the URL
#: (:func:`spyglass.fetch.hosted.dispatch.announce`).
HOSTED_NOTICE = "fetch.provider"


def unusual(notices: Sequence[Notice]) -> list[str]:
    """Why a page read with these precheck notices asks under the ``flagged`` rule: its
    address did not come from the conversation (no ``provenance`` notice), is on the owner's
    own network, or a hosted reader would (or, should Spyglass fail, might) fetch it. A read
    with no recipient at all is a later part of a page read this turn: nothing is sent."""
    from spyglass.net.private import NOTICE_KIND

    to = next((n.message for n in notices if n.kind == RECIPIENT), None)
    if to is None:
        return []
    kinds = {n.kind for n in notices}
    found = []
    if "provenance" not in kinds:
        found.append(NOT_FROM_CONVERSATION)
    if NOTICE_KIND in kinds:
        found.append(ON_OWN_NETWORK)
    if to != DIRECT_RECIPIENT:
        found.append(f"{to} will fetch this page for you")
    elif HOSTED_NOTICE in kinds:
        found.append(FALLBACK_READER)
    return found


def recipient(name: str) -> Notice:
    """The notice naming who receives the URL: ``direct`` (Spyglass) or the hosted reader."""
    if name == DIRECT:
        return Notice(RECIPIENT, DIRECT_RECIPIENT)
    from spyglass.fetch.hosted import READERS

    return Notice(RECIPIENT, READERS[name].display_name)


def render_check(settings: FetchSettings) -> list[Notice]:
    """The card's rendering notice; a refusal when every page must be rendered and no
    browser can be (nothing is fetched then)."""
    if settings.render == "off":
        return []
    from spyglass.fetch.render.browser import available

    if available(settings.browser_path):
        return [render_notice(settings)]
    if settings.render == "always":
        from spyglass.fetch.render.renderer import unavailable

        refusal = unavailable("no browser is available here")
        refusal.status = "rejected"
        raise refusal
    # auto without a browser reads statically; the result says so if the page needed one.
    return []


def render_notice(settings: FetchSettings) -> Notice:
    """What the approving person is told when the page may run in the contained browser."""
    when = "will be" if settings.render == "always" else "may be"
    why = "" if settings.render == "always" else " if it needs JavaScript to show its text"
    reach = (
        "only its own site"
        if settings.render_hosts == "same-site"
        else "other public sites too (fetch.render_hosts = any)"
    )
    return Notice(
        RENDER_NOTICE,
        f"The page {when} rendered in a headless browser{why}: its scripts run and may "
        f"contact {reach}; every request is checked like the page itself, and the result "
        "lists the other hosts contacted.",
        argument="url",
    )
