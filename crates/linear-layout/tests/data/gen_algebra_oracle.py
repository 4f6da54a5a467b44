#!/usr/bin/env python3
"""Differential oracle for the algebra: random layouts run through Triton's
own C++ LinearLayout (Triton 3.9, `triton._C.libtriton.linear_layout`).

Writes one JSON record per case to algebra-oracle.jsonl:
  {"id", "op", "a", "b"?, "result" | "aborted": true, "str"?}
where a layout is {"bases": [[in_dim, [[c0, c1, ..], ..]], ..],
"out_dims": [[name, size], ..]}. Ops: "mul" (a * b), "compose"
(a.compose(b)), "invert_and_compose" (a.invert_and_compose(b)),
"pseudoinvert" (a.pseudoinvert()), "invert" (a.invert()), "str" (str(a),
Triton's toString), "mul_shuffled" (a * b with dims in random orders),
"infer" (Triton's size-inferring constructor on a's bases and out names),
"invert_and_compose_sized" (a smaller than b, out dims in another order). Triton aborts the process on some inputs (asserts), so
cases run in a worker process that is restarted after a crash; such cases
are recorded as "aborted".

Usage: python3 gen_algebra_oracle.py [--seed 7] [--count 600] [--out FILE]
Only the installed triton package is called; nothing here is Triton code.
"""

import argparse
import json
import os
import random
import subprocess
import sys

IN_POOL = ["register", "lane", "warp", "block"]
OUT_POOL = ["dim0", "dim1", "dim2"]


def make_basis(rng, logs, earlier):
    total = sum(logs)
    kind = rng.randrange(8)
    if kind == 0 or total == 0:
        return [0] * len(logs)
    if kind in (1, 2, 3):
        bit = rng.randrange(total)
        out = []
        for l in logs:
            out.append(1 << bit if 0 <= bit < l else 0)
            bit -= l
        return out
    if kind == 4 and earlier:
        return list(rng.choice(earlier))
    return [rng.randrange(1 << l) if l else 0 for l in logs]


def pick(rng, pool, max_log, max_total, min_dims=0):
    names = [p for p in pool if rng.random() < 0.6]
    while len(names) < min_dims:
        names = [p for p in pool if rng.random() < 0.6]
    names = [p for p in pool if p in names]
    dims, total = [], 0
    for n in names:
        l = min(rng.randrange(max_log + 1), max_total - total)
        total += l
        dims.append((n, l))
    return dims


def random_layout(rng, ins, outs):
    logs = [l for _, l in outs]
    earlier, bases = [], []
    for name, l in ins:
        bs = []
        for _ in range(l):
            b = make_basis(rng, logs, earlier)
            earlier.append(b)
            bs.append(b)
        bases.append([name, bs])
    return {"bases": bases, "out_dims": [[n, 1 << l] for n, l in outs]}


def evaluate(lay, x):
    """Brute force: XOR of the bases of the set bits of the named input x."""
    out = [0] * len(lay["out_dims"])
    for name, bs in lay["bases"]:
        v = x.get(name, 0)
        for i, b in enumerate(bs):
            if v >> i & 1:
                out = [o ^ c for o, c in zip(out, b)]
    return out


def span(vectors):
    """All XORs of the given tuples (brute force)."""
    sp = {tuple(0 for _ in vectors[0])} if vectors else set()
    for v in vectors:
        sp |= {tuple(a ^ b for a, b in zip(x, v)) for x in sp}
    return sp


def covered(a, b):
    """Whether every basis of a (re-ordered to b's out dims) is in span(b)."""
    bo = [n for n, _ in b["out_dims"]]
    ao = [n for n, _ in a["out_dims"]]
    cols = [tuple(c) for _, bs in b["bases"] for c in bs]
    sp = span(cols) if cols else {tuple(0 for _ in bo)}
    for _, bs in a["bases"]:
        for c in bs:
            v = tuple(c[ao.index(n)] if n in ao else 0 for n in bo)
            if v not in sp:
                return False
    return True


