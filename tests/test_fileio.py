"""clirkit.fileio: line reading (gz, stdin, BOM, CRLF, bad bytes with file:line) and atomic writes."""

from __future__ import annotations

import gzip
import io
import os
import re
import stat
import sys

import pytest

from clirkit.errors import ClirkitError
from clirkit.fileio import atomic_writer, display_name, iter_lines, open_binary

# three verses of the bundled collection, as docid TAB text lines
LINES = [
    "Gen.1.1\tEN el principio crió Dios los cielos y la tierra.",
    "Gen.1.3\tY dijo Dios: Sea la luz: y fué la luz.",
    "John.1.5\tY la luz en las tinieblas resplandece; mas las tinieblas no la comprendieron.",
]


def _bytes(lines, eol="\n") -> bytes:
    return "".join(line + eol for line in lines).encode("utf-8")


def _leftovers(folder, name):
    """Files in ``folder`` other than ``name`` (an atomic write leaves no temporary file behind)."""
    return sorted(set(os.listdir(folder)) - {name})


# ---------------------------------------------------------------------------- reading


def test_iter_lines_numbers_lines_from_one_and_strips_the_line_ends(tmp_path):
    path = tmp_path / "docs.tsv"
    path.write_bytes(_bytes(LINES))
    assert list(iter_lines(path)) == [(1, LINES[0]), (2, LINES[1]), (3, LINES[2])]


def test_iter_lines_strips_crlf(tmp_path):
    path = tmp_path / "docs.tsv"
    path.write_bytes(_bytes(LINES, eol="\r\n"))
    assert [text for _, text in iter_lines(path)] == LINES


def test_blank_lines_are_skipped_but_keep_their_numbers(tmp_path):
    path = tmp_path / "docs.tsv"
    path.write_bytes(_bytes([LINES[0], "", "   \t", LINES[1]]))
    assert list(iter_lines(path)) == [(1, LINES[0]), (4, LINES[1])]
    assert list(iter_lines(path, skip_blank=False)) == [(1, LINES[0]), (2, ""), (3, "   \t"), (4, LINES[1])]


def test_a_utf8_bom_is_removed_from_the_first_line_only(tmp_path):
    path = tmp_path / "docs.tsv"
    path.write_bytes(b"\xef\xbb\xbf" + _bytes([LINES[0], "\ufeff" + LINES[1]]))
    assert [text for _, text in iter_lines(path)] == [LINES[0], "\ufeff" + LINES[1]]


def test_gzip_is_detected_by_its_magic_bytes_not_by_the_name(tmp_path):
    for name in ("docs.tsv.gz", "docs.tsv"):
        path = tmp_path / name
        path.write_bytes(gzip.compress(_bytes(LINES)))
        assert [text for _, text in iter_lines(path)] == LINES
    plain = tmp_path / "plain.gz"  # a .gz name holding plain text is read as text
    plain.write_bytes(_bytes(LINES))
    assert [text for _, text in iter_lines(plain)] == LINES


def test_invalid_utf8_is_reported_with_file_line_byte_and_how_to_convert(tmp_path):
    path = tmp_path / "docs.tsv"
    # line 2 in Latin-1: the é of "fué" is the byte 0xe9, byte 38 of "Gen.1.3\tY dijo Dios: Sea la luz: y fué"
    path.write_bytes(_bytes([LINES[0]]) + LINES[1].encode("latin-1") + b"\n")
    expected = (
        rf"^{re.escape(str(path))}:2: invalid UTF-8 \(byte 38 of the line\); convert the file to UTF-8 "
        r"\(from Latin-1: `iconv -f latin1 -t utf-8 FILE > NEW`\)$"
    )
    with pytest.raises(ClirkitError, match=expected):
        list(iter_lines(path))


def test_invalid_utf8_inside_gzip_names_the_line(tmp_path):
    path = tmp_path / "docs.tsv.gz"
    path.write_bytes(gzip.compress(_bytes(LINES[:2]) + b"Gen.1.4\tY vi\xf3 Dios\n"))
    with pytest.raises(ClirkitError, match=rf"^{re.escape(str(path))}:3: invalid UTF-8"):
        list(iter_lines(path))


def test_a_truncated_gzip_is_a_clirkit_error_naming_the_next_line(tmp_path):
    path = tmp_path / "docs.tsv.gz"
    data = gzip.compress(_bytes(LINES * 50))
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ClirkitError, match=rf"^{re.escape(str(path))}:\d+: cannot read"):
        list(iter_lines(path))


