"""Tests of bottui.store.config with real files under tmp_path."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bottui.plaintext import has_control
from bottui.store.config.config_file import ConfigStore
from bottui.store.config.config_model import UNCHANGED, Config, Profile, ProjectSettings
from bottui.store.files import Locations
from bottui.store.store_errors import (
    ConfigError,
    InvalidValue,
    ProfileExists,
    ProfileNotFound,
    StoreError,
)

ROOT = Path(__file__).resolve().parents[2]
URL = "https://api.example.com"

HOSTILE = [
    'a"b',
    "a/b",
    '["x"]',
    "ünï€😀",
    "a.b",
    "a b",
    "[profiles.x]",
    "a\\b",
    "'''",
    '"""',
    "#not-a-comment",
    "=",
]
HOSTILE_IDS = [*HOSTILE, "", " ", "\x1b[31m", "a\nb", "\x00", "\x7f", "\u202e"]


def make_store(tmp_path: Path) -> ConfigStore:
    return ConfigStore(Locations.under(tmp_path))


def test_missing_file_is_an_empty_config(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    assert store.load() == Config()
    assert store.load().profile() is None
    assert not store.path.exists()
    assert list(tmp_path.iterdir()) == []


def test_add_and_load(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    profile = Profile(
        name="prod",
        base_url=URL,
        read_only=True,
        protected=True,
        account="acc",
        project="web",
        projects={("acc", "web"): ProjectSettings(0.0, 100.0, higher_is_riskier=False)},
    )
    store.add_profile(profile)
    store.add_profile(Profile(name="dev", base_url="http://localhost:8000"))
    config = store.load()
    assert config.profiles == {"prod": profile, "dev": Profile("dev", "http://localhost:8000")}
    assert config.current is None
    store.use("prod")
    assert store.load().current == "prod"
    assert store.load().profile() == profile
    assert store.load().profile("dev") == Profile("dev", "http://localhost:8000")


def test_file_and_directory_modes(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    old = os.umask(0o022)
    try:
        store.add_profile(Profile("p", URL))
    finally:
        os.umask(old)
    assert store.path.stat().st_mode & 0o777 == 0o600
    assert store.path.parent.stat().st_mode & 0o777 == 0o700
    store.path.chmod(0o644)
    store.use("p")
    assert store.path.stat().st_mode & 0o777 == 0o600


def test_no_temporary_files_left(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.add_profile(Profile("p", URL))
    store.set_theme("nord")
    assert [p.name for p in store.path.parent.iterdir()] == ["config.toml"]
    assert {p.name for p in tmp_path.iterdir()} == {"config"}  # data/state untouched


def test_symlinked_file_stays_a_symlink(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    target = dotfiles / "bottui.toml"
    target.write_text("# mine\n")
    store.path.parent.mkdir()
    store.path.symlink_to(target)
    store.add_profile(Profile("p", URL))
    assert store.path.is_symlink()
    assert "# mine" in target.read_text()
    assert store.load().profiles["p"] == Profile("p", URL)


def test_duplicate_refused_unless_replace(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.add_profile(Profile("p", URL))
    with pytest.raises(ProfileExists) as caught:
        store.add_profile(Profile("p", "https://other"))
    assert isinstance(caught.value, StoreError)
    assert store.load().profiles["p"].base_url == URL
    store.add_profile(Profile("p", "https://other", protected=True), replace=True)
    assert store.load().profiles["p"] == Profile("p", "https://other", protected=True)


def test_remove(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.add_profile(Profile("a", URL))
    store.add_profile(Profile("b", URL))
    store.use("a")
    store.remove_profile("b")
    assert store.load() == Config(current="a", profiles={"a": Profile("a", URL)})
    store.remove_profile("a")
    assert store.load() == Config()
    with pytest.raises(ProfileNotFound):
        store.remove_profile("a")


def test_use_unknown_profile(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    with pytest.raises(ProfileNotFound):
        store.use("nope")
    assert not store.path.exists()


def test_theme(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.set_theme("textual-dark")
    assert store.load().theme == "textual-dark"
    store.set_theme(None)
    assert store.load().theme is None
    for bad in ("", "  ", "a\x1bb"):
        with pytest.raises(InvalidValue):
            store.set_theme(bad)


def test_project_settings(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.add_profile(Profile("p", URL))
    first = ProjectSettings(threshold_min=-1, threshold_max=1, higher_is_riskier=False)
    store.set_project_settings("p", "acc", "web", first)
    store.set_project_settings("p", "acc", "api", ProjectSettings())
    assert store.load().profiles["p"].projects == {
        ("acc", "web"): first,
        ("acc", "api"): ProjectSettings(),
    }
    store.set_project_settings("p", "acc", "web", ProjectSettings(0.5, 0.9))
    assert store.load().profiles["p"].projects[("acc", "web")] == ProjectSettings(0.5, 0.9)
    store.set_project_settings("p", "acc", "web", None)
    store.set_project_settings("p", "acc", "api", None)
    assert store.load().profiles["p"].projects == {}
    assert "projects" not in store.path.read_text()
    with pytest.raises(ProfileNotFound):
        store.set_project_settings("nope", "acc", "web", ProjectSettings())


def test_defaults(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.add_profile(Profile("p", URL))
    store.set_defaults("p", account="acc")
    assert store.load().profiles["p"].account == "acc"
    assert store.load().profiles["p"].project is None
    store.set_defaults("p", project="web")
    assert (store.load().profiles["p"].account, store.load().profiles["p"].project) == (
        "acc",
        "web",
    )
    store.set_defaults("p", account=None, project=UNCHANGED)
    assert (store.load().profiles["p"].account, store.load().profiles["p"].project) == (
        None,
        "web",
    )
    with pytest.raises(ProfileNotFound):
        store.set_defaults("nope", account="x")


@pytest.mark.parametrize("name", ["", "   ", "a\x1bb", "a\nb", "tab\there", "x\u202ey", "\x85"])
def test_bad_profile_names(name: str) -> None:
    with pytest.raises(InvalidValue):
        Profile(name, URL)


@pytest.mark.parametrize(
    "url",
    [
        "",
        "api.example.com",
        "ftp://api.example.com",
        "https://",
        "https:///path",
        "https://user:pass@api.example.com",
        "https://token@api.example.com",
        "https://x/?q=1",
        "https://x/#frag",
        "https://x?",
        "https://x:port",
        "https://x:99999",
        "https://a b",
        "https://x/\x1b[2J",
        "javascript:alert(1)",
    ],
)
def test_bad_base_urls(url: str) -> None:
    with pytest.raises(InvalidValue):
        Profile("p", url)


@pytest.mark.parametrize(
    "url",
    ["https://x", "HTTP://LOCALHOST:8000", "http://127.0.0.1:1/api/", "https://[::1]:8443/b"],
)
def test_good_base_urls(url: str) -> None:
    assert Profile("p", url).base_url == url


@pytest.mark.parametrize(
    "kwargs",
    [
        {"threshold_min": 1.0, "threshold_max": 1.0},
        {"threshold_min": 2.0, "threshold_max": 1.0},
        {"threshold_min": math.nan},
        {"threshold_max": math.inf},
        {"threshold_min": True},
        {"threshold_max": "1"},
        {"higher_is_riskier": 1},
    ],
)
def test_bad_project_settings(kwargs: dict[str, object]) -> None:
    with pytest.raises(InvalidValue):
        ProjectSettings(**kwargs)  # type: ignore[arg-type]


def test_config_invariants() -> None:
    with pytest.raises(InvalidValue):
        Config(profiles={"a": Profile("b", URL)})
    with pytest.raises(InvalidValue):
        Config(current="missing")


def test_there_is_no_token_field() -> None:
    names = {f.name for f in msgspec.structs.fields(Profile)}
    names |= {f.name for f in msgspec.structs.fields(Config)}
    names |= {f.name for f in msgspec.structs.fields(ProjectSettings)}
    names.remove("keymap")  # keyboard keys, not a credential
    names.remove("token_encoding")  # how a token is sent ("raw" or "base64"), never a token
    assert not any("token" in n or "key" in n or "secret" in n for n in names)


# -- malformed files ----------------------------------------------------------------


def write(store: ConfigStore, text: str) -> None:
    store.path.parent.mkdir(parents=True, exist_ok=True)
    store.path.write_text(text, encoding="utf-8")


def test_syntax_error_names_file_line_and_column(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    write(store, '# ok\ncurrent = "a"\n[profiles.a\nbase_url = "https://x"\n')
    with pytest.raises(ConfigError) as caught:
        store.load()
    error = caught.value
    assert error.path == store.path
    assert (error.line, error.column) == (3, 12)
    assert str(store.path) in error.title
    assert "line 3, column 12" in error.title
    assert "\n" not in error.title
    assert error.__cause__ is None
    assert error.__suppress_context__
    rendered = "".join(traceback.format_exception(error))
    assert "TOMLDecodeError" not in rendered
    assert "tomllib" not in rendered


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("current = 1\n", "current"),
        ("theme = true\n", "theme"),
        ("profiles = 3\n", "profiles"),
        ('[profiles.a]\nread_only = "yes"\nbase_url = "https://x"\n', "profiles.a.read_only"),
        ("[profiles.a]\nprotected = true\n", "profiles.a.base_url"),
        ('[profiles.a]\nbase_url = "ftp://x"\n', "profiles.a"),
        ('[profiles."a\\u001b"]\nbase_url = "https://x"\n', "profiles"),
        ('[profiles.a]\nbase_url = "https://x"\naccount = 5\n', "profiles.a.account"),
        ('[profiles.a]\nbase_url = "https://x"\nprojects = 5\n', "profiles.a.projects"),
        (
            '[profiles.a]\nbase_url = "https://x"\n[[profiles.a.projects]]\naccount = "x"\n',
            "profiles.a.projects[0].project",
        ),
        (
            '[profiles.a]\nbase_url = "https://x"\n[[profiles.a.projects]]\naccount = "x"\n'
            'project = "y"\nthreshold_min = 2\nthreshold_max = 1\n',
            "profiles.a.projects[0]",
        ),
        (
            '[profiles.a]\nbase_url = "https://x"\n[[profiles.a.projects]]\naccount = "x"\n'
            'project = "y"\n[[profiles.a.projects]]\naccount = "x"\nproject = "y"\n',
            "profiles.a.projects[1]",
        ),
    ],
)
def test_wrong_values_are_config_errors(tmp_path: Path, text: str, where: str) -> None:
    store = make_store(tmp_path)
    write(store, text)
    with pytest.raises(ConfigError) as caught:
        store.load()
    assert where in caught.value.title
    assert str(store.path) in caught.value.title
    assert caught.value.__cause__ is None
    assert "\x1b" not in caught.value.title


def test_not_utf8(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.path.parent.mkdir()
    store.path.write_bytes(b'theme = "\xff"\n')
    with pytest.raises(ConfigError):
        store.load()


def test_edits_never_overwrite_a_malformed_file(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    broken = "[profiles.a\n# precious\n"
    write(store, broken)
    with pytest.raises(ConfigError):
        store.add_profile(Profile("b", URL))
    with pytest.raises(ConfigError):
        store.set_theme("x")
    assert store.path.read_text() == broken


def test_lenient_reading(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    write(
        store,
        'current = "gone"\nfuture = 1\n[profiles.a]\nbase_url = "https://x"\nnew_key = "kept"\n'
        '[[profiles.a.projects]]\naccount = "x"\nproject = "y"\nthreshold_max = 100\n',
    )
    config = store.load()
    assert config.current is None  # dangling: no current profile
    assert config.profiles["a"].projects == {("x", "y"): ProjectSettings(0.0, 100.0)}
    store.set_defaults("a", account="acc")
    text = store.path.read_text()
    assert 'new_key = "kept"' in text
    assert "future = 1" in text
    assert 'current = "gone"' in text


# -- comments survive -----------------------------------------------------------------

COMMENTED = """\
# bottui configuration, edited by hand
current = "prod"  # the one I use

# --- profiles ---
[profiles.prod]
# production: careful
base_url = "https://api.example.com"
protected = true  # always ask
account = "acc"

[[profiles.prod.projects]]
# shop thresholds
account = "acc"
project = "shop"
threshold_min = 0.0
threshold_max = 1.0  # score range
higher_is_riskier = true

[profiles.staging]
base_url = "https://staging.example.com"  # staging
# end of staging
"""


def test_comments_survive_edits(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    write(store, COMMENTED)
    comments = [line.split("#", 1)[1] for line in COMMENTED.splitlines() if "#" in line]

    store.add_profile(Profile("new", "https://new.example", account='a"b'))
    store.use("new")
    store.set_theme("nord")
    store.set_project_settings("prod", "acc", "shop", ProjectSettings(0.0, 2.0))
    store.set_project_settings("prod", "acc", "blog", ProjectSettings())
    store.set_defaults("prod", project="shop")
    store.add_profile(
        Profile("staging", "https://staging.example.com", read_only=True), replace=True
    )
    text = store.path.read_text()
    for comment in comments:
        assert comment in text, comment
    config = store.load()
    assert config.current == "new"
    assert config.theme == "nord"
    assert config.profiles["prod"].projects == {
        ("acc", "shop"): ProjectSettings(0.0, 2.0),
        ("acc", "blog"): ProjectSettings(),
    }
    assert config.profiles["staging"].read_only is True
    assert text.index("# bottui configuration") == 0
    assert (
        text.index("[profiles.prod]")
        < text.index("[profiles.staging]")
        < text.index('[profiles."new"]' if '[profiles."new"]' in text else "[profiles.new]")
    )

    assert text.index('theme = "nord"') < text.index("# --- profiles ---")
    staging = text[text.index("[profiles.staging]") :]
    staging = staging[: staging.index("[profiles.", 1)]
    assert staging.index("read_only = true") < staging.index("# end of staging")
    assert "protected = false" not in staging  # a default is not added to a hand-written table

    store.remove_profile("new")  # the current one: `current = ...  # the one I use` goes
    text = store.path.read_text()
    for comment in comments[:1] + comments[2:]:
        assert comment in text, comment
    assert store.load().current is None


def test_add_then_remove_restores_the_text(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    write(store, COMMENTED)
    store.add_profile(Profile("tmp", URL, projects={("a", "b"): ProjectSettings()}))
    store.remove_profile("tmp")
    assert store.path.read_text().rstrip("\n") == COMMENTED.rstrip("\n")  # but a blank line


def test_unchanged_edit_leaves_the_text(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    write(store, COMMENTED)
    store.use("prod")
    store.set_defaults("prod", account="acc")
    store.add_profile(store.load().profiles["prod"], replace=True)
    store.save(store.load())
    assert store.path.read_text() == COMMENTED


def test_removing_a_commented_projects_entry(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    write(store, COMMENTED)
    store.set_project_settings("prod", "acc", "shop", None)
    text = store.path.read_text()
    assert "# production: careful" in text
    assert "# end of staging" in text
    assert store.load().profiles["prod"].projects == {}


# -- hostile names --------------------------------------------------------------------


def test_hostile_names_round_trip(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    for i, name in enumerate(HOSTILE):
        account = HOSTILE_IDS[i % len(HOSTILE_IDS)]
        store.add_profile(
            Profile(
                name,
                URL,
                account=account,
                project=HOSTILE_IDS[-1 - i % len(HOSTILE_IDS)],
                projects={(a, p): ProjectSettings() for a in HOSTILE_IDS[:4] for p in HOSTILE_IDS},
            )
        )
    store.use(HOSTILE[0])
    config = store.load()
    assert list(config.profiles) == HOSTILE
    for i, name in enumerate(HOSTILE):
        profile = config.profiles[name]
        assert profile.account == HOSTILE_IDS[i % len(HOSTILE_IDS)]
        assert len(profile.projects) == 4 * len(HOSTILE_IDS)
    for name in HOSTILE[::2]:
        store.remove_profile(name)
    assert list(store.load().profiles) == HOSTILE[1::2]


# -- properties -------------------------------------------------------------------------

names = st.text(min_size=1, max_size=12).filter(lambda s: bool(s.strip()) and not has_control(s))
ids = st.text(max_size=10)
hosts = st.from_regex(
    r"[a-zA-Z0-9]([a-zA-Z0-9-]{0,10}[a-zA-Z0-9])?(\.[a-z]{2,5}){0,2}", fullmatch=True
)
base_urls = st.builds(
    lambda scheme, host, port, path: f"{scheme}://{host}{port}{path}",
    st.sampled_from(["http", "https", "HTTPS"]),
    st.one_of(hosts, st.just("[::1]"), st.just("127.0.0.1")),
    st.one_of(st.just(""), st.integers(1, 65535).map(lambda p: f":{p}")),
    st.sampled_from(["", "/", "/api", "/api/v1/", "/%20x"]),
)
finite = st.floats(allow_nan=False, allow_infinity=False, width=64)


@st.composite
def project_settings(draw: st.DrawFn) -> ProjectSettings:
    low = draw(finite)
    high = draw(finite.filter(lambda x: x != low))
    low, high = sorted((low, high))
    return ProjectSettings(low, high, draw(st.booleans()))


@st.composite
def profiles(draw: st.DrawFn, name: str) -> Profile:
    return Profile(
        name=name,
        base_url=draw(base_urls),
        read_only=draw(st.booleans()),
        protected=draw(st.booleans()),
        account=draw(st.none() | ids),
        project=draw(st.none() | ids),
        projects=draw(st.dictionaries(st.tuples(ids, ids), project_settings(), max_size=3)),
    )


@st.composite
def configs(draw: st.DrawFn) -> Config:
    chosen = draw(st.lists(names, max_size=4, unique=True))
    by_name = {name: draw(profiles(name)) for name in chosen}
    current = draw(st.none() | st.sampled_from(chosen)) if chosen else None
    return Config(current=current, profiles=by_name, theme=draw(st.none() | st.text(max_size=8)))


PROPERTY = settings(max_examples=60)


@PROPERTY
@given(config=configs())
def test_any_config_written_then_loaded_is_equal(config: Config) -> None:
    with tempfile.TemporaryDirectory() as root:
        store = ConfigStore(Locations.under(Path(root)))
        store.save(config)
        assert store.load() == config


@PROPERTY
@given(first=configs(), second=configs())
def test_editing_one_config_into_another(first: Config, second: Config) -> None:
    with tempfile.TemporaryDirectory() as root:
        store = ConfigStore(Locations.under(Path(root)))
        store.save(first)
        store.save(second)
        assert store.load() == second
        store.save(first)
        assert store.load() == first


def test_load_does_not_import_tomlkit(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.add_profile(Profile("p", URL))
    code = (
        "import sys; from pathlib import Path;"
        "from bottui.store.config.config_file import ConfigStore;"
        "from bottui.store.files import Locations;"
        f"ConfigStore(Locations.under(Path({str(tmp_path)!r}))).load();"
        "print('tomlkit' in sys.modules, 'keyring' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert done.stdout.strip() == "False False"


def test_refused_url_is_not_echoed_when_it_may_hold_a_credential() -> None:
    for url in (
        "https://user:hunter2-SECRET@x",
        "https://x/?token=hunter2-SECRET",
        "https://x/#hunter2-SECRET",
    ):
        with pytest.raises(InvalidValue) as caught:
            Profile("p", url)
        error = caught.value
        assert "hunter2" not in f"{error}{error!r}{error.details}{error.args}"


def test_operator_and_require_reason_are_read_and_kept_by_edits(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    write(
        store,
        'operator = "team@top"  # who we are\n'
        '[profiles.a]\nbase_url = "https://x"\noperator = "[b]alice[/b]\\u0007"\n'
        "require_reason = true\n",
    )
    config = store.load()
    assert config.operator == "team@top"
    profile = config.profiles["a"]
    assert (profile.operator, profile.require_reason) == ("[b]alice[/b]\x07", True)
    store.set_defaults("a", account="acc")  # an edit of the profile keeps both
    store.set_theme("nord")
    again = store.load()
    assert again.operator == "team@top" and "# who we are" in store.path.read_text()
    assert (again.profiles["a"].operator, again.profiles["a"].require_reason) == (
        "[b]alice[/b]\x07",
        True,
    )
    store.add_profile(msgspec.structs.replace(profile, name="b", require_reason=False))
    assert store.load().profiles["b"].operator == "[b]alice[/b]\x07"
    write(store, '[profiles.a]\nbase_url = "https://x"\nrequire_reason = "yes"\n')
    with pytest.raises(ConfigError) as caught:
        store.load()
    assert "profiles.a.require_reason" in caught.value.title
