"""Builds barley's one compiled module, the greedy parsing loop (``barley.transition.fast._loop``).

Everything else about the package is in pyproject.toml. The extension is optional:
where it cannot be compiled, barley installs without it and parses with its reference
path (it says so once, on the first parse).
"""

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class OptionalBuildExt(build_ext):
    """Builds the loop if it can: a failure (no C compiler) leaves barley without it."""

    def build_extension(self, extension: Extension) -> None:
        try:
            super().build_extension(extension)
        except Exception as error:  # whatever the compiler's failure, barley installs without the loop
            print(f"barley: the compiled parsing loop was not built ({error}); barley parses with its "
                  f"reference path")


def compiled_extensions() -> list[Extension]:
    try:
        from Cython.Build import cythonize
    except ImportError:  # a build without the [build-system] requirements (--no-build-isolation)
        print("barley: Cython is not installed: building without the compiled parsing loop")
        return []
    loop = Extension("barley.transition.fast._loop", ["src/barley/transition/fast/_loop.pyx"])
    return cythonize([loop], compiler_directives={"language_level": 3}, quiet=True)


setup(ext_modules=compiled_extensions(), cmdclass={"build_ext": OptionalBuildExt})
