"""Benchmarks of the service (not tests)."""
