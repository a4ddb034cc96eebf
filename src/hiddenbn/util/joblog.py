"""The log file of a workflow job: its progress and, when it fails, why.

Every script in workflow/scripts/ runs as its own Python process with stderr sent to the job's
log file, which Snakemake names when the job fails and which, on a cluster, is often the only
trace of it. The obvious ``with open(log, "w") as sys.stderr:`` loses the error: the ``with``
closes the file before Python prints the traceback, so the console shows "lost sys.stderr" and
the log ends without it. :func:`job_log` writes the traceback into the log itself and one line
saying why to the job's own stderr (the console, or the job's output file under a cluster
executor).
"""

from __future__ import annotations

import sys
import traceback
from contextlib import contextmanager

from hiddenbn.errors import HiddenbnError


@contextmanager
def job_log(path):
    """Send stderr to the log file ``path`` while the block runs; if the block raises, write the
    full traceback there, :func:`one_line_error` to the job's own stderr, and exit with status 1
    (without a second traceback on the console)."""
    console = sys.stderr
    # line-buffered: progress reaches the log as it is printed, even if the job is killed
    with open(path, "w", buffering=1) as log:
        sys.stderr = log
        try:
            yield
        except Exception as error:
            # from the job's code on: the first frame is this function's ``yield``
            traceback.print_exception(type(error), error, error.__traceback__.tb_next, file=log)
            print(one_line_error(error), file=console, flush=True)
            raise SystemExit(1) from None
        finally:
            sys.stderr = console


def one_line_error(error: Exception) -> str:
    """What went wrong, on one line: the message of a :class:`~hiddenbn.errors.HiddenbnError`
    (written for users, naming the problem and the fix), the type and message of any other."""
    message = " ".join(str(error).split())
    if isinstance(error, HiddenbnError):
        return message
    return f"{type(error).__name__}: {message}" if message else type(error).__name__
