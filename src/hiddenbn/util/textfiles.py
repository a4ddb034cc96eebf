"""The text files a user gives hiddenbn (specs, data, parameters): UTF-8, checked first.

A file is refused with one line before it is parsed when it does not exist, is a folder or a
symlink loop, is binary (a NUL byte in its first block: an image, a spreadsheet, UTF-16 text),
would not fit in memory once parsed, or is not UTF-8; a UTF-8 byte-order mark (as spreadsheet
programs write) is skipped. A FIFO, a device or a process substitution (``<(cat f.csv)``) is
read as a stream, once, like any Unix tool reads it; so is standard input, named ``-``.
Each reader passes the :class:`~hiddenbn.errors.HiddenbnError` subclass its errors use.
"""

from __future__ import annotations

import errno
import functools
import io
import os
import stat
import sys
from contextlib import contextmanager
from pathlib import Path

from hiddenbn.errors import excerpt
from hiddenbn.util import limits
from hiddenbn.util.defaults import STANDARD_STREAM

#: Bytes at the start of a file searched for a NUL byte, as ``grep`` and ``git`` do to tell
#: binary files from text.
BINARY_PROBE_BYTES = 8192

#: Bytes read from a stream at a time; its size is checked after each (a stream has no size to
#: check first, and may not end: ``/dev/zero``, ``yes``).
STREAM_CHUNK_BYTES = 2**20


def read_bytes(path, error, what: str, memory_per_byte: int, max_bytes=None) -> bytes:
    """The bytes of ``path`` after the checks that need no decoding (see the module docstring):
    ``memory_per_byte`` is the memory its reader needs per byte, ``max_bytes`` the largest size
    it takes (None: no limit but memory)."""
    if str(path) == STANDARD_STREAM:
        return _checked_bytes(sys.stdin.buffer, path, None, error, what, memory_per_byte,
                              max_bytes)
    path = Path(path)
    try:
        status = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        raise error(f"{what} {path} does not exist; check the path") from None
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise error(f"{what} {path} is a symlink loop; point the link at a file") from None
        raise _unreadable(error, what, path, err) from None
    if stat.S_ISDIR(status.st_mode):
        raise error(f"{what} {path} is a folder; give a file")
    # anything else that is not a regular file (a FIFO, a device) has no size to check first
    size = status.st_size if stat.S_ISREG(status.st_mode) else None
    if size is not None:
        _check_size(size, path, error, what, memory_per_byte, max_bytes)
    try:
        handle = path.open("rb")
    except OSError as err:
        raise _unreadable(error, what, path, err) from None
    with handle:
        return _checked_bytes(handle, path, size, error, what, memory_per_byte, max_bytes)


def _unreadable(error, what: str, path, err: OSError):
    """``error`` for ``path``, which the system refused to open or look up (``err``)."""
    return error(f"{what} {excerpt(str(path))} cannot be read: {err.strerror}; check the path "
                 "and its permissions")


def _check_size(size: int, path, error, what: str, memory_per_byte: int, max_bytes) -> None:
    """Refuse ``size`` bytes of ``path`` beyond ``max_bytes`` or the memory available."""
    if max_bytes is not None:
        limits.require_at_most(size, max_bytes, f"the size of {what} {path} in bytes",
                               "give a smaller file", error)
    limits.require_memory(memory_per_byte * size, f"reading {what} {path}", "give a smaller file")


def _checked_bytes(handle, path, size, error, what: str, memory_per_byte: int,
                   max_bytes) -> bytes:
    """The bytes of the open binary ``handle``, refused if binary; a stream (``size`` None) is
    also refused as soon as what it gave is too large."""
    probe = handle.read(BINARY_PROBE_BYTES)
    if b"\0" in probe:
        raise error(f"{what} {path} is a binary file, not text; give a UTF-8 text file "
                    "(save UTF-16 text as UTF-8)")
    if size is not None:
        return probe + handle.read()
    chunks, read = [probe], len(probe)
    while chunk := handle.read(STREAM_CHUNK_BYTES):
        chunks.append(chunk)
        read += len(chunk)
        _check_size(read, path, error, what, memory_per_byte, max_bytes)
    return b"".join(chunks)


def not_utf8(error, what: str, path, err: UnicodeDecodeError):
    return error(f"{what} {path} is not UTF-8 text (byte 0x{err.object[err.start]:02x} cannot be "
                 "decoded); save it as UTF-8")


def text_lines(content: bytes):
    """``content`` as UTF-8 text to read line by line (``newline=""``, as the csv module wants);
    a decoding error is raised as the lines are read."""
    return io.TextIOWrapper(io.BytesIO(content), encoding="utf-8-sig", newline="")


