"""Parsing and validation of the three request bodies.

Numbers are parsed keeping their JSON text (:class:`RawFloat`,
:class:`RawInt`), so a threshold's digits can be checked exactly as sent.
Every refusal is a 400 :class:`~bottui.sandbox.errors.ApiError` whose
``context.field`` names the culprit.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Final

from bottui.sandbox.errors import invalid

MAX_SUBJECT_ID: Final = 256


class RawFloat(float):
    """A float that remembers the JSON text it was parsed from."""

    raw: str

    def __new__(cls, text: str) -> RawFloat:
        value = super().__new__(cls, text)
        value.raw = text
        return value


class RawInt(int):
    """An int that remembers the JSON text it was parsed from."""

    raw: str

    def __new__(cls, text: str) -> RawInt:
        value = super().__new__(cls, text)
        value.raw = text
        return value


def parse_json(body: bytes) -> Any:
    """The JSON value of a body, numbers as :class:`RawFloat`/:class:`RawInt`."""
    try:
        return json.loads(body, parse_float=RawFloat, parse_int=RawInt, parse_constant=RawFloat)
    except (ValueError, RecursionError):
        raise invalid("body", "The request body is not valid JSON.") from None


def plain_json(body: bytes) -> Any:
    """The JSON value of a body with plain numbers, or ``None`` when not JSON."""
    if not body:
        return None
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        return None


def _object(body: bytes) -> dict[str, Any]:
    value = parse_json(body)
    if not isinstance(value, dict):
        raise invalid("body", "The request body must be a JSON object.")
    return value


def parse_set_active(body: bytes) -> bool:
    """``{"isActive": bool}`` -> the flag."""
    data = _object(body)
    if "isActive" not in data:
        raise invalid("isActive", "isActive is required.")
    value = data["isActive"]
    if not isinstance(value, bool):
        raise invalid("isActive", "isActive must be a boolean.")
    return value


def _subject_id(subject: dict[str, Any], name: str) -> str | None:
    if name not in subject:
        return None
    value = subject[name]
    field = f"subject.{name}"
    if not isinstance(value, str):
        raise invalid(field, f"{field} must be a string.")
    if not value:
        raise invalid(field, f"{field} must not be empty.")
    if len(value) > MAX_SUBJECT_ID:
        raise invalid(field, f"{field} must be at most {MAX_SUBJECT_ID} characters.")
    return value


def parse_revocation(body: bytes) -> tuple[str | None, str | None]:
    """``{"subject": {...}}`` -> (visitorId, userAccountId); ``customFields`` ignored."""
    data = _object(body)
    if "subject" not in data:
        raise invalid("subject", "subject is required.")
    subject = data["subject"]
    if not isinstance(subject, dict):
        raise invalid("subject", "subject must be an object.")
    visitor_id = _subject_id(subject, "visitorId")
    user_account_id = _subject_id(subject, "userAccountId")
    if visitor_id is None and user_account_id is None:
        raise invalid("subject", "Give subject.visitorId or subject.userAccountId.")
    return visitor_id, user_account_id


@dataclass(frozen=True)
class ThresholdUpdate:
    """A parsed threshold update, with the JSON text of each number."""

    name: str
    block: float
    challenge: float
    block_raw: str
    challenge_raw: str


def _threshold(data: dict[str, Any], name: str) -> tuple[float, str]:
    if name not in data:
        raise invalid(name, f"{name} is required.")
    value = data[name]
    if isinstance(value, bool) or not isinstance(value, RawFloat | RawInt):
        raise invalid(name, f"{name} must be a number.")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise invalid(name, f"{name} must be a finite number.")
    return number, value.raw


def parse_thresholds(body: bytes) -> ThresholdUpdate:
    """``{"name", "blockThreshold", "challengeThreshold"}`` -> the update."""
    data = _object(body)
    name = data.get("name")
    if "name" not in data:
        raise invalid("name", "name is required.")
    if not isinstance(name, str) or not name:
        raise invalid("name", "name must be a non-empty string.")
    block, block_raw = _threshold(data, "blockThreshold")
    challenge, challenge_raw = _threshold(data, "challengeThreshold")
    return ThresholdUpdate(name, block, challenge, block_raw, challenge_raw)
