#!/usr/bin/env python3
"""Does Triton's own MLIR parser accept the engine's TTGIR?

For every record of the given engine-oracle JSONL files, run
`linlayout engine RECORD.ttir --target T --num-warps N` (the TTGIR the
engine prints, conversion comments at the end) and parse the text with
Triton 3.9's `triton._C.libtriton.ir.parse_mlir_module` (which also runs
the ops' verifiers). Prints one line per rejected record and a summary.

Not part of CI (it needs `pip install triton==3.9.0`):

    python3 -m venv crates/layout-engine/.venv
    crates/layout-engine/.venv/bin/pip install triton==3.9.0
    cargo build -p linlayout
    crates/layout-engine/.venv/bin/python crates/layout-engine/tools/triton_parse.py \
        crates/layout-engine/tests/data/*.jsonl
"""
import json
import os
import subprocess
import sys
import tempfile

from triton._C.libtriton import ir

LINLAYOUT = os.environ.get("LINLAYOUT", "target/debug/linlayout")


def main(paths):
    ok = bad = failed = 0
    reasons = {}
    with tempfile.TemporaryDirectory() as tmp:
        for path in paths:
            for line in open(path):
                if not line.strip():
                    continue
                r = json.loads(line)
                src = os.path.join(tmp, "k.ttir")
                with open(src, "w") as f:
                    f.write(r["ttir"])
                run = subprocess.run(
                    [LINLAYOUT, "engine", src, "--target", r["target"],
                     "--num-warps", str(r["options"]["num_warps"])],
                    capture_output=True, text=True)
                if run.returncode != 0:
                    failed += 1
                    print(f"ENGINE {r['id']}: {run.stderr.strip()}")
                    continue
                out = os.path.join(tmp, "k.ttgir")
                with open(out, "w") as f:
                    f.write(run.stdout)
                ctx = ir.context()
                ir.load_dialects(ctx)
                try:
                    ir.parse_mlir_module(out, ctx)
                    ok += 1
                except Exception as e:  # the parser's diagnostic
                    bad += 1
                    msg = str(e).strip().splitlines()
                    first = msg[0] if msg else "?"
                    reasons.setdefault(first[:120], []).append(r["id"])
                    print(f"REJECTED {r['id']}: {first[:300]}")
    print(f"accepted {ok}, rejected {bad}, engine errors {failed}")
    for k, v in sorted(reasons.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(v):4d}  {k}")


if __name__ == "__main__":
    main(sys.argv[1:])
