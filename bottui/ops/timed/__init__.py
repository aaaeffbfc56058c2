"""Timed changes: a change that reverts itself (issue #15). The API both faces use.

Make one: plan as usual, then ``plan.with_revert_after(timedelta)``
(:meth:`bottui.ops.planning.PlannedChange.with_revert_after`; raises
:class:`~bottui.ops.planning.TimedRefused`, exit 2, for a revocation or when the
value before is unknown; the operator may state it first:
:func:`bottui.ops.revert.with_revert_to` ``(plan, value) -> plan``) and
:func:`bottui.ops.mutations.apply` it: the
schedule is journaled after the started record and before the request is
sent. Durations: :func:`bottui.ops.durations.parse_duration` /
:func:`~bottui.ops.durations.duration_text`.

Names (all ``async``, taking the :class:`~bottui.ops.session.Session`):

* :func:`list_timed` ``(session, include_done=False, *, now=None) -> list[TimedChange]``
* :func:`find` ``(session, id_or_key) -> TimedChange`` (:class:`TimedNotFound`, exit 2)
* :func:`extend` ``(session, id, by: timedelta, *, now=None) -> TimedChange``
* :func:`cancel` ``(session, id, *, now=None) -> TimedChange`` (keeps the change)
* :func:`revert_now` ``(session, id, *, executor=None, confirmed=False, now=None) -> DueReport``
* :func:`run_due` ``(session, *, now=None, executor=None, late_ok=False) -> list[DueReport]``
  (every due revert of the profile; records the run as an executor seen)
* :func:`schedule_revert` ``(session, entry_ids, run_id, due_at, *, confirmed=False)
  -> TimedChange``: a playbook run's steps (this journal's ids, in the order
  they were made), reverted in REVERSE order at ``due_at``
* :func:`resolve` ``(session, id, how="check"|"done"|"resend", *, confirmed=False, now=None)
  -> Resolution``: a claim in doubt (claimed, no result for :data:`IN_DOUBT_AFTER`:
  its executor stopped, or someone else claimed it), checked, settled or re-sent
  (:mod:`.resolve`); ``TimedChange.in_doubt(now)`` says which are
* :func:`executor_seen` ``(session, kind, now=None)``: ``kind`` ``"tui"`` (the
  TUI calls it every minute) or ``"run-due"``; :func:`executor_known`
  ``(session, now=None) -> str | None``: a TUI seen within 5 minutes or a
  run-due within a day ("TUI on laptop"), None: warn with
  :data:`NO_EXECUTOR_WARNING`
* :func:`executor_name` ``(kind) -> str``: ``"timer on bastion-2"``
* :func:`late_limit` ``(session) -> timedelta``: the profile's lateness limit
* :func:`bottui.ops.revert.revert_entries` ``(session, entries, *, executor,
  reason, confirmed=False, pages=None) -> RevertReport``: newest first,
  superseded ones not sent (a playbook's "revert the steps done")

:class:`TimedChange` (``id`` to type, ``key``, ``entries``, ``entry_ids``,
``run_id``, ``account``, ``project``, ``what``, ``revert_to``,
``revert_to_stated`` (stated by the operator, not known), ``due_at``
UTC, ``state``: scheduled / claimed / reverted / superseded / cancelled /
failed / unknown, ``executor``, ``superseded_by``, ``note``; ``when_text(now)``
"in 14m" / "late by 3m"; ``to_json(now)``). :class:`DueReport` (``timed``,
``action``: reverted / superseded / failed / unknown / refused / late-skipped
/ in-doubt / claimed-elsewhere, ``late``, ``message``, ``line``, ``sent``).
Texts are untrusted: clean them where shown.

The package re-exports nothing: each name is imported from its module (a change
that only checks the pending reverts loads :mod:`.schedule`, not the executor).
Modules: :mod:`.schedule` (the dataclass, folded from events; schedule, list,
extend, cancel, executors), :mod:`.execute` (run-due, revert now), :mod:`.resolve`
(claims in doubt); the events, claims and results go to this journal and the
team store through :mod:`bottui.ops.timed_record`.
"""
