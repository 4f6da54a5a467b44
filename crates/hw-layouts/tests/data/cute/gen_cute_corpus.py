#!/usr/bin/env python3
"""Generates the pycute corpus for hw-layouts' CuTe bridge tests.

    pip install nvidia-cutlass==4.2.0.0     # brings pycute
    python3 gen_cute_corpus.py               # writes algebra.tsv, convert.tsv

pycute is CUTLASS's own Python reference of the CuTe layout algebra. Every
random layout here is in the linear subset (power-of-two extents, strides
whose coordinate bits reach disjoint offset bits; some stride-0 modes), and a
case is kept only if pycute's result is linear too (checked by brute force
over every index). Lines are tab-separated, layouts as pycute prints them:

    algebra.tsv:  op  A  B-or-M  pycute's result
    convert.tsv:  linear|nonlinear  layout     (linearity by brute force)

Left out on purpose: right_inverse and left_inverse of layouts with a
stride-0 mode (pycute's right_inverse stops at a stride-0 mode and returns
1:0, where CUTLASS's C++ skips it; the bridge follows C++, a unit test pins
that case by hand).
"""
import random
import sys

import pycute
from pycute import (Layout, complement, composition, left_inverse,
                    logical_divide, logical_product, right_inverse)

PER_OP = 5000
SEED = 20261124


def flat(t):
    return [x for a in t for x in flat(a)] if isinstance(t, tuple) else [t]


def nest(xs, rng):
    """Group a flat list into random top-level modes (a group of one is bare)."""
    if len(xs) == 1 and rng.random() < 0.5:
        return xs[0], None
    cuts = sorted(rng.sample(range(1, len(xs)), rng.randint(0, len(xs) - 1))) if len(xs) > 1 else []
    groups, prev = [], 0
    for c in cuts + [len(xs)]:
        groups.append(xs[prev:c])
        prev = c
    return groups


def build(shapes, strides, rng):
    """A layout with the given flat modes, randomly nested."""
    idx = list(range(len(shapes)))
    g = nest(idx, rng)
    if isinstance(g, tuple):
        return Layout(shapes[0], strides[0])
    sh, st = [], []
    for grp in g:
        one = len(grp) == 1 and rng.random() < 0.7
        sh.append(shapes[grp[0]] if one else tuple(shapes[i] for i in grp))
        st.append(strides[grp[0]] if one else tuple(strides[i] for i in grp))
    return Layout(tuple(sh), tuple(st))


def rand_linear(rng, max_bits=8, zero=0.12, gaps=True):
    n = rng.randint(1, 4)
    shapes = [rng.choice([1, 2, 2, 4, 4, 8]) for _ in range(n)]
    while sum(s.bit_length() - 1 for s in shapes) > max_bits:
        shapes[rng.randrange(n)] = 1
    order = list(range(n))
    rng.shuffle(order)
    strides, pos = [0] * n, 0
    for m in order:
        if rng.random() < zero:
            strides[m] = 0
            continue
        if gaps:
            pos += rng.choice([0, 0, 0, 1, 2])
        strides[m] = 1 << pos
        pos += shapes[m].bit_length() - 1
    return build(shapes, strides, rng)


def rand_any(rng):
    """A layout that may be non-linear: odd extents, overlapping strides."""
    n = rng.randint(1, 3)
    shapes = [rng.choice([1, 2, 3, 4, 5, 6, 8, 12]) for _ in range(n)]
    strides = [rng.choice([0, 1, 2, 3, 4, 5, 6, 8, 9, 16, 17, 32]) for _ in range(n)]
    return build(shapes, strides, rng)


def size(l):
    return pycute.size(l)


def is_linear(l):
    """Brute force: power-of-two size and L(i) == XOR of L(bit) for every i."""
    n = size(l)
    if n & (n - 1) or any(s < 1 or s & (s - 1) for s in flat(l.shape)):
        return False
    bits = [l(1 << b) for b in range(n.bit_length() - 1)]
    for i in range(n):
        x = 0
        for b, v in enumerate(bits):
            if i >> b & 1:
                x ^= v
        if l(i) != x:
            return False
    return True


def no_zero(l):
    return all(d != 0 for s, d in zip(flat(l.shape), flat(l.stride)) if s != 1)


def main():
    rng = random.Random(SEED)
    out = []
    ops = {
        "composition": lambda: (rand_linear(rng), rand_linear(rng, max_bits=7)),
        "complement": lambda: (rand_linear(rng), 1 << rng.randint(0, 11)),
        "logical_divide": lambda: (rand_linear(rng, zero=0.0, gaps=False), rand_linear(rng, max_bits=5)),
        "logical_product": lambda: (rand_linear(rng, max_bits=6), rand_linear(rng, max_bits=5)),
        # Half compact (no gaps), so that most right inverses are not trivial.
        "right_inverse": lambda: (rand_linear(rng, zero=0.0, gaps=rng.random() < 0.5), None),
        "left_inverse": lambda: (rand_linear(rng, zero=0.0), None),
    }
    fns = {
        "composition": composition,
        "complement": complement,
        "logical_divide": logical_divide,
        "logical_product": logical_product,
        "right_inverse": lambda a, _: right_inverse(a),
        "left_inverse": lambda a, _: left_inverse(a),
    }
    for op, draw in ops.items():
        kept = tries = 0
        while kept < PER_OP:
            tries += 1
            a, b = draw()
            try:
                r = fns[op](a, b)
            except (AssertionError, ZeroDivisionError):
                continue
            if not is_linear(r):
                continue
            out.append(f"{op}\t{a}\t{'-' if b is None else b}\t{r}")
            kept += 1
        print(f"{op}: {kept} kept of {tries}", file=sys.stderr)
    with open("algebra.tsv", "w") as f:
        f.write("\n".join(out) + "\n")
    conv = []
    for _ in range(PER_OP):
        l = rand_any(rng)
        conv.append(f"{'linear' if is_linear(l) else 'nonlinear'}\t{l}")
    with open("convert.tsv", "w") as f:
        f.write("\n".join(conv) + "\n")
    print(f"convert: {sum(c.startswith('linear') for c in conv)} linear of {len(conv)}", file=sys.stderr)


if __name__ == "__main__":
    main()
