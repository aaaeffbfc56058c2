"""The tokens each known project needs: stored, from the environment, or missing.

A project needs two: the personal access token of its account (revocation,
thresholds) and its own project API token (rate limiters). The projects are
the profile's default one and those the inventory knows. Only where a token
comes from is shown, never a token.

Verdicts: every token there, ok; some missing, a warning (a command that
needs one says so, exit 3; not every project needs both); none usable at
all, a problem (nothing could be changed); a keyring that cannot tell, a
problem (the keyring check says why). A token from ``BOTTUI_API_KEY`` (or
``BOTTUI_ACCESS_TOKEN``) is not tied to a project (an account): it is shown
as such, and with several projects known that is a warning (it cannot be
every project's; ``BOTTUI_API_KEY_<PROFILE>`` ties one per profile), as is a
per-profile variable that names no profile able to use it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from bottui.api.tokens import TOKEN_ENV
from bottui.ops.doctor.model import Check, Verdict
from bottui.ops.token_slots import Reading, Slot, read_states
from bottui.plaintext import show_id
from bottui.store.env_tokens import EnvScope, EnvTokenAmbiguous, unmatched
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
    scopes: Sequence[EnvScope] = (),
) -> Check:
    """The state of every slot the ``(account, project)`` pairs need, at ``base_url``.

    A slot the environment fills is read without asking the keyring
    (:func:`~bottui.ops.token_slots.read_states`): a keyring that fails must
    not hide it.
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
    readings = await read_states(tokens, base_url, slots)
    lines: list[str] = []
    missing = unknown = usable = untied = refused = 0
    for number, (account, project) in enumerate(projects):
        pair = [readings[Slot.personal(account)], readings[Slot.for_project(account, project)]]
        missing += sum(1 for r in pair if r is TokenState.MISSING)
        refused += sum(1 for r in pair if isinstance(r, EnvTokenAmbiguous))
        unknown += sum(
            1
            for r in pair
            if isinstance(r, KeyringUnavailable) and not isinstance(r, EnvTokenAmbiguous)
        )
        usable += sum(1 for r in pair if isinstance(r, TokenState) and r.usable)
        untied += pair[1] is TokenState.ENVIRONMENT_ANY_PROJECT
        if number < SHOWN_PROJECTS:
            lines.append(
                f"{show_id(account)}/{show_id(project)}: personal access token "
                f"{_where(pair[0], 'personal')}, project API token {_where(pair[1], 'project')}"
            )
    if len(projects) > SHOWN_PROJECTS:
        lines.append(f"... and {len(projects) - SHOWN_PROJECTS} more projects")
    head = f"{len(projects)} project{'s' if len(projects) != 1 else ''} known"
    stray = unmatched(environ, scopes)
    if stray:
        lines.append(
            f"set but given to no project: {', '.join(stray)} (no profile of that name in "
            "[A-Za-z0-9_] with the account and project it needs)"
        )
    detail = "\n".join([head, *lines])
    if unknown:
        return Check(
            "tokens",
            _TITLE,
            Verdict.PROBLEM,
            detail,
            "the keyring cannot tell (see the keyring check); tokens in the environment still work",
        )
    if refused:
        return Check(
            "tokens",
            _TITLE,
            Verdict.PROBLEM,
            detail,
            "two environment variables claim one token: unset all but one (never guessed)",
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
    if (untied and len(projects) > 1) or stray:
        return Check(
            "tokens",
            _TITLE,
            Verdict.WARNING,
            detail,
            f"{TOKEN_ENV['project']} is one token for whichever project is asked: it can be only "
            f"one project's. Give each profile its own ({TOKEN_ENV['project']}_<PROFILE>, a "
            "profile name of [A-Za-z0-9_]), or keep them in the keyring"
            if untied and len(projects) > 1
            else "check the variables' names: BOTTUI_API_KEY_<PROFILE> with the profile's name "
            "in upper case",
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
    if isinstance(reading, EnvTokenAmbiguous):
        return f"refused ({reading.title})"
    if isinstance(reading, KeyringUnavailable):
        return "unknown (keyring not answering)"
    if reading is TokenState.ENVIRONMENT:
        return f"from environment ({TOKEN_ENV[kind]}_<PROFILE>)"
    if reading.from_environment:
        return f"{reading.label} ({TOKEN_ENV[kind]})"
    return reading.label


__all__ = ["SHOWN_PROJECTS", "check_tokens"]
