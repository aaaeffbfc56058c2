"""Playbooks: named lists of changes, planned once, run in order under one run id, reverted as one.

* :mod:`~bottui.ops.playbooks.schema`: what a ``playbooks/NAME.toml`` may say;
* :mod:`~bottui.ops.playbooks.library`: the playbooks of a config directory,
  and :func:`~bottui.ops.playbooks.library.check_playbooks` for ``config check``;
* :mod:`~bottui.ops.playbooks.planning`: every step planned (known value now
  -> new value, and its source);
* :mod:`~bottui.ops.playbooks.run`: the run, one confirmation, stop at the first failure;
* :mod:`~bottui.ops.playbooks.revert`: a run's steps reverted, last first.
"""
