"""Builds the results table (markdown) from one GPU run's output folder."""
import csv
import io
import json
import math
import sys

out = sys.argv[1]
all_cases = json.load(open("bench/gpu/generated/cases.json"))
# Gather cases (kind "gather") have their own table (Figure 6) at the end.
cases = {c["name"]: c for c in all_cases if c.get("kind") != "gather"}  # held-out pairs included
ours = {}
for line in open(f"{out}/ours.jsonl"):
    line = line.strip()
    if line.startswith("{"):
        r = json.loads(line)
        ours[r["case"]] = r
try:
    triton = {r["case"]: r for r in json.load(open(f"{out}/triton.json"))}
except Exception:
    triton = {}
ptxas = {}
try:
    for line in open(f"{out}/ptxas.txt"):
        parts = line.split(" ", 1)
        if len(parts) == 2:
            ptxas[parts[0]] = parts[1].strip().replace("Used ", "").replace(" bytes spill stores", " B spilled")
except Exception:
    pass
ncu = {}
cur = None
rows = []
for line in open(f"{out}/ncu.txt"):
    if line.startswith("== "):
        cur = line[3:].strip()
        ncu[cur] = {}
        continue
    if cur and line.startswith('"'):
        rows = list(csv.reader(io.StringIO(line)))[0]
        # columns: ... "Metric Name","Metric Unit","Metric Value"
        if len(rows) >= 3 and rows[-3].startswith("l1tex"):
            ncu[cur][rows[-3]] = float(rows[-1].replace(",", ""))


def ncu_sum(name, what):
    """ncu's `what` ("wavefronts" / "conflicts") of one iteration of the
    loop: the R = 2 count minus the R = 1 count where the run profiled both
    (runs since 2026-11-21), else the R = 1 count; None when not profiled."""
    one, two = ncu.get(name), ncu.get(f"{name} R=2")
    if not one:
        return None
    s1 = sum(v for k, v in one.items() if what in k)
    return sum(v for k, v in two.items() if what in k) - s1 if two else s1


def predicted(c):
    tot = 0
    for k in ("predicted_fwd", "predicted_bwd"):
        p = c.get(k)
        if p:
            tot += p["st_wavefronts"] + p["ld_wavefronts"]
    return tot


def units(c):
    """Predicted wavefronts plus, for partial plans, their staying shuffles
    (a warp-wide 32-bit shfl.sync moves 128 B through the same crossbar):
    what the throughput column divides by the time."""
    tot = predicted(c)
    if c.get("path_fwd") == "partial":
        for k in ("predicted_fwd", "predicted_bwd"):
            tot += (c.get(k) or {}).get("shuffles", 0)
    return tot


def tri_class(p):
    if not p:
        return "?"
    if p.get("shfl.sync"):
        return "shuffle"
    if p.get("st.shared") or p.get("stmatrix") or p.get("ld.shared") or p.get("ldmatrix"):
        return "shared" + (" (ldmatrix/stmatrix)" if p.get("stmatrix") or p.get("ldmatrix") else "")
    return "registers"


try:
    ceiling = json.load(open(f"{out}/ceiling.json"))["smem_ceiling_TBps"]
except Exception:
    ceiling = None
