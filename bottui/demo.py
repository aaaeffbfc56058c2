"""``bottui demo``: everything against the embedded sandbox, touching nothing of the user's.

Placeholder until the TUI lands: starts the sandbox and prints a CLI
walkthrough.
"""

from __future__ import annotations


def run_demo() -> int:
    """Run the demo; returns the exit code."""
    from bottui.sandbox.server import serve

    serve("127.0.0.1", 8765)
    return 0