def test_missing_file_and_directory_are_clirkit_errors_that_say_to_check_the_path(tmp_path):
    # were "X: no such file" and "X: is a directory, expected a file", with no fix
    with pytest.raises(ClirkitError) as err:
        list(iter_lines(tmp_path / "nope.tsv"))
    assert str(err.value) == f"{tmp_path / 'nope.tsv'}: no such file: check the path"
    with pytest.raises(ClirkitError) as err:
        list(iter_lines(tmp_path))
    assert str(err.value) == (
        f"{tmp_path}: is a directory, expected a file: check the path (a folder was given where a file is expected)"
    )


UTF16 = (
    "the file is UTF-16, not UTF-8 (a byte-order mark or NUL bytes between the letters); convert it to UTF-8: "
    "`iconv -f utf-16 -t utf-8 FILE > NEW`"
)


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be"], ids=["byte-order mark", "LE", "BE"])
@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gzip"])
def test_a_utf16_file_is_named_utf16_with_iconv_from_utf16_not_latin1(tmp_path, codec, compress):
    # was "invalid UTF-8 (byte 1 of the line); convert the file to UTF-8 (from Latin-1: ...)", or, without a
    # byte-order mark, lines read with a NUL between every two letters
    data = "".join(line + "\n" for line in LINES).encode(codec)
    path = tmp_path / "docs.tsv"
    path.write_bytes(gzip.compress(data) if compress else data)
    with pytest.raises(ClirkitError) as err:
        list(iter_lines(path))
    assert str(err.value) == f"{path}:1: {UTF16}"


def test_utf16_met_on_a_later_line_by_its_nul_bytes_is_named_utf16(tmp_path):
    path = tmp_path / "docs.tsv"
    path.write_bytes(_bytes(LINES[:1]) + "Gen.1.3\tY dijo Dios: Sea la luz: y fué la luz.\n".encode("utf-16-le"))
    with pytest.raises(ClirkitError) as err:
        list(iter_lines(path))
    assert str(err.value) == f"{path}:2: {UTF16}"


def test_binary_bytes_with_nul_are_said_to_be_no_text_file_not_latin1(tmp_path):
    # was "invalid UTF-8 (byte 1 of the line); convert the file to UTF-8 (from Latin-1: ...)" for an npz, a
    # picture, random bytes (a byte-order mark followed by garbage is not UTF-16 either)
    import random

    rng = random.Random(4)
    for data in (
        b"PK\x03\x04\x14\x00\x00\x00\x08\x00\xff\x81",
        b"\xff\xfe\x00" + rng.randbytes(4000),
        b"\x00\x01\x02\xff",
    ):
        path = tmp_path / "docs.tsv"
        path.write_bytes(data)
        with pytest.raises(ClirkitError) as err:
            list(iter_lines(path))
        assert str(err.value) == f"{path}:1: NUL bytes: not a UTF-8 text file (is it a binary file?); check the path"


def test_a_nul_in_valid_utf8_text_is_left_to_the_reader_of_the_format(tmp_path):
    path = tmp_path / "docs.tsv"
    path.write_bytes(b"Gen.1.1\tEN el\x00 principio\n")
    assert list(iter_lines(path)) == [(1, "Gen.1.1\tEN el\x00 principio")]


def test_dash_reads_stdin_and_is_named_stdin_in_errors(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(_bytes(LINES[:2]))))
    assert list(iter_lines("-")) == [(1, LINES[0]), (2, LINES[1])]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"Gen.1.4\tY vi\xf3 Dios\n")))
    with pytest.raises(ClirkitError, match=r"^<stdin>:1: invalid UTF-8"):
        list(iter_lines("-"))
    assert display_name("-") == "<stdin>" and display_name("runs/psq.run") == "runs/psq.run"


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gzip"])
def test_a_pipe_that_cannot_seek_is_read_from_its_first_byte(tmp_path, compress):
    # a FIFO stands for `<(command)` and `command | clirkit ... -`: the first bytes are looked at for gzip's
    # magic number and must not be lost, since a pipe cannot seek back
    import threading

    fifo = tmp_path / "docs.fifo"
    os.mkfifo(fifo)
    data = gzip.compress(_bytes(LINES), mtime=0) if compress else _bytes(LINES)
    writer = threading.Thread(target=lambda: fifo.write_bytes(data))
    writer.start()
    assert list(iter_lines(fifo)) == [(1, LINES[0]), (2, LINES[1]), (3, LINES[2])]
    writer.join()


