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


def test_copied_words_run_together_or_camel_cased_are_found_where_they_are() -> None:
    copied = CopiedText([MESSAGE])
    for written in (
        "mylandlordat12elmstreetisrefusingtoreturnthedeposit",
        "MyLandlordAt12ElmStreetIsRefusingToReturnTheDeposit",
    ):
        url = f"https://x.example/notes/{written}?p=1"
        (finding,) = copied(url)
        assert url[finding.start : finding.end] == written
        assert finding.what == "12 words of your messages"


def test_copied_words_joined_by_underscores_dots_or_tildes_are_found() -> None:
    copied = CopiedText([MESSAGE])
    for separator in "_.~":
        written = separator.join(
            ["landlord", "at", "12", "elm", "street", "is", "refusing", "to", "return"]
        )
        (finding,) = copied(f"/p/{written}")
        assert finding.what == "9 words of your messages"


def test_short_words_run_together_are_not_looked_for_inside_other_text() -> None:
    # "1 2 3 4 5 6 7 8" run together is a digit string many ids contain.
    copied = CopiedText(["steps 1 2 3 4 5 6 7 8 done"])
    assert list(copied("order 123456789 shipped")) == []
    assert [f.what for f in copied("steps 1 2 3 4 5 6 7 8")] == ["9 words of your messages"]


def test_a_run_together_copy_of_too_few_words_is_not_a_copy() -> None:
    copied = CopiedText([MESSAGE])
    assert list(copied("mylandlordat12elmstreetis")) == []
