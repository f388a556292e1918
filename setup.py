"""Builds barley's one compiled module, the greedy parsing loop (``barley.fast._loop``).

Everything else about the package is in pyproject.toml. The extension is optional:
where it cannot be compiled, barley installs without it and parses with its reference
path (it says so once, on the first parse).
"""

from setuptools import Extension, setup


def compiled_extensions() -> list[Extension]:
    try:
        from Cython.Build import cythonize
    except ImportError:  # a build without the [build-system] requirements (--no-build-isolation)
        print("barley: Cython is not installed: building without the compiled parsing loop")
        return []
    loop = Extension("barley.fast._loop", ["src/barley/fast/_loop.pyx"], optional=True)
    return cythonize([loop], compiler_directives={"language_level": 3}, quiet=True)


setup(ext_modules=compiled_extensions())
