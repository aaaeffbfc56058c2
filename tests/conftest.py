pytest_plugins = ["tests.fixtures.sandbox"]
