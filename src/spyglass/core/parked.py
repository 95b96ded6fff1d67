"""A waiting call as its caller keeps it: the card it issues, or the card it answers.

A caller that keeps paused turns in the same store as the confirmation tokens (the
conversation layer) writes a new card together with its paused turn, and takes an answered
card together with that turn: one store step each instead of two. It tells the executor so
with one :class:`Parked` record, given to :meth:`~spyglass.core.executor.Executor.ainvoke`
(or :meth:`~spyglass.core.executor.Executor.adeny`); every other caller gives none and the
executor uses its confirmation store itself.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from spyglass.core.confirmation import PendingRecord, Taken
from spyglass.core.outcome import Outcome

#: Keeps a confirmation's record in place of the confirmation store, together with what the
#: caller keeps beside it (the paused turn), in one store step; given the outcome the call
#: will return. Raises ``StoreUnavailable`` as the store would.
Keep = Callable[[PendingRecord, Outcome], Awaitable[None]]


@dataclass(frozen=True)
class Parked:
    """Where the caller keeps a call that waits for an answer.

    ``keep`` stores a confirmation this call issues, in place of the confirmation store (a
    card an approver must answer goes to the store all the same: the approver reads it
    there). ``taken`` is the record of the call's ``confirmation_token``, taken from the
    store by the caller already: every check on the token is made as when the executor
    takes it, and a record the call does not reach its confirm stage with is put back.
    """

    keep: Keep | None = None
    taken: Taken | None = None
    #: Records, durably, that the approved call is about to leave (given its invocation id)
    #: before it does, so that a process carrying the turn on after a crash knows it may
    #: have been sent. A call whose start cannot be recorded does not run (it raises
    #: ``StoreUnavailable``).
    started: Callable[[str], Awaitable[None]] | None = None
    #: The caller puts ``taken`` back itself when no answer used it, together with its
    #: paused turn (a token is never put back without the turn it answers); the executor
    #: then leaves it.
    returns_taken: bool = False
