"""Loaders for benchmark files (exact upstream formats) and the data-location rules."""
