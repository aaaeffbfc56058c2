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
- every screen: the context bar and the data it shows are read again.

A failure before the session was touched leaves the app on the old profile
and is reported like any other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bottui.ops import profiles
from bottui.plaintext import clean

if TYPE_CHECKING:
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
        await services.stop_timed()  # the old profile's reverts: none half-done
        await services.stop_team()
        await session.switch_settings(settings)
        services.forget_profile_state()
        await services.start_sharing()
        if live is not None:
            live.start()
        if app.team_live is not None:  # started after the first frame: not before either
            services.start_timed()
        await services.load_names()
        if services.current is None:
            from bottui.tui.app import first_project

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
    app.notify(clean(f"Now on profile {name} ({shown})"), title="Profile", markup=False)
    return True


__all__ = ["switch_profile"]
