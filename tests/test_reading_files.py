"""Reading a file whole by its descriptor (kite.source.read_descriptor): every byte, never more than the limit, and a
cache entry that is not a readable file is no entry."""

from __future__ import annotations

import os

from kite.signed_files import read_signed, write_signed
from kite.source import MAX_SOURCE_BYTES, not_unicode, read_descriptor, read_regular, too_large, wide_encoding


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


def test_a_text_over_the_byte_limit_is_too_large_whether_its_characters_are_ascii_or_not():
    """too_large encodes only non-ASCII text to count its bytes: ASCII text is as many bytes as characters."""
    assert too_large("a", "x" * MAX_SOURCE_BYTES) == ""
    assert too_large("a", "x" * (MAX_SOURCE_BYTES + 1)).startswith("a: too large to check")
    assert too_large("a", "é" * (MAX_SOURCE_BYTES // 2)) == ""
    assert too_large("a", "é" * (MAX_SOURCE_BYTES // 2 + 1)).startswith("a: too large to check")


def test_utf_16_without_a_bom_is_told_by_its_nuls_and_text_without_nul_is_not_looked_at_twice():
    """wide_encoding looks for the NUL beside every ASCII character only in text that has a NUL."""
    assert wide_encoding("module A\n".encode("utf-16-le")) == "UTF-16 (little-endian)"
    assert wide_encoding("module A\n".encode("utf-16-be")) == "UTF-16 (big-endian)"
    assert wide_encoding(b"module A\n") == wide_encoding(b"module A\x00\n") == ""


def test_a_lone_surrogate_is_found_in_text_with_other_characters_and_ascii_text_holds_none():
    """not_unicode searches only text that is not ASCII (ASCII holds no surrogate)."""
    assert not_unicode("a", "module A\n") is None
    assert not_unicode("a", "module Ä\n") is None
    refused = not_unicode("a", "module A\nx\ud800")
    assert refused is not None and (refused.line, refused.column) == (2, 2)
