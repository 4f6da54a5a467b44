#!/usr/bin/env python3
"""For every layout of the oracle sample (tests/data/triton-oracle/
sample-layouts.jsonl at the workspace root), ask Triton 3.9's own C++
LinearLayout (Python binding) for its properties and printed form, and write
sample-props.jsonl: {"id", "surjective", "injective", "invertible", "str"}.
Only the installed triton package is called."""
import json
import os

import triton._C.libtriton as lt

L = lt.linear_layout.LinearLayout
here = os.path.dirname(os.path.abspath(__file__))
src = os.path.join(here, "..", "..", "..", "..", "tests", "data", "triton-oracle", "sample-layouts.jsonl")
out = open(os.path.join(here, "sample-props.jsonl"), "w")
for line in open(src):
    rec = json.loads(line)
    shape = rec.get("linear_shape", rec["shape"])
    names = [f"dim{i}" for i in range(len(shape))]
    ll = L.from_bases(list(rec["linear"].items()), names, shape, False)
    out.write(json.dumps({
        "id": rec["id"],
        "surjective": ll.is_surjective(),
        "injective": ll.is_injective(),
        "invertible": ll.is_invertible(),
        "str": str(ll),
    }) + "\n")
