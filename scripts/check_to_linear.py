#!/usr/bin/env python3
"""Runs `linlayout to-linear --json` on every layout record of Triton oracle
files and compares with Triton's `linear` bases (and shape), the way the
held-out set is judged. Rejected records (from *-rejects.jsonl) must exit 2.

    python3 scripts/check_to_linear.py [--bin target/release/linlayout] FILE.jsonl...
"""
import argparse
import collections
import json
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/linlayout")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    counts = collections.defaultdict(lambda: [0, 0])
    failures = []
    for path in a.files:
        for line in open(path):
            rec = json.loads(line)
            if "linear" not in rec or "mlir" not in rec:
                continue
            kind = rec.get("kind", "?")
            shape = "x".join(str(s) for s in rec["shape"])
            args = [a.bin, "to-linear", "--shape", shape, "--json"]
            tpw = rec.get("module_attrs", {}).get("ttg.threads-per-warp")
            if tpw:
                args += ["--threads-per-warp", str(tpw)]
            p = subprocess.run(args + [rec["mlir"]], capture_output=True, text=True)
            ok = False
            if p.returncode == 0:
                try:
                    got = json.loads(p.stdout)
                    got.pop("shape", None)
                    want = rec["linear"]
                    ok = got == want
                except json.JSONDecodeError:
                    ok = False
            counts[kind][0 if ok else 1] += 1
            if not ok:
                failures.append((rec.get("id"), kind, p.returncode, p.stderr.strip()[:200], p.stdout[:200]))
    total_ok = sum(c[0] for c in counts.values())
    total = sum(c[0] + c[1] for c in counts.values())
    for k in sorted(counts):
        print(f"{k:28} {counts[k][0]:5} pass {counts[k][1]:4} fail")
    print(f"TOTAL {total_ok}/{total}")
    for f in failures[:20]:
        print("FAIL", f)
    return 0 if total_ok == total else 1


if __name__ == "__main__":
    sys.exit(main())
