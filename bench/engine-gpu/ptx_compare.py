#!/usr/bin/env python3
"""Compare the two assignments of one case as the GPU would get them (CPU only).

Compiles `triton.ttgir` and `ours.ttgir` of a case through `run.py`'s road
(`compile_one`: the same rewrites, fence insertion on sm90, Triton's
lowering), then prints per assignment the shared memory, the PTX opcode
counts (those whose name starts with one of `--ops`) and what `ptxas -v`
reports for `sm_90a` (registers, spill stores and loads), with the
`ptxas` that Triton ships. `README.md`'s "Known limits" were measured so:

    python3 bench/engine-gpu/ptx_compare.py --cases heldout 055
    python3 bench/engine-gpu/ptx_compare.py 073 --ops mma,ldmatrix,bar.sync
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")


def opcodes(ptx):
    ops = collections.Counter()
    for line in ptx.splitlines():
        s = line.strip()
        if not s or s.startswith(("//", ".", "{", "}", "$", ")")) or s.endswith(":"):
            continue
        s = re.sub(r"^@!?%p\d+\s+", "", s)
        ops[s.split()[0].rstrip(";")] += 1
    return ops


def ptxas_info(ptx):
    """Registers and spills from `ptxas -v`. PTX of a newer ISA version than
    the shipped ptxas reads (Triton 3.9 writes 9.4, its ptxas 12.9 reads up
    to 8.8) is assembled once more with the version it names, as these
    kernels use nothing newer; the result says so."""
    import triton
    ptxas = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "ptxas")

    def assemble(text):
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "k.ptx")
            with open(src, "w") as f:
                f.write(text)
            out = subprocess.run([ptxas, "-arch=sm_90a", "-v", src, "-o", os.path.join(d, "k.cubin")],
                                 capture_output=True, text=True)
        return out.stdout + out.stderr

    text = assemble(ptx)
    older = re.search(r"Unsupported \.version [0-9.]+; current version is '([0-9.]+)'", text)
    if older:
        text = assemble(re.sub(r"^\.version [0-9.]+", f".version {older.group(1)}", ptx, flags=re.M))
        print(f"  (ptxas reads PTX up to {older.group(1)}: assembled with that version)")
    regs = re.search(r"Used (\d+) registers", text)
    spill = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", text)
    return (int(regs.group(1)) if regs else None,
            tuple(int(x) for x in spill.groups()) if spill else None)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case", help="the case directory, e.g. 073")
    ap.add_argument("--cases", default="cases", help="the cases directory (default: cases)")
    ap.add_argument("--ops", default="mma,ldmatrix,stmatrix,st.shared,ld.shared,bar.sync,shfl,cvt",
                    help="comma-separated opcode prefixes to list")
    a = ap.parse_args()
    import run
    run.CASES = a.cases
    cases = {c["dir"]: c for c in json.load(open(os.path.join(HERE, a.cases, "cases.json")))}
    case = cases[a.case]
    print(case["id"])
    prefixes = a.ops.split(",")
    for which in ("triton_pre", "ours"):
        k = run.compile_one(case, which, 90, True)
        ptx = k.asm["ptx"]
        ops = opcodes(ptx)
        regs, spill = ptxas_info(ptx)
        print(f"{which}: shared {k.metadata.shared} B, {sum(ops.values())} PTX instructions, "
              f"{regs} registers, spill stores/loads {spill} B")
        for o, n in sorted(ops.items(), key=lambda x: -x[1]):
            if any(o.startswith(p) for p in prefixes):
                print(f"  {o} {n}")


if __name__ == "__main__":
    main()