def test_gzip_on_stdin_is_decompressed_and_a_seekable_stdin_is_read_from_where_it_stands(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(gzip.compress(_bytes(LINES[:1]), mtime=0))))
    assert list(iter_lines("-")) == [(1, LINES[0])]
    stream = io.BytesIO(_bytes(LINES))
    stream.seek(len(_bytes(LINES[:1])))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(stream))
    assert list(iter_lines("-")) == [(1, LINES[1]), (2, LINES[2])]


def test_open_binary_decompresses_gzip(tmp_path):
    path = tmp_path / "docs.tsv.gz"
    path.write_bytes(gzip.compress(_bytes(LINES)))
    with open_binary(path) as fh:
        assert fh.read() == _bytes(LINES)


# ---------------------------------------------------------------------------- writing


def test_atomic_writer_writes_utf8_with_unix_line_ends(tmp_path):
    path = tmp_path / "docs.tsv"
    with atomic_writer(path) as out:
        for line in LINES:
            out.write(line + "\n")
    assert path.read_bytes() == _bytes(LINES)
    assert _leftovers(tmp_path, "docs.tsv") == []


def test_atomic_writer_replaces_an_existing_file_on_success(tmp_path):
    path = tmp_path / "docs.tsv"
    path.write_bytes(_bytes(LINES))
    with atomic_writer(path) as out:
        out.write(LINES[0] + "\n")
    assert path.read_bytes() == _bytes(LINES[:1])


@pytest.mark.parametrize("name, binary", [("docs.tsv", False), ("docs.tsv", True), ("docs.tsv.gz", False)])
def test_an_error_while_writing_leaves_the_old_file_intact_and_no_temporary_file(tmp_path, name, binary):
    path = tmp_path / name
    old = _bytes(LINES)
    path.write_bytes(old)
    with pytest.raises(RuntimeError, match="disk full"):
        with atomic_writer(path, binary=binary) as out:
            out.write(b"Gen.1.1\tpartial" if binary else "Gen.1.1\tpartial")
            out.flush()
            raise RuntimeError("disk full")
    assert path.read_bytes() == old
    assert _leftovers(tmp_path, name) == []


def test_an_interrupt_while_writing_a_new_file_creates_nothing(tmp_path):
    path = tmp_path / "run.txt"
    with pytest.raises(KeyboardInterrupt):
        with atomic_writer(path) as out:
            out.write("ABDI.1 Q0 2Chr.29.12 1 12.5 psq\n")
            raise KeyboardInterrupt
    assert os.listdir(tmp_path) == []


def test_gz_output_is_compressed_and_byte_identical_for_identical_content(tmp_path):
    paths = [tmp_path / "a.tsv.gz", tmp_path / "b.tsv.gz"]
    for path in paths:
        with atomic_writer(path) as out:
            out.write("".join(line + "\n" for line in LINES))
    assert gzip.decompress(paths[0].read_bytes()) == _bytes(LINES)
    assert paths[0].read_bytes() == paths[1].read_bytes()  # zero mtime, no file name in the header


def test_binary_mode_writes_bytes(tmp_path):
    path = tmp_path / "blob.bin"
    with atomic_writer(path, binary=True) as out:
        out.write(b"\x00\x01\xff")
    assert path.read_bytes() == b"\x00\x01\xff"


def test_the_written_file_gets_the_umask_permissions_not_mkstemps_0600(tmp_path):
    old = os.umask(0o022)
    try:
        with atomic_writer(tmp_path / "docs.tsv") as out:
            out.write(LINES[0])
    finally:
        os.umask(old)
    assert (tmp_path / "docs.tsv").stat().st_mode & 0o777 == 0o666 & ~0o022


def test_a_missing_output_folder_is_a_clirkit_error(tmp_path):
    with pytest.raises(ClirkitError, match="the folder .*nope does not exist"):
        with atomic_writer(tmp_path / "nope" / "docs.tsv") as out:
            out.write(LINES[0])


def test_dash_writes_to_stdout(capsys):
    with atomic_writer("-") as out:
        out.write(LINES[0] + "\n")
    assert capsys.readouterr().out == LINES[0] + "\n"


