"""Build the optional native core (issue 10); all metadata lives in pyproject.toml.

The extension is ``optional``: when Cython or a C compiler is missing or the compile fails,
setuptools warns and the install goes on, and the package runs on the pure-Python engine.
``CARDGAME_PURE=1`` skips the extension on purpose (to try the fallback install).
"""

from __future__ import annotations

import os

from setuptools import Extension, setup


def native_extensions() -> list[Extension]:
    """The compiled kernels, or none when asked for a pure install or Cython is absent."""
    if os.environ.get("CARDGAME_PURE"):
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:  # the build requirement could not be had: pure Python it is
        return []
    extension = Extension(
        "cardgame._native._resolution",
        ["cardgame/_native/_resolution.pyx"],
        # no fused multiply-add: the float bounds must round as CPython's do
        extra_compile_args=["-O2", "-ffp-contract=off"],
        optional=True,
    )
    # the built-in strategies' decision rules and the decision loop in C (sims/_native)
    strategies = [
        Extension(
            f"sims._native.{name}",
            [f"sims/_native/{name}.pyx"],
            extra_compile_args=["-O2", "-ffp-contract=off"],
            optional=True,
        )
        for name in ("_scripted",)
    ]
    try:
        modules = cythonize([extension, *strategies], quiet=True, language_level=3)
    except Exception as exc:  # a Cython error must not fail the install either
        print(f"setup.py: native core skipped, Cython failed: {exc}")
        return []
    for module in modules:  # cythonize makes new Extension objects without the flag
        module.optional = True
    return modules


setup(ext_modules=native_extensions())
