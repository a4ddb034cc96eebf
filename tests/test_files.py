"""Outputs: a file appears whole or not at all, no temporary file outlives a run, and nothing
but a regular file is ever replaced (a link is written through, a device or FIFO into)."""

import os
import stat
import threading
from pathlib import Path

import numpy as np
import pytest

from hiddenbn.errors import HiddenbnError
from hiddenbn.util.files import OutputTarget, atomic_output, atomic_write_text, output_target


def test_the_output_appears_only_when_writing_succeeds(tmp_path):
    target = tmp_path / "sub" / "table.csv"
    with pytest.raises(RuntimeError):
        with atomic_output(target) as temporary:
            Path(temporary).write_text("half")
            raise RuntimeError("killed")
    assert not target.exists() and list(target.parent.iterdir()) == []
    with atomic_output(target) as temporary:
        Path(temporary).write_text("whole")
    assert target.read_text() == "whole"
    assert list(target.parent.iterdir()) == [target]


def test_temporaries_of_a_killed_writer_are_removed_by_the_next(tmp_path):
    target = tmp_path / "fit[1].csv"  # glob characters in the name are taken literally
    stale = tmp_path / ".fit[1].csv.abc123.tmp"
    # a temporary of the temporary, as writers nested in the CLI's left them before
    nested = tmp_path / "..fit[1].csv.abc123.tmp.def456.tmp"
    other = tmp_path / ".other.csv.abc123.tmp"  # another output's: left alone
    for path in (stale, nested, other):
        path.write_text("half")
    with atomic_output(target) as temporary:
        Path(temporary).write_text("whole")
    assert sorted(p.name for p in tmp_path.iterdir()) == [other.name, target.name]


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_outputs_are_created_with_the_user_s_umask(tmp_path, umask, mode):
    """As open() would create them: results written on a cluster are readable by whoever the
    user's umask lets read them (tempfile alone makes every output 0600)."""
    import os
    import stat

    previous = os.umask(umask)
    try:
        with atomic_output(tmp_path / "table.csv") as temporary:
            Path(temporary).write_text("whole")
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "table.csv").stat().st_mode) == mode


def test_a_writer_given_a_temporary_writes_it_instead_of_its_own_temporary(tmp_path):
    """The CLI makes each output atomic and so does each writer: a temporary of the temporary
    was left behind by a kill, where the next run's clean-up did not look."""
    target = tmp_path / "data.csv"
    with atomic_output(target) as temporary:
        with atomic_output(temporary) as inner:
            assert inner == temporary
            Path(inner).write_text("whole")
        assert sorted(tmp_path.iterdir()) == [Path(temporary)]
    assert target.read_text() == "whole" and list(tmp_path.iterdir()) == [target]


def test_a_device_is_written_and_stays_a_device():
    """Found by an input audit: as root, writing /dev/null renamed a regular file onto it."""
    atomic_write_text(os.devnull, "discarded\n")
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_a_fifo_is_opened_once_and_its_reader_gets_everything(tmp_path):
    """numpy's savetxt opens its path twice: written straight into a FIFO, the reader would get
    an empty first file and the writer would wait for a second reader for ever."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()), daemon=True)
    reader.start()
    with atomic_output(fifo) as temporary:
        np.savetxt(temporary, np.arange(6).reshape(3, 2), fmt="%d", delimiter=",")
    reader.join(10)
    assert received == ["0,1\n2,3\n4,5\n"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and sorted(tmp_path.iterdir()) == [fifo]


def test_standard_output_is_written_as_a_stream(capfd):
    atomic_write_text("-", "X1,X2\n1,2\n")
    assert capfd.readouterr().out == "X1,X2\n1,2\n"


def test_a_descriptor_is_written_through_even_to_a_regular_file(tmp_path):
    """/dev/stdout of `hiddenbn ... > out.csv` leads to a regular file the shell opened: it is
    written through the descriptor (as `tee /dev/stdout` does), not replaced by a rename."""
    with open(tmp_path / "opened.csv", "w") as handle:
        descriptor = f"/dev/fd/{handle.fileno()}"
        assert output_target(descriptor) == OutputTarget(Path(descriptor), True)
        assert output_target(Path(descriptor)).in_place


def test_a_symlink_is_written_through_and_stays_a_link(tmp_path):
    """Found by an input audit: the rename replaced the link and left its target's old text."""
    target, link = tmp_path / "data" / "table.csv", tmp_path / "link.csv"
    target.parent.mkdir()
    target.write_text("old")
    link.symlink_to(Path("data") / "table.csv")
    atomic_write_text(link, "new")
    assert link.is_symlink() and target.read_text() == "new"
    assert sorted(p.name for p in target.parent.iterdir()) == ["table.csv"]


def test_a_dangling_symlink_gets_its_target_created_as_cp_does(tmp_path):
    link = tmp_path / "link.csv"
    link.symlink_to(tmp_path / "new" / "table.csv")
    atomic_write_text(link, "new")
    assert link.is_symlink() and (tmp_path / "new" / "table.csv").read_text() == "new"


@pytest.mark.parametrize("kind, message", [("loop", "output LOOP is a symlink loop; point the "
                                                    "link at a file or give another path"),
                                           ("folder", "output FOLDER is a folder; give a file")])
def test_a_symlink_loop_or_a_folder_is_one_line(tmp_path, kind, message):
    """A loop raised RuntimeError from pathlib's resolve()."""
    loop, folder = tmp_path / "a", tmp_path / "folder"
    loop.symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(loop)
    folder.mkdir()
    path = loop if kind == "loop" else folder
    with pytest.raises(HiddenbnError) as raised:
        with atomic_output(path):
            pass
    assert str(raised.value).startswith(message.replace("LOOP", str(loop))
                                        .replace("FOLDER", str(folder)))