def test_dash_binary_writes_to_stdout_buffer(capsysbinary):
    with atomic_writer("-", binary=True) as out:
        out.write(b"\x1f\x8b")
    assert capsysbinary.readouterr().out == b"\x1f\x8b"


def test_writing_onto_a_directory_leaves_it_and_no_temporary_file(tmp_path):
    (tmp_path / "out").mkdir()
    with pytest.raises(Exception):
        with atomic_writer(tmp_path / "out") as out:
            out.write(LINES[0])
    assert os.listdir(tmp_path) == ["out"] and (tmp_path / "out").is_dir()


def test_writing_onto_a_directory_is_a_clirkit_error(tmp_path):
    (tmp_path / "out").mkdir()
    with pytest.raises(ClirkitError, match="directory"):
        with atomic_writer(tmp_path / "out") as out:
            out.write(LINES[0])


def test_cr_only_line_ends_are_line_ends(tmp_path):
    path = tmp_path / "mac.tsv"
    path.write_bytes(b"Gen.1.1\tEN el principio\rGen.1.2\tY la tierra\r\rGen.1.3\tY dijo Dios\r")
    assert list(iter_lines(path)) == [
        (1, "Gen.1.1\tEN el principio"),
        (2, "Gen.1.2\tY la tierra"),
        (4, "Gen.1.3\tY dijo Dios"),
    ]


def test_a_damaged_deflate_stream_is_a_clirkit_error_not_a_zlib_traceback(tmp_path):
    import gzip

    data = bytearray(gzip.compress(("Gen.1.1\tEN el principio crió Dios\n" * 2000).encode("utf-8"), mtime=0))
    for i in range(40, 60):
        data[i] ^= 0xFF
    path = tmp_path / "docs.tsv.gz"
    path.write_bytes(bytes(data))
    with pytest.raises(ClirkitError) as err:
        list(iter_lines(path))
    assert str(err.value).startswith(f"{path}:") and "cannot read" in str(err.value)


def test_writing_through_a_symlink_replaces_the_linked_file_and_keeps_the_link(tmp_path):
    real = tmp_path / "real.run"
    real.write_text("old\n", encoding="utf-8")
    link = tmp_path / "link.run"
    link.symlink_to(real)
    with atomic_writer(link) as out:
        out.write("new\n")
    assert link.is_symlink() and real.read_text(encoding="utf-8") == "new\n"


def test_a_device_is_written_in_place_and_a_file_as_folder_is_a_clirkit_error(tmp_path):
    with atomic_writer(os.devnull) as out:
        out.write("x\n")
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    (tmp_path / "file").write_text("x", encoding="utf-8")
    with pytest.raises(ClirkitError, match="is not a folder"):
        with atomic_writer(tmp_path / "file" / "x.run") as out:
            out.write("x")


def test_a_write_removes_the_temporaries_of_killed_writes_but_not_of_running_ones(tmp_path):
    import subprocess
    import sys

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = tmp_path / f".out.run.{dead.stdout.strip()}.abc123.tmp"
    live = tmp_path / f".out.run.{os.getpid()}.def456.tmp"
    stale.write_text("half", encoding="utf-8")
    live.write_text("in progress", encoding="utf-8")
    with atomic_writer(tmp_path / "out.run") as out:
        out.write("done\n")
    assert not stale.exists() and live.exists() and (tmp_path / "out.run").read_text() == "done\n"


def test_a_damaged_or_truncated_gzip_is_called_a_damaged_gzip_file_with_what_to_do(tmp_path):
    data = gzip.compress(_bytes(LINES * 50))
    damaged = bytearray(data)
    damaged[len(data) // 2 : len(data) // 2 + 16] = b"\x00" * 16
    for name, content in (
        ("cut.tsv.gz", data[: len(data) // 2]),
        ("bad.tsv.gz", bytes(damaged)),
        ("crc.tsv.gz", data[:-8] + b"\x00" * 8),
    ):
        path = tmp_path / name
        path.write_bytes(content)
        with pytest.raises(ClirkitError) as info:
            list(iter_lines(path))
        assert re.fullmatch(
            rf"{re.escape(str(path))}:\d+: cannot read: damaged gzip file \(.+\); get the file "
            r"again, or decompress what is left with `gzip -dc` and use that",
            str(info.value),
        )
