"""What leaves the house: the privacy check, provenance of fetched URLs, and receipts.

- :mod:`spyglass.privacy.detectors` finds personal data and secrets in a piece of text;
- :mod:`spyglass.privacy.views` gives the decoded forms of a query or URL (normalised, percent,
  base64, hex) with a map back to the characters actually sent;
- :mod:`spyglass.privacy.copied` finds runs of words copied from the conversation;
- :mod:`spyglass.privacy.check` runs them on an outgoing query or URL and applies the policy;
- :mod:`spyglass.privacy.provenance` decides whether a URL came from the conversation;
- :mod:`spyglass.privacy.receipts` says what left the device during one answer.
"""
