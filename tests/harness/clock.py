"""The one clock comparison the tests make: an object's ``creationTimestamp`` has whole seconds.

The restart decision (``pods-created-after-upstream-service``, :mod:`constructs_nld.deploy.restart`)
compares the creation times of pods and Services, and an API server stamps them to the second:
a Service recreated in the same second as the pods counts as older than none of them. A test
that needs it younger than every object made so far waits for the event that makes it so —
the machine's clock, which the API server stamps with, entering the next whole second — rather
than for a fixed time to pass.
"""

from __future__ import annotations

import math
import time

__all__ = ["next_whole_second"]


def next_whole_second() -> float:
    """Return once the clock is past the current second: an object made after this has a later creationTimestamp.

    Returns the seconds waited (less than one).
    """
    now = time.time()
    boundary = math.floor(now) + 1
    while (now := time.time()) < boundary:
        time.sleep(boundary - now)
    return now - boundary + 1
