"""Front doors that load on use: a package names its public names and the modules they come from, and a module is
imported only when one of its names is first asked for (PEP 562), so that importing a package costs nothing until
it is used (the page's first paint needs the step model, not the traces path).

>>> getattr_, dir_ = front_door("ddpcore.base", {"steps": ("finished",)})
>>> getattr_("finished").__name__, dir_()
('finished', ['finished'])
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module

__all__ = ["front_door"]


def front_door(
    package: str, names_by_module: Mapping[str, tuple[str, ...]]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """A package's `__getattr__` and `__dir__`: each name imported from its module on first use. No name may be a
    module's own (the module, once imported, would shadow it)."""
    where = {name: module for module, names in names_by_module.items() for name in names}

    def getattr_(name: str) -> object:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(import_module(f".{module}", package), name)

    def dir_() -> list[str]:
        return sorted(where)

    return getattr_, dir_
