"""The type stub (__init__.pyi) covers the public API and the docstrings are there."""

import ast
import inspect
import pathlib

import fairdeck

PKG = pathlib.Path(fairdeck.__file__).parent


def stub_names(path):
    tree = ast.parse(path.read_text())
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            names.add(node.target.id)
        elif isinstance(node, ast.ImportFrom):
            names.update(a.asname or a.name for a in node.names)
    return names


def test_stub_covers_the_api():
    assert set(fairdeck.__all__) <= stub_names(PKG / "__init__.pyi")
    assert set(fairdeck.fair.__all__) <= stub_names(PKG / "fair.pyi")
    assert (PKG / "py.typed").exists()


def test_every_public_name_is_documented():
    for name in fairdeck.__all__:
        obj = getattr(fairdeck, name)
        if callable(obj):
            assert inspect.getdoc(obj), name
    for name in fairdeck.fair.__all__:
        assert inspect.getdoc(getattr(fairdeck.fair, name)), name
