"""kite.framing: the Content-Length framing DAP sits on, whatever the reads cut."""

from __future__ import annotations

import io

import pytest

from kite import framing


def test_a_message_split_over_two_reads_comes_out_once_whole():
    data = framing.encode({"seq": 1, "command": "initialize", "text": "ä"})
    reader = framing.Reader()
    for cut in range(1, len(data)):
        reader = framing.Reader()
        assert reader.feed(data[:cut]) == []
        assert reader.feed(data[cut:]) == [{"seq": 1, "command": "initialize", "text": "ä"}]


def test_three_messages_in_one_read_come_out_in_order():
    data = b"".join(framing.encode({"seq": n}) for n in (1, 2, 3))
    assert framing.Reader().feed(data) == [{"seq": 1}, {"seq": 2}, {"seq": 3}]


def test_noise_before_the_first_frame_is_skipped():
    noise = b"Welcome to the shell\r\n\n  \x00garbage Content-Type: x\r\n"
    reader = framing.Reader()
    assert reader.feed(noise) == []
    assert reader.feed(framing.encode({"seq": 7})) == [{"seq": 7}]


def test_a_header_split_inside_its_name_still_frames():
    data = framing.encode({"seq": 4})
    reader = framing.Reader()
    assert reader.feed(b"xx" + data[:5]) == []
    assert reader.feed(data[5:]) == [{"seq": 4}]


def test_other_headers_and_any_case_are_read():
    body = b'{"seq": 5}'
    data = b"content-length: " + str(len(body)).encode() + b"\r\nContent-Type: application/vscode-jsonrpc\r\n\r\n" + body
    assert framing.Reader().feed(data) == [{"seq": 5}]


def test_the_length_counts_bytes_not_characters():
    message = {"text": "日本語 ✓"}
    data = framing.encode(message)
    assert int(data.split(b"\r\n")[0].split(b":")[1]) == len(data.split(b"\r\n\r\n", 1)[1])
    assert framing.Reader().feed(data) == [message]


@pytest.mark.parametrize("data, said", [
    (b"Content-Length: x\r\n\r\n{}", "not a number"),
    (b"Content-Length: 2\r\n\r\n[]", "not a JSON object"),
    (b"Content-Length: 3\r\n\r\n{x}", "not JSON"),
    (b"Content-Length: 999999999999\r\n\r\n", "out of range"),
])
def test_a_broken_frame_is_an_error_not_a_hang(data, said):
    with pytest.raises(framing.FramingError, match=said):
        framing.Reader().feed(data)


def test_messages_reads_a_stream_to_its_end():
    stream = io.BufferedReader(io.BytesIO(b"".join(framing.encode({"seq": n}) for n in range(5))))
    assert [m["seq"] for m in framing.messages(stream)] == [0, 1, 2, 3, 4]