print(f"Shared-memory ceiling (conflict-free 16-byte st+ld microbenchmark): {ceiling} TB/s\n")
print("| case | ours: path | ours µs/cvt | Triton path (PTX) | Triton µs/cvt | Triton/ours | predicted wavefronts (R=1, 1 tile) | ncu wavefronts (one iteration) | ncu conflicts (one iteration) | ours smem throughput TB/s = units×128 B/time (% of ceiling); units = wavefronts, + shuffles for partial plans | correct (ours, Triton) | ours: registers, spills |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
ratios = []
for name, c in cases.items():
    o = ours.get(name, {})
    t = triton.get(name, {})
    n = ncu.get(name, {})
    ncu_w, ncu_c = ncu_sum(name, "wavefronts"), ncu_sum(name, "conflicts")
    ou, tu = o.get("per_cvt_us"), t.get("per_cvt_us")
    ratio = (tu / ou) if (ou and tu and ou > 0.05 and tu > 0.05) else None
    if ratio:
        ratios.append(ratio)
    bw = None
    if ou and ou > 0.05 and units(c):
        # units of one conversion (half of fwd+bwd) × 128 B × tiles / time
        bw = units(c) / 2 * 128 * c["tiles"] / (ou * 1e-6) / 1e12
    bws = "—" if bw is None else (f"{bw:.1f} ({100 * bw / ceiling:.0f}%)" if ceiling else f"{bw:.1f}")
    fmt = lambda x: "—" if x is None else (f"{x:.3f}" if isinstance(x, float) else str(x))
    print(f"| {name} | {c['path_fwd']}/{c['path_bwd']} | {fmt(ou)} | {tri_class(t.get('ptx'))} | {fmt(tu)} | {fmt(ratio)} | {predicted(c)} | {fmt(ncu_w)} | {fmt(ncu_c)} | {bws} | {o.get('ok', o.get('error'))}, {t.get('ok', t.get('error', '—'))} | {ptxas.get(name, '—')} |")
if ratios:
    g = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"\nGeometric-mean speed-up of ours over Triton (Triton time / ours): {g:.3f} over {len(ratios)} cases")

# Ours as the planner chooses before any timing (`chosen` in cases.json:
# the program of each pair that runs layout_codegen::planner::plan's answer,
# recorded as `planner_choice`: the partial program, the stmatrix/ldmatrix
# `_mx` one, or the whole-CTA one), against Triton on the same layouts. Forced variants (`_smem`, `_full`) are
# comparisons, not choices, and are left out.
bases = [n for n in cases if not n.endswith(("_mx", "_smem", "_full", "_branch", "_partial", "_transposed"))]
if bases:
    print("\n| case | planner's choice | its path | ours µs/cvt | Triton µs/cvt | Triton / ours | faster variant measured |")
    print("|---|---|---|---|---|---|---|")
    chosen_ratios = []
    held_ratios = []
    for b in bases:
        variants = [v for v in (b, b + "_mx", b + "_full", b + "_partial", b + "_transposed") if v in cases]
        pick = next((v for v in variants if cases[v].get("chosen", True)), b)
        ou = ours.get(pick, {}).get("per_cvt_us")
        tu = triton.get(b, {}).get("per_cvt_us")
        ratio = (tu / ou) if (ou and tu and ou > 0.05 and tu > 0.05) else None
        if ratio:
            (held_ratios if cases[b].get("held_out") else chosen_ratios).append((ratio, b))
        timed = [(ours[v]["per_cvt_us"], v) for v in variants if ours.get(v, {}).get("per_cvt_us")]
        fastest = min(timed)[1] if timed else "—"
        fmt = lambda x: "—" if x is None else f"{x:.3f}"
        c = cases[pick]
        held = " (held out)" if cases[b].get("held_out") else ""
        print(f"| {b}{held} | {pick} | {c['path_fwd']}/{c['path_bwd']} | {fmt(ou)} | {fmt(tu)} | {fmt(ratio)} | {fastest} |")
    for label, rs in (("suite", chosen_ratios), ("held-out pairs", held_ratios)):
        if rs:
            g = math.exp(sum(math.log(r) for r, _ in rs) / len(rs))
            slower = sum(1 for r, _ in rs if r < 0.95)
            lo = min(rs)
            print(f"\nPlanner's choice, {label}: geometric-mean speed-up over Triton {g:.3f} over {len(rs)} cases; min {lo[0]:.3f} ({lo[1]}); slower than Triton beyond noise (ratio < 0.95) on {slower}")

