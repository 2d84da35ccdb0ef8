"""Running a compiled kernel over a batch of phases on two Python threads.

The kernels release the GIL, so two threads keep both cores busy; numba's own threading layer is not used
(it is not fork-safe, and local jobs are forked; nor may two threads enter it at once, and a threads-pool
worker runs two jobs in one process). Pieces are small enough that the threads share the work evenly when
phases differ in cost (a piece is taken by whichever thread is free).

The two threads are started once per process and kept (starting threads took about 1 ms each, more than a
small batch's work); a forked child starts its own.
"""

from __future__ import annotations

import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor

THREADS = 2
#: phases per piece: at most this many, and at least four pieces per thread when the batch allows
MAX_PIECE = 512
MIN_PIECE = 64

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None


def _after_fork_in_child() -> None:
    """A forked child has none of its parent's threads, and a lock a parent thread held stays held: start
    afresh."""
    global _lock, _pool
    _lock = threading.Lock()
    _pool = None


os.register_at_fork(after_in_child=_after_fork_in_child)


def _threads() -> ThreadPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="phases")
        return _pool


def run(kernel, B: int) -> None:
    """Call ``kernel(lo, hi)`` over consecutive pieces covering range(B)."""
    size = max(MIN_PIECE, min(MAX_PIECE, math.ceil(B / (4 * THREADS))))
    pieces = [(lo, min(lo + size, B)) for lo in range(0, B, size)]
    if len(pieces) <= 1:
        kernel(0, B)
        return
    for future in [_threads().submit(kernel, lo, hi) for lo, hi in pieces]:
        future.result()
