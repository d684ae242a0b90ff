"""Building many objects at once without the cyclic garbage collector running over the whole heap.

Restoring a large memory creates tens of thousands of objects in one go (the episodes, the open facts'
graph). Each allocation burst triggers collections that walk every live object, the memory's own included,
so the build costs several times its own work; none of these objects form cycles that need collecting.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic collector off for the block (and back on after it, if it was on)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
