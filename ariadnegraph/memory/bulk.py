"""Building many objects at once without the cyclic garbage collector running over the whole heap.

Restoring a large memory creates tens of thousands of objects in one go (the facts, the episodes, the
open facts' graph). Each allocation burst triggers collections that walk every live object, the memory's
own included, so the build costs several times its own work; none of these objects form cycles that need
collecting. The collector's switch is process-wide and a server builds memories in several threads, so
the pauses are counted: the collector is turned off by the first and back on by the last (if it was on).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_LOCK = threading.Lock()
_depth = 0
_was_on = False


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic collector off for the block; back on when the last paused block ends, if it was on."""
    global _depth, _was_on
    with _LOCK:
        if _depth == 0:
            _was_on = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _LOCK:
            _depth -= 1
            if _depth == 0 and _was_on:
                gc.enable()
