"""Hypothesis profiles: the test run is deterministic (a red CI run means a real change, not
an unlucky draw); `HYPOTHESIS_PROFILE=explore` draws fresh examples for a longer hunt."""

import os

from hypothesis import HealthCheck, settings

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
