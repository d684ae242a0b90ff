"""The GC pause around bulk builds is counted: overlapping pauses (nested, or in two threads) leave the
collector off until the last ends, then as it was before the first."""

from __future__ import annotations

import gc
import threading

from ariadnegraph.memory.bulk import collector_paused


def paused_in_another_thread() -> tuple[threading.Thread, threading.Event]:
    """A thread inside a pause until the returned event is set."""
    entered, release = threading.Event(), threading.Event()

    def other() -> None:
        with collector_paused():
            entered.set()
            release.wait(10)

    thread = threading.Thread(target=other)
    thread.start()
    assert entered.wait(10)
    return thread, release


def test_overlapping_pauses_restore_the_collector_only_at_the_end() -> None:
    assert gc.isenabled()
    thread, release = paused_in_another_thread()
    with collector_paused():  # the other thread's pause started first and ends last
        assert not gc.isenabled()
    assert not gc.isenabled()  # still inside the other thread's pause
    release.set()
    thread.join(10)
    assert gc.isenabled()
    with collector_paused(), collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_pause_that_ends_inside_another_leaves_it_paused() -> None:
    """Another thread's pause began first and ends while this one runs: the collector stays off to our end."""
    thread, release = paused_in_another_thread()
    with collector_paused():
        release.set()
        thread.join(10)
        assert not gc.isenabled()  # a bare isenabled()/disable() pair would have been switched back on here
    assert gc.isenabled()


def test_a_collector_turned_off_by_the_program_stays_off() -> None:
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