# The partial cross-warp class: only elements that leave their warp go
# through shared memory; `partial_X_full` is the same conversion by the full
# shared-memory plan through the same shared layout.
partials = [n for n in cases if cases[n].get("full_twin") in cases and cases[n].get("warp_specialised", True)]
if partials:
    print("\n| partial cross-warp conversion | predicted wavefronts partial / full (R=1, 1 tile) | ncu wavefronts partial / full | partial µs/cvt | full µs/cvt | speed-up over full | Triton µs/cvt | Triton / partial |")
    print("|---|---|---|---|---|---|---|---|")
    for a in partials:
        b = cases[a]["full_twin"]
        ta, tb = ours.get(a, {}).get("per_cvt_us"), ours.get(b, {}).get("per_cvt_us")
        tt = triton.get(a, {}).get("per_cvt_us") or triton.get(b, {}).get("per_cvt_us")
        nw = lambda n: ncu_sum(n, "wavefronts")
        f = lambda x: "—" if x is None else (f"{x:.3f}" if isinstance(x, float) else str(x))
        s1 = f"{tb / ta:.2f}×" if ta and tb else "—"
        s2 = f"{tt / ta:.2f}" if ta and tt else "—"
        print(f"| {a} | {predicted(cases[a])} / {predicted(cases[b])} | {f(nw(a))} / {f(nw(b))} | {f(ta)} | {f(tb)} | {s1} | {f(tt)} | {s2} |")

# The paper's Figure 5: the same conversion by warp shuffles vs through
# shared memory (both ours).
pairs = [(n, n + "_smem") for n in cases if n + "_smem" in cases]
if pairs:
    print("\n| conversion (Figure 5) | warp shuffles µs/cvt | shared memory µs/cvt | speed-up of shuffles |")
    print("|---|---|---|---|")
    for a, b in pairs:
        ta, tb = ours.get(a, {}).get("per_cvt_us"), ours.get(b, {}).get("per_cvt_us")
        if ta and tb:
            print(f"| {a} | {ta:.3f} | {tb:.3f} | {tb / ta:.2f}× |")

