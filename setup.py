"""The build's one step beyond pyproject.toml: `Lookups.lookup` compiled
(legaldb/_lookup_path.c). Optional: where it cannot be built, the package is the same and
Python answers the lookups (legaldb.index)."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("legaldb._lookup_path", ["legaldb/_lookup_path.c"], optional=True),
    ]
)
