"""Exceptions raised by the modeling library.

Every message says what is wrong and what the user can do about it; the
dashboard shows them as they are.
"""


class ModelingError(ValueError):
    """Base class for all errors a user can act on."""


class DataError(ModelingError):
    """The input table cannot be used as given (bad values, shape, columns)."""


class NotEnoughDataError(DataError):
    """Too few rows, groups or usable features for the requested evaluation."""


class ConfigError(ModelingError):
    """An option or parameter is unknown or out of range."""
