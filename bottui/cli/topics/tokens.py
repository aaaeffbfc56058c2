"""``bottui help tokens``: which token each operation needs and where it lives."""

from __future__ import annotations

from typing import Final

SUMMARY: Final = "the two kinds of token, where they are kept, headless machines"

TEXT: Final = """\
Two kinds of token, kept in the OS keyring (service "bottui") or the environment,
never in a file, the journal, the output or a screen:

  project API token      switching rate limiters on or off; one per base URL,
                         account and project               (BOTTUI_API_KEY)
  personal access token  revocations and thresholds; one per base URL and
                         account; needs the scopes "Project Action" and
                         "Dimension Thresholds Action"     (BOTTUI_ACCESS_TOKEN)

The environment wins over the keyring. BOTTUI_API_KEY and BOTTUI_ACCESS_TOKEN
are not tied to a project (an account): bottui sends them for whichever one is
asked, and `token status` says so ("from the environment: not tied to a
project"). One token per profile, for a headless box with several projects:
BOTTUI_API_KEY_<PROFILE> and BOTTUI_ACCESS_TOKEN_<PROFILE> (the profile's name
in upper case; names of [A-Za-z0-9_] only) are given to that profile's base
URL, account and project alone, before the bare names. Two that could be one
slot's (profiles `prod` and `PROD`) are refused, never guessed. `bottui run-due`
reads the same names from systemd's credentials (bottui-api-key-<PROFILE>).

  bottui token set personal --account acme       hidden prompt, or piped on stdin
  bottui token set project --account acme --project shop-prod
  bottui token status --account acme --project shop-prod
  bottui token delete project --account acme --project shop-prod
  bottui token set store --profile prod          the team store's password

No token for an operation, or a keyring that is absent, locked or not answering
within 5 seconds: exit 3, with the remedies. On a headless machine without a
keyring: `read -rs BOTTUI_ACCESS_TOKEN; export BOTTUI_ACCESS_TOKEN`, or run under
`dbus-run-session` with a Secret Service of your own.

A token a server echoed back is masked as *** in everything shown or journaled,
but it has travelled: rotate it. docs/getting-started.md ("Tokens") says more.
"""
