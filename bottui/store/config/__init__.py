"""Profiles and settings: ``config.toml``, its model, reading, checking and writing."""
