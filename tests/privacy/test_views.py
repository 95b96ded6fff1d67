"""Decoded forms of a URL map every decoded character back to what is really sent."""

from __future__ import annotations

import base64

from spyglass.privacy.views import View, embedded, percent_decoded, text_views, url_views


def test_percent_and_plus_decoding_maps_back_to_the_encoded_characters() -> None:
    url = "https://a.example/p?q=jane%40example.com+x"
    decoded = url_views(url)[1]
    at = decoded.text.index("jane@example.com")
    start, end = decoded.span(at, at + len("jane@example.com"))
    assert url[start:end] == "jane%40example.com"
    assert decoded.text.endswith("jane@example.com x")


def test_a_plus_in_the_path_stays_a_plus() -> None:
    decoded = url_views("https://a.example/c++/x?y=a+b")[1]
    assert decoded.text == "https://a.example/c++/x?y=a b"


def test_double_encoding_is_read_too() -> None:
    texts = [view.text for view in url_views("https://a.example/?e=jane%2540example.com")]
    assert any("jane@example.com" in text for text in texts)


def test_the_fragment_is_never_read_because_it_is_never_sent() -> None:
    assert all("secret" not in v.text for v in url_views("https://a.example/#secret"))


def test_base64_and_hex_runs_that_hold_text_are_decoded_and_map_back_to_what_encodes_them() -> None:
    hidden = "meet me at the usual place"
    b64 = base64.urlsafe_b64encode(hidden.encode()).decode().rstrip("=")
    url = f"https://a.example/?d={b64}&h={hidden.encode().hex()}"
    spans = set()
    for view in url_views(url):
        if hidden in view.text and view.text != url:
            at = view.text.index(hidden)
            start, end = view.span(at, at + len(hidden))
            spans.add(url[start:end])
    assert spans == {b64, hidden.encode().hex()}


def test_random_bytes_and_short_runs_are_not_treated_as_text() -> None:
    assert embedded(View.of("0e322af87745eff34caffe4df68456ebc20d9068")) == []
    assert embedded(View.of("abcd")) == []
    assert len(text_views("plain words only")) == 1


def test_multi_byte_characters_map_to_their_whole_percent_run() -> None:
    decoded = percent_decoded(View.of("x%C3%A9y"), plus_as_space=False)
    assert decoded.text == "xéy"
    assert decoded.span(1, 2) == (1, 7)
