"""The untrusted envelope: how web text is marked as data from outside the owner's control.

:mod:`~spyglass.untrusted.wrapping` wraps a result in the envelope with a fresh boundary;
:mod:`~spyglass.untrusted.envelope` keeps every spelling of the envelope's tag out of web text,
reading look-alike characters with :mod:`~spyglass.untrusted.lookalikes`. Every front end
wraps through here.
"""

from spyglass.untrusted.envelope import TAG, neutralise
from spyglass.untrusted.wrapping import NOTICE, new_boundary, wrap

__all__ = ["NOTICE", "TAG", "neutralise", "new_boundary", "wrap"]
