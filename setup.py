"""Build the optional native core; all metadata lives in pyproject.toml.

The extension is ``optional``: when Cython or a C compiler is missing or the compile fails,
setuptools warns and the install goes on, and the package runs on the pure-Python engine.
``CARDGAME_PURE=1`` skips the extension on purpose (to try the fallback install).

Before Cython runs, ``cardgame/_native/_layout.pxi`` (the C side of the engines' contract:
card kinds, array bounds, the SeatView field order) is written from ``cardgame/layout.py``,
loaded by its path: the package's dependencies need not be installed to build it. The
include is generated, never committed (docs/architecture.md).
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


def write_layout() -> None:
    """Write the native core's include from cardgame/layout.py (only if it changed)."""
    path = HERE / "cardgame" / "layout.py"
    spec = importlib.util.spec_from_file_location("_cardgame_layout", path)
    layout = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(layout)
    layout.write_pxi(HERE / "cardgame" / "_native" / "_layout.pxi")


class BuildPy(build_py):
    """Ship the generated include with the .pxd files that include it (wheel and sdist), so
    ``cimport cardgame._native._core`` works from an installed copy too. (pyproject.toml's
    package-data would replace a ``package_data`` given to ``setup()``; this adds to it.)"""

    def finalize_options(self) -> None:
        super().finalize_options()
        self.package_data.setdefault("cardgame", []).append("_native/*.pxi")


def native_extensions() -> list[Extension]:
    """The compiled kernels, or none when asked for a pure install or Cython is absent."""
    if os.environ.get("CARDGAME_PURE"):
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:  # the build requirement could not be had: pure Python it is
        return []
    try:
        write_layout()
    except Exception as exc:  # a broken layout must not fail the install: pure Python it is
        print(f"setup.py: native core skipped, cardgame/layout.py failed: {exc}")
        return []
    # no fused multiply-add: the float bounds (and gauss) must round as CPython's do
    flags = ["-O2", "-ffp-contract=off"]
    # the rules and R16's search gain from -O3 (10% fewer instructions a random game, 6% its
    # time); the strategies and rows do not (benchmarks/engine.py, benchmarks/instructions.py)
    core_flags = ["-O3", "-ffp-contract=off"]
    extensions = [
        Extension(
            f"cardgame._native.{name}",
            [f"cardgame/_native/{name}.pyx"],
            extra_compile_args=core_flags,
            optional=True,
        )
        for name in ("_resolution", "_core", "_record")
    ]
    # the built-in strategies' decision rules and the decision loop in C (sims/_native)
    extensions += [
        Extension(
            f"sims._native.{name}",
            [f"sims/_native/{name}.pyx"],
            extra_compile_args=flags,
            optional=True,
        )
        for name in ("_scripted", "_standing", "_quality", "_match", "_sample", "_rows", "_seeding")
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


setup(ext_modules=native_extensions(), cmdclass={"build_py": BuildPy})
