"""Output files (runs.check_output, runs.write_output): a regular file or a new path is replaced whole; a pipe or a
device, or a link to one, is written where it is and never renamed over (that would destroy it); what takes no
text is refused in one line. No test touches /dev: a device is a regular file whose stat says it is one."""

from __future__ import annotations

import os
import socket
import stat
import threading
from pathlib import Path

import pytest

from ariadnegraph.runs import OutputRefused, check_output, write_output

TEXT = "<!DOCTYPE html>\nné ✓\n" * 200  # more than one write's worth, not ASCII


def read_in_thread(pipe: Path) -> tuple[threading.Thread, list[bytes]]:
    """A reader at the other end of ``pipe``, as a shell's `cat` would be."""
    got: list[bytes] = []

    def read() -> None:
        with open(pipe, "rb") as handle:
            got.append(handle.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return reader, got


@pytest.mark.parametrize("linked", [False, True])
def test_a_named_pipe_gets_the_text_and_stays_a_pipe(tmp_path, linked):
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    given = pipe
    if linked:  # e.g. /dev/stdout, a link to the pipe a shell gave
        given = tmp_path / "out.html"
        given.symlink_to(pipe)
    reader, got = read_in_thread(pipe)
    write_output(check_output(given, "--out"), TEXT)
    reader.join(10)
    assert got == [TEXT.encode()]
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)
    assert given.is_symlink() == linked
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted({"pipe", given.name})  # no temporary file left


def looks_like(monkeypatch, path: Path, kind: int) -> None:
    """``path`` (a regular file) is seen by stat and fstat as a node of ``kind`` (S_IFCHR, S_IFBLK)."""
    inode = os.stat(path).st_ino
    real_stat, real_fstat = os.stat, os.fstat

    def disguised(result: os.stat_result) -> os.stat_result:
        if result.st_ino != inode:
            return result
        fields = list(result)
        fields[0] = kind | 0o666
        return os.stat_result(fields)

    monkeypatch.setattr(os, "stat", lambda p, *a, **k: disguised(real_stat(p, *a, **k)))
    monkeypatch.setattr(os, "fstat", lambda fd: disguised(real_fstat(fd)))


@pytest.mark.parametrize("linked", [False, True])
def test_a_character_device_is_opened_and_written_in_place_never_renamed_over(tmp_path, monkeypatch, linked):
    device = tmp_path / "null"
    device.touch()
    inode = device.stat().st_ino
    given = device
    if linked:  # /dev/stdout -> /proc/self/fd/1 -> /dev/pts/0
        given = tmp_path / "stdout"
        given.symlink_to(device)
    looks_like(monkeypatch, device, stat.S_IFCHR)
    assert stat.S_ISCHR(os.stat(given).st_mode)

    def no_rename(*args):
        raise AssertionError(f"a device renamed over: {args}")

    monkeypatch.setattr(os, "replace", no_rename)
    monkeypatch.setattr(os, "rename", no_rename)
    write_output(check_output(given, "--out"), TEXT)
    assert os.lstat(device).st_ino == inode  # the same node, written into
    assert device.read_text(encoding="utf-8") == TEXT
    assert given.is_symlink() == linked
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted({"null", given.name})


@pytest.mark.parametrize("linked", [False, True])
def test_a_file_named_by_a_descriptor_is_written_through_never_renamed_over(tmp_path, linked):
    """`--out /dev/stdout > page.html`: /dev/stdout -> /proc/self/fd/1 -> page.html, a regular file. Renamed over, the
    machine's /dev/stdout became a file (as root); written through, the page is where the shell sent it. Tested
    through /proc/self/fd/N (its folder takes no new file, so a rename fails there instead of replacing anything)."""
    page = tmp_path / "page.html"
    with open(page, "w") as redirected:
        redirected.write("before\n")  # (appended to, as the shell left it: `>>` keeps this, `>` emptied it)
        redirected.flush()
        given = Path(f"/proc/self/fd/{redirected.fileno()}")
        if linked:
            given = tmp_path / "stdout"
            given.symlink_to(f"/proc/self/fd/{redirected.fileno()}")
        write_output(check_output(given, "--out"), TEXT)
        assert given.is_symlink()
    assert page.read_text(encoding="utf-8") == "before\n" + TEXT
    assert sorted(p.name for p in tmp_path.iterdir()) == (["page.html", "stdout"] if linked else ["page.html"])


def test_a_block_device_and_a_socket_are_refused_in_one_line_before_anything_is_written(tmp_path, monkeypatch):
    disk = tmp_path / "sda"
    disk.write_bytes(b"blocks")
    looks_like(monkeypatch, disk, stat.S_IFBLK)
    with pytest.raises(OutputRefused, match=r"^--out .*sda is a block device \(a disk\), which takes no file: give"):
        check_output(disk, "--out")
    with pytest.raises(OutputRefused, match="is a block device"):
        write_output(disk, TEXT)
    assert disk.read_bytes() == b"blocks"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(tmp_path / "sock"))
        with pytest.raises(OutputRefused, match=r"sock is a socket, which takes no file"):
            check_output(tmp_path / "sock", "--html")
        assert stat.S_ISSOCK(os.lstat(tmp_path / "sock").st_mode)


def test_a_link_to_a_regular_file_is_replaced_by_the_file_and_its_target_left_alone(tmp_path):
    # never written through: a planted link (a cloned run's report.html -> ~/.bashrc) would overwrite what it names
    target = tmp_path / "bashrc"
    target.write_text("kept")
    for link, points_at in ((tmp_path / "report.html", target), (tmp_path / "dangling.html", tmp_path / "none")):
        link.symlink_to(points_at)
        write_output(check_output(link, "--out"), TEXT)
        assert not link.is_symlink()
        assert link.read_text(encoding="utf-8") == TEXT
    assert target.read_text() == "kept"
    assert not (tmp_path / "none").exists()


def test_a_regular_file_is_still_replaced_whole(tmp_path):
    out = tmp_path / "page.html"
    out.write_text("old")
    old = out.stat().st_ino
    write_output(check_output(out, "--out"), TEXT)
    assert out.read_text(encoding="utf-8") == TEXT
    assert out.stat().st_ino != old  # a new file renamed over it: a reader never sees half a page
    assert [p.name for p in tmp_path.iterdir()] == ["page.html"]


@pytest.mark.parametrize("made", ["file", "dangling link", "link to a file"])
def test_a_folder_option_given_a_file_says_what_is_there_and_what_to_do(tmp_path, made):
    out = tmp_path / "FILE"
    if made == "file":
        out.write_text("x")
    elif made == "dangling link":
        out.symlink_to(tmp_path / "nowhere")
    else:
        (tmp_path / "real").write_text("x")
        out.symlink_to(tmp_path / "real")
    kind = "a link to nothing" if made == "dangling link" else "a file"
    with pytest.raises(OutputRefused) as refused:
        check_output(str(out), "--out", folder=True)
    assert str(refused.value) == f"--out {out} is {kind}, not a folder: give a folder (a new one is made)"
