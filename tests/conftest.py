"""Shared test hooks: the bad-input sweep's tally, printed at the end of every run that collects it."""

import pytest

BAD_INPUTS = pytest.StashKey[set]()


@pytest.fixture(scope="session")
def bad_input_log(pytestconfig: pytest.Config) -> set:
    """Distinct ``(function, parameter, value)`` triples tried by ``tests/test_bad_input_sweep.py``."""
    return pytestconfig.stash.setdefault(BAD_INPUTS, set())


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    tried = config.stash.get(BAD_INPUTS, set())
    if tried:
        functions = len({function for function, _, _ in tried})
        terminalreporter.write_line(f"bad-input sweep: {len(tried)} distinct bad inputs tried on "
                                    f"{functions} public functions")
