"""Algebra laws on random layouts, each checked against the brute-force
model of conftest.py (evaluation by the definition: XOR of bases)."""

import copy
import pickle
import random

import numpy as np
import pytest

import linear_layouts as ll
from conftest import Model, gf2_rank, random_model

TRIALS = 40


def models(seed, **kw):
    rng = random.Random(seed)
    return [random_model(rng, **kw) for _ in range(TRIALS)]


def as_dict(m, values):
    return {n: v for (n, _), v in zip(m.outs, values)}


def random_invertible(rng, in_name, outs):
    """A random bijection from `in_name` onto `outs` (bases drawn until full rank)."""
    nbits = sum(s.bit_length() - 1 for _, s in outs)
    while True:
        bases = [[rng.randrange(s) for _, s in outs] for _ in range(nbits)]
        m = Model([(in_name, bases)], outs)
        if gf2_rank([m.pack(b) for b in bases]) == nbits:
            return m


# ----- evaluation -------------------------------------------------------------


@pytest.mark.parametrize("seed", range(3))
def test_apply_table_matrix_match_the_definition(seed):
    for m in models(seed):
        lay = m.layout(ll)
        table = lay.table()
        assert table.dtype == np.uint64 and len(table) == lay.total_in_dim_size
        unpacked = lay.table(unpacked=True)
        mat = lay.matrix()
        assert mat.shape == (lay.total_out_dim_size_log2, lay.total_in_dim_size_log2)
        for flat, coords in m.inputs():
            want = m.apply(coords)
            assert lay.apply(**coords) == as_dict(m, want)
            assert int(table[flat]) == m.pack(want)
            assert list(unpacked[flat]) == want
            assert lay.apply_flat(flat) == m.pack(want)
            xbits = np.array([(flat >> j) & 1 for j in range(mat.shape[1])], dtype=np.int64)
            ybits = (mat.astype(np.int64) @ xbits) % 2
            assert int(sum(int(b) << i for i, b in enumerate(ybits))) == m.pack(want)


@pytest.mark.parametrize("seed", range(2))
def test_rank_and_properties_match_distinct_outputs(seed):
    for m in models(seed):
        lay = m.layout(ll)
        distinct = {tuple(m.apply(c)) for _, c in m.inputs()}
        assert 2 ** lay.rank() == len(distinct)
        assert lay.is_surjective() == (len(distinct) == lay.total_out_dim_size)
        assert lay.is_injective() == (len(distinct) == lay.total_in_dim_size)
        assert lay.is_invertible() == (lay.is_injective() and lay.is_surjective())


def test_free_variable_masks_match_incremental_rank():
    for m in models(7):
        lay = m.layout(ll)
        seen = []
        want = {}
        for name, bases in m.ins:
            mask = 0
            for i, b in enumerate(bases):
                col = m.pack(b)
                if gf2_rank(seen + [col]) == gf2_rank(seen):
                    mask |= 1 << i
                seen.append(col)
            want[name] = mask
        assert lay.free_variable_masks() == want


# ----- product ------------------------------------------------------------------


