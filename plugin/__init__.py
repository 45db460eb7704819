"""The mypy plugin."""
