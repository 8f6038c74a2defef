"""The durable score service: an event log in SQL is the record of truth.

- ``store``: the log and the per-season totals, logic written once
  (``SQLStore``), with its records and errors;
- ``sqlite``: ``SQLiteStore``, the embedded default (one file);
- ``postgres``: ``PostgresStore`` (psycopg 3).
"""
from fastrank.service.postgres import PostgresStore
from fastrank.service.sqlite import SQLiteStore
from fastrank.service.store import CeilingExceeded, ConflictingResubmit, Event, Standing, Total

__all__ = ["CeilingExceeded", "ConflictingResubmit", "Event", "PostgresStore", "SQLiteStore",
           "Standing", "Total"]
