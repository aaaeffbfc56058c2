"""``bottui doctor``: one check per area, each with a verdict and a fix. No UI here.

* :mod:`.checks`: :class:`~.checks.Check` and :class:`~.checks.Verdict`, and
  the check of each area: versions, profile, config and keymap, keyring,
  tokens, the API at the base URL, the team store; TERM, colours, tmux
  (asked once) and the OSC 52 clipboard;
* :mod:`.run_checks`: :func:`~.run_checks.prepare` (before the event loop) and
  :func:`~.run_checks.run_checks` (concurrent, each check within its budget).

Only a :attr:`~.checks.Verdict.PROBLEM` means something needed does not work.
"""
