"""Writing outputs: all of an output or none of it, and nothing but a regular file replaced.

Every output is first written to a temporary file, so an interrupted job never leaves a
truncated output behind. Then:

* a regular file (or a new path) is replaced by renaming the temporary file onto it;
* a symbolic link is written through: its target is replaced, and the link stays a link;
* anything else, a device, a FIFO, an open file descriptor (``/dev/null``, ``/dev/stdout``,
  ``/dev/fd/N``, ``<(...)``) or standard output (``-``), is opened once and the content copied
  into it: renaming onto it would replace it, and a writer that opens its path twice (NumPy's
  ``savetxt`` does) would give a FIFO's reader an empty first file.
"""

from __future__ import annotations

import errno
import glob
import os
import re
import secrets
import shutil
import stat
import sys
import tempfile
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from hiddenbn.errors import HiddenbnError
from hiddenbn.util.defaults import STANDARD_STREAM

_UMASK_LOCK = threading.Lock()

#: The temporary files that :func:`atomic_output` has open in this process. A writer given one
#: (the CLI writes all of a command's outputs together, and each writer makes its own output
#: atomic too) writes it as it is, instead of making a temporary of the temporary that a rerun
#: would not know to clean up.
_OPEN_TEMPORARIES: set[str] = set()

#: The folder of a process's open file descriptors, where ``/dev/stdout`` and ``/dev/fd/N``
#: lead: reopening such a link is how its file is written (it may be a pipe or a terminal).
_DESCRIPTOR_FOLDER = re.compile(r"/proc/[^/]+(/task/[^/]+)?/fd")


@dataclass(frozen=True)
class OutputTarget:
    """Where writing an output path goes.

    Attributes
    ----------
    path : Path
        The file that gets the content: the path itself, or the target of a symbolic link.
    in_place : bool
        True for standard output, a device, a FIFO or an open file descriptor, which is opened
        and written; False for a regular file or a new path, which is replaced by a rename.
    """

    path: Path
    in_place: bool


def output_target(path, what: str = "output") -> OutputTarget:
    """Where writing ``path`` goes (see :class:`OutputTarget`).

    Raises
    ------
    HiddenbnError
        When ``path`` is a folder, or a symbolic link that leads back to itself (the message
        names it as ``what path``).
    """
    if os.fspath(path) == STANDARD_STREAM:
        return OutputTarget(Path(path), True)
    path = Path(path)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:  # a new file, or a link to one: the link's target is created
        mode = None
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise HiddenbnError(f"{what} {path} is a symlink loop; point the link at a file or "
                                "give another path") from None
        mode = None  # e.g. a path under a file: writing it reports the problem
    if mode is not None and stat.S_ISDIR(mode):
        raise HiddenbnError(f"{what} {path} is a folder; give a file name")
    if mode is not None and (not stat.S_ISREG(mode) or _leads_to_descriptor(path)):
        return OutputTarget(path, True)
    return OutputTarget(Path(os.path.realpath(path)), False)


def _leads_to_descriptor(path: Path) -> bool:
    """Whether a link of the chain that ``path`` starts lies in a descriptor folder (then a
    regular file behind it is one the shell opened, ``> out.csv``, and is written through the
    descriptor, as ``tee /dev/stdout`` would)."""
    current = os.path.abspath(path)
    for _ in range(64):  # more links than the kernel follows (40) would be a loop
        if not os.path.islink(current):
            return False
        folder = os.path.realpath(os.path.dirname(current))
        if _DESCRIPTOR_FOLDER.fullmatch(folder):
            return True
        current = os.path.join(folder, os.readlink(current))
    return False


def _umask() -> int:
    """The process's umask (reading it means setting it, hence the lock)."""
    with _UMASK_LOCK:
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


@contextmanager
def _temporary_file(folder, prefix: str):
    """Yield the path of a new empty temporary file in ``folder`` (None: the system's
    temporary folder), removed when the block ends, whether or not it was renamed.

    The name is held before the file is created (``O_EXCL``, as :func:`tempfile.mkstemp`
    does), so a signal whose handler raises (the command line's) at any moment after the file
    exists finds it to remove: :func:`tempfile.mkstemp` returns the name only after creating
    it. Blocking the signal would not do: it goes to any thread that does not block it.
    """
    folder = tempfile.gettempdir() if folder is None else os.fspath(folder)
    temporary = None
    try:
        while temporary is None:
            temporary = os.path.join(folder, f"{prefix}{secrets.token_hex(4)}.tmp")
            try:
                os.close(os.open(temporary, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
            except FileExistsError:  # another file's name: draw again
                temporary = None
        _OPEN_TEMPORARIES.add(temporary)
        yield temporary
    finally:
        if temporary is not None:
            _OPEN_TEMPORARIES.discard(temporary)
            if os.path.exists(temporary):
                os.remove(temporary)


def _remove_stale_temporaries(target: Path) -> None:
    """Remove the temporary files of ``target`` left by an earlier writer that was killed
    (SIGKILL, a lost node: nothing ran its clean-up). Earlier versions also made a temporary of
    the temporary (``..name.XXXXXXXX.tmp.YYYYYYYY.tmp``); those go too."""
    name, folder = glob.escape(target.name), glob.escape(str(target.parent))
    for pattern in (f".{name}.*.tmp", f"..{name}.*.tmp.*.tmp"):
        for stale in glob.glob(os.path.join(folder, pattern)):
            os.remove(stale)


def _copy_in_place(temporary: str, path) -> None:
    """Copy the file ``temporary`` into ``path``, opened once (``-``: standard output)."""
    with open(temporary, "rb") as source:
        if os.fspath(path) == STANDARD_STREAM and not hasattr(sys.stdout, "buffer"):
            # a text stream in its place (contextlib.redirect_stdout): the outputs are UTF-8
            sys.stdout.write(source.read().decode("utf-8"))
        elif os.fspath(path) == STANDARD_STREAM:
            sys.stdout.flush()  # what was printed before comes first
            shutil.copyfileobj(source, sys.stdout.buffer)
            sys.stdout.buffer.flush()
        else:
            with open(path, "wb") as sink:
                shutil.copyfileobj(source, sink)


@contextmanager
def atomic_output(path):
    """Yield a temporary path to write the output ``path`` to; when the block succeeds its
    content goes to ``path`` as the module docstring says, and when it fails nothing does.

    Temporary files of the same output left by an earlier writer that was killed are removed
    first, so a resumed run leaves none behind; one writer per output at a time is assumed, as
    Snakemake guarantees. A path that is itself a temporary file of an enclosing
    :func:`atomic_output` is yielded as it is.
    """
    if os.fspath(path) in _OPEN_TEMPORARIES:
        yield os.fspath(path)
        return
    target = output_target(path)
    if target.in_place:
        with _temporary_file(None, "hiddenbn-") as temporary:
            yield temporary
            _copy_in_place(temporary, path)
        return
    target.path.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_temporaries(target.path)
    with _temporary_file(target.path.parent, f".{target.path.name}.") as temporary:
        yield temporary
        # mkstemp makes the file 0600 whatever the umask; an output is created as open() would
        # (0644 under umask 022), so that colleagues and web servers can read results
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, target.path)


def atomic_write_text(path, text: str) -> None:
    """Write ``text`` to ``path`` through :func:`atomic_output`."""
    with atomic_output(path) as temporary:
        Path(temporary).write_text(text)
