"""A package's exported verbs, imported on first use (PEP 562 module `__getattr__`).

Importing one module of a package runs the package's `__init__`; when that `__init__` imports
every verb, `lexgate --help` pays for SQLAlchemy, FastAPI and Lark. A package instead names
where each export lives and `lazy_exports` imports it the first time it is asked for.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from types import ModuleType


def lazy_exports(package: str, modules: Mapping[str, tuple[str, ...]]) -> Callable[[str], object]:
    """A module `__getattr__` for `package` exporting, from each module, the names listed."""
    where = {name: module for module, names in modules.items() for name in names}

    def __getattr__(name: str) -> object:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)  # the next access skips __getattr__
        return value

    class Package(ModuleType):
        """An export named like the submodule defining it (verifier.check) stays the export:
        the import system sets a submodule on its package once it has run, which would hide
        the function behind the module; an eager `from verifier.check import check` wins too."""

        def __setattr__(self, name: str, value: object) -> None:
            if isinstance(value, ModuleType) and where.get(name) == value.__name__:
                value = getattr(value, name)
            super().__setattr__(name, value)

    sys.modules[package].__class__ = Package
    return __getattr__
