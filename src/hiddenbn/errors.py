"""Errors raised for bad user input.

Every error a user can trigger with a malformed spec, data file, parameter file, argument or
workflow config is a :class:`HiddenbnError` whose message is one line naming the problem and the
fix (a :class:`ConfigError`: one such line per problem). The CLI prints it and exits with status
2, and so does the workflow for a config error; library callers can catch the subclass they care
about.

A message names an option as :func:`option` writes it, and reads as the caller wrote the
call: ``str(error)`` names the keyword argument of the Python function (``prior_alpha=``),
:meth:`HiddenbnError.command_line_message` the flag of the command line (``--prior-alpha``).
So does a note or a warning (a line of a report's ``notes``, a ``warnings.warn``), which
:func:`for_caller` renders where it is made: with the flag inside :func:`command_line` (the CLI
runs each command there), with the keyword elsewhere.
"""

import re
from contextlib import contextmanager
from contextvars import ContextVar

#: Brackets an option in a message and parts its two forms; ``repr`` escapes this invisible
#: character, so no user text quoted in a message holds it.
_OPTION_MARK = "\u2063"
_OPTION = re.compile(f"{_OPTION_MARK}([^{_OPTION_MARK}]*){_OPTION_MARK}([^{_OPTION_MARK}]*)"
                     f"{_OPTION_MARK}")
#: The keyword arguments not named as their flag without dashes, hyphens as underscores.
KEYWORDS = {"--params": "parameters", "--plot-covariate": "covariate"}
#: Whether the code running was called by the command line (:func:`command_line`).
_CALLED_BY_COMMAND_LINE = ContextVar("called_by_command_line", default=False)


class HiddenbnError(ValueError):
    """Base class of the user-facing errors of hiddenbn: its message is one line saying what
    is wrong and the fix.

    Examples
    --------
    >>> import hiddenbn
    >>> try:
    ...     hiddenbn.parse_spec("3:2,0")
    ... except hiddenbn.HiddenbnError as error:
    ...     print(type(error).__name__, "-", error)
    SpecError - ...
    """

    def __str__(self) -> str:
        return _named(super().__str__(), flags=False)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"

    def command_line_message(self) -> str:
        """The message with each option named as the command line's flag (``--prior-alpha``),
        where ``str(error)`` names the keyword argument (``prior_alpha=``)."""
        return _named(super().__str__(), flags=True)


class SpecError(HiddenbnError):
    """A model specification (shorthand, YAML or JSON) is malformed."""


class DataError(HiddenbnError):
    """A data file or data array does not fit the model or is malformed."""


class ParameterError(HiddenbnError):
    """A parameter file or parameter array does not fit the model."""


class ConfigError(HiddenbnError):
    """The workflow's config is malformed: one line per problem, each naming its key."""

    def __init__(self, problems):
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


def excerpt(text: str, limit: int = 40) -> str:
    """``repr`` of user text for a one-line message, cut to about ``limit`` characters."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text)} characters)"


def first_named(names, limit: int = 5, separator: str = ", ") -> str:
    """At most ``limit`` of ``names`` joined by ``separator``, then how many more: a message
    stays one line however many columns, levels or entries it is about."""
    names = [str(name) for name in names]
    more = len(names) - limit
    return separator.join(names[:limit]) + (f"{separator}and {more} more" if more > 0 else "")


def option(flag: str, value=None, shown: str | None = None) -> str:
    """An option named in a message, shown as the caller gave it: on the command line as its
    flag (``--missing drop``), in Python as the keyword argument (``missing='drop'``).

    Parameters
    ----------
    flag : str
        The flag, such as ``"--prior-alpha"``; its keyword is the flag without dashes, hyphens
        as underscores (except for the flags of :data:`KEYWORDS`).
    value : optional
        The option's value to show with it (the flag alone, and ``keyword=``, without).
    shown : str, optional
        The value as both forms show it (a placeholder such as ``K``, or an excerpt of user
        text), instead of ``value`` (``str`` on the command line, ``repr`` in Python).

    Examples
    --------
    >>> error = HiddenbnError(f"give {option('--missing', 'drop')} or {option('--classes')}")
    >>> str(error), error.command_line_message()
    ("give missing='drop' or classes=", 'give --missing drop or --classes')
    """
    keyword = KEYWORDS.get(flag, flag.removeprefix("--").replace("-", "_")) + "="
    if shown is not None:
        flag, keyword = f"{flag} {shown}", keyword + shown
    elif value is not None:
        flag, keyword = f"{flag} {value}", keyword + repr(value)
    return f"{_OPTION_MARK}{flag}{_OPTION_MARK}{keyword}{_OPTION_MARK}"


def _named(text: str, flags: bool) -> str:
    """``text`` with each option that :func:`option` marked named as its flag or its keyword."""
    return _OPTION.sub(r"\1" if flags else r"\2", text)


@contextmanager
def command_line():
    """Inside the block, :func:`for_caller` names each option as the command line's flag: the
    CLI runs each command in it."""
    token = _CALLED_BY_COMMAND_LINE.set(True)
    try:
        yield
    finally:
        _CALLED_BY_COMMAND_LINE.reset(token)


def for_caller(text: str) -> str:
    """A note or warning with each option marked by :func:`option` named as the caller wrote
    the call: as the flag inside :func:`command_line` (``--wbic-draws``), as the keyword
    argument elsewhere (``wbic_draws=``).

    Rendered where the note is made, so that no mark reaches a report: a note made in another
    thread or process than the command's does not know its caller (the context does not go
    with it).

    Parameters
    ----------
    text : str
        The note, its options written by :func:`option`.

    Returns
    -------
    str
        The note as the caller reads it.

    Examples
    --------
    >>> note = f"give more draws ({option('--wbic-draws')}, say {option('--wbic-draws', 800)})"
    >>> for_caller(note)
    'give more draws (wbic_draws=, say wbic_draws=800)'
    >>> with command_line():
    ...     for_caller(note)
    'give more draws (--wbic-draws, say --wbic-draws 800)'
    """
    return _named(text, _CALLED_BY_COMMAND_LINE.get())
