"""The operations both faces share: the CLI and the TUI call these.

One place decides, for every change: is it allowed (read-only, protected),
is it valid, which token it needs, what the journal records before and after,
and what the inventory learns from the answer. The edits that send nothing
are here too: the operator's inventory edits (:mod:`bottui.ops.inventory_edits`)
and profile edits (:mod:`bottui.ops.profiles`), each with its checks.
"""
