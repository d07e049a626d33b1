"""Reading a file whole by its descriptor (kite.source.read_descriptor): every byte, never more than the limit, and a
cache entry that is not a readable file is no entry."""

from __future__ import annotations

import os

from kite.signed_files import read_signed, write_signed
from kite.source import read_descriptor, read_regular


def test_a_file_larger_than_one_chunk_is_read_whole(tmp_path):
    path = tmp_path / "big.kite"
    data = bytes(range(256)) * 1000  # 256,000 bytes: several 64 KiB chunks past its first read
    path.write_bytes(data)
    assert read_regular(str(path), "a .kite file", len(data) + 1) == data


def test_the_limit_is_never_passed(tmp_path):
    path = tmp_path / "big.kite"
    path.write_bytes(b"x" * 100_000)
    assert read_regular(str(path), "a .kite file", 70_000) == b"x" * 70_000


def test_a_pipe_is_read_to_its_end_though_its_size_says_nothing(tmp_path):
    reader, writer = os.pipe()
    os.write(writer, b"abc" * 10)
    os.close(writer)
    try:
        assert read_descriptor(reader, 1000) == b"abc" * 10
    finally:
        os.close(reader)


def test_a_folder_where_an_entry_should_be_is_no_entry(tmp_path):
    key = b"k" * 32
    write_signed(tmp_path / "entry", key, b"payload")
    assert read_signed(tmp_path / "entry", key) == b"payload"
    (tmp_path / "folder").mkdir()
    assert read_signed(tmp_path / "folder", key) is None
