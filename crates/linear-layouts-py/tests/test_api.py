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


def test_svg_picture_matches_the_layout():
    # The notebook picture labels every cell with thread:register; Figure 1
    # layout A puts register 1 of thread 9 at (2, 3) (the paper's text).
    import linear_layouts as ll
    a = ll.from_mlir("#ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [4, 8], "
                     "warpsPerCTA = [2, 1], order = [1, 0]}>", [16, 16])
    import re
    svg = a._repr_svg_()
    assert svg.startswith("<svg")
    # Cells are 40 px squares; cell (row 2, col 2) starts at (120, 128) and
    # holds T9 R0 (the first cell drawn for thread 9), so (2, 3) is the next
    # one to the right: thread 9, register 1.
    cells = re.findall(r'<rect x="(\d+)" y="(\d+)"[^>]*/>\s*<text[^>]*>(T\d+)</text>\s*<text[^>]*>(R\d+)</text>', svg)
    where = {(int(x), int(y)): (t, r) for x, y, t, r in cells}
    assert where[(120, 128)] == ("T9", "R0")
    assert where[(160, 128)] == ("T9", "R1")
    assert len(cells) == 256
    assert "<svg" in a.svg(hw=True)


def test_docstring_examples_run():
    import doctest

    # The package and the module of its code-generation functions.
    results = [doctest.testmod(m) for m in (ll, ll._codegen)]
    assert sum(r.attempted for r in results) >= 8, results
    assert all(r.failed == 0 for r in results), results
