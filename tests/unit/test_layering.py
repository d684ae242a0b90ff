"""The test doubles stay out of the product: no module outside ``ariadnegraph.testing`` imports it
(models plug the scripted double in by an entry point, evals load it by name like any model)."""

from __future__ import annotations

import ast
from pathlib import Path

import ariadnegraph

PACKAGE = Path(ariadnegraph.__file__).parent


def imported_modules(path: Path) -> list[str]:
    """Absolute names of every module a file imports (relative imports resolved against its package)."""
    package = ".".join(("ariadnegraph", *path.relative_to(PACKAGE).parent.parts))
    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join([*base, node.module] if node.module else base)
            names += [module] + [f"{module}.{alias.name}" for alias in node.names]
    return names


def test_no_product_module_imports_the_test_doubles():
    offenders = {str(path.relative_to(PACKAGE)): name
                 for path in PACKAGE.rglob("*.py") if "testing" not in path.relative_to(PACKAGE).parts
                 for name in imported_modules(path) if name.startswith("ariadnegraph.testing")}
    assert offenders == {}


def test_the_scan_sees_relative_imports():
    doubles = PACKAGE / "testing" / "scripted" / "model.py"
    assert "ariadnegraph.nodes.schemas" in imported_modules(doubles) and "ariadnegraph.prompting" in imported_modules(doubles)