def product_apply(a, b, coords):
    """(A * B)(x): shared in dims split into A's low bits and B's high bits;
    shared out dims put B's value above A's size."""
    a_in = dict(a.in_sizes())
    ca = {n: coords[n] % a_in[n] for n in a_in}
    cb = {n: coords[n] // a_in.get(n, 1) for n, _ in b.in_sizes()}
    va = as_dict(a, a.apply(ca))
    vb = as_dict(b, b.apply(cb))
    a_out = dict(a.outs)
    out = dict(va)
    for n, v in vb.items():
        out[n] = out.get(n, 0) + v * a_out.get(n, 1)
    return out


@pytest.mark.parametrize("seed", range(3))
def test_product_matches_the_definition(seed):
    rng = random.Random(100 + seed)
    for _ in range(TRIALS):
        a = random_model(rng, in_names=rng.choice([("register", "lane"), ("register",)]), out_names=("dim0", "dim1"))
        b = random_model(rng, in_names=rng.choice([("register", "lane"), ("lane", "warp")]), out_names=rng.choice([("dim0", "dim1"), ("dim1",)]), max_out_log2=2)
        p = a.layout(ll) * b.layout(ll)
        for _, coords in Model(
            [(n, [[0] * len(p.out_dims)] * (s.bit_length() - 1)) for n, s in p.in_dims], p.out_dims
        ).inputs():
            assert p.apply(**coords) == product_apply(a, b, coords)


def test_empty_is_the_neutral_element():
    for m in models(5):
        lay = m.layout(ll)
        assert lay * ll.LinearLayout.empty() == lay
        assert ll.LinearLayout.empty() * lay == lay


def test_product_is_associative():
    rng = random.Random(9)
    for _ in range(TRIALS):
        a, b, c = (random_model(rng, max_in_bits=2, max_out_log2=2) for _ in range(3))
        la, lb, lc = (x.layout(ll) for x in (a, b, c))
        assert (la * lb) * lc == la * (lb * lc)


# ----- composition and inversion --------------------------------------------------


@pytest.mark.parametrize("seed", range(2))
def test_compose_is_function_composition(seed):
    rng = random.Random(200 + seed)
    for _ in range(TRIALS):
        mid = [("x", 1 << rng.randint(0, 3)), ("y", 1 << rng.randint(0, 2))]
        a_outs = mid
        a = Model(
            [(n, [[rng.randrange(s) for _, s in a_outs] for _ in range(rng.randint(0, 3))]) for n in ("register", "lane")],
            a_outs,
        )
        b_outs = [("dim0", 1 << rng.randint(0, 3)), ("dim1", 1 << rng.randint(0, 3))]
        b = Model([(n, [[rng.randrange(s) for _, s in b_outs] for _ in range(s.bit_length() - 1)]) for n, s in mid], b_outs)
        c = a.layout(ll).compose(b.layout(ll))
        for _, coords in a.inputs():
            mid_val = as_dict(a, a.apply(coords))
            assert c.apply(**coords) == as_dict(b, b.apply(mid_val))


@pytest.mark.parametrize("seed", range(2))
def test_invert_is_the_inverse(seed):
    rng = random.Random(300 + seed)
    for _ in range(TRIALS):
        outs = [("dim0", 1 << rng.randint(0, 3)), ("dim1", 1 << rng.randint(0, 2))]
        m = random_invertible(rng, "offset", outs)
        inv = m.layout(ll).invert()
        assert inv.in_dim_names == ["dim0", "dim1"] and inv.out_dim_names == ["offset"]
        for _, coords in m.inputs():
            y = as_dict(m, m.apply(coords))
            assert inv.apply(**y) == coords


@pytest.mark.parametrize("seed", range(2))
def test_pseudoinvert_is_a_right_inverse_on_the_image(seed):
    for m in models(400 + seed):
        lay = m.layout(ll)
        if not lay.is_surjective():
            # Triton's pseudoinvert is identity(outs).invertAndCompose(L): L must cover every output.
            with pytest.raises(ll.LayoutError):
                lay.pseudoinvert()
            continue
        pinv = lay.pseudoinvert()
        image = {tuple(m.apply(c)) for _, c in m.inputs()}
        for y in image:
            x = pinv.apply(**dict(zip(lay.out_dim_names, y)))
            assert tuple(m.apply(x)) == y


@pytest.mark.parametrize("seed", range(2))
def test_invert_and_compose_finds_the_same_element(seed):
    rng = random.Random(500 + seed)
    for _ in range(TRIALS):
        outs = [("dim0", 1 << rng.randint(0, 3)), ("dim1", 1 << rng.randint(0, 3))]
        a = Model(
            [(n, [[rng.randrange(s) for _, s in outs] for _ in range(rng.randint(0, 3))]) for n in ("register", "lane")],
            outs,
        )
        b = random_invertible(rng, "offset", outs)
        # a surjective but non-injective outer layout: add a duplicated basis
        if rng.random() < 0.5 and b.ins[0][1]:
            b = Model([("offset", b.ins[0][1] + [rng.choice(b.ins[0][1])])], outs)
        c = a.layout(ll).invert_and_compose(b.layout(ll))
        for _, coords in a.inputs():
            x = c.apply(**coords)
            assert b.apply(x) == a.apply(coords)


def test_divide_inverts_the_product():
    rng = random.Random(600)
    for _ in range(TRIALS):
        b = random_model(rng, in_names=("register", "lane"), max_in_bits=2, max_out_log2=2)
        c = random_model(rng, in_names=("register", "lane", "warp"), max_in_bits=2, max_out_log2=2)
        lb, lc = b.layout(ll), c.layout(ll)
        a = lb * lc
        q = a.divide_left(lb)
        assert q is not None and lb * q == a
        r = (lc * lb).divide_right(lb)
        assert r is not None and r * lb == lc * lb


def test_divide_left_returns_none_when_not_a_product():
    reg = ll.LinearLayout.identity_1d(4, "register", "dim0")
    swapped = ll.LinearLayout({"register": [[2], [1]]}, [("dim0", 4)])
    assert swapped.divide_left(reg) is None


# ----- shape operations ---------------------------------------------------------------


def test_transpose_outs_permutes_coordinates():
    for m in models(700):
        lay = m.layout(ll)
        t = lay.transpose_outs(["dim1", "dim0"])
        assert t.out_dim_names == ["dim1", "dim0"]
        for _, coords in m.inputs():
            assert t.apply(**coords) == as_dict(m, m.apply(coords))


def test_transpose_ins_reorders_the_flat_index():
    for m in models(701):
        lay = m.layout(ll)
        t = lay.transpose_ins(["warp", "register", "lane"])
        assert t.in_dim_names == ["warp", "register", "lane"]
        for _, coords in m.inputs():
            assert t.apply(**coords) == lay.apply(**coords)


def test_flatten_and_reshape_keep_the_packed_table():
    for m in models(702):
        lay = m.layout(ll)
        assert list(lay.flatten_outs().table()) == list(lay.table())
        assert list(lay.flatten_ins().table()) == list(lay.table())
        n = lay.total_out_dim_size
        assert list(lay.reshape_outs([("flat", n)]).table()) == list(lay.table())
        assert list(lay.reshape_ins([("flat", lay.total_in_dim_size)]).table()) == list(lay.table())


def test_sublayout_restricts_inputs_and_outputs():
    for m in models(703):
        lay = m.layout(ll)
        sub = lay.sublayout(["register", "warp"], ["dim1"])
        for _, coords in m.inputs():
            if coords["lane"]:
                continue
            full = as_dict(m, m.apply(coords))
            assert sub.apply(register=coords["register"], warp=coords["warp"]) == {"dim1": full["dim1"]}


def test_concat_ins_xors_and_concat_outs_joins():
    rng = random.Random(704)
    for _ in range(TRIALS):
        a = random_model(rng, in_names=("register",), out_names=("dim0", "dim1"))
        b = Model([("lane", [[rng.randrange(s) for _, s in a.outs] for _ in range(rng.randint(0, 3))])], a.outs)
        c = a.layout(ll).concat_ins(b.layout(ll))
        for _, ca in a.inputs():
            for _, cb in b.inputs():
                want = [x ^ y for x, y in zip(a.apply(ca), b.apply(cb))]
                assert c.apply(**ca, **cb) == as_dict(a, want)
        d = Model([("register", [[rng.randrange(4)] for _ in a.ins[0][1]])], [("dim2", 4)])
        j = a.layout(ll).concat_outs(d.layout(ll))
        for _, ca in a.inputs():
            assert j.apply(**ca) == {**as_dict(a, a.apply(ca)), **as_dict(d, d.apply(ca))}


def test_num_consecutive_in_out_by_definition():
    for m in models(705, in_names=("register", "lane"), out_names=("dim0", "dim1"), max_in_bits=4):
        lay = m.layout(ll)
        in0 = m.ins[0][1]
        out0_log2 = m.outs[0][1].bit_length() - 1
        k = 0
        while k < min(len(in0), out0_log2):
            kk = k + 1
            unit = all(in0[i] == [1 << i] + [0] * (len(m.outs) - 1) for i in range(kk))
            rest = [b for i, b in enumerate(in0) if i >= kk] + [b for _, bs in m.ins[1:] for b in bs]
            if not unit or any(b[0] % (1 << kk) for b in rest):
                break
            k = kk
        assert lay.num_consecutive_in_out() == 1 << k


def test_quotient_removes_identity_dims():
    lane = ll.LinearLayout.identity_1d(8, "lane", "lane")
    rest = ll.LinearLayout({"register": [[1], [2]]}, [("dim0", 4)])
    assert (rest * lane).quotient(["lane"]) == rest
    assert rest.quotient(["register"]) is None


def test_resize_rename_squeeze():
    lay = ll.LinearLayout({"register": [[1, 0], [0, 1]], "lane": []}, [("dim0", 2), ("dim1", 2)])
    assert lay.squeeze_ins().in_dim_names == ["register"]
    assert lay.resize_in_dim("register", 8).bases("register") == [[1, 0], [0, 1], [0, 0]]
    assert lay.rename_in_dim("register", "r").in_dim_names == ["r", "lane"]
    assert lay.rename_out_dim("dim1", "y").out_dim_names == ["dim0", "y"]
    z = ll.LinearLayout({"register": [[0, 0], [0, 1]]}, [("dim0", 2), ("dim1", 2)], False)
    assert z.remove_zero_bases_along_dim("register").bases("register") == [[0, 1]]


# ----- identity of values ------------------------------------------------------------


def test_equal_layouts_hash_equal():
    a = ll.LinearLayout.identity_1d(8, "lane", "dim0")
    b = ll.LinearLayout({"lane": [[1], [2], [4]]}, [("dim0", 8)])
    c = ll.LinearLayout.strided_1d(8, 1, "lane", "dim0")
    assert a == b == c and len({a, b, c}) == 1
    assert a != ll.LinearLayout.identity_1d(8, "lane", "dim1")
    assert ll.LinearLayout.zeros_1d(4, "register", "dim0", 2).bases("register") == [[0], [0]]
    assert ll.LinearLayout.strided_1d(4, 4, "register", "dim0").bases("register") == [[4], [8]]


def test_pickle_copy_and_dict_round_trip():
    for m in models(800):
        lay = m.layout(ll)
        assert pickle.loads(pickle.dumps(lay)) == lay
        assert copy.deepcopy(lay) == lay and copy.copy(lay) == lay
        assert ll.LinearLayout.from_dict(lay.to_dict(out_dims=True)) == lay
        assert ll.LinearLayout.from_json(lay.to_json()) == lay
        assert lay.to_dict() == dict(m.ins)
        assert ll.LinearLayout.from_dict(lay.to_dict(), shape=[s for _, s in m.outs]) == lay


def test_str_is_tritons_to_string():
    lay = ll.LinearLayout({"register": [[0, 1]], "lane": [[1, 0], [0, 2]]}, [("dim0", 2), ("dim1", 4)])
    # Triton's LinearLayout::toString, written out by hand (Triton 3.9's
    # starts with a newline; the Rust crate decides, the binding passes it on).
    assert str(lay).lstrip("\n") == (
        " - register=1 -> (0, 1)\n"
        " - lane=1 -> (1, 0)\n"
        "   lane=2 -> (0, 2)\n"
        "where out dims are: [dim0 (size 2), dim1 (size 4)]"
    )
    assert repr(lay).startswith("LinearLayout(") and str(lay) in repr(lay)


def test_constructor_forms_agree():
    want = ll.LinearLayout({"register": [[1, 0]], "lane": [[0, 1], [0, 2]]}, [("dim0", 2), ("dim1", 4)])
    assert ll.LinearLayout({"register": [[1, 0]], "lane": [[0, 1], [0, 2]]}, {"dim0": 2, "dim1": 4}) == want
    assert ll.LinearLayout({"register": [[1, 0]], "lane": [[0, 1], [0, 2]]}) == want
    assert ll.LinearLayout([("register", [[1, 0]]), ("lane", [[0, 1], [0, 2]])], ["dim0", "dim1"]) == want
    assert ll.LinearLayout.from_bases({"register": [[1, 0]], "lane": [[0, 1], [0, 2]]}, [("dim0", 2), ("dim1", 4)]) == want
    assert ll.from_dict({"register": [[1, 0]], "lane": [[0, 1], [0, 2]]}, shape=[2, 4]) == want


def test_factor_through_and_supremum():
    a = ll.LinearLayout({"offset": [[1], [2], [4]]}, [("dim0", 8)])
    b = ll.LinearLayout({"lane": [[4], [1]]}, [("dim0", 8)], False)
    x = ll.factor_through(a, b)
    assert x is not None
    for lane in range(4):
        assert a.apply(offset=x.apply(lane=lane)["offset"]) == b.apply(lane=lane)
    assert ll.supremum(["a", "b"], ["b", "c"]) == ["a", "b", "c"]
    with pytest.raises(ll.LayoutError):
        ll.supremum(["a", "b"], ["b", "a"])


def test_apply_may_omit_size_one_dims():
    lay = ll.LinearLayout({"register": [[1]], "block": []}, [("dim0", 2)])
    assert lay.apply(register=1) == {"dim0": 1}
    assert lay.apply(register=1, block=0) == {"dim0": 1}
    with pytest.raises(ll.LayoutError):
        lay.apply(register=1, block=1)