def gen_cases(seed, count):
    rng = random.Random(seed)
    cases = []
    for k in range(count):
        op = ["mul", "compose", "invert_and_compose", "invert_and_compose",
              "pseudoinvert", "invert", "str", "mul_shuffled", "infer",
              "invert_and_compose_sized"][k % 10]
        case = {"id": f"a{seed}-{k:04d}", "op": op}
        if op == "mul":
            case["a"] = random_layout(rng, pick(rng, IN_POOL, 3, 7), pick(rng, OUT_POOL, 3, 6))
            case["b"] = random_layout(rng, pick(rng, IN_POOL, 3, 7), pick(rng, OUT_POOL, 3, 6))
        elif op == "mul_shuffled":
            # Dims in random orders: exercises the supremum's tie-breaking
            # (and, when the orders disagree, its failure).
            for key in ("a", "b"):
                ins = pick(rng, IN_POOL, 2, 6)
                outs = pick(rng, OUT_POOL, 2, 5)
                rng.shuffle(ins)
                rng.shuffle(outs)
                case[key] = random_layout(rng, ins, outs)
        elif op == "invert_and_compose_sized":
            # this (a) has smaller out sizes than outer (b), in another out
            # dim order; kept only when b's image covers a's.
            while True:
                outs = pick(rng, OUT_POOL, 4, 8, 1)
                b = random_layout(rng, pick(rng, IN_POOL, 4, 12, 1), outs)
                small = [(n, rng.randrange(l + 1)) for n, l in outs]
                rng.shuffle(small)
                a = random_layout(rng, pick(rng, IN_POOL, 3, 8), small)
                if covered(a, b):
                    break
            case["a"], case["b"] = a, b
        elif op == "infer":
            # Triton's inferring constructor (out sizes from the largest
            # components; surjectivity required, else Triton aborts).
            case["a"] = random_layout(rng, pick(rng, IN_POOL, 4, 10), pick(rng, OUT_POOL, 3, 6))
        elif op == "compose":
            outs = pick(rng, OUT_POOL, 3, 8, 1)
            a = random_layout(rng, pick(rng, IN_POOL, 4, 10), outs)
            mids = [(n, l + rng.randrange(2)) for n, l in reversed(outs)]
            b = random_layout(rng, mids, pick(rng, ["x", "y", "z"], 4, 10, 1))
            case["a"], case["b"] = a, b
        elif op == "invert_and_compose":
            # outer b random; a = X o b (covered), some dims shared with b.
            outs = pick(rng, OUT_POOL, 4, 9, 1)
            b = random_layout(rng, pick(rng, IN_POOL, 4, 12, 1), outs)
            a_bases = []
            for name, l in pick(rng, IN_POOL, 4, 10):
                same = [bs for n, bs in b["bases"] if n == name]
                if same and rng.random() < 0.5:
                    a_bases.append([name, [list(x) for x in same[0]]])
                    continue
                bs = []
                for _ in range(l):
                    if rng.random() < 0.15:
                        bs.append([0] * len(outs))
                        continue
                    x = {n: rng.randrange(1 << len(v)) for n, v in b["bases"]}
                    bs.append(evaluate(b, x))
                a_bases.append([name, bs])
            case["a"] = {"bases": a_bases, "out_dims": b["out_dims"]}
            case["b"] = b
        elif op in ("pseudoinvert", "invert"):
            outs = pick(rng, OUT_POOL, 4, 8, 1)
            total = sum(l for _, l in outs)
            if op == "invert":
                # Square: as many input bits as output bits.
                ins, left = [], total
                for n in IN_POOL:
                    l = min(left, rng.randrange(total + 1))
                    if n == IN_POOL[-1]:
                        l = left
                    ins.append((n, l))
                    left -= l
            else:
                ins = pick(rng, IN_POOL, 5, 12, 1)
            case["a"] = random_layout(rng, ins, outs)
        else:
            case["a"] = random_layout(rng, pick(rng, IN_POOL, 3, 8), pick(rng, OUT_POOL, 3, 6))
        cases.append(case)
    return cases


def to_triton(L, lay):
    return L.from_bases(
        [(n, bs) for n, bs in lay["bases"]],
        [n for n, _ in lay["out_dims"]],
        [s for _, s in lay["out_dims"]],
        False,
    )


def from_triton(ll):
    return {"bases": [[n, bs] for n, bs in ll.bases], "out_dims": [[n, s] for n, s in ll.out_dims]}


def worker(path, start):
    import triton._C.libtriton as lt

    L = lt.linear_layout.LinearLayout
    cases = json.load(open(path))
    for case in cases[start:]:
        op, a = case["op"], to_triton(L, case["a"])
        rec = dict(case)
        if op == "str":
            rec["str"] = str(a)
        elif op == "infer":
            r = L.from_bases([(n, bs) for n, bs in case["a"]["bases"]],
                             [n for n, _ in case["a"]["out_dims"]])
            rec["result"] = from_triton(r)
        elif op == "pseudoinvert":
            if not a.is_surjective():
                rec["skipped"] = "not surjective"
            else:
                rec["result"] = from_triton(a.pseudoinvert())
        elif op == "invert":
            if not a.is_invertible():
                rec["skipped"] = "not invertible"
            else:
                rec["result"] = from_triton(a.invert())
        else:
            b = to_triton(L, case["b"])
            r = {"mul": lambda: a * b, "mul_shuffled": lambda: a * b,
                 "compose": lambda: a.compose(b),
                 "invert_and_compose": lambda: a.invert_and_compose(b),
                 "invert_and_compose_sized": lambda: a.invert_and_compose(b)}[op]()
            rec["result"] = from_triton(r)
            rec["str"] = str(r)
        print(json.dumps(rec), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "algebra-oracle.jsonl"))
    ap.add_argument("--worker", nargs=2)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker[0], int(args.worker[1]))
        return
    cases = gen_cases(args.seed, args.count)
    tmp = args.out + ".cases.json"
    json.dump(cases, open(tmp, "w"))
    out, start = [], 0
    while start < len(cases):
        p = subprocess.run([sys.executable, __file__, "--worker", tmp, str(start)],
                           capture_output=True, text=True)
        lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
        out.extend(lines)
        start += len(lines)
        if p.returncode != 0 and start < len(cases):
            rec = dict(cases[start])
            rec["aborted"] = True
            first = (p.stderr.strip().splitlines() or [""])[0]
            rec["abort_message"] = first[:300]
            out.append(json.dumps(rec))
            start += 1
    os.remove(tmp)
    with open(args.out, "w") as f:
        for l in out:
            f.write(l + "\n")
    n_abort = sum('"aborted": true' in l for l in out)
    print(f"{len(out)} records, {n_abort} aborted -> {args.out}")


if __name__ == "__main__":
    main()
