"""CPU checks of the GPU harness (no GPU, no Triton): every exported case
gets a value for every argument from its family's launch spec, and the
compatibility rewrites of `run.py` keep the program's meaning."""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, HERE)

import run  # noqa: E402
from specs import SPECS  # noqa: E402


def cases(dirname):
    path = os.path.join(HERE, dirname, "cases.json")
    return json.load(open(path)) if os.path.exists(path) else []


def divisible_args(ttir):
    """Indices of the kernel arguments the TTIR declares divisible by 16."""
    head = re.search(r"tt\.func public @\w+\((.*?)\) attributes", ttir, re.S).group(1)
    args = re.split(r",\s*(?=%arg\d+:)", head)
    return {i for i, a in enumerate(args) if "tt.divisibility = 16" in a}


def test_every_argument_has_a_value():
    n = 0
    for d in ("cases", "heldout"):
        for c in cases(d):
            grid, scalars, elems = SPECS[c["family"]](c["params"])
            assert len(grid) == 3 and all(g >= 1 for g in grid), c["id"]
            assert elems > 0
            ttir = open(os.path.join(HERE, d, c["dir"], "kernel.ttir")).read()
            div16 = divisible_args(ttir)
            for i, (name, ty) in enumerate(c["args"]):
                if ty.startswith("!tt.ptr<"):
                    continue
                assert name in scalars, f"{c['id']}: no value for {name}"
                v = scalars[name]
                if ty == "i32":
                    assert isinstance(v, int), (c["id"], name, v)
                if i in div16:
                    # The kernel was compiled on that promise.
                    assert v % 16 == 0, (c["id"], name, v)
            for f in ("ours.ttgir", "triton.ttgir", "kernel.ttir"):
                assert os.path.exists(os.path.join(HERE, d, c["dir"], f))
            n += 1
    assert n > 50


def test_broadcast_gets_one_spelling():
    src = ("    %5 = tt.broadcast %4 : tensor<64x1xi32, #linear> -> tensor<64x64xi32, #mma>\n"
           "    %6 = tt.broadcast %3 : tensor<1x64xi32, #mma> -> tensor<64x64xi32, #mma>")
    out = run.split_broadcasts(src).split("\n")
    assert out[0] == ("    %compat_bc0 = ttg.convert_layout %4 : tensor<64x1xi32, #linear> "
                      "-> tensor<64x1xi32, #mma>")
    assert out[1] == ("    %5 = tt.broadcast %compat_bc0 : tensor<64x1xi32, #mma> "
                      "-> tensor<64x64xi32, #mma>")
    # An already consistent broadcast is left alone.
    assert out[2] == src.split("\n")[1]


def test_nested_encodings_are_read_whole():
    line = "tensor<8xf32, #ttg.slice<{dim = 1, parent = #blocked}>> rest"
    end, shape, enc = run.tensor_type(line, 0)
    assert shape == "8xf32" and enc == "#ttg.slice<{dim = 1, parent = #blocked}>"
    assert line[end:] == " rest"


def test_negf_becomes_a_subtraction_from_negative_zero():
    src = "    %37 = arith.negf %36 : tensor<64x64xf32, #mma>"
    out = run.negf_as_subf(src).split("\n")
    assert out[0] == "    %compat_negz0 = arith.constant dense<-0.000000e+00> : tensor<64x64xf32, #mma>"
    assert out[1] == "    %37 = arith.subf %compat_negz0, %36 : tensor<64x64xf32, #mma>"
    scalar = run.negf_as_subf("  %1 = arith.negf %0 : f32").split("\n")
    assert scalar[0] == "  %compat_negz0 = arith.constant -0.000000e+00 : f32"


def test_a_result_is_respelled_and_converted_back():
    text = "a\n    %25 = tt.reshape %17 : tensor<2xi32, #linear> -> tensor<1x2xi32, #blocked2>\nb"
    out = run.respell_result(text, 2, "#ttg.linear<{register = [[0, 1]]}>", 0).split("\n")
    assert out[1] == ("    %compat_rs0 = tt.reshape %17 : tensor<2xi32, #linear> "
                      "-> tensor<1x2xi32, #ttg.linear<{register = [[0, 1]]}>>")
    assert out[2] == ("    %25 = ttg.convert_layout %compat_rs0 : tensor<1x2xi32, "
                      "#ttg.linear<{register = [[0, 1]]}>> -> tensor<1x2xi32, #blocked2>")
    assert out[0] == "a" and out[3] == "b"


def test_retarget_rewrites_the_target_and_the_approximate_division():
    t = 'ttg.target = "cuda:80"\n    %2 = tt.approx_divf %0, %1 : f32'
    out = run.retarget(t, 90)
    assert 'ttg.target = "cuda:90"' in out
    assert "arith.divf %0, %1 : f32" in out and "approx" not in out


def test_reports_read_the_committed_results():
    res = os.path.join(HERE, "results")
    files = [os.path.join(dp, f) for dp, _, fs in os.walk(res) for f in fs if f.endswith(".jsonl")]
    assert files
    for f in files:
        for line in open(f):
            r = json.loads(line)
            assert re.fullmatch(r"\d{3}", r["dir"])
