"""The test house's support layer: helpers and fixtures shared by more than one test module.

`tests/conftest.py` registers `tests.support.fixtures` once as a plugin, so every fixture here
is available to every test without an import; test modules import helpers (functions,
constants, servers) from the modules of this package, never from another test module.
"""
