"""The public surface: stubs cover the runtime API, docstrings exist, and
the small conveniences behave."""

import ast
import pathlib

import pytest

import linear_layouts as ll

STUB = pathlib.Path(ll.__file__).with_name("__init__.pyi")


def stub_names():
    tree = ast.parse(STUB.read_text())
    top, methods = set(), set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            top.add(node.name)
        if isinstance(node, ast.ClassDef) and node.name == "LinearLayout":
            methods |= {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
    return top, methods


def test_stubs_cover_the_public_api():
    top, methods = stub_names()
    assert set(ll.__all__) <= top
    public = {m for m in dir(ll.LinearLayout) if not m.startswith("_")}
    assert public <= methods, public - methods


def test_public_functions_and_methods_have_docstrings():
    for name in ll.__all__:
        assert getattr(ll, name).__doc__, name
    for m in dir(ll.LinearLayout):
        if not m.startswith("_"):
            assert getattr(ll.LinearLayout, m).__doc__, m


def test_encoding_value_semantics():
    e = ll.blocked([1, 4], [8, 4], [4, 1], [1, 0])
    assert isinstance(e, ll.Encoding) and str(e) == e.mlir and e == ll.Encoding(e.mlir)
    assert hash(e) == hash(ll.Encoding(e.mlir))
    assert "blocked" in repr(e)
    with pytest.raises(AttributeError):
        e.x = 1
    nested = ll.slice(1, e)
    assert nested.mlir == f"#ttg.slice<{{dim = 1, parent = {e.mlir}}}>"
    assert ll.slice(1, e.mlir) == nested


def test_wrapper_arguments_are_validated():
    with pytest.raises(ll.LayoutError, match="size_per_thread must be a list of integers"):
        ll.blocked("14", [8, 4], [4, 1], [1, 0])
    with pytest.raises(ll.LayoutError, match="must be an integer"):
        ll.swizzled_shared(1.5, 1, 1, [1, 0])
    with pytest.raises(ll.LayoutError, match="transposed must be a bool"):
        ll.amd_mfma(2, [32, 32, 8], "yes", [1, 4])
    with pytest.raises(ll.LayoutError, match="unsupported Gluon layout class 'object'"):
        ll.from_gluon(object(), [4])
    with pytest.raises(ll.LayoutError, match="needs a shape"):
        ll.from_gluon(type("BlockedLayout", (), {})())


def test_distributed_linear_builds_the_layout():
    lay = ll.distributed_linear([[1]], [[2], [4]], [], [], shape=[8])
    assert lay == ll.LinearLayout({"register": [[1]], "lane": [[2], [4]], "warp": [], "block": []}, [("dim0", 8)])
    assert ll.distributed_linear([[1]], [[2], [4]], []).mlir == lay.to_mlir()
    assert lay.to_mlir() == "#ttg.linear<{register = [[1]], lane = [[2], [4]], warp = [], block = []}>"
    generic = ll.LinearLayout({"register": [[1]], "lane": [[1], [2]]}, [("dim0", 4)])
    assert generic.to_mlir().startswith("#ttg.generic_linear<")


def test_constexpr_values_are_unwrapped():
    class constexpr:  # noqa: N801 - Gluon's class name
        def __init__(self, value):
            self.value = value

    a = ll.blocked(constexpr([1, 4]), [8, 4], [constexpr(4), 1], [1, 0])
    assert a == ll.blocked([1, 4], [8, 4], [4, 1], [1, 0])
