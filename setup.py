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
    # no fused multiply-add: the float bounds (and gauss) must round as CPython's do
    flags = ["-O2", "-ffp-contract=off"]
    extensions = [
        Extension(
            f"cardgame._native.{name}",
            [f"cardgame/_native/{name}.pyx"],
            extra_compile_args=flags,
            optional=True,
        )
        for name in ("_resolution", "_core")
    ]
    # the built-in strategies' decision rules and the decision loop in C (sims/_native)
    extensions += [
        Extension(
            f"sims._native.{name}",
            [f"sims/_native/{name}.pyx"],
            extra_compile_args=flags,
            optional=True,
        )
        for name in ("_scripted", "_match", "_sample")
    ]
    modules = []
    for extension in extensions:  # one at a time: a failing module skips only itself
        try:
            modules += cythonize([extension], quiet=True, language_level=3)
        except Exception as exc:  # a Cython error must not fail the install either
            print(f"setup.py: {extension.name} skipped, Cython failed: {exc}")
    for module in modules:  # cythonize makes new Extension objects without the flag
        module.optional = True
    return modules


setup(ext_modules=native_extensions())
