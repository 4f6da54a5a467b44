#!/usr/bin/env python3
"""Export engine-oracle records as GPU A/B cases: our engine's TTGIR and
Triton 3.9's `ttgir_pre_pipeline` for the same TTIR.

Usage (from the repo root, after `cargo build --release -p linlayout`):

    python3 bench/engine-gpu/export.py crates/layout-engine/tests/data/{sample,seed11,seed23}.jsonl.gz
    python3 bench/engine-gpu/export.py --same-as OLD_cases.json crates/...   # the same records again
    python3 bench/engine-gpu/export.py --all --cases-dir heldout my_corpus.jsonl   # every record of another corpus
    python3 bench/engine-gpu/export.py --objective conversions --same-as OLD_cases.json --cases-dir DIR crates/...   # ours minimising the conversions' cost

Writes `bench/engine-gpu/cases/NNN/{ours,triton}.ttgir` (and the TTIR, `kernel.ttir`) and
`bench/engine-gpu/cases/cases.json` (id, family, params, runtime arguments
in order, num_warps, the model's costs of both assignments). A record is
exported when its family has a launch spec in `run.py` (`SPECS`) and it is
an NVIDIA record; records whose costs differ are all taken, plus up to two
records per family whose costs are equal (controls: the same layouts should
time the same).

Runtime argument names come from the generator's kernel definitions
(`../shared/engine-oracle/gen_engine_oracle.py`, parameters not annotated
`tl.constexpr`); a record whose TTIR has another number of arguments (the
generator made a unit stride a constexpr) is skipped with a message.
"""
import ast
import gzip
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# The generator beside the repository (`../shared/...`), or beside one of
# its parents (a worktree inside the main checkout).
GEN = next(
    (g for g in (os.path.join(ROOT, *[".."] * k, "shared", "engine-oracle", "gen_engine_oracle.py")
                 for k in (1, 2, 3)) if os.path.exists(g)),
    os.path.join(ROOT, "..", "shared", "engine-oracle", "gen_engine_oracle.py"),
)
LINLAYOUT = os.path.join(ROOT, "target", "release", "linlayout")
sys.path.insert(0, HERE)
from specs import SPECS  # noqa: E402

# `--all`: every NVIDIA record with a launch spec (a held-out corpus).
TAKE_ALL = False
# `--objective`: what our engine minimises (`linlayout engine --objective`).
OBJECTIVE = "total"

# Families whose kernels Triton 3.6 cannot take from TTGIR alone, or that
# need host setup a generic launcher does not do.
SKIP = {
    "matmul_tma": "tensor descriptors need a global scratch allocator at launch",
    "histogram": "atomics: outputs depend on the launch order, nothing to compare",
}


def kernel_params():
    """{kernel name: [runtime parameter names in order]} from the generator."""
    tree = ast.parse(open(GEN).read())
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name.endswith("_kernel"):
            names = []
            for a in node.args.args:
                ann = a.annotation
                if ann is not None and "constexpr" in ast.unparse(ann):
                    continue
                names.append(a.arg)
            out[node.name] = names
    return out


def ttir_arg_types(ttir):
    m = re.search(r"tt\.func public @\w+\((.*?)\) attributes", ttir, re.S)
    return re.findall(r"%arg\d+: ([^ ,{]+)", m.group(1))


def engine(ttir, target, warps):
    r = subprocess.run(
        [LINLAYOUT, "engine", "-", "--target", target, "--num-warps", str(warps),
         "--objective", OBJECTIVE],
        input=ttir, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip())
    return r.stdout


def compare(path):
    r = subprocess.run([LINLAYOUT, "engine", "--compare", path, "--json",
                        "--objective", OBJECTIVE],
                       capture_output=True, text=True, check=True)
    return {j["id"]: j for j in map(json.loads, r.stdout.splitlines())}


def main(paths, same_as=None, cases_dir="cases"):
    """Export the records of `paths`; with `same_as` (a previous
    `cases.json`), exactly its records in its order, so that runs before and
    after an engine change compare case by case."""
    keep = None
    if same_as:
        keep = {c["id"]: i for i, c in enumerate(json.load(open(same_as)))}
    params_of = kernel_params()
    cases, per_family_equal = [], {}
    out_dir = os.path.join(HERE, cases_dir)
    os.makedirs(out_dir, exist_ok=True)
    for path in paths:
        costs = compare(path)
        for line in (gzip.open if path.endswith(".gz") else open)(path, "rt"):
            r = json.loads(line)
            fam = r["family"]
            if r["gpu_target"][0] != "cuda" or fam not in SPECS or fam in SKIP:
                continue
            c = costs.get(r["id"])
            if c is None or "error" in c:
                print("skip (engine error):", r["id"], file=sys.stderr)
                continue
            differs = abs(c["ours"]["total"] - c["triton"]["total"]) > 1e-9
            if keep is not None:
                if r["id"] not in keep:
                    continue
            elif not differs and not TAKE_ALL:
                if per_family_equal.get(fam, 0) >= 2:
                    continue
                per_family_equal[fam] = per_family_equal.get(fam, 0) + 1
            names = params_of[r["kernel"]]
            types = ttir_arg_types(r["ttir"])
            if len(names) != len(types):
                print("skip (argument count):", r["id"], names, types, file=sys.stderr)
                continue
            warps = r["options"]["num_warps"]
            try:
                ours = engine(r["ttir"], r["target"], warps)
            except RuntimeError as e:
                print("skip (engine):", r["id"], e, file=sys.stderr)
                continue
            n = len(cases)
            d = os.path.join(out_dir, f"{n:03d}")
            os.makedirs(d, exist_ok=True)
            open(os.path.join(d, "ours.ttgir"), "w").write(ours)
            open(os.path.join(d, "triton.ttgir"), "w").write(r["ttgir_pre_pipeline"])
            open(os.path.join(d, "kernel.ttir"), "w").write(r["ttir"])
            cases.append({
                "dir": f"{n:03d}", "id": r["id"], "corpus": os.path.basename(path),
                "family": fam, "kernel": r["kernel"], "target": r["target"],
                "params": r["params"], "num_warps": warps,
                "num_stages": r["options"].get("num_stages", 3),
                "args": list(zip(names, types)), "differs": differs,
                "model": {"ours": c["ours"], "triton": c["triton"]},
            })
    if keep is not None:
        missing = set(keep) - {c["id"] for c in cases}
        if missing:
            sys.exit(f"records of {same_as} not exported: {sorted(missing)}")
    json.dump(cases, open(os.path.join(out_dir, "cases.json"), "w"), indent=1)
    print(f"{len(cases)} cases in {out_dir}", file=sys.stderr)


if __name__ == "__main__":
    args = sys.argv[1:]
    same, cases_dir = None, "cases"
    if "--all" in args:
        TAKE_ALL = True
        args.remove("--all")
    while args[:1] in (["--same-as"], ["--cases-dir"], ["--objective"]):
        if args[0] == "--same-as":
            same = args[1]
        elif args[0] == "--objective":
            OBJECTIVE = args[1]
        else:
            cases_dir = args[1]
        args = args[2:]
    main(args, same, cases_dir)
