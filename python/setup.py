"""Copies the built libraries (build/ops/libverifybench_ops.so, libverifybench_timing.so,
from `cmake --build build --target verifybench_ops verifybench_timing`) into the package,
so an installed verifybench needs no VERIFYBENCH_OPS_LIBRARY. Without them the package
installs all the same and looks for the library at run time (verifybench/_abi.py)."""
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
LIBRARIES = ("libverifybench_ops.so", "libverifybench_timing.so")


class BuildWithLibraries(build_py):
    def run(self):
        super().run()
        build_dir = os.environ.get("VERIFYBENCH_BUILD_DIR", os.path.join(HERE, "..", "build"))
        target = os.path.join(self.build_lib, "verifybench", "_lib")
        for name in LIBRARIES:
            source = os.path.join(build_dir, "ops", name)
            if os.path.exists(source):
                os.makedirs(target, exist_ok=True)
                shutil.copy2(source, os.path.join(target, name))
                print(f"verifybench: packaged {source}")
            else:
                print(f"verifybench: {source} not built; the package will look for {name} at run time")


setup(cmdclass={"build_py": BuildWithLibraries})
