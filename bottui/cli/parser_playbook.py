"""The command line of ``bottui playbook``: list, show, run, revert.

Kept apart from :mod:`bottui.cli.parser` (one call from ``build_parser``)
so the playbook commands and their help change without touching it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    import argparse

_EXIT_CODES: Final = """\
exit codes:
  0  done (every step sent; also every --dry-run, list and show)
  1  the API answered an error on a step (the steps after it were not sent)
  2  refused before sending: a playbook file with a problem (FILE:LINE is named),
     an id the inventory does not know, read-only profile, protected profile
     without --yes, not confirmed, or a revert refused
  3  no usable credentials
  4  network failure or timeout on a step (its outcome may be unknown)
  130 interrupted"""

_EPILOG: Final = f"""\
Playbooks are TOML files in the config directory's playbooks/ folder
(beside config.toml), one per name: playbooks/NAME.toml. See README, "Playbooks".

examples:
  bottui playbook list
  bottui playbook run login-attack --for 2h --reason "INC-4711"
  bottui playbook run login-attack --dry-run
  bottui playbook revert 12 --yes

{_EXIT_CODES}"""


def _run_id(text: str) -> int:
    import argparse

    try:
        value = int(text.strip().removeprefix("#"))
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a run id (a positive integer)")
    return value


def add_playbook_parser(commands: Any, common: argparse.ArgumentParser, reason_help: str) -> None:
    """Add ``playbook`` and its subcommands to ``commands`` (the top-level subparsers)."""
    import argparse

    raw = argparse.RawDescriptionHelpFormatter

    def sub(group: Any, name: str, purpose: str, examples: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = group.add_parser(
            name,
            help=purpose,
            description=purpose,
            epilog=f"examples:\n{examples}\n\n{_EXIT_CODES}",
            formatter_class=raw,
            parents=[common],
        )
        return parser

    playbook = commands.add_parser(
        "playbook",
        help="named lists of changes, run and reverted as one",
        description="Named lists of changes (rate limiters, thresholds), planned once, "
        "confirmed once, sent in order under one journal run id, and reverted as one.",
        epilog=_EPILOG,
        formatter_class=raw,
        parents=[common],
    )
    actions = playbook.add_subparsers(dest="action", metavar="ACTION", required=True)
    sub(
        actions,
        "list",
        "list the playbooks of the config directory (name, steps, duration, description)",
        "  bottui playbook list\n  bottui playbook list --json",
    )
    show = sub(
        actions,
        "show",
        "show a playbook's plan: each step's target, known value now -> new value, source",
        "  bottui playbook show login-attack\n  bottui playbook show login-attack --json",
    )
    show.add_argument("name", metavar="NAME", help="the playbook (playbooks/NAME.toml)")
    run = sub(
        actions,
        "run",
        "plan every step, confirm once, send the steps in order (stop at the first failure)",
        "  bottui playbook run login-attack --reason INC-4711\n"
        "  bottui playbook run login-attack --for 30m --yes\n"
        "  bottui playbook run login-attack --dry-run --json",
    )
    run.add_argument("name", metavar="NAME", help="the playbook (playbooks/NAME.toml)")
    run.add_argument(
        "--for",
        dest="revert_after",
        metavar="DURATION",
        default=None,
        help="revert every step this long after the run (90s, 30m, 2h, 1d, 1h30m; "
        "at most 7d); default: the playbook's duration, or none",
    )
    run.add_argument(
        "--no-revert",
        action="store_true",
        help="no timed revert even if the playbook has a duration (default: off)",
    )
    run.add_argument("--reason", metavar="TEXT", default=None, help=reason_help)
    revert = sub(
        actions,
        "revert",
        "revert a playbook run's steps in reverse order, each back to its previous value "
        "(a step whose object changed since is skipped as superseded)",
        "  bottui playbook revert 12\n  bottui playbook revert '#12' --yes --reason done",
    )
    revert.add_argument("run_id", metavar="RUN_ID", type=_run_id, help="the run id a run printed")
    revert.add_argument("--reason", metavar="TEXT", default=None, help=reason_help)


__all__ = ["add_playbook_parser"]
