"""Per-run counters of the model layer, as builtins so xdist workers can ship them."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import Any

from pytest_llmeval.models.base import Usage

# junk_usage: replies whose "usage" was not token counts (ignored); estimated_usage: replies without
# token counts whose tokens were estimated (:func:`estimate_usage`) and counted as if reported
_COUNTERS = (
    "calls",
    "cache_hits",
    "retries",
    "errors",
    "prompt_tokens",
    "completion_tokens",
    "junk_usage",
    "estimated_usage",
)
CHARS_PER_TOKEN = (
    4  # English text with common BPE tokenizers; a server that reports usage is counted exactly
)


def estimate_usage(
    messages: Iterable[Mapping[str, Any]], text: str, tool_calls: Any = None
) -> Usage:
    """Tokens of a request whose reply gave none: its characters over :data:`CHARS_PER_TOKEN`, rounded up."""
    import json

    def tokens(chars: int) -> int:
        return -(-chars // CHARS_PER_TOKEN)

    def chars(content: Any) -> int:
        return len(content) if isinstance(content, str) else len(json.dumps(content))

    sent = sum(chars(m.get("content")) for m in messages)
    got = len(text) + (len(json.dumps(tool_calls)) if tool_calls else 0)
    return Usage(prompt_tokens=tokens(sent), completion_tokens=tokens(got))


# Beside "latencies" (each call's round trip: sent to reply read, so it includes any wait in the
# server's queue): time waiting for our own concurrency slot and rate limit before sending, and,
# for servers that report it (llama.cpp's "timings"), the server's own time and the rest of the
# round trip (its queue). Lists, so xdist workers' figures merge exactly.
_TIMINGS = ("slot_waits", "service_times", "server_queue_waits")
_SUMMARY = {
    "slot_waits": "slot_wait",
    "service_times": "service",
    "server_queue_waits": "server_queue",
}


def _percentile(values: list[float], fraction: float) -> float | None:
    """Nearest-rank percentile (no interpolation: a real observed latency)."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * fraction // 1))  # ceil
    return ordered[int(rank) - 1]


def _median(values: list[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


class Stats:
    """Thread-safe tally of calls, cache hits, retries, tokens, latencies and cost.

    Tokens, latencies and cost count the calls made in this run; a cache hit costs nothing.
    ``prices`` maps a model name to ``[usd_per_1k_prompt, usd_per_1k_completion]``.
    """

    def __init__(self, prices: Mapping[str, Any] | None = None) -> None:
        self.prices = dict(prices or {})
        self._lock = threading.Lock()
        self.counts = dict.fromkeys(_COUNTERS, 0)
        self.latencies: list[float] = []
        self.timings: dict[str, list[float]] = {name: [] for name in _TIMINGS}
        self.cost: float | None = None

    def record_call(
        self,
        model: str,
        usage: Usage,
        latency_s: float,
        *,
        wait_s: float = 0.0,
        service_s: float | None = None,
        estimated: bool = False,
        price_factor: float = 1.0,
    ) -> None:
        """``latency_s``: round trip (includes the server's queue); ``wait_s``: for our own slot
        before sending; ``service_s``: the server's own time, when it reports it; ``estimated``:
        ``usage`` is an estimate (the reply gave none); ``price_factor``: share of the listed price
        paid (a provider batch request costs less)."""
        with self._lock:
            self.counts["calls"] += 1
            self.counts["estimated_usage"] += estimated
            self.counts["prompt_tokens"] += usage.prompt_tokens
            self.counts["completion_tokens"] += usage.completion_tokens
            self.latencies.append(round(latency_s, 4))
            self.timings["slot_waits"].append(round(wait_s, 4))
            if service_s is not None:
                self.timings["service_times"].append(round(service_s, 4))
                # what the round trip holds beyond the server's own time: its queue (and the network)
                self.timings["server_queue_waits"].append(round(max(0.0, latency_s - service_s), 4))
            price = self._price(model)
            if price is not None:
                cost = (
                    price_factor
                    * (usage.prompt_tokens * price[0] + usage.completion_tokens * price[1])
                    / 1000
                )
                self.cost = (self.cost or 0.0) + cost

    def record_junk_usage(self) -> None:
        with self._lock:
            self.counts["junk_usage"] += 1

    def record_hit(self) -> None:
        with self._lock:
            self.counts["cache_hits"] += 1

    def record_retry(self) -> None:
        with self._lock:
            self.counts["retries"] += 1

    def record_error(self) -> None:
        with self._lock:
            self.counts["errors"] += 1

    def _price(self, model: str) -> tuple[float, float] | None:
        bare = model.split(":", 1)[1] if model.startswith("openai:") else model
        for name in (model, bare, f"openai:{bare}"):
            if name in self.prices:
                prompt, completion = self.prices[name]
                return float(prompt), float(completion)
        return None

    def usage_cost(self, model: str, usage: Usage) -> tuple[int, float | None]:
        """(tokens, USD or None without a price) of one call, for the run budget."""
        price = self._price(model)
        cost = (
            None
            if price is None
            else (usage.prompt_tokens * price[0] + usage.completion_tokens * price[1]) / 1000
        )
        return usage.prompt_tokens + usage.completion_tokens, cost

    def as_dict(self) -> dict[str, Any]:
        with self._lock:
            data: dict[str, Any] = dict(self.counts)
            data["latencies"] = list(self.latencies)
            data.update({name: list(values) for name, values in self.timings.items()})
            data["cost_usd"] = self.cost
        return _with_summary(data)


def _with_summary(data: dict[str, Any]) -> dict[str, Any]:
    latencies = data.get("latencies") or []
    data["latency_median_s"] = _median(latencies)
    data["latency_p95_s"] = _percentile(latencies, 0.95)
    for name, short in _SUMMARY.items():
        values = data.get(name) or []
        data[f"{short}_median_s"] = _median(values)
        data[f"{short}_p95_s"] = _percentile(values, 0.95)
    return data


def merge_stats(parts: Iterable[Mapping[str, Any] | None]) -> dict[str, Any]:
    """Sum per-worker ``stats()`` dicts (xdist); ``None`` parts (plugin inactive) are skipped."""
    merged: dict[str, Any] = dict.fromkeys(_COUNTERS, 0)
    merged["latencies"] = []
    merged.update({name: [] for name in _TIMINGS})
    merged["cost_usd"] = None
    for part in parts:
        if not part:
            continue
        for name in _COUNTERS:
            merged[name] += int(part.get(name) or 0)
        merged["latencies"].extend(part.get("latencies") or [])
        for name in _TIMINGS:
            merged[name].extend(part.get(name) or [])
        if part.get("cost_usd") is not None:
            merged["cost_usd"] = (merged["cost_usd"] or 0.0) + float(part["cost_usd"])
    return _with_summary(merged)
