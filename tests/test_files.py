"""Atomic outputs: a file appears whole or not at all, and no temporary file outlives a run."""

from pathlib import Path

import pytest

from hiddenbn.files import atomic_output


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
    other = tmp_path / ".other.csv.abc123.tmp"  # another output's: left alone
    stale.write_text("half")
    other.write_text("half")
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
