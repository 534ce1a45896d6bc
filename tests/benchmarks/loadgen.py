"""HTTP load generator for the API benchmark, run as its own process (stdlib only)::

    python -m tests.benchmarks.loadgen SPEC.json   # prints a JSON summary on stdout

SPEC: ``{"host", "port", "path", "headers", "bodies": [...], "seconds", "rate" | null,
"connections"}``. With a ``rate`` it is open-loop: request i is due at start + i / rate and its
latency is counted from that due time, so a server that stalls is charged for the requests
that queued behind the stall (no "coordinated omission"). Without a rate it is closed-loop:
``connections`` threads send back to back, for the maximum throughput. Bodies are used in
turn. Any status other than 2xx, or a connection error, is an error.
"""

import http.client
import json
import sys
import threading
import time


def run(spec: dict) -> dict:
    host, port, path = spec["host"], spec["port"], spec["path"]
    headers = {"Content-Type": "application/json", **spec.get("headers", {})}
    bodies = [json.dumps(b).encode() for b in spec["bodies"]]
    seconds, rate, connections = spec["seconds"], spec.get("rate"), spec["connections"]
    lock = threading.Lock()
    state = {"next": 0}
    latencies: list[float] = []
    errors: dict[str, int] = {}
    start = time.perf_counter() + 0.05
    end = start + seconds

    def take() -> tuple[int, float] | None:
        with lock:
            i = state["next"]
            state["next"] += 1
        due = start + i / rate if rate else time.perf_counter()
        return None if due >= end else (i, due)

    def worker() -> None:
        conn = http.client.HTTPConnection(host, port, timeout=30)
        while (job := take()) is not None:
            i, due = job
            delay = due - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            sent = time.perf_counter()
            try:
                conn.request("POST", path, body=bodies[i % len(bodies)], headers=headers)
                response = conn.getresponse()
                payload = response.read()
                ok = 200 <= response.status < 300
                if response.getheader("Connection", "").lower() == "close":
                    conn.close()
                key = "" if ok else f"HTTP {response.status}: {payload[:200].decode(errors='replace')}"
            except (OSError, http.client.HTTPException) as exc:
                conn.close()
                conn = http.client.HTTPConnection(host, port, timeout=30)
                key = f"{type(exc).__name__}: {exc}"
            done = time.perf_counter()
            with lock:
                latencies.append(done - (due if rate else sent))
                if key:
                    errors[key] = errors.get(key, 0) + 1
        conn.close()

    threads = [threading.Thread(target=worker) for _ in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = max(time.perf_counter(), end) - start if rate else time.perf_counter() - start
    latencies.sort()

    def pct(p: float) -> float:
        return 1000 * latencies[min(len(latencies) - 1, int(p * len(latencies)))] if latencies else 0.0

    return {
        "requests": len(latencies),
        "seconds": elapsed,
        "rate": len(latencies) / elapsed,
        "p50_ms": pct(0.50),
        "p90_ms": pct(0.90),
        "p99_ms": pct(0.99),
        "max_ms": 1000 * latencies[-1] if latencies else 0.0,
        "errors": sum(errors.values()),
        "error_kinds": errors,
    }


if __name__ == "__main__":
    with open(sys.argv[1]) as handle:
        print(json.dumps(run(json.load(handle))))
