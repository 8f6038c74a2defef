"""The durable score service: an event log in SQL is the record of truth.

- ``store``: the log and the per-season totals, logic written once
  (``SQLStore``), with its records and errors;
- ``sqlite``: ``SQLiteStore``, the embedded default (one file);
- ``postgres``: ``PostgresStore`` (psycopg 3);
- ``service``: ``ScoreService``, which records first and applies after;
  ``service_async``: the same over an asyncio client;
- ``packed``: the rebuild's reads of a store's totals as packed columns,
  through the compiled reader ``_totals`` (C in ``native/``);
- ``columns``: the bulk ZADD mappings a rebuild writes (any client reads
  them; the Engine by their column form);
- ``scripts/``: the Lua scripts that apply an event, swap a rebuilt board in and
  take a player off a board (erase and ban).
"""
from fastrank.service.postgres import PostgresStore
from fastrank.service.sqlite import SQLiteStore
from fastrank.service.service import RanksUpdating, Receipt, ScoreService
from fastrank.service.store import AuditRecord, CeilingExceeded, ConflictingResubmit, Event, Standing, StoreSchemaError, Total

__all__ = ["AuditRecord", "CeilingExceeded", "ConflictingResubmit", "Event", "PostgresStore", "RanksUpdating", "Receipt",
           "SQLiteStore", "ScoreService", "Standing", "StoreSchemaError", "Total"]
