"""Run callables at the same moment in real threads, each on its own database connection."""

import threading

from django.db import connections


def run_concurrently(*calls, timeout: float = 30.0) -> list:
    """Start every call behind one barrier; return, in order, each result or raised exception."""
    barrier = threading.Barrier(len(calls))
    outcomes: list = [None] * len(calls)

    def worker(index, call):
        try:
            barrier.wait()
            outcomes[index] = call()
        except BaseException as exc:  # noqa: BLE001 - the test inspects it
            outcomes[index] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
        assert not thread.is_alive(), "a concurrent call did not finish"
    return outcomes
