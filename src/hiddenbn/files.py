"""Writing outputs so that an interrupted job never leaves a truncated file behind."""

from __future__ import annotations

import glob
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path


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
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)
