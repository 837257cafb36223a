"""What the summary says about latency: each figure named for what it measures.

``latency`` is the round trip of a call (request sent to reply read). Under concurrency it
includes the time the request waited in the server's queue (a one-slot llama.cpp server serves
one request at a time), so it is not the model's speed. Where the server reports its own time
(llama.cpp's ``timings``) the line splits the round trip into server time and server queue; the
wait for our own concurrency slot before sending is shown apart when there was one.
"""

from __future__ import annotations

from typing import Any

SHOWN_WAIT_S = 0.005  # a slot wait below this is noise, not worth a column


def latency_parts(stats: dict[str, Any]) -> list[str]:
    """Summary-line parts for the latency figures of ``stats`` (a merged ``model_stats`` dict)."""
    parts = [
        f"latency median {stats['latency_median_s']:.2f}s p95 {stats.get('latency_p95_s') or 0:.2f}s "
        "(round trip, includes waiting in the server's queue)"
    ]
    service = stats.get("service_median_s")
    if service is not None:
        counted = len(stats.get("service_times") or [])
        parts.append(
            f"server time median {service:.2f}s p95 {stats.get('service_p95_s') or 0:.2f}s, "
            f"server queue median {stats.get('server_queue_median_s') or 0:.2f}s "
            f"p95 {stats.get('server_queue_p95_s') or 0:.2f}s ({counted} call(s) with server timings)"
        )
    wait_p95 = stats.get("slot_wait_p95_s")
    if wait_p95 is not None and wait_p95 >= SHOWN_WAIT_S:
        parts.append(
            f"waited for a client slot median {stats.get('slot_wait_median_s') or 0:.2f}s p95 {wait_p95:.2f}s "
            "(--llm-concurrency, llm_rpm)"
        )
    return parts
