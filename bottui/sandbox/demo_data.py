"""The demo data set: accounts, projects, limiters, grants, dimensions and tokens.

Importable by the rest of bottui (``bottui demo``, tests). The tokens here
are sandbox credentials: they work against the sandbox only, and printing
them is intended. :func:`demo_state` builds a fresh :class:`SandboxState`;
with ``hostile=True`` it adds a project whose ids and names carry Rich/Textual
markup and terminal escapes, and every API error answers
:data:`HOSTILE_ERROR_MESSAGE`.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from bottui.sandbox.state import (
    SCOPE_DIMENSION_THRESHOLDS,
    SCOPE_PROJECT_ACTION,
    Clock,
    SandboxState,
    SubjectKind,
)

HOUR: Final = 3600.0
DAY: Final = 24 * HOUR

# ------------------------------------------------------------------ accounts

DEMO_ACCOUNT: Final = "acme"
DEMO_ACCOUNT_NAME: Final = "Acme Retail"
DEMO_CUSTOMER_ID: Final = "cus_acme_01"

#: Personal access token of DEMO_ACCOUNT with both scopes.
DEMO_ACCESS_TOKEN: Final = "pat_demo_acme_4c1f9e2b7a"
#: Personal token of DEMO_ACCOUNT without "Project Action" (cannot revoke).
DEMO_ACCESS_TOKEN_NO_PROJECT_ACTION: Final = "pat_demo_acme_thresholds_only_8d2e"
#: Personal token of DEMO_ACCOUNT without "Dimension Thresholds Action".
DEMO_ACCESS_TOKEN_NO_THRESHOLDS: Final = "pat_demo_acme_actions_only_3b7c"

OTHER_ACCOUNT: Final = "globex"
OTHER_ACCOUNT_NAME: Final = "Globex Corporation"
#: Personal token of OTHER_ACCOUNT with both scopes.
OTHER_ACCESS_TOKEN: Final = "pat_demo_globex_5e0a61"
OTHER_PROJECT: Final = "globex-web"
OTHER_PROJECT_TOKEN: Final = "prj_demo_globex_web_77c3"

# ------------------------------------------------------------------ projects

#: Project id -> name, of DEMO_ACCOUNT.
DEMO_PROJECTS: Final[dict[str, str]] = {
    "shop-prod": "Shop (production)",
    "shop-staging": "Shop (staging)",
    "docs-site": "Documentation site",
}

#: Project id -> project API token, of DEMO_ACCOUNT.
DEMO_PROJECT_TOKENS: Final[dict[str, str]] = {
    "shop-prod": "prj_demo_shop_prod_91ad",
    "shop-staging": "prj_demo_shop_staging_2f6e",
    "docs-site": "prj_demo_docs_site_c03b",
}


class DemoLimiter(NamedTuple):
    """A seeded rate limiter."""

    id: str
    name: str
    active: bool
    threshold: int
    period: int


class DemoDimension(NamedTuple):
    """A seeded dimension; higher scores are riskier, so challenge < block."""

    id: str
    name: str
    challenge: float
    block: float


class DemoGrant(NamedTuple):
    """A grant standing when the demo starts."""

    project_id: str
    kind: SubjectKind
    subject_id: str
    lifetime_seconds: float
    attempts: int


DEMO_RATE_LIMITERS: Final[dict[str, tuple[DemoLimiter, ...]]] = {
    "shop-prod": (
        DemoLimiter("rl-login", "Login bursts", True, 10, 60),
        DemoLimiter("rl-checkout", "Checkout flood", True, 30, 60),
        DemoLimiter("rl-search", "Search scraping", False, 120, 60),
        DemoLimiter("rl-api", "Public API", False, 1000, 3600),
    ),
    "shop-staging": (
        DemoLimiter("rl-login", "Login bursts", True, 10, 60),
        DemoLimiter("rl-signup", "Sign-up spam", False, 5, 300),
    ),
    "docs-site": (
        DemoLimiter("rl-crawl", "Aggressive crawlers", True, 300, 60),
        DemoLimiter("rl-feedback", "Feedback form", False, 3, 600),
        DemoLimiter("rl-download", "PDF downloads", True, 50, 3600),
    ),
}

DEMO_DIMENSIONS: Final[dict[str, tuple[DemoDimension, ...]]] = {
    "shop-prod": (
        DemoDimension("bot-score", "Bot score", 0.5, 0.8),
        DemoDimension("velocity", "Request velocity", 0.6, 0.9),
        DemoDimension("ip-reputation", "IP reputation", 0.4, 0.75),
    ),
    "shop-staging": (
        DemoDimension("bot-score", "Bot score", 0.3, 0.6),
        DemoDimension("velocity", "Request velocity", 0.5, 0.85),
    ),
    "docs-site": (
        DemoDimension("bot-score", "Bot score", 0.7, 0.95),
        DemoDimension("device-anomaly", "Device anomaly", 0.55, 0.85),
    ),
}

DEMO_GRANTS: Final[tuple[DemoGrant, ...]] = (
    DemoGrant("shop-prod", "visitorId", "vis_7Hq2kP9xLm", HOUR, 3),
    DemoGrant("shop-prod", "userAccountId", "user-1042", DAY, 5),
    DemoGrant("shop-prod", "visitorId", "vis_Bk41Zr0aQe", 2 * HOUR, 2),
    DemoGrant("shop-prod", "userAccountId", "user-2077", 6 * HOUR, 4),
    DemoGrant("shop-staging", "visitorId", "vis_stg_0001", 0.5 * HOUR, 1),
    DemoGrant("docs-site", "userAccountId", "reader-88", 2 * HOUR, 2),
)

_PROJECT_DETAILS: Final[dict[str, tuple[str, str, str]]] = {
    # id: (url, siteKey, serverKey)
    "shop-prod": ("https://shop.acme.example", "site_shop_prod_1a2b3c", "srv_shop_prod_9f8e7d6c"),
    "shop-staging": (
        "https://staging.shop.acme.example",
        "site_shop_stg_4d5e6f",
        "srv_shop_stg_5b4a3928",
    ),
    "docs-site": ("https://docs.acme.example", "site_docs_7a8b9c", "srv_docs_1c2d3e4f"),
}

_RULES: Final = (
    {"id": "rule-tor", "name": "Block Tor exit nodes", "action": "block"},
    {"id": "rule-headless", "name": "Challenge headless browsers", "action": "challenge"},
)

# ------------------------------------------------------------------ hostile

#: Textual action link and Rich markup, including a stray closing tag.
HOSTILE_MARKUP: Final = "[@click=app.quit]Shop[/] [b]bold[/b] [/]"
#: SGR colour, an OSC window-title change, BEL.
HOSTILE_ANSI: Final = "\x1b[31mred\x1b]0;pwned\x07"
#: A C1 CSI (0x9B) that clears the screen on terminals that honour C1.
HOSTILE_C1: Final = "\x9b2J"
#: A right-to-left override and a line separator.
HOSTILE_BIDI: Final = "\u202egnp.exe\u2028next"
#: The ``message`` of every API error in hostile mode.
HOSTILE_ERROR_MESSAGE: Final = "[@click=app.quit]denied[/]\x1b[2J"
#: Every hostile display string above.
HOSTILE_STRINGS: Final = (
    HOSTILE_MARKUP,
    HOSTILE_ANSI,
    HOSTILE_C1,
    HOSTILE_BIDI,
    HOSTILE_ERROR_MESSAGE,
)

#: Ids that must stay one path segment each (no control characters: clients accept them).
HOSTILE_PROJECT_ID: Final = "ëvil/[b]shop[/b] ?x#y%2F"
HOSTILE_PROJECT_TOKEN: Final = "prj_demo_hostile_0bad"
HOSTILE_LIMITER_IDS: Final = ("rl/[red]x[/red]", "rl ?#%", "%2E%2E")
HOSTILE_DIMENSION_IDS: Final = ("dim/[i]score[/i]", "dim ?#%")
HOSTILE_VISITOR_ID: Final = "vis/[b]x[/b]?#%2F"
HOSTILE_USER_ACCOUNT_ID: Final = "user [@click=app.quit]q[/] ü"


def project_tokens(hostile: bool = False) -> dict[str, str]:
    """Project id -> project API token of DEMO_ACCOUNT (with the hostile project if asked)."""
    tokens = dict(DEMO_PROJECT_TOKENS)
    if hostile:
        tokens[HOSTILE_PROJECT_ID] = HOSTILE_PROJECT_TOKEN
    return tokens


def demo_state(clock: Clock | None = None, hostile: bool = False, *, seed: int = 0) -> SandboxState:
    """A fresh state holding the demo data set; see the module docstring."""
    state = SandboxState(clock, seed=seed, error_message=HOSTILE_ERROR_MESSAGE if hostile else None)
    now = state.clock.now()
    state.add_account(DEMO_ACCOUNT, DEMO_ACCOUNT_NAME, DEMO_CUSTOMER_ID)
    state.add_account(OTHER_ACCOUNT, OTHER_ACCOUNT_NAME, "cus_globex_01")
    for age, (project_id, name) in enumerate(DEMO_PROJECTS.items()):
        url, site_key, server_key = _PROJECT_DETAILS[project_id]
        state.add_project(
            DEMO_ACCOUNT,
            project_id,
            name,
            url=url,
            site_key=site_key,
            server_key=server_key,
            is_protected=project_id != "shop-staging",
            rules=_RULES,
            phishing_info={"originalUrl": url, "action": "warn", "allowedUrls": [url]},
            response_extra_fields=["botScore"] if project_id == "shop-prod" else [],
            created_at=now - (90 - 20 * age) * DAY,
            updated_at=now - (age + 1) * HOUR,
        )
        for limiter in DEMO_RATE_LIMITERS[project_id]:
            state.add_rate_limiter(
                DEMO_ACCOUNT,
                project_id,
                limiter.id,
                limiter.name,
                active=limiter.active,
                threshold=limiter.threshold,
                period=limiter.period,
            )
        for dim in DEMO_DIMENSIONS[project_id]:
            state.add_dimension(
                DEMO_ACCOUNT, project_id, dim.id, dim.name, block=dim.block, challenge=dim.challenge
            )
        state.add_project_token(
            DEMO_PROJECT_TOKENS[project_id], DEMO_ACCOUNT, project_id, f"{project_id} API token"
        )
    for grant in DEMO_GRANTS:
        state.issue_grant(
            DEMO_ACCOUNT,
            grant.project_id,
            grant.kind,
            grant.subject_id,
            lifetime_seconds=grant.lifetime_seconds,
            attempts=grant.attempts,
        )
    state.add_personal_token(DEMO_ACCESS_TOKEN, DEMO_ACCOUNT, label="demo personal token")
    state.add_personal_token(
        DEMO_ACCESS_TOKEN_NO_PROJECT_ACTION,
        DEMO_ACCOUNT,
        {SCOPE_DIMENSION_THRESHOLDS},
        label="demo token without Project Action",
    )
    state.add_personal_token(
        DEMO_ACCESS_TOKEN_NO_THRESHOLDS,
        DEMO_ACCOUNT,
        {SCOPE_PROJECT_ACTION},
        label="demo token without Dimension Thresholds Action",
    )
    # The other account: same limiter/dimension ids, so only ownership tells them apart.
    state.add_project(OTHER_ACCOUNT, OTHER_PROJECT, "Globex website", created_at=now - 10 * DAY)
    state.add_rate_limiter(OTHER_ACCOUNT, OTHER_PROJECT, "rl-login", "Login bursts", active=True)
    state.add_dimension(OTHER_ACCOUNT, OTHER_PROJECT, "bot-score", "Bot score")
    state.add_project_token(OTHER_PROJECT_TOKEN, OTHER_ACCOUNT, OTHER_PROJECT, "globex API token")
    state.add_personal_token(OTHER_ACCESS_TOKEN, OTHER_ACCOUNT, label="globex personal token")
    if hostile:
        _add_hostile(state, now)
    return state


def _add_hostile(state: SandboxState, now: float) -> None:
    project = HOSTILE_PROJECT_ID
    state.add_project(
        DEMO_ACCOUNT,
        project,
        HOSTILE_MARKUP,
        url=f"https://evil.example/{HOSTILE_ANSI}",
        site_key=f"site_{HOSTILE_C1}",
        server_key=f"srv_{HOSTILE_ANSI}",
        rules=({"id": "rule-x", "name": HOSTILE_MARKUP, "action": HOSTILE_ANSI},),
        phishing_info={
            "originalUrl": HOSTILE_ANSI,
            "action": HOSTILE_MARKUP,
            "allowedUrls": [HOSTILE_C1, HOSTILE_BIDI],
        },
        response_extra_fields=[HOSTILE_ANSI],
        created_at=now - 3 * DAY,
        updated_at=now - HOUR,
    )
    names = (HOSTILE_ANSI, HOSTILE_C1, HOSTILE_BIDI)
    for index, (limiter_id, name) in enumerate(zip(HOSTILE_LIMITER_IDS, names, strict=True)):
        state.add_rate_limiter(DEMO_ACCOUNT, project, limiter_id, name, active=index % 2 == 0)
    for dimension_id, name in zip(HOSTILE_DIMENSION_IDS, (HOSTILE_MARKUP, HOSTILE_C1), strict=True):
        state.add_dimension(DEMO_ACCOUNT, project, dimension_id, name, block=0.9, challenge=0.6)
    state.add_project_token(HOSTILE_PROJECT_TOKEN, DEMO_ACCOUNT, project, "hostile API token")
    state.issue_grant(DEMO_ACCOUNT, project, "visitorId", HOSTILE_VISITOR_ID, lifetime_seconds=HOUR)
    state.issue_grant(
        DEMO_ACCOUNT, project, "userAccountId", HOSTILE_USER_ACCOUNT_ID, lifetime_seconds=HOUR
    )
