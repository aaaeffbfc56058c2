"""The tokens each known project needs: stored, from the environment, or missing.

A project needs two: the personal access token of its account (revocation,
thresholds) and its own project API token (rate limiters). The projects are
the profile's default one and those the inventory knows. Only where a token
comes from is shown, never a token.

Verdicts: every token there, ok; some missing, a warning (a command that
needs one says so, exit 3; not every project needs both); none usable at
all, a problem (nothing could be changed); a keyring that cannot tell, a
problem (the keyring check says why).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from bottui.api.tokens import TOKEN_ENV
from bottui.ops.doctor.model import Check, Verdict
from bottui.ops.token_slots import Reading, Slot, read_states
from bottui.plaintext import show_id
from bottui.store.errors import KeyringUnavailable
from bottui.store.tokens import TokenState, TokenStore

#: Projects listed one per line; more are counted.
SHOWN_PROJECTS: Final = 20
_TITLE: Final = "Tokens"


async def check_tokens(
    tokens: TokenStore,
    base_url: str,
    projects: Sequence[tuple[str, str]],
    environ: Mapping[str, str],
) -> Check:
    """The state of every slot the ``(account, project)`` pairs need, at ``base_url``.

    A kind of token the environment holds is "from environment" without
    asking the keyring: a keyring that fails must not hide it.
    """
    if not projects:
        return Check(
            "tokens",
            _TITLE,
            Verdict.SKIPPED,
            "no project known yet (neither the profile nor the inventory names one)",
            "set a default: bottui profile add NAME --base-url URL --account ID --project ID "
            "--replace, or fetch the projects in the TUI",
        )
    slots: list[Slot] = []
    for account, project in projects:
        slots += [Slot.personal(account), Slot.for_project(account, project)]
    in_env = {kind for kind, name in TOKEN_ENV.items() if environ.get(name, "").strip()}
    readings: dict[Slot, Reading] = dict.fromkeys(
        (slot for slot in slots if slot.kind in in_env), TokenState.ENVIRONMENT
    )
    readings.update(await read_states(tokens, base_url, [s for s in slots if s.kind not in in_env]))
    lines: list[str] = []
    missing = unknown = usable = 0
    for number, (account, project) in enumerate(projects):
        pair = [readings[Slot.personal(account)], readings[Slot.for_project(account, project)]]
        missing += sum(1 for r in pair if r is TokenState.MISSING)
        unknown += sum(1 for r in pair if isinstance(r, KeyringUnavailable))
        usable += sum(1 for r in pair if r in (TokenState.STORED, TokenState.ENVIRONMENT))
        if number < SHOWN_PROJECTS:
            lines.append(
                f"{show_id(account)}/{show_id(project)}: personal access token "
                f"{_where(pair[0], 'personal')}, project API token {_where(pair[1], 'project')}"
            )
    if len(projects) > SHOWN_PROJECTS:
        lines.append(f"... and {len(projects) - SHOWN_PROJECTS} more projects")
    head = f"{len(projects)} project{'s' if len(projects) != 1 else ''} known"
    detail = "\n".join([head, *lines])
    if unknown:
        return Check(
            "tokens",
            _TITLE,
            Verdict.PROBLEM,
            detail,
            "the keyring cannot tell (see the keyring check); tokens in the environment still work",
        )
    if not usable:
        return Check(
            "tokens",
            _TITLE,
            Verdict.PROBLEM,
            detail + "\nno token at all: nothing can be changed",
            "bottui token set personal --account ID; bottui token set project --account ID "
            "--project ID (or BOTTUI_ACCESS_TOKEN / BOTTUI_API_KEY)",
        )
    if missing:
        return Check(
            "tokens",
            _TITLE,
            Verdict.WARNING,
            detail,
            "store the missing ones: bottui token set personal|project --account ID "
            "[--project ID]; bottui token status lists every one",
        )
    return Check("tokens", _TITLE, Verdict.OK, detail)


def _where(reading: Reading, kind: str) -> str:
    if isinstance(reading, KeyringUnavailable):
        return "unknown (keyring not answering)"
    if reading is TokenState.ENVIRONMENT:
        return f"from environment ({TOKEN_ENV[kind]})"
    return reading.label


__all__ = ["SHOWN_PROJECTS", "check_tokens"]
