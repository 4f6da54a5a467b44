"""Bad input raises LayoutError (a ValueError) naming the problem; nothing
brings the interpreter down."""

import random

import pytest

import linear_layouts as ll
from conftest import LAYOUTS, REJECTS
from test_oracle import NOT_IMPLEMENTED, unimplemented

L = ll.LinearLayout


def test_layout_error_is_a_value_error():
    assert issubclass(ll.LayoutError, ValueError)
    assert ll.LayoutError.__module__ == "linear_layouts"


@pytest.mark.parametrize(
    "bases, outs, surj, needle",
    [
        ({"register": [[-1]]}, [("dim0", 2)], True, "negative component -1"),
        ({"register": [[1, 0]]}, [("dim0", 2)], True, "has 2 components, expected 1"),
        ({"register": [[4]]}, [("dim0", 4)], True, "component 4 for out dim 'dim0' of size 4"),
        ({"register": [[1]]}, [("dim0", 3)], True, "power of two, got 3"),
        ({"register": [[1], [1]]}, [("dim0", 4)], True, "not surjective"),
        ([("register", [[1]]), ("register", [[1]])], [("dim0", 2)], False, "duplicate input dim 'register'"),
        ({"register": [[1, 1]]}, [("dim0", 1 << 40), ("dim1", 1 << 30)], False, "too many output bits: 70"),
        ({}, None, True, "cannot infer the output dims"),
    ],
)
def test_constructor_rejects(bases, outs, surj, needle):
    with pytest.raises(ll.LayoutError, match=needle):
        L(bases, outs, surj)


def test_constructor_type_errors_are_type_errors():
    with pytest.raises(TypeError):
        L({"register": "abc"}, [("dim0", 2)])
    with pytest.raises(TypeError):
        L(42)


@pytest.mark.parametrize(
    "call, needle",
    [
        (lambda: L.identity_1d(3, "lane", "dim0"), "power of two, got 3"),
        (lambda: L.identity_1d(-4, "lane", "dim0"), "non-negative, got -4"),
        (lambda: L.zeros_1d(4, "lane", "dim0", 6), "power of two, got 6"),
        (lambda: L.strided_1d(4, 3, "lane", "dim0"), "stride must be a power of two, got 3"),
    ],
)
def test_1d_constructors_reject(call, needle):
    with pytest.raises(ll.LayoutError, match=needle):
        call()


LAY = L({"register": [[1, 0], [0, 1]], "lane": [[0, 2]]}, [("dim0", 2), ("dim1", 4)])


