#!/usr/bin/env python3
"""Runs `linlayout bank-conflicts` and `linlayout convert --json` on Triton
oracle records and compares with Triton's answers (bank-conflict counts;
`is_convert_layout_trivial` ⇔ our kind is noop or register).

    python3 scripts/check_codegen_cli.py [--bin target/release/linlayout] FILE.jsonl...
"""
import argparse
import json
import subprocess
import sys


def run(args):
    return subprocess.run(args, capture_output=True, text=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/linlayout")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    ok = bad = 0
    fails = []
    for path in a.files:
        for line in open(path):
            r = json.loads(line)
            shape = "x".join(str(s) for s in r.get("shape", []))
            if "conflicts" in r and "reg" in r:
                p = run([a.bin, "bank-conflicts", "--shape", shape, "--bitwidth", str(r["bitwidth"]),
                         r["reg"]["mlir"], r["shared"]["mlir"]])
                good = p.returncode == 0 and p.stdout.strip() == str(r["conflicts"])
                what = ("bank", r.get("id"), r["conflicts"], p.stdout.strip(), p.stderr.strip()[:150])
            elif "trivial" in r and "src" in r:
                dtype = {8: "i8", 16: "f16", 32: "f32", 64: "f64"}[r.get("elem_bitwidth", 16)]
                p = run([a.bin, "convert", "--shape", shape, "--dtype", dtype, "--json",
                         r["src"]["mlir"], r["dst"]["mlir"]])
                try:
                    kind = json.loads(p.stdout)["kind"]
                except Exception:
                    kind = None
                good = p.returncode == 0 and (kind in ("noop", "register")) == r["trivial"]
                what = ("cvt", r.get("id"), r["trivial"], kind, p.stderr.strip()[:150])
            else:
                continue
            if good:
                ok += 1
            else:
                bad += 1
                fails.append(what)
    print(f"TOTAL {ok}/{ok + bad}")
    for f in fails[:20]:
        print("FAIL", f)
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