@contextmanager
def open_text(path, error, what: str, memory_per_byte: int):
    """Yield ``path`` as :func:`text_lines`; a decoding error while the block reads it becomes
    ``error``."""
    content = read_bytes(path, error, what, memory_per_byte)
    try:
        yield text_lines(content)
    except UnicodeDecodeError as err:
        raise not_utf8(error, what, path, err) from None


def read_text(path, error, what: str, max_bytes: int) -> str:
    """The whole of ``path`` as text (newlines translated), refused beyond ``max_bytes``."""
    content = read_bytes(path, error, what, limits.PARSED_BYTES_PER_TEXT_BYTE, max_bytes)
    try:
        return io.TextIOWrapper(io.BytesIO(content), encoding="utf-8-sig").read()
    except UnicodeDecodeError as err:
        raise not_utf8(error, what, path, err) from None


def unique_json_object(pairs) -> dict:
    """``object_pairs_hook`` of ``json.loads``: the object as a dict, refusing a key given twice
    (``json`` would keep the last one silently: a node or table defined twice)."""
    document = {}
    for key, value in pairs:
        if key in document:
            raise ValueError(f"the key {excerpt(key)} appears twice in one object")
        document[key] = value
    return document


#: The context of the YAML error for a file whose aliases add more than
#: :data:`~hiddenbn.util.limits.MAX_ALIAS_VALUES` values, so that a reader can tell it apart.
ALIAS_EXPANSION = "while expanding the aliases"


def alias_problem(root):
    """None when the aliases (``*name``) of the YAML node graph ``root`` add at most
    :data:`~hiddenbn.util.limits.MAX_ALIAS_VALUES` values once expanded (each repeat of an anchored
    value counted in full); else what is wrong and the node to mark: the first whose expansion
    is too large, or an alias inside the value it names, which repeats without end.

    Counted in Python integers over the distinct nodes, in one pass, without expanding
    anything: a "billion laughs" file of 400 bytes adds 10^9 values, which a reader would
    otherwise build or walk for minutes.
    """
    import yaml  # only the readers of YAML files need it

    sizes, order, stack, open_nodes = {}, [], [(root, False)], set()
    while stack:  # iterative post-order: a deeply nested file would exhaust Python's stack
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            open_nodes.discard(key)
            sizes[key] = 1 + sum(sizes[id(child)] for child in _children(node, yaml))
            order.append(node)
        elif key in open_nodes:  # reached again below itself
            return ("an alias (*name) lies inside the value it names, which repeats without end",
                    node)
        elif key not in sizes:
            open_nodes.add(key)
            stack.append((node, True))
            stack.extend((child, False) for child in _children(node, yaml))
    added = sizes[id(root)] - len(sizes)
    if added <= limits.MAX_ALIAS_VALUES:
        return None
    culprit = next(node for node in order
                   if sizes[id(node)] - len(sizes) > limits.MAX_ALIAS_VALUES)
    return (f"its aliases (*name) add {limits.shown(added)} values by repeating what they name, "
            f"above the limit of {limits.MAX_ALIAS_VALUES}"), culprit


def _children(node, yaml) -> list:
    if isinstance(node, yaml.SequenceNode):
        return node.value
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


@functools.cache
def yaml_loader(base_name: str = "SafeLoader"):
    """The PyYAML loader ``base_name``, refusing a mapping key given twice with a
    ``ConstructorError`` marked at the second one (PyYAML keeps the last one silently), so each
    reader reports it as it reports a YAML syntax error, with its line, and refusing a file
    whose aliases add more than :data:`~hiddenbn.util.limits.MAX_ALIAS_VALUES` values
    (:func:`alias_problem`) with a ``ComposerError`` of context :data:`ALIAS_EXPANSION`, before
    anything is built from it."""
    import yaml  # only the readers of YAML files need it

    class UniqueKeyLoader(getattr(yaml, base_name)):
        def get_single_node(self):
            root = super().get_single_node()
            problem = None if root is None else alias_problem(root)
            if problem is not None:
                raise yaml.composer.ComposerError(
                    ALIAS_EXPANSION, None, f"{problem[0]}; write the values out, or repeat fewer",
                    problem[1].start_mark)
            return root

        def construct_mapping(self, node, deep=False):
            if isinstance(node, yaml.MappingNode):
                seen = set()
                for key_node, _ in node.value:
                    if key_node.tag == "tag:yaml.org,2002:merge":
                        continue
                    key = self.construct_object(key_node, deep=True)
                    try:
                        duplicate = key in seen
                    except TypeError:  # an unhashable key: PyYAML's own check reports it
                        continue
                    if duplicate:
                        raise yaml.constructor.ConstructorError(
                            "while reading a mapping", node.start_mark,
                            f"found the key {excerpt(str(key))} twice", key_node.start_mark)
                    seen.add(key)
            return super().construct_mapping(node, deep)

    return UniqueKeyLoader