@pytest.mark.parametrize(
    "call, needle",
    [
        (lambda: LAY.apply(register=1), "apply needs exactly the input dims"),
        (lambda: LAY.apply(register=1, lane=0, warp=0), "input dim 'warp' not found"),
        (lambda: LAY.apply(register=4, lane=0), "value 4 out of range for in dim 'register' of size 4"),
        (lambda: LAY.apply(register=-1, lane=0), "value -1 out of range"),
        (lambda: LAY.apply_flat(8), "flat index 8 out of range"),
        (lambda: LAY.bases("warp"), "input dim 'warp' not found"),
        (lambda: LAY.basis("lane", 1), "basis index 1 out of range"),
        (lambda: LAY.in_dim_size("warp"), "input dim 'warp' not found"),
        (lambda: LAY.out_dim_size("dim7"), "output dim 'dim7' not found"),
        (lambda: LAY.pack([1]), "pack needs 2 values"),
        (lambda: LAY.pack([2, 0]), "value 2 out of range for out dim 'dim0' of size 2"),
        (lambda: LAY.resize_in_dim("lane", 4).invert(), "not invertible"),
        (lambda: LAY.compose(LAY), None),
        (lambda: LAY.transpose_outs(["dim0"]), None),
        (lambda: LAY.transpose_outs(["dim0", "dim0"]), None),
        (lambda: LAY.reshape_outs([("x", 4)]), None),
        (lambda: LAY.concat_ins(LAY), None),
        (lambda: LAY.rename_in_dim("register", "lane"), None),
        (lambda: LAY.rename_in_dim("warp", "x"), None),
        (lambda: LAY.resize_in_dim("register", 3), None),
        (lambda: LAY.is_trivial_over(["warp"]), "not found"),
        (lambda: LAY.to_mlir(alignment=3), "alignment must be a power of two, got 3"),
        (lambda: LAY.to_mlir(alignment=16), "alignment applies to shared layouts"),
        (lambda: LAY.rename_out_dim("dim0", "x").to_mlir(), "output dims dim0"),
        (lambda: LAY.rename_in_dim("register", "row").to_mlir(), "in dims of a distributed layout"),
        (lambda: L.zeros_1d(1 << 41, "register", "dim0").table(), r"41 input bits.*limit is 32"),
        (lambda: L.from_json("{not json"), "invalid layout JSON"),
        (lambda: L.from_dict({"register": [[1]]}, shape=[3]), "power of two"),
        (lambda: L.from_dict({"register": [[1]]}, shape=[-2]), "dimension 0 is -2"),
        (lambda: L.from_dict({"register": 5}), "must be a list"),
    ],
)
def test_operations_reject(call, needle):
    with pytest.raises(ll.LayoutError, match=needle):
        call()


def test_invert_and_compose_needs_coverage():
    a = L.identity_1d(4, "register", "dim0")
    b = L({"offset": [[1], [0]]}, [("dim0", 4)], False)
    with pytest.raises(ll.LayoutError):
        a.invert_and_compose(b)


def test_mul_with_other_types_is_not_implemented():
    with pytest.raises(TypeError):
        LAY * 3


# ----- from_mlir ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, shape, needle",
    [
        ("", [4], "parse error"),
        ("#ttg.blocked<{", [4], "parse error"),
        ("blocked", [4], "parse error"),
        ("#ttg.nonsense<{a = 1}>", [4], "unknown layout attribute 'ttg.nonsense'"),
        ("#ttg.linear<{register = [[1]], lane = [], warp = [], block = []}>", [3], "3"),
        ("#ttg.linear<{register = [[1]], lane = [], warp = [], block = []}>", [0], "0"),
        ("#ttg.linear<{register = [[1]], lane = [], warp = [], block = []}>", [-2], "-2"),
        ("#ttg.linear<{register = [[1]], lane = [], warp = [], block = []}>", [], "rank 0"),
        ("#ttg.linear<{register = [[1]], lane = [], warp = [], block = []}>", [1 << 30, 1 << 30], r"more than 2\^40 elements"),
    ],
)
def test_from_mlir_rejects(text, shape, needle):
    with pytest.raises(ll.LayoutError, match=needle):
        ll.from_mlir(text, shape)


def test_from_mlir_rejects_wrong_threads_per_warp():
    rec = next(r for r in LAYOUTS if r["attr"] == "ttg.blocked")
    try:
        ll.from_mlir(rec["mlir"], rec["shape"])
    except ll.LayoutError as e:
        if unimplemented(e):
            pytest.xfail(NOT_IMPLEMENTED)
        raise
    tpw = rec["module_attrs"]["ttg.threads-per-warp"]
    with pytest.raises(ll.LayoutError, match="threads per warp"):
        ll.from_mlir(rec["mlir"], rec["shape"], threads_per_warp=tpw * 2)


