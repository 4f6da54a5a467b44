"""CuTe layouts in Python: ``from_cute`` / ``LinearLayout.to_cute`` and the
pycute interop (``from_pycute`` / ``to_pycute``). pycute (CUTLASS's own
Python reference, ``pip install nvidia-cutlass``; ``.ci/python`` installs it)
evaluates the CuTe layouts independently: every offset of every converted
layout is checked against pycute's integer arithmetic."""

import pytest

import linear_layouts as ll

NVMMA_128B = "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>"
MMA_V2 = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>"

SHARED = [
    "(4,8):(8,1)",
    "(8,4):(1,8)",
    "((2,4),8):((1,16),2)",
    "(16,(2,4)):(2,(1,32))",
    "Swizzle<3,3,3> o (8,64):(64,1)",
    "Swizzle<2,4,3> o (8,64):(64,1)",
    "Swizzle<1,0,-1> o (2,4):(4,1)",
]


def test_from_cute_is_the_inverse_of_cutes_map():
    import pycute

    for text in SHARED:
        l = ll.from_cute(text)
        ref = pycute_of(pycute, text)
        seen = set()
        for off in range(l.in_dim_size("offset")):
            c = l.apply(offset=off)
            coord = tuple(c[f"dim{k}"] for k in range(len(c)))
            assert ref(coord) == off, (text, off, coord)
            seen.add(coord)
        assert len(seen) == l.in_dim_size("offset")


def pycute_of(pycute, text):
    """The pycute object of C++-spelled CuTe text (built by hand here, so the
    check does not go through our parser)."""
    import ast

    sw = None
    if text.startswith("Swizzle<"):
        head, text = text.split(" o ", 1)
        b, m, s = (int(x) for x in head[len("Swizzle<"):-1].split(","))
        sw = pycute.Swizzle(b, m, s)
    shape, stride = (ast.literal_eval(p) for p in text.split(":"))
    layout = pycute.Layout(shape, stride)
    return layout if sw is None else pycute.ComposedLayout(sw, 0, layout)


def test_swizzled_shared_round_trip_equals_triton():
    l = ll.from_cute("Swizzle<3,3,3> o (8,64):(64,1)")
    t = ll.from_mlir(NVMMA_128B, [8, 64])
    assert l.bases("offset") == t.bases("offset")
    assert t.to_cute() == "Swizzle<3,3,3> o (8,64):(64,1)"
    assert ll.from_mlir(l.to_mlir(), [8, 64]).to_cute() == "Swizzle<3,3,3> o (8,64):(64,1)"


def test_mma_accumulator_round_trip_equals_triton():
    acc = "((4,8),(2,2)):((32,1),(16,8))"
    l = ll.from_cute(acc, [16, 8])
    t = ll.from_mlir(MMA_V2, [16, 8])
    for d in ("register", "lane"):
        assert l.bases(d) == t.bases(d)
    assert t.to_cute() == acc


def test_pycute_objects_in_and_out():
    import pycute

    a = pycute.Layout((4, 8), (8, 1))
    assert ll.from_pycute(a) == ll.from_cute("(4,8):(8,1)")
    sw = pycute.ComposedLayout(pycute.Swizzle(3, 3, 3), 0, pycute.Layout((8, 64), (64, 1)))
    l = ll.from_pycute(sw)
    assert l == ll.from_cute("Swizzle<3,3,3> o (8,64):(64,1)")
    back = l.to_pycute()
    assert type(back).__name__ == "ComposedLayout" and str(back) == str(sw)
    acc = pycute.Layout(((4, 8), (2, 2)), ((32, 1), (16, 8)))
    t = ll.from_pycute(acc, [16, 8])
    assert t.to_pycute() == acc
    # pycute evaluates the layout we print: thread 5, value 3 → m + 16 n.
    m, n = t.apply(register=3, lane=5, warp=0).values()
    assert acc((5, 3)) == m + 16 * n


def test_bad_input_raises_layout_error_naming_the_problem():
    with pytest.raises(ll.LayoutError, match="mode 0 has shape 6, not a power of two"):
        ll.from_cute("(6,4):(1,6)")
    with pytest.raises(ll.LayoutError, match=r"mode 1 \(shape 2, stride 3\)"):
        ll.from_cute("(2,2):(1,3)")
    with pytest.raises(ll.LayoutError, match="CuTe parse error at byte"):
        ll.from_cute("(4,8):(8")
    with pytest.raises(ll.LayoutError, match="nesting depth"):
        ll.from_cute("(" * 10000 + "1" + ")" * 10000)
    with pytest.raises(ll.LayoutError, match="needs a pycute Layout"):
        ll.from_pycute([1, 2])
    with pytest.raises(ll.LayoutError, match="share bits"):
        ll.from_mlir(
            "#ttg.linear<{register = [[0, 1]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[1, 1]], block = []}>",
            [8, 8],
        ).to_cute()
