"""Child processes that end with the process that started them, however it ends (SIGKILL too): the parent-death
signal (Linux's ``prctl(PR_SET_PDEATHSIG)``), set in the child between fork and exec.

The signal fires when the *thread* that forked the child ends, so a child is forked by a thread that outlives it
(one that waits for it, as ``subprocess.run`` does, or the main thread).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import signal
from collections.abc import Callable
from typing import Any


def _load_prctl() -> Callable[..., Any] | None:
    with contextlib.suppress(OSError, AttributeError):
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True).prctl
    return None


_PRCTL = _load_prctl()  # loaded here: a child between fork and exec must not load libraries
_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """A ``preexec_fn``: the child is killed (SIGKILL) when the process that forked it dies."""
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, int(signal.SIGKILL))
