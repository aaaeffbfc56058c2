"""bottui: a terminal console for a bot-protection management API."""

__version__ = "0.1.0"