def mutations(text, rng, n):
    out = [text[:k] for k in range(0, len(text), max(1, len(text) // 12))]
    alphabet = "0123456789[]{}<>=,-: abcxyz#"
    for _ in range(n):
        i = rng.randrange(len(text))
        out.append(text[:i] + rng.choice(alphabet) + text[i + 1 :])
        j = rng.randrange(len(text))
        out.append(text[:j] + text[j + 1 :])
    return out


def test_mangled_mlir_raises_layout_error_or_parses():
    """Truncated and edited oracle texts: a LayoutError or a valid layout,
    never another exception (and never a crash)."""
    rng = random.Random(5)
    for rec in LAYOUTS:
        for text in mutations(rec["mlir"], rng, 6):
            try:
                lay = ll.from_mlir(text, rec["shape"])
            except ll.LayoutError:
                continue
            assert isinstance(lay, ll.LinearLayout)


# ----- Triton's rejects -----------------------------------------------------------------


def build(params):
    """A Gluon-like stand-in object from a reject record's `params`."""
    if isinstance(params, list):
        return [build(x) for x in params]
    if not isinstance(params, dict) or "cls" not in params:
        return params
    obj = type(params["cls"], (), {})()
    for k, v in params.items():
        if k != "cls":
            setattr(obj, k, build(v))
    return obj


def buildable(rec):
    text = str(rec.get("params"))
    return (
        rec.get("query") == "layout"
        and "triton_limitation" not in rec
        and "legacy" not in text
        and "tmem_reg" not in text
    )


REJECT_LAYOUTS = [r for r in REJECTS if buildable(r)]


@pytest.mark.parametrize("rec", REJECT_LAYOUTS, ids=[f"{r['id']}-{r['kind']}" for r in REJECT_LAYOUTS])
def test_tritons_rejects_are_rejected(rec):
    obj = build(rec["params"])
    with pytest.raises(ll.LayoutError) as info:
        ll.from_gluon(obj, rec["shape"])
    if unimplemented(info.value):
        pytest.xfail(NOT_IMPLEMENTED)


# ----- the from_mlir memo ------------------------------------------------------------------


def test_memo_returns_equal_layouts_and_errors_are_not_cached():
    text = "#ttg.linear<{register = [[1]], lane = [[2], [4], [8], [16], [32]], warp = [], block = []}>"
    try:
        first = ll.from_mlir(text, [64])
    except ll.LayoutError as e:
        if unimplemented(e):
            pytest.xfail(NOT_IMPLEMENTED)
        raise
    want = L({"register": [[1]], "lane": [[2], [4], [8], [16], [32]], "warp": [], "block": []}, [("dim0", 64)])
    assert first == want
    assert ll.from_mlir(text, [64]) == want
    assert ll.from_mlir(text, [64], cache=False) == want
    # a different shape is a different entry
    assert ll.from_mlir(text, [128]).out_dims == [("dim0", 128)]
    ll.clear_cache()
    assert ll.from_mlir(text, [64]) == want
    # the threads-per-warp check applies to memo hits too
    with pytest.raises(ll.LayoutError, match="threads per warp"):
        ll.from_mlir(text, [64], threads_per_warp=64)
    for _ in range(2):
        with pytest.raises(ll.LayoutError):
            ll.from_mlir(text, [3])


def test_layout_error_pickles():
    import pickle

    with pytest.raises(ll.LayoutError) as info:
        L({"register": [[3]]}, [("dim0", 2)])
    back = pickle.loads(pickle.dumps(info.value))
    assert type(back) is ll.LayoutError and str(back) == str(info.value)


@pytest.mark.parametrize(
    "bases",
    [
        {"offset": [[1, 0]], "block": [[2**62, 0]]},
        {"offset": [[2**63, 0]]},
        {"offset": [[2**64, 0]]},
        {"register": [[2**63 - 1]]},
        {"register": [[1 << k] for k in range(65)]},
    ],
)
def test_huge_components_raise_layout_error_or_build(bases):
    """Components near or past 64 bits: a LayoutError (or a valid layout),
    never a PanicException or an OverflowError."""
    for surj in (True, False):
        try:
            lay = L(bases, None, surj)
        except ll.LayoutError:
            continue
        assert lay.total_out_dim_size_log2 <= 64
