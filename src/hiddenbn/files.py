"""Writing outputs so that an interrupted job never leaves a truncated file behind."""

from __future__ import annotations

import glob
import os
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path

_UMASK_LOCK = threading.Lock()


def _umask() -> int:
    """The process's umask (reading it means setting it, hence the lock)."""
    with _UMASK_LOCK:
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


@contextmanager
def atomic_output(path):
    """Yield a temporary path beside ``path``; rename it onto ``path`` only on success.

    Temporary files of ``path`` left by an earlier writer that was killed (SIGKILL, a lost node:
    nothing ran its clean-up) are removed first, so a resumed run leaves none behind. One
    writer per output at a time is assumed, as Snakemake guarantees.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    for stale in glob.glob(os.path.join(glob.escape(str(path.parent)),
                                        f".{glob.escape(path.name)}.*.tmp")):
        os.remove(stale)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(handle)
    try:
        yield temporary
        # mkstemp makes the file 0600 whatever the umask; an output is created as open() would
        # (0644 under umask 022), so that colleagues and web servers can read results
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)


def atomic_write_text(path, text: str) -> None:
    """Write ``text`` to ``path`` through :func:`atomic_output`."""
    with atomic_output(path) as temporary:
        Path(temporary).write_text(text)
