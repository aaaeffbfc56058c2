"""A bulk run's dry run: validate the whole input, build its first requests, send nothing."""

from __future__ import annotations

from dataclasses import dataclass

from bottui.api.requests import PreparedRequest
from bottui.ops.bulk.input import BulkSource, InvalidLine, Subject
from bottui.ops.bulk.status import MAX_INVALID_KEPT
from bottui.ops.session import Session
from bottui.plaintext import clean


@dataclass(frozen=True)
class BulkPlan:
    """What a bulk run would send (``--dry-run``): nothing is sent.

    Attributes:
        requests: The first requests, with their subjects.
        count: Requests the run would send (distinct valid ids).
        invalid: The invalid lines (the first :data:`MAX_INVALID_KEPT`).
        invalid_count: Invalid lines in all.
        duplicates: Repeated lines.
    """

    requests: tuple[tuple[Subject, PreparedRequest], ...]
    count: int
    invalid: tuple[InvalidLine, ...]
    invalid_count: int
    duplicates: int


def plan_bulk(
    session: Session, account: str, project: str, source: BulkSource, *, keep: int = 20
) -> BulkPlan:
    """Validate the whole input and build its first ``keep`` requests; send nothing."""
    client = session.client()
    client.prepare_revocation(account, project, visitor_id="-")  # ids usable?
    requests: list[tuple[Subject, PreparedRequest]] = []
    invalid: list[InvalidLine] = []
    reader = source.read()
    try:
        for item in iter(reader):
            if isinstance(item, InvalidLine):
                if len(invalid) < MAX_INVALID_KEPT:
                    invalid.append(InvalidLine(item.line, clean(item.reason)))
            elif isinstance(item, Subject) and len(requests) < keep:
                request = client.prepare_revocation(
                    account,
                    project,
                    visitor_id=item.visitor_id,
                    user_account_id=item.user_account_id,
                )
                requests.append((item, request))
    finally:
        reader.close()
    return BulkPlan(
        requests=tuple(requests),
        count=reader.valid,
        invalid=tuple(invalid),
        invalid_count=reader.invalid,
        duplicates=reader.duplicates,
    )
