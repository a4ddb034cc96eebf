"""Errors raised for bad user input.

Every error a user can trigger with a malformed spec, data file, parameter file or argument is a
:class:`HiddenbnError` whose message is one line naming the problem and the fix. The CLI prints
it and exits with status 2; library callers can catch the subclass they care about.
"""


class HiddenbnError(ValueError):
    """Base class of the user-facing errors of hiddenbn."""


class SpecError(HiddenbnError):
    """A model specification (shorthand, YAML or JSON) is malformed."""


class DataError(HiddenbnError):
    """A data file or data array does not fit the model or is malformed."""


class ParameterError(HiddenbnError):
    """A parameter file or parameter array does not fit the model."""
