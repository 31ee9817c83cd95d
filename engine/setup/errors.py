"""The engine's exception for an unacceptable event (its own module, so that every set-up
module can raise it without importing the event schema)."""


class EventError(ValueError):
    """An event file, or a value derived from it, is not acceptable.

    ``problems`` lists every problem found, each naming the field and what it accepts.
    """

    def __init__(self, problems):
        if isinstance(problems, str):
            problems = [problems]
        self.problems = list(problems)
        super().__init__("invalid event:\n  " + "\n  ".join(self.problems))


class PlausibilityWarning(UserWarning):
    """A value the engine accepts but that is implausible for the vehicle (e.g. an initial
    speed beyond any it reaches: a speed in km/h given as m/s?)."""
