"""The score service's metrics (prometheus_client) and structured log records.

:class:`ServiceMetrics` owns one ``CollectorRegistry`` (pass your own to
share it with the rest of an application) with, labelled by board:

- ``fastrank_submits_total{outcome}``: submissions accepted, refused, held
  for review, or flagged (applied and listed);
- ``fastrank_events_applied_total``: events the applier wrote to the board;
- ``fastrank_apply_lag_events`` and ``fastrank_apply_lag_seconds``: events
  recorded and not yet applied, and the age of the oldest of them;
- ``fastrank_rebuild_progress_ratio``: 0..1 while a rebuild runs;
- ``fastrank_submit_seconds`` and ``fastrank_apply_seconds``: latency
  histograms of one submit and one applier batch.

:func:`log_event` writes one record on the ``fastrank.service`` logger with
a stable event name (``score.recorded``, ``score.applied``, ``score.held``,
``score.approved``, ``score.rejected``, ``player.erased``...) as the message
start and in ``record.event``, and its fields as ``key=value`` and in
``record.fields``.
"""
from __future__ import annotations

import logging
from typing import Any, Optional

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest, start_http_server

__all__ = ["OUTCOMES", "ServiceMetrics", "log_event", "logger"]

logger = logging.getLogger("fastrank.service")

#: The values of the ``outcome`` label of ``fastrank_submits_total``.
OUTCOMES = ("accepted", "refused", "held", "flagged")

_LATENCY_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class ServiceMetrics:
    """The counters, gauges and histograms of one or more services (label ``board``)."""

    def __init__(self, registry: Optional[CollectorRegistry] = None) -> None:
        self.registry = CollectorRegistry(auto_describe=True) if registry is None else registry
        self.submits = Counter("fastrank_submits", "Submissions by outcome.", ["board", "outcome"],
                               registry=self.registry)
        self.applied = Counter("fastrank_events_applied", "Events written to the board by the applier.",
                               ["board"], registry=self.registry)
        self.lag_events = Gauge("fastrank_apply_lag_events", "Events recorded and not yet applied.",
                                ["board"], registry=self.registry)
        self.lag_seconds = Gauge("fastrank_apply_lag_seconds", "Age of the oldest event not yet applied.",
                                 ["board"], registry=self.registry)
        self.rebuild_progress = Gauge("fastrank_rebuild_progress_ratio", "Share of a running rebuild done.",
                                      ["board"], registry=self.registry)
        self.submit_seconds = Histogram("fastrank_submit_seconds", "Latency of one submit.", ["board"],
                                        buckets=_LATENCY_BUCKETS, registry=self.registry)
        self.apply_seconds = Histogram("fastrank_apply_seconds", "Latency of one applier batch.", ["board"],
                                       buckets=_LATENCY_BUCKETS, registry=self.registry)

    def submitted(self, board: str, outcome: str, seconds: Optional[float] = None) -> None:
        """Count one submission (``outcome`` in :data:`OUTCOMES`) and its latency."""
        if outcome not in OUTCOMES:
            raise ValueError(f"outcome must be one of {OUTCOMES}, not {outcome!r}")
        self.submits.labels(board, outcome).inc()
        if seconds is not None:
            self.submit_seconds.labels(board).observe(seconds)

    def value(self, name: str, **labels: str) -> float:
        """One sample's current value (0.0 when it was never set); for tests and status lines."""
        found = self.registry.get_sample_value(name, labels)
        return 0.0 if found is None else float(found)

    def exposition(self) -> bytes:
        """The registry in Prometheus's text format."""
        return generate_latest(self.registry)

    def serve(self, port: int, addr: str = "0.0.0.0") -> Any:
        """Serve ``/metrics`` on ``port`` from a daemon thread; returns the server."""
        return start_http_server(port, addr=addr, registry=self.registry)


def log_event(event: str, level: int = logging.INFO, **fields: Any) -> None:
    """One structured record: ``event`` then ``key=value`` pairs, both also as attributes."""
    if logger.isEnabledFor(level):
        text = " ".join([event] + [f"{k}={v!r}" for k, v in fields.items()])
        logger.log(level, text, extra={"event": event, "fields": fields})
