"""Metrics: pure functions over typed records. Each metric's printed name is its results key."""
