"""A stateful emulator of the bot-protection management API, for the demo and the tests.

Modules, from the bottom up: :mod:`~bottui.sandbox.state` (clock, records, the state,
the request log), :mod:`~bottui.sandbox.faults` (fault injection and hostile answers),
:mod:`~bottui.sandbox.endpoints` (the three operations, error objects, ``/_sandbox/``,
``create_app``), :mod:`~bottui.sandbox.server` (``SandboxServer``, ``serve``, the demo
child's ``main``), :mod:`~bottui.sandbox.process` (``SandboxProcess``, ``bind_tcp``:
standard library only) and :mod:`~bottui.sandbox.demo_data` (the demo data set). This
package module imports nothing, so ``bottui.sandbox.process`` stays cheap to import.
"""
