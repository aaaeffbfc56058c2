"""``bottui help playbooks``: named lists of changes applied and reverted as one."""

from __future__ import annotations

from typing import Final

SUMMARY: Final = "playbooks: several changes applied, and reverted, as one"

TEXT: Final = """\
A playbook is a named list of steps (limiter enable or disable, thresholds set),
with an optional default duration, kept as TOML in the config directory
(playbooks/NAME.toml) so a team can keep them in Git. `bottui config check`
reports a playbook's unknown keys and bad values with file and line.

  bottui playbook list
  bottui playbook show NAME                 each step: target, known value -> new
  bottui playbook run NAME --for 2h --reason INC-42 [--dry-run]
  bottui playbook revert RUN_ID             its steps, in reverse order

Steps are sent in order, each journaled under one run id; on the first failure
the run stops and offers to revert the steps already done. A step whose target
changed since is not reverted blindly: it is reported as superseded. The
docs/playbooks.md says more.
"""
