"""HTTP load generator for the API benchmark, run as its own process (stdlib only)::

    python -m tests.benchmarks.loadgen SPEC.json   # prints a JSON summary on stdout

SPEC: ``{"host", "port", "path", "headers", "bodies": [...], "seconds", "rate" | null,
"connections", "once"?, "tally"?}``. With a ``rate`` it is open-loop: request i is due at
start + i / rate and its latency is counted from that due time, so a server that stalls is
charged for the requests that queued behind the stall (no "coordinated omission"). Without a
rate it is closed-loop: ``connections`` threads send back to back, for the maximum
throughput. Bodies are used in turn. Any status other than 2xx, or a connection error, is an
error.

``"once": true`` sends each body exactly once (closed loop, ``seconds`` ignored) and reports
the seconds from the first request sent to the last answer: the time to deliver a fixed load,
e.g. a betting window's batches. ``"tally": ["accepted", "refused"]`` sums those integer
fields of each 2xx JSON answer (``tallies``), and keeps the first answer's first refused
result (``first_refusal``) to say why.

It shares the machine with the server, so it is kept cheap: requests are prepared bytes on a
plain socket and responses are read by their Content-Length (``http.client`` parsed every
response's headers with the ``email`` package: 0.9 ms of CPU a request, now about 0.2 ms).
"""

import json
import socket
import sys
import threading
import time


def _request_bytes(host: str, port: int, path: str, headers: dict, body: bytes) -> bytes:
    lines = [f"POST {path} HTTP/1.1", f"Host: {host}:{port}", f"Content-Length: {len(body)}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


class _Connection:
    """One keep-alive-if-allowed HTTP/1.1 connection; ``send`` returns (status, body, closed)."""

    def __init__(self, host: str, port: int):
        self.address, self.sock, self.buffer = (host, port), None, b""

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
        self.sock, self.buffer = None, b""

    def send(self, request: bytes) -> tuple[int, bytes]:
        if self.sock is None:
            self.sock = socket.create_connection(self.address, timeout=30)
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.sendall(request)
        while b"\r\n\r\n" not in self.buffer:
            self._read()
        head, _, rest = self.buffer.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        status = int(lines[0].split(b" ", 2)[1])
        fields = {k.strip().lower(): v.strip() for k, _, v in (line.partition(b":") for line in lines[1:])}
        length = int(fields.get(b"content-length", b"0"))
        while len(rest) < length:
            rest += self._read(keep=False)
        body, self.buffer = rest[:length], rest[length:]
        if fields.get(b"connection", b"").lower() == b"close":
            self.close()
        return status, body

    def _read(self, keep: bool = True) -> bytes:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("the server closed the connection mid-response")
        if keep:
            self.buffer += chunk
        return chunk


def run(spec: dict) -> dict:
    host, port, path = spec["host"], spec["port"], spec["path"]
    headers = {"Content-Type": "application/json", **spec.get("headers", {})}
    requests = [_request_bytes(host, port, path, headers, json.dumps(b).encode()) for b in spec["bodies"]]
    seconds, rate, connections = spec["seconds"], spec.get("rate"), spec["connections"]
    once, tally = bool(spec.get("once")), list(spec.get("tally", ()))
    tallies = dict.fromkeys(tally, 0)
    first_refusal: list[dict] = []
    lock = threading.Lock()
    state = {"next": 0}
    latencies: list[float] = []
    timeline: list[tuple[float, float]] = []  # (due or sent, seconds from start; latency)
    errors: dict[str, int] = {}
    start = time.perf_counter() + 0.05
    end = float("inf") if once else start + seconds

    def take() -> tuple[int, float] | None:
        with lock:
            i = state["next"]
            state["next"] += 1
        if once and i >= len(requests):
            return None
        due = start + i / rate if rate else time.perf_counter()
        return None if due >= end else (i, due)

    def worker() -> None:
        conn = _Connection(host, port)
        while (job := take()) is not None:
            i, due = job
            delay = due - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            sent = time.perf_counter()
            try:
                status, payload = conn.send(requests[i % len(requests)])
                ok = 200 <= status < 300
                key = "" if ok else f"HTTP {status}: {payload[:200].decode(errors='replace')}"
                counted = _tally(payload, tally) if ok and tally else None
            except (OSError, ValueError, IndexError) as exc:
                conn.close()
                key, counted = f"{type(exc).__name__}: {exc}", None
            done = time.perf_counter()
            with lock:
                latencies.append(done - (due if rate else sent))
                timeline.append(((due if rate else sent) - start, done - (due if rate else sent)))
                if key:
                    errors[key] = errors.get(key, 0) + 1
                if counted:
                    for name in tally:
                        tallies[name] += counted[0].get(name, 0)
                    if counted[1] and not first_refusal:
                        first_refusal.append(counted[1])
        conn.close()

    threads = [threading.Thread(target=worker) for _ in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    finished = time.perf_counter()
    elapsed = max(finished, end) - start if rate else finished - start
    if once and timeline:  # from the first request sent, not the planned start
        elapsed = finished - start - min(t for t, _ in timeline)
    latencies.sort()
    if spec.get("timeline"):
        with open(spec["timeline"], "w") as handle:
            json.dump(sorted(timeline), handle)

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
        "over_50ms": sum(1 for latency in latencies if latency > 0.050),
        "errors": sum(errors.values()),
        "error_kinds": errors,
        **({"tallies": tallies, "first_refusal": first_refusal[0] if first_refusal else None} if tally else {}),
    }


def _tally(payload: bytes, names: list[str]) -> tuple[dict, dict | None]:
    """``({name: int})`` of a JSON answer's ``names``, and its first refused result if any."""
    body = json.loads(payload)
    refused = next((r for r in body.get("results", ()) if r.get("status") == "refused"), None)
    return {name: int(body.get(name, 0)) for name in names}, refused


if __name__ == "__main__":
    with open(sys.argv[1]) as handle:
        print(json.dumps(run(json.load(handle))))
