"""Runs of words copied from the conversation are found, however they are spelled."""

from __future__ import annotations

from spyglass.privacy.copied import CopiedText

MESSAGE = (
    "My landlord at 12 Elm Street is refusing to return the deposit of 1200 euros "
    "because of a stain on the carpet."
)


def test_eight_copied_words_are_found_and_counted() -> None:
    copied = CopiedText([MESSAGE])
    query = "tips: landlord at 12 elm street is refusing to return the deposit"
    (finding,) = copied(query)
    assert finding.what == "11 words of your messages"
    assert query[finding.start : finding.end] == query.removeprefix("tips: ")


def test_case_accents_and_punctuation_do_not_hide_a_copy() -> None:
    copied = CopiedText(["Le café de la gare ferme à minuit tous les soirs sauf lundi"])
    (finding,) = copied("LE CAFE-DE-LA-GARE ferme a minuit, tous les soirs")
    assert finding.what == "11 words of your messages"


def test_seven_words_or_words_in_another_order_are_not_a_copy() -> None:
    copied = CopiedText([MESSAGE])
    assert list(copied("my landlord at 12 elm street is")) == []
    assert list(copied("deposit the return to refusing is street elm 12 at")) == []


def test_addresses_the_user_typed_are_not_private_text() -> None:
    copied = CopiedText(["read https://docs.example/a/b/c/d/e/f/g/h/i/j please"], n=4)
    assert list(copied("https://docs.example/a/b/c/d/e/f/g/h/i/j")) == []


def test_an_empty_conversation_finds_nothing() -> None:
    assert not CopiedText([])
    assert list(CopiedText([])("anything at all here")) == []
