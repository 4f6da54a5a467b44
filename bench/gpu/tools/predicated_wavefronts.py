"""Pairs predicated_wavefronts.cu's configurations with ncu's rows and writes
one table row per access: op, width, scheme, mask, ncu's wavefronts per
access, and two candidate rules' predictions:

* ``phases``: the counter's rule for guarded accesses (layout_codegen::wavefront)
  (phases of consecutive lanes cut from all 32 lanes, ``max(1, 32 w / 128)``
  of them; a phase costs the most distinct words of one bank among its
  active lanes; empty phases are not issued);
* ``merged``: the active lanes taken together, as one 32-bit access of all
  lanes is: the most distinct 4-byte words of one bank among the words the
  active lanes touch (at least 1).

    python3 predicated_wavefronts.py configs.txt ncu.csv > table.tsv
"""

import csv
import sys
from collections import Counter


def words(start, width):
    return range(start // 4, (start + width + 3) // 4)


def per_bank(starts, width):
    c = Counter(w % 32 for w in {w for s in starts for w in words(s, width)})
    return max(c.values(), default=1)


def phases(addr, mask, width):
    n = max(1, 32 * width // 128)
    per = 32 // n
    total = 0
    for p in range(n):
        act = [addr[l] for l in range(p * per, (p + 1) * per) if mask >> l & 1]
        if act:
            total += per_bank(act, width)
    return total


def merged(addr, mask, width):
    act = [addr[l] for l in range(32) if mask >> l & 1]
    return per_bank(act, width) if act else 0


def main():
    configs = [line.split() for line in open(sys.argv[1]) if line.strip()]
    rows = [r for r in csv.reader(open(sys.argv[2])) if len(r) > 10 and r[0].isdigit()]
    # ncu prints one row per (launch, metric); keep the metric of the op.
    by_launch = {}
    for r in rows:
        launch, metric, value = int(r[0]), r[-3], r[-1]
        by_launch.setdefault(launch, {})[metric] = float(value.replace(",", ""))
    launches = [by_launch[k] for k in sorted(by_launch)]
    if len(launches) != len(configs):
        sys.exit(f"{len(launches)} ncu launches, {len(configs)} configurations")
    print("op\tbytes\tscheme\tmask\tncu\tphases\tmerged")
    for c, m in zip(configs, launches):
        op, width, scheme, mask = c[0], int(c[1]), c[2], int(c[3], 16)
        addr = [int(x) for x in c[4:36]]
        key = f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum"
        got = m[key]
        print(f"{op}\t{width}\t{scheme}\t{c[3]}\t{got:g}\t{phases(addr, mask, width)}\t{merged(addr, mask, width)}")


if __name__ == "__main__":
    main()
