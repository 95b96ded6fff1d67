"""Every exception class Spyglass defines, found by importing every module of the package."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import spyglass


def exception_classes() -> list[type[BaseException]]:
    found: list[type[BaseException]] = []
    for module_info in pkgutil.walk_packages(spyglass.__path__, "spyglass."):
        if module_info.name.endswith(".__main__"):
            continue  # running it would start the command line
        module = importlib.import_module(module_info.name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, BaseException) and value.__module__ == module.__name__:
                found.append(value)
    return found
