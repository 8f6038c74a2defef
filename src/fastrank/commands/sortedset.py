"""Sorted-set commands (placeholder until the C core lands)."""
