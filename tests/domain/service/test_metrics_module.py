"""The service's metrics registry and structured log records."""
from __future__ import annotations

import logging
import urllib.request

import pytest

from fastrank.service.metrics import ServiceMetrics, log_event
from fastrank.testing import free_port


def test_counters_histograms_and_gauges_by_board():
    m = ServiceMetrics()
    m.submitted("arena", "accepted", 0.0004)
    m.submitted("arena", "accepted", 0.002)
    m.submitted("arena", "held")
    m.submitted("race", "refused")
    m.applied.labels("arena").inc(3)
    m.lag_events.labels("arena").set(7)
    assert m.value("fastrank_submits_total", board="arena", outcome="accepted") == 2
    assert m.value("fastrank_submits_total", board="arena", outcome="held") == 1
    assert m.value("fastrank_submits_total", board="race", outcome="refused") == 1
    assert m.value("fastrank_submits_total", board="race", outcome="accepted") == 0
    assert m.value("fastrank_submit_seconds_count", board="arena") == 2
    assert m.value("fastrank_submit_seconds_bucket", board="arena", le="0.0005") == 1
    assert m.value("fastrank_events_applied_total", board="arena") == 3
    assert m.value("fastrank_apply_lag_events", board="arena") == 7
    text = m.exposition().decode()
    assert 'fastrank_submits_total{board="arena",outcome="accepted"} 2.0' in text


def test_an_unknown_outcome_is_refused_and_counts_nothing():
    m = ServiceMetrics()
    with pytest.raises(ValueError, match="outcome must be one of"):
        m.submitted("arena", "maybe")
    assert "maybe" not in m.exposition().decode()


def test_metrics_live_in_the_applications_registry_once():
    from prometheus_client import CollectorRegistry
    registry = CollectorRegistry()
    m = ServiceMetrics(registry)
    assert m.registry is registry
    with pytest.raises(ValueError):                 # services share one ServiceMetrics (label board)
        ServiceMetrics(registry)


def test_serve_answers_on_its_port():
    m = ServiceMetrics()
    m.submitted("arena", "accepted")
    port = free_port()
    server = m.serve(port, addr="127.0.0.1")
    try:
        body = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    finally:
        server[0].shutdown() if isinstance(server, tuple) else server.shutdown()
    assert 'fastrank_submits_total{board="arena",outcome="accepted"} 1.0' in body


def test_log_event_is_structured(caplog):
    with caplog.at_level(logging.INFO, logger="fastrank.service"):
        log_event("score.recorded", board="arena", player="p1", points=5)
    record = caplog.records[-1]
    assert record.getMessage() == "score.recorded board='arena' player='p1' points=5"
    assert record.event == "score.recorded"
    assert record.fields == {"board": "arena", "player": "p1", "points": 5}