# The paper's Figure 6: gather by warp shuffles vs through shared memory
# (both ours), and vs Triton's gl.gather on the same layout, tile and R.
gathers = [c for c in all_cases if c.get("kind") == "gather" and c.get("variant") == "shfl"]
if gathers:
    try:
        tg = {r["case"]: r for r in json.load(open(f"{out}/triton_gather.json"))}
    except Exception:
        tg = {}

    def tg_path(p):
        if not p:
            return "?"
        if p.get("shfl.sync"):
            return f"shuffle ({p['shfl.sync']} shfl)"
        return "shared"

    print("\n| gather (Figure 6) | shape, bits, axis | candidates/reg, shfl+selp per thread | shuffles µs/gather | shared memory µs/gather | speed-up of shuffles | Triton path (PTX) | Triton µs/gather | speed-up of shuffles vs Triton | correct (shfl, smem, Triton) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    vs_smem, vs_tri = [], []
    for c in gathers:
        base = c["base"]
        a = ours.get(base + "_shfl", {})
        b = ours.get(base + "_smem", {})
        t = tg.get(base, {})
        ta, tb, tt = a.get("per_gather_us"), b.get("per_gather_us"), t.get("per_gather_us")
        s1 = tb / ta if ta and tb and ta > 0 and tb > 0 else None
        s2 = tt / ta if ta and tt and ta > 0 and tt > 0 else None
        if s1:
            vs_smem.append(s1)
        if s2:
            vs_tri.append(s2)
        f = lambda x: "—" if x is None else f"{x:.3f}"
        g = lambda x: "—" if x is None else f"{x:.2f}×"
        print(f"| {base} | {c['shape']}, {c['bits']}, {c['axis']} | {c['candidates']}, {c['shuffles']}+{c['selects']} | {f(ta)} | {f(tb)} | {g(s1)} | {tg_path(t.get('ptx'))} | {f(tt)} | {g(s2)} | {a.get('ok', a.get('error'))}, {b.get('ok', b.get('error'))}, {t.get('ok', t.get('error', '—'))} |")
    for label, xs in (("shuffles over shared memory", vs_smem), ("shuffles over Triton", vs_tri)):
        if xs:
            gm = math.exp(sum(math.log(x) for x in xs) / len(xs))
            print(f"\nGather: geometric-mean speed-up of {label}: {gm:.3f} over {len(xs)} cases")

    # The planner's choice between the two lowerings (made from predictions
    # only: layout_codegen::gather_cost, "chosen" in cases.json) vs Triton.
    if any("chosen" in c for c in all_cases if c.get("kind") == "gather"):
        print("\n| gather | predicted cycles/warp shuffles, shared memory | planner's choice | ours µs/gather | Triton µs/gather | Triton / ours | faster variant measured |")
        print("|---|---|---|---|---|---|---|")
        chosen_vs_tri = []
        for c in gathers:
            base = c["base"]
            sm = next((x for x in all_cases if x.get("name") == base + "_smem"), {})
            pick = "shfl" if c.get("chosen") else "smem"
            a = ours.get(f"{base}_{pick}", {})
            t = tg.get(base, {})
            ta, tt = a.get("per_gather_us"), t.get("per_gather_us")
            s = tt / ta if ta and tt and ta > 0 and tt > 0 else None
            if s:
                chosen_vs_tri.append(s)
            times = {v: ours.get(f"{base}_{v}", {}).get("per_gather_us") for v in ("shfl", "smem")}
            faster = min((v for v in times if times[v]), key=lambda v: times[v], default="?")
            f = lambda x: "—" if x is None else f"{x:.3f}"
            pc = lambda x: "—" if x is None else f"{x:.0f}"
            print(f"| {base} | {pc(c.get('predicted_cycles'))}, {pc(sm.get('predicted_cycles'))} | {pick} | {f(ta)} | {f(tt)} | {'—' if s is None else f'{s:.2f}×'} | {faster} |")
        if chosen_vs_tri:
            gm = math.exp(sum(math.log(x) for x in chosen_vs_tri) / len(chosen_vs_tri))
            print(f"\nGather, planner's choice: geometric-mean speed-up over Triton's gl.gather {gm:.3f} over {len(chosen_vs_tri)} cases")

# The cudarc runner (crates/gpu-run: NVRTC + driver API) on the same
# programs, in the same call: its check of every element and its timing
# next to the nvcc-built program's.
try:
    rt = {}
    for line in open(f"{out}/cudarc.jsonl"):
        if line.strip().startswith("{"):
            r = json.loads(line)
            rt[r["case"]] = r
except OSError:
    rt = None
if rt:
    print("\n| case | nvcc program µs | cudarc runner µs | runner / program | registers (runner) | correct (program, runner) |")
    print("|---|---|---|---|---|---|")
    ratios = []
    for name in [c["name"] for c in all_cases]:
        a, b = ours.get(name, {}), rt.get(name, {})
        key = "per_gather_us" if "per_gather_us" in a or "per_gather_us" in b else "per_cvt_us"
        ta, tb = a.get(key), b.get(key)
        q = tb / ta if ta and tb and ta > 0.05 and tb > 0 else None
        if q:
            ratios.append(q)
        f = lambda x: "—" if x is None else f"{x:.3f}"
        print(f"| {name} | {f(ta)} | {f(tb)} | {'—' if q is None else f'{q:.3f}'} | {b.get('registers', '—')} | {a.get('ok', b.get('error', '—'))}, {b.get('ok', b.get('error', '—'))} |")
    if ratios:
        gm = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        ok = sum(1 for r in rt.values() if r.get("ok") is True)
        print(f"\ncudarc runner: {ok} of {len(rt)} cases correct; geometric-mean time ratio runner / nvcc program {gm:.3f} over {len(ratios)} cases (above 0.05 µs)")
