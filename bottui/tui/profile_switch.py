"""Switch the running app to another profile: no quit, no ``bottui profile use``, no restart.

:func:`switch_profile` is what the profile switcher (``P``) starts, in a
worker: it asks the app first (:meth:`BottuiApp.confirm_leave_profile`,
where work still running under the old profile can object), reads the
profile afresh and makes it current in ``config.toml``
(:func:`bottui.ops.profiles.switch_profile`), then re-points every service
at it:

- the team store: the push thread, the Journal screen's reader and the live
  feed of the old profile stop; the new profile's (if it has one) start;
- the session: the API client of the new base URL, the inventory of the new
  profile, the team store of the new URL (:meth:`Session.switch_settings`);
  tokens are looked up by base URL, the journal is the one file (each entry
  names its profile);
- the timed changes' executor and countdown (#15): stopped once a revert in
  flight is journaled, started again on the new profile;
- the current project: the new profile's default, else its inventory's first;
- every screen: the context bar and the data it shows are read again; what
  belonged to the old profile's rows (a table filter, marked limiters) is
  dropped and said (:meth:`BottuiScreen.leave_profile`), and so are the old
  profile's pending reverts, which this TUI no longer performs (#27).

A failure before the session was touched leaves the app on the old profile
and is reported like any other.
"""

from __future__ import annotations

from datetime import UTC
from typing import TYPE_CHECKING

from bottui.ops import profiles
from bottui.ops.inventory_reads import first_project
from bottui.plaintext import clean
from bottui.tui.screens.base import BottuiScreen

if TYPE_CHECKING:
    from bottui.ops.timed.model import TimedChange
    from bottui.tui.app import BottuiApp


async def switch_profile(app: BottuiApp, name: str) -> bool:
    """Work under the profile ``name`` from now on; False when nothing changed.

    Switching to the profile in use reads it again (an edit of it applies at once).
    """
    if not await app.confirm_leave_profile():
        return False
    services = app.services
    session = services.session
    with services.working(f"switching to profile {name}"):
        try:
            settings = await profiles.switch_profile(session, name)
        except Exception as exc:  # a config gone bad, the profile removed meanwhile
            services.report(exc)
            return False
        live = app.team_live
        if live is not None:
            live.stop()
        old = session.settings.profile_name
        runner = services.timed_runner
        left = [t for t in (runner.pending if runner is not None else []) if t.profile == old]
        await services.stop_timed()  # the old profile's reverts: none half-done
        await services.stop_team()
        await session.switch_settings(settings)
        # Another profile's rows: a filter or marks of the old ones mean nothing there.
        screens = app.main_screens() if old != name else []
        dropped = [words for screen in screens for words in _left_behind(screen)]
        services.forget_profile_state()
        await services.start_sharing()
        if live is not None:
            live.start()
        if app.team_live is not None:  # started after the first frame: not before either
            services.start_timed()
        await services.load_names()
        if services.current is None:
            first = await first_project(session)
            if first is not None:
                services.choose_project(*first)
    if services.current is None:
        services.choose_project(None, None)  # every screen: no project any more
    else:
        services.choose_project(*services.current)
    services.inventory_changed()
    services.flush_warnings()
    shown = settings.base_url or "no base URL"
    lines = [f"Now on profile {name} ({shown})"]
    lines += [f"{words[:1].upper()}{words[1:]}." for words in dropped]
    if left and old is not None and old != name:
        lines.append(_reverts_left(left, old))
    app.notify(
        clean("\n".join(lines), keep_newlines=True),
        title="Profile",
        severity="warning" if left and old != name else "information",
        timeout=12 if len(lines) > 1 else 5,
        markup=False,
    )
    return True


def _left_behind(screen: object) -> list[str]:
    """What ``screen`` dropped of the profile left (a main screen's filter, marks)."""
    return screen.leave_profile() if isinstance(screen, BottuiScreen) else []


def _reverts_left(left: list[TimedChange], old: str) -> str:
    """The old profile's pending reverts, which this TUI no longer performs."""
    count = len(left)
    first = min(t.due_at for t in left).astimezone(UTC).strftime("%H:%M UTC")
    return (
        f"{count} timed revert{'s' if count != 1 else ''} of profile {old} (the first due "
        f"{first}) {'are' if count != 1 else 'is'} no longer performed by this TUI: switch "
        f"back, or run bottui run-due --profile {old} (a timer or cron job does)"
    )


__all__ = ["switch_profile"]
