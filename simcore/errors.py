"""User-facing errors.

Every problem caused by input (an unknown game, strategy, parameter or rule option, a bad value, an
impossible player count, a malformed config) is raised as :class:`SenseiError`. The command line turns
it into a one-line message and exit status 2; the Python API lets it propagate.
"""


class SenseiError(ValueError):
    """A problem with what the user asked for; the message is one line naming it."""


class IllegalAction(RuntimeError):
    """A strategy chose an action the rules do not allow (a bug in the strategy, never silently accepted)."""
