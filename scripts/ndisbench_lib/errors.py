"""The one exception type the CLI turns into a one-line error."""


class BenchError(Exception):
    """A user-facing failure: the message names the bad input or step."""
