"""``bottui help exit-codes``: what each exit code means (CONVENTIONS.md)."""

from __future__ import annotations

from typing import Final

SUMMARY: Final = "what each exit code means, and which wins in a bulk run"

TEXT: Final = """\
Exit codes: the same for every command (each command's --help lists those it can give).

  0    done; also "nothing was standing" for a revocation, and every --dry-run
  1    the API answered an error or an unusable body
       (bulk: at least one request failed)
  2    refused before sending: invalid options or values, an id that cannot be a
       path segment, plain http:// to a non-loopback host, a read-only profile, a
       protected profile without --yes, no --reason under require_reason
       (bulk: some input lines were invalid; every valid one was processed)
  3    no usable credentials: no token for this operation, or the keyring is
       absent, locked or not answering
  4    network failure or timeout, after the retries and within the total
       deadline: a change's outcome may be unknown (see `bottui journal --unfinished`)
  130  interrupted (Ctrl-C)

A bulk run reports the first that applies, in this order: 130, 4, 1, 2, 0.
A journal that cannot be written never changes the exit code: it prints a
warning on stderr. Output piped into a reader that stops early
(`bottui journal | head -1`) ends quietly, with the code it would have had.
"""
