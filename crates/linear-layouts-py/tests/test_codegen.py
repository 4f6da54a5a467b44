"""Code generation from Python: Triton's bank-conflict counts and
`is_convert_layout_trivial` answers (oracle files), plans proven by the
simulator, and the optimal swizzle's invariants."""
import json
import pathlib

import pytest

import linear_layouts as ll

DATA = pathlib.Path(__file__).resolve().parents[3] / "tests" / "data" / "triton-oracle"


def _records(name):
    return [json.loads(line) for line in (DATA / name).read_text().splitlines()]


def _layout(rec, shape):
    return ll.from_dict(rec["linear"], shape=shape)


@pytest.mark.parametrize("name", ["sample-bank-conflicts.jsonl", "seed23-bank-conflicts.jsonl"])
def test_bank_conflicts_equal_triton(name):
    recs = _records(name)
    assert len(recs) >= 40
    for r in recs:
        shape = r["shape"]
        got = ll.bank_conflicts(_layout(r["reg"], shape), _layout(r["shared"], shape), r["bitwidth"])
        assert got == r["conflicts"], r["id"]


def test_trivial_conversions_equal_triton():
    recs = _records("sample-trivial-cvt.jsonl")
    for r in recs:
        shape = r["shape"]
        src, dst = _layout(r["src"], shape), _layout(r["dst"], shape)
        c = ll.convert(src, dst, r["elem_bitwidth"])
        assert (c.kind in ("noop", "register")) == r["trivial"], r["id"]
        # The conversion layout maps dst hardware to src hardware holding the
        # same element: check it on every destination basis.
        for dim, size in dst.in_dims:
            for i in range(size.bit_length() - 1):
                coords = {d: 0 for d, _ in dst.in_dims}
                coords[dim] = 1 << i
                src_hw = c.conversion.apply(**coords)
                assert src.apply(**src_hw) == dst.apply(**coords)
        assert c.cost["registers_checked"] > 0


def test_swizzle_is_a_bijection_with_its_bound():
    a = ll.blocked([1, 4], [8, 4], [4, 1], [1, 0], shape=[64, 64])
    b = ll.blocked([4, 1], [4, 8], [1, 4], [0, 1], shape=[64, 64])
    s = ll.swizzle(a, b, "f16")
    assert s.shared.is_invertible()
    assert s.vector_elems >= 1 and s.lower_bound_log2 >= 0


def test_bad_dtype_is_an_error():
    a = ll.blocked([1, 4], [8, 4], [4, 1], [1, 0], shape=[32, 32])
    with pytest.raises(ll.LayoutError):
        ll.convert(a, a, "complex128")


def _mma_and_dot_a(shape):
    mma = ll.nvmma_distributed([2, 0], [2, 2], [16, 8])
    return mma.to_linear_layout(shape), ll.dot_operand(0, mma, 2, shape=shape)


def test_partial_plan_of_mma_to_replicated_dot_a():
    # By hand (64x64 f16 = 64 wavefronts of 128 B): every warp stores its
    # accumulators (64), loads the half of its A rows it did not compute
    # (64); the full plan loads both halves (128).
    mma, a = _mma_and_dot_a([64, 64])
    p = ll.partial(mma, a, "f16")
    assert (p.staying_elements, p.elements) == (4096, 8192)
    assert (p.partial_units, p.full_units) == (128, 192)
    assert len(p.plan["classes"]) == 2
    back = ll.partial(a, mma, "f16")
    assert back.partial_units == 0 and back.staying_elements == back.elements


def test_partial_refusal_names_the_condition():
    a = ll.blocked([1, 4], [8, 4], [4, 1], [1, 0], shape=[64, 64])
    b = ll.blocked([4, 1], [4, 8], [1, 4], [0, 1], shape=[64, 64])
    with pytest.raises(ll.LayoutError, match="C_wl"):
        ll.partial(a, b, "f16")


def test_local_conversion_reads_the_copy_in_the_own_warp():
    mma, a = _mma_and_dot_a([64, 64])
    local = ll.local_conversion(a, mma)
    triton = ll.convert(a, mma, "f16").conversion
    own, triton_own = True, True
    for w in range(4):
        coords = {d: 0 for d, _ in mma.in_dims}
        coords["warp"] = w
        for c, ok in ((local, "own"), (triton, "triton")):
            src_hw = c.apply(**coords)
            assert a.apply(**src_hw) == mma.apply(**coords)
            if src_hw["warp"] != w:
                if ok == "own":
                    own = False
                else:
                    triton_own = False
    assert own and not triton_own


def test_plan_is_the_planner_with_its_floor():
    # Blocked 2x2 -> 4x1 warps, 128x128 f16: 1/4 of the elements stay in
    # their warp (and thread). Floor by hand: 12 288 crossing elements x 2
    # bytes, stored and loaded once at 128 bytes per wavefront = 384
    # wavefronts over 4 warps, plus one barrier (4 cycles) = 100 cycles per
    # warp. The partial plan reaches it; Triton's full plan does not.
    b22 = ll.blocked([1, 4], [8, 4], [2, 2], [1, 0], shape=[128, 128])
    b41 = ll.blocked([1, 4], [8, 4], [4, 1], [1, 0], shape=[128, 128])
    p = ll.plan(b22, b41, "f16")
    assert p.kind == "partial" and p.text is None
    assert p.lower_bound["cross_warp_bytes"] == 24576
    assert p.lower_bound["wavefronts"] == 384.0
    assert (p.cycles, p.lower_bound["cycles"], p.above_bound) == (100.0, 100.0, 1.0)
    by_name = {c["name"]: c for c in p.candidates}
    assert by_name["triton"]["cycles"] > 100.0
    assert by_name["shuffle_program"]["refused"]
    # A whole-CTA plan comes with its text; a register permutation is free.
    q = ll.plan(b41, b41, "f32")
    assert q.kind == "noop" and q.cycles == 0.0 and q.text is not None


def test_plan_refuses_a_bad_target():
    b = ll.blocked([1, 4], [8, 4], [4, 1], [1, 0], shape=[32, 32])
    with pytest.raises(ll.LayoutError, match="target must be"):
        ll.plan(b, b, "f16", target="sm42")
