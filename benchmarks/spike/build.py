"""Compile kernel.py with Cython (pure-Python mode) into build/kernel_cy*.so.

Run: python benchmarks/spike/build.py   (needs `pip install cython` and gcc; prints the
compile time). The same file stays importable as plain Python for the other two runs.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BUILD = HERE / "build"


def main() -> None:
    try:
        from Cython.Build import cythonize
        from setuptools import Extension, setup
    except ImportError:
        sys.exit("build: Cython is not installed (pip install cython)")
    import numpy as np

    BUILD.mkdir(exist_ok=True)
    os.chdir(BUILD)  # setup() must not read the project's pyproject.toml
    shutil.copy(HERE / "kernel.py", BUILD / "kernel_cy.py")
    start = time.perf_counter()
    extension = Extension(
        "kernel_cy",
        [str(BUILD / "kernel_cy.py")],
        include_dirs=[np.get_include()],
        extra_compile_args=["-O2"],
    )
    modules = cythonize(
        [extension],
        compiler_directives={
            "language_level": 3,
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
        },
        quiet=True,
    )
    setup(
        name="kernel_cy",
        ext_modules=modules,
        script_args=["build_ext", "--build-lib", str(BUILD), "--build-temp", str(BUILD / "tmp")],
    )
    print(f"cython + gcc: {time.perf_counter() - start:.1f} s wall")


if __name__ == "__main__":
    main()
