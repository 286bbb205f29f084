"""Hypothesis profiles: the test run is deterministic (a red CI run means a real change, not
an unlucky draw); `HYPOTHESIS_PROFILE=explore` draws fresh examples for a longer hunt.
The ``engine`` fixture runs a rules-test module on both engines (tests/native_engine.py).
The run's seal key and its list of ended runs live in a folder of the test run's own, never
the user's (``XDG_CONFIG_HOME``, which the commands the tests start inherit)."""

import os
import tempfile
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from .native_engine import ENGINES, engine_in_use

settings.register_profile(
    "deterministic",
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile(
    "explore", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="cardgame-tests-config-")


@pytest.fixture(scope="module", params=ENGINES)
def engine(request: pytest.FixtureRequest) -> Iterator[str]:
    """Run a rules-test module once per engine (``pytestmark = pytest.mark.usefixtures
    ("engine")``): for "native", every state ``Game.new_state`` makes runs on the native core
    (tests/native_engine.py). Module scope: module-scoped fixtures that play games can ask for
    it, and hypothesis tests see no function-scoped fixture."""
    with engine_in_use(request.param) as name:
        yield name
