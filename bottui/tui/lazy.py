"""The TUI's one lazy registry: the screens, dialogs and parts not needed for the first frame.

A name maps to ``"module:attr"``, resolved with :mod:`importlib` here and nowhere else
(:func:`load`), when first asked for. Two jobs: what is not shown first stays out of
the start-up (the dialogs of a change, the error log, the timed changes' runner), and a
module low in the TUI (``services``, the registry of keys) reaches a screen above it
without importing it, so the TUI's modules form no import cycle (#29). A reader that
wants the type imports it under ``TYPE_CHECKING`` and annotates what :func:`load` gives.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any, Final

#: Name -> ``"module:attr"``; the name is the attribute's own.
REGISTRY: Final[dict[str, str]] = {
    # The change's dialogs and the error log, shown by the services.
    "ConfirmDialog": "bottui.tui.screens.change_form:ConfirmDialog",
    "ReasonAsked": "bottui.tui.screens.change_form:ReasonAsked",
    "TypedConfirmDialog": "bottui.tui.screens.change_form:TypedConfirmDialog",
    "DryRunDialog": "bottui.tui.screens.dialogs:DryRunDialog",
    "ErrorLogScreen": "bottui.tui.screens.dialogs:ErrorLogScreen",
    "ExtendDialog": "bottui.tui.screens.change_form:ExtendDialog",
    # Quitting and switching profile, asked about work under way: ~100 ms of imports.
    "confirm_stop_work": "bottui.tui.quit_or_switch:confirm_stop_work",
    "switch_profile": "bottui.tui.quit_or_switch:switch_profile",
    "work_under_way": "bottui.tui.quit_or_switch:work_under_way",
    # Undoing the newest change (the app's u).
    "start_undo": "bottui.tui.screens.journal:start_undo",
    # The session's bulk run, made when first asked for.
    "BulkRuns": "bottui.tui.bulk_runs:BulkRuns",
    # Changes made elsewhere, followed live from the first frame on (~30 ms of imports).
    "LocalLive": "bottui.tui.live_changes:LocalLive",
    "TeamLive": "bottui.tui.live_changes:TeamLive",
    # The executor of timed changes, started after the first frame.
    "TimedRunner": "bottui.tui.timed_changes:TimedRunner",
    # The app and every screen and widget with keys, read by the registry of keys.
    "BottuiApp": "bottui.tui.app:BottuiApp",
    "GrantsScreen": "bottui.tui.screens.grants:GrantsScreen",
    "JournalScreen": "bottui.tui.screens.journal:JournalScreen",
    "LimitersScreen": "bottui.tui.screens.limiters:LimitersScreen",
    "PlaybooksScreen": "bottui.tui.screens.playbooks_screen:PlaybooksScreen",
    "ProjectsScreen": "bottui.tui.screens.projects:ProjectsScreen",
    "DimensionTable": "bottui.tui.screens.thresholds_screen:DimensionTable",
    "ThresholdsScreen": "bottui.tui.screens.thresholds_screen:ThresholdsScreen",
    "JournalTable": "bottui.tui.screens.journal_dialogs:JournalTable",
    "LimiterTable": "bottui.tui.widgets.limiter_table:LimiterTable",
    "ProjectTable": "bottui.tui.screens.projects:ProjectTable",
    "BulkDialog": "bottui.tui.screens.bulk_dialogs:BulkDialog",
    "BulkExportDialog": "bottui.tui.screens.bulk_dialogs:BulkExportDialog",
    "BulkRunDialog": "bottui.tui.screens.bulk_dialogs:BulkRunDialog",
    "HelpDialog": "bottui.tui.screens.dialogs:HelpDialog",
    "DiscardDialog": "bottui.tui.screens.dialogs:DiscardDialog",
    "EntryDialog": "bottui.tui.screens.journal_dialogs:EntryDialog",
    "FilterDialog": "bottui.tui.screens.journal_dialogs:FilterDialog",
    "RunDialog": "bottui.tui.screens.journal_dialogs:RunDialog",
    "ProfileSwitcher": "bottui.tui.screens.profile_switcher:ProfileSwitcher",
    "ProjectForm": "bottui.tui.screens.project_dialogs:ProjectForm",
    "TargetPicker": "bottui.tui.screens.dialogs:TargetPicker",
    "AddDimensionDialog": "bottui.tui.screens.threshold_dialogs:AddDimensionDialog",
    "ThresholdEditor": "bottui.tui.screens.threshold_dialogs:ThresholdEditor",
    "TimedScreen": "bottui.tui.screens.timed_screen:TimedScreen",
    "TokenDialog": "bottui.tui.screens.project_dialogs:TokenDialog",
    "FilterInput": "bottui.tui.widgets.entry_table:FilterInput",
    "Slider": "bottui.tui.widgets.threshold_field:Slider",
}


def load(name: str) -> Any:
    """The attribute registered as ``name``, its module imported now if it was not yet."""
    module, _, attr = REGISTRY[name].partition(":")
    return getattr(import_module(module), attr)
