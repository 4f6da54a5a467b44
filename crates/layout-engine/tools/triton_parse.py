#!/usr/bin/env python3
"""Does Triton's own MLIR parser accept the engine's TTGIR?

For every record of the given engine-oracle JSONL files, run
`linlayout engine RECORD.ttir --target T --num-warps N` (the TTGIR the
engine prints, conversion comments at the end) and parse the text with
Triton 3.9's `triton._C.libtriton.ir.parse_mlir_module` (which also runs
the ops' verifiers). Prints one line per rejected record and a summary.

Not part of CI (it needs `pip install triton==3.9.0`):

    python3 -m venv /tmp/venv-triton
    /tmp/venv-triton/bin/pip install triton==3.9.0
    cargo build -p linlayout
    /tmp/venv-triton/bin/python crates/layout-engine/tools/triton_parse.py \
        crates/layout-engine/tests/data/*.jsonl.gz

The parser writes its diagnostics to the process's stderr (file
descriptor 2, not the Python exception): they are caught in a file and the
first `error:` line is the reason reported.
"""
import gzip
import json
import os
import subprocess
import sys
import tempfile

from triton._C.libtriton import ir

LINLAYOUT = os.environ.get("LINLAYOUT", "target/debug/linlayout")


def parse(path, ctx, err_path):
    """Parses `path`; returns (what the parser wrote to stderr, the
    exception or None)."""
    sys.stderr.flush()
    saved = os.dup(2)
    with open(err_path, "w") as f:
        os.dup2(f.fileno(), 2)
        try:
            ir.parse_mlir_module(path, ctx)
            e = None
        except Exception as x:  # the parser failed; its reason is on fd 2
            e = x
        finally:
            os.dup2(saved, 2)
            os.close(saved)
    with open(err_path) as f:
        return f.read(), e


def reason(msg):
    """A diagnostic without its types (so that alike errors group)."""
    return msg.split(" '", 1)[0][:120] if msg.startswith("'") is False else \
        " ".join(w for w in msg.split() if not w.startswith("'tensor"))[:120]


def main(paths):
    ok = bad = failed = 0
    reasons = {}
    with tempfile.TemporaryDirectory() as tmp:
        for path in paths:
            for line in (gzip.open if path.endswith(".gz") else open)(path, "rt"):
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
                err, e = parse(out, ctx, os.path.join(tmp, "k.err"))
                if e is None:
                    ok += 1
                    continue
                bad += 1
                lines = [x for x in err.splitlines() if "error:" in x]
                first = lines[0].split("error:", 1)[1].strip() if lines else str(e)
                where = lines[0].split(": error:", 1)[0] if lines else ""
                where = where.rsplit(":", 2)[-2] if where.count(":") >= 2 else "?"
                reasons.setdefault(reason(first), []).append(r["id"])
                print(f"REJECTED {r['id']} (line {where}): {first[:400]}")
    print(f"accepted {ok}, rejected {bad}, engine errors {failed}")
    for k, v in sorted(reasons.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(v):4d}  {k}")


if __name__ == "__main__":
    main(sys.argv[1:])
