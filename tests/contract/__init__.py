"""Contract tests: one class per port, run over the in-memory fakes (tests/unit/
test_fake_contracts.py) and over the real adapters (tests/integration/test_adapter_contracts.py).

A contract class is never collected itself (its name does not start with ``Test``); a test
module subclasses it, provides a ``deps`` fixture (a ``Dependencies``) and implements ``make``.
"""
