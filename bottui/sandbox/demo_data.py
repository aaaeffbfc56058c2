"""The demo data set: accounts, projects, limiters, grants, dimensions and tokens.

Importable by the rest of bottui (``bottui demo``, tests). The tokens here
are sandbox credentials: they work against the sandbox only, and printing
them is intended. :func:`bottui.sandbox.state.demo_state` builds a fresh state
holding it. Constants only: ``bottui demo`` reads them before its first frame.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, NamedTuple

if TYPE_CHECKING:
    from bottui.sandbox.state import SubjectKind

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
