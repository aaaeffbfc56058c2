"""``bottui doctor``: one check per area, each with a verdict and a fix. No UI here.

* :mod:`.model`: :class:`~.model.Check` and :class:`~.model.Verdict`;
* :mod:`.run`: :func:`~.run.prepare` (before the event loop) and
  :func:`~.run.run_checks` (concurrent, each check within its budget);
* one module per area: :mod:`.versions`, :mod:`.terminal` (with
  :mod:`.tmux`), :mod:`.profile_check`, :mod:`.config_files`,
  :mod:`.keyring_check`, :mod:`.tokens_check`, :mod:`.api_check`,
  :mod:`.team_check`.

Only a :attr:`~.model.Verdict.PROBLEM` means something needed does not work.
"""
