"""Reading a page: HTML, PDF, JSON and text turned into Markdown for a model.

One entry point, :func:`to_document` (page bytes, media type, URL → :class:`Document`). The
HTML reading (:mod:`~spyglass.extract.html`) chooses between trafilatura's reading and the
page's own regions with the learned models in ``models/``; nothing here opens a connection.
"""

from spyglass.extract.document import Document, MediaType, to_document

__all__ = ["Document", "MediaType", "to_document"]
