"""Plumbing every other part uses: sizes, defaults, files, seeds, threads, logs.

``limits`` (the sizes hiddenbn accepts, with the reason for each), ``defaults`` (the settings
the command line's help shows), ``files`` (outputs written whole or not at all), ``textfiles``
(the text files a user gives, checked first), ``markdown`` (pipe tables), ``seeding`` (seeds
from the config and a job's wildcards), ``threads`` (parallel work whose result does not depend
on the core count) and ``joblog`` (a workflow job's log file).

May import: hiddenbn.errors.
"""
