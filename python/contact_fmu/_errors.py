"""The exceptions of the contact_fmu API."""
from __future__ import annotations

from typing import List, NamedTuple, NoReturn


class FieldError(NamedTuple):
    """One problem of a scenario: the field path (``bodies[1].shape.radius``, empty
    for the whole document) and the message."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class ScenarioError(ValueError):
    """A scenario that cannot be packaged: ``file`` names it, ``errors`` lists every
    problem as a :class:`FieldError` (``path``, ``message``); ``str(e)`` is the message
    the command line prints."""

    def __init__(self, message: str, file: str, errors: List[FieldError]):
        super().__init__(message)
        self.message = message
        self.file = file
        self.errors = errors

    @property
    def path(self) -> str:
        """The field path of the first problem."""
        return self.errors[0].path if self.errors else ""


class PackagingError(RuntimeError):
    """Packaging failed for another reason than the scenario's content: no runtime
    library for a platform asked for, an output folder that cannot be written, a bad
    argument."""


def _raise(e: Exception) -> NoReturn:
    """Turns the native module's ``NativeError(kind, message, file, fields)`` into the
    API's exception (without the native frame as its context)."""
    kind, message, file, fields = e.args
    if kind == "scenario":
        raise ScenarioError(message, file, [FieldError(p, m) for p, m in fields]) from None
    if kind == "file":
        raise FileNotFoundError(message) from None
    raise PackagingError(message) from None
