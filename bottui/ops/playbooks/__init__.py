"""Playbooks: named lists of changes, planned once, run in order under one run id, reverted as one.

* :mod:`~bottui.ops.playbooks.library`: a ``playbooks/NAME.toml`` file read
  (bounded, with the line of every key), what it may say, the playbooks of a
  config directory, and :func:`~bottui.ops.playbooks.library.check_playbooks`
  for ``config check``;
* :mod:`~bottui.ops.playbooks.playbook_plan`: every step planned (known value now
  -> new value, and its source), and ``config check``'s warning for ids the
  inventory has not seen;
* :mod:`~bottui.ops.playbooks.playbook_run`: the run, one confirmation, stop at the first failure;
  a run's steps are reverted, last first, by :mod:`bottui.ops.revert`.
"""
