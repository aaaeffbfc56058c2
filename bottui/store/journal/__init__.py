"""The audit journal: every mutation attempt, appended, never rewritten (one SQLite file)."""
