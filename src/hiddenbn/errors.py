"""Errors raised for bad user input.

Every error a user can trigger with a malformed spec, data file, parameter file, argument or
workflow config is a :class:`HiddenbnError` whose message is one line naming the problem and the
fix (a :class:`ConfigError`: one such line per problem). The CLI prints it and exits with status
2, and so does the workflow for a config error; library callers can catch the subclass they care
about.
"""


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
