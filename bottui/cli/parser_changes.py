"""The commands that change something at the API: ``limiter``, ``revoke``, ``thresholds``, ``undo``.

Part of :func:`bottui.cli.parser.build_parser`; imported only when it runs.
"""

from __future__ import annotations

from typing import Any

from bottui.cli.help_text import CHANGE, group_of
from bottui.cli.help_text import command as cmd
from bottui.cli.parser_options import add_ack_collision, add_reason


def add_change_commands(commands: Any) -> None:
    """Add the commands that change something to ``commands`` (a subparsers action)."""
    ids = "--account acme --project shop-prod"

    limiter_cmds = group_of(
        commands,
        "limiter",
        "switch a rate limiter on or off (project API token)",
        examples=[f"bottui limiter disable rl-login {ids}", "bottui limiter enable --help"],
        exits=[0, 1, 2, 3, 4, 130],
    )
    for action in ("enable", "disable"):
        sub = cmd(
            limiter_cmds,
            action,
            f"{action} a rate limiter (project API token)",
            examples=[
                f"bottui limiter {action} rl-login {ids}",
                f"bottui limiter {action} rl-login {ids} --dry-run",
                f"bottui limiter {action} rl-login --profile prod --yes --reason INC-42",
            ],
            exits=[0, 1, 2, 3, 4, 130],
            common=CHANGE | {"show_secrets"},
        )
        sub.add_argument("limiter_id", metavar="LIMITER_ID", help="the rate limiter's id")
        add_reason(sub)
        add_ack_collision(sub)

    revoke = cmd(
        commands,
        "revoke",
        "revoke challenge grants of a visitor or a user account (personal access token)",
        examples=[
            f"bottui revoke {ids} --visitor-id vis_7Hq2kP9xLm",
            f"bottui revoke {ids} --user-account-id user-1234 --reason INC-42",
            f"bottui revoke {ids} --from-file ids.txt --output results.csv",
        ],
        exits=[
            (0, "done, also when nothing was standing"),
            (1, "the API answered an error (bulk: at least one request failed)"),
            (2, "refused before sending (bulk: some input lines were invalid)"),
            3,
            4,
            130,
        ],
        common=CHANGE,
    )
    revoke.add_argument(
        "--visitor-id",
        metavar="VISITOR_ID",
        help="revoke this visitor's grants (with --user-account-id: both)",
    )
    revoke.add_argument(
        "--user-account-id",
        metavar="USER_ACCOUNT_ID",
        help="revoke this user account's grants (with --visitor-id: both)",
    )
    revoke.add_argument(
        "--from-file",
        metavar="FILE",
        help="bulk: ids from FILE (- for stdin): one visitor id per line, or CSV with a "
        "visitorId and/or userAccountId header",
    )
    revoke.add_argument(
        "--concurrency",
        type=int,
        default=32,
        metavar="N",
        help="bulk: requests in flight, 1 to 512 (default %(default)s)",
    )
    revoke.add_argument("--resume", action="store_true", help="bulk: skip ids already done")
    revoke.add_argument(
        "--force", action="store_true", help="bulk: run even while the same input runs"
    )
    revoke.add_argument(
        "--output",
        metavar="FILE",
        help="bulk: write each id's result to FILE, results.csv or results.jsonl",
    )
    revoke.add_argument(
        "--overwrite",
        action="store_true",
        help="bulk: replace an existing --output file (never a symbolic link)",
    )
    add_reason(revoke)

    th_cmds = group_of(
        commands,
        "thresholds",
        "set a dimension's thresholds (personal access token)",
        examples=[
            f"bottui thresholds set bot-score {ids} --name 'Bot score' "
            "--block 0.85 --challenge 0.5",
            "bottui thresholds set --help",
        ],
        exits=[0, 1, 2, 3, 4, 130],
    )
    th_set = cmd(
        th_cmds,
        "set",
        "replace a dimension's name and thresholds (what is not given: as known)",
        examples=[
            f"bottui thresholds set bot-score {ids} --name 'Bot score' --block 0.85 "
            "--challenge 0.5",
            f"bottui thresholds set bot-score {ids} --block 0.9",
            "bottui thresholds set bot-score --name 'Bot score' --block 0.9 --challenge 0.6 "
            "--dry-run",
        ],
        exits=[0, 1, 2, 3, 4, 130],
        common=CHANGE,
    )
    th_set.add_argument("dimension_id", metavar="DIMENSION_ID", help="the dimension's id")
    known = "(default: as the inventory knows it; refused when it does not)"
    th_set.add_argument("--name", help=f"the dimension's name {known}")
    th_set.add_argument("--block", metavar="NUMBER", help=f"block threshold {known}")
    th_set.add_argument("--challenge", metavar="NUMBER", help=f"challenge threshold {known}")
    th_set.add_argument(
        "--force",
        action="store_true",
        help="send even outside the profile's threshold range or direction",
    )
    add_reason(th_set)
    add_ack_collision(th_set)

    undo = cmd(
        commands,
        "undo",
        "undo this profile's last rate limiter or threshold change",
        examples=["bottui undo --dry-run", "bottui undo --kind limiter --reason 'INC-42 over'"],
        exits=[0, 1, (2, "refused: nothing to undo, or it changed since"), 3, 4, 130],
        common=CHANGE,
    )
    undo.add_argument(
        "--kind",
        choices=["limiter", "thresholds"],
        help="which kind of change (default: the newer of the two)",
    )
    add_reason(undo)
    add_ack_collision(undo)
