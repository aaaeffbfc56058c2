"""A stateful emulator of the bot-protection management API, for the demo and the tests.

Modules: :mod:`~bottui.sandbox.demo` (seed data and demo constants),
:mod:`~bottui.sandbox.state` (the state), :mod:`~bottui.sandbox.faults`
(fault injection), :mod:`~bottui.sandbox.app` (``create_app``),
:mod:`~bottui.sandbox.server` (``SandboxServer``, ``serve``). This package
module imports nothing, so ``bottui.sandbox.demo`` stays cheap to import.
"""
