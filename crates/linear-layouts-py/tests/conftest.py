"""Shared helpers of the Python test suite: the Triton oracle records and an
independent, brute-force model of a linear layout (plain Python dicts and
XOR), against which the Rust implementation is checked."""

import json
import os
import pathlib
import random

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
ORACLE_DIR = pathlib.Path(os.environ.get("LINEAR_LAYOUTS_ORACLE_DIR", REPO / "tests" / "data" / "triton-oracle"))


def load_jsonl(name):
    path = ORACLE_DIR / name
    if not path.exists():
        pytest.fail(f"oracle data missing: {path} (set LINEAR_LAYOUTS_ORACLE_DIR)")
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


LAYOUTS = load_jsonl("sample-layouts.jsonl")
REJECTS = load_jsonl("sample-rejects.jsonl")


def record_shape(rec):
    """Output sizes of the record's `linear` (differs from `shape` for
    partitioned shared layouts)."""
    return rec.get("linear_shape", rec["shape"])


# ----- brute-force model ------------------------------------------------------


class Model:
    """A linear layout as plain data: `ins` = [(name, [basis, ...])] with
    each basis a list of ints (one per out dim), `outs` = [(name, size)].
    Evaluation is the definition: XOR of the bases of the set input bits."""

    def __init__(self, ins, outs):
        self.ins = [(n, [list(b) for b in bs]) for n, bs in ins]
        self.outs = list(outs)

    def in_sizes(self):
        return [(n, 1 << len(bs)) for n, bs in self.ins]

    def apply(self, coords):
        out = [0] * len(self.outs)
        for name, bases in self.ins:
            v = coords[name]
            for i, b in enumerate(bases):
                if v >> i & 1:
                    out = [x ^ y for x, y in zip(out, b)]
        return out

    def inputs(self):
        """Every input as a dict, in flat order (first in dim lowest)."""
        sizes = self.in_sizes()
        total = 1
        for _, s in sizes:
            total *= s
        for flat in range(total):
            coords, rest = {}, flat
            for n, s in sizes:
                coords[n] = rest % s
                rest //= s
            yield flat, coords

    def pack(self, values):
        packed, shift = 0, 0
        for v, (_, s) in zip(values, self.outs):
            packed |= v << shift
            shift += s.bit_length() - 1
        return packed

    def layout(self, linear_layouts, require_surjective=False):
        return linear_layouts.LinearLayout(dict(self.ins), self.outs, require_surjective)


def gf2_rank(vectors):
    """Rank over GF(2) of integers seen as bit vectors (plain elimination)."""
    pivots = {}
    for v in vectors:
        while v:
            top = v.bit_length() - 1
            if top in pivots:
                v ^= pivots[top]
            else:
                pivots[top] = v
                break
    return len(pivots)


def random_model(rng, in_names=("register", "lane", "warp"), out_names=("dim0", "dim1"), max_in_bits=3, max_out_log2=3):
    outs = [(n, 1 << rng.randint(0, max_out_log2)) for n in out_names]
    ins = []
    for n in in_names:
        k = rng.randint(0, max_in_bits)
        ins.append((n, [[rng.randrange(s) for _, s in outs] for _ in range(k)]))
    return Model(ins, outs)


@pytest.fixture
def rng():
    return random.Random(1234)
