#!/usr/bin/env python3
"""Run our engine's layout assignment and Triton's on the GPU, same kernel.

For every case of `cases/cases.json` (made by `export.py`) this compiles
three kernels with the installed Triton:

* `triton_pre`: Triton 3.9's layout assignment (`ttgir_pre_pipeline`),
* `ours`: our engine's assignment of the same TTIR,
* `triton_full`: the TTIR through the installed Triton's whole pipeline
  (its own layouts, software pipelining and later passes; context only),

then launches each on the same inputs (`specs.py`), checks that `ours`
writes the same outputs as `triton_pre` (`same`: bit-identical integers,
floats within 1e-2 relative norm: a layout changes a reduction's order),
and times them interleaved (`time_kernels`: CUDA graphs of `--iters`
launches, median of `--reps` replays). `triton_pre` and `ours` take the same road from TTGIR to the
GPU (Triton's lowering, no pipelining), so their ratio is the layouts'.
sm80 records are compiled for the GPU at hand (`ttg.target` rewritten to
the device's), with their mma v2 layouts kept.

    python3 bench/engine-gpu/run.py --out results.jsonl            # on the GPU
    python3 bench/engine-gpu/run.py --compile-only --arch 90        # no GPU: compile checks
"""
import argparse
import concurrent.futures as cf
import json
import os
import re
import statistics
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from specs import SPECS  # noqa: E402

BUILD = os.path.join(tempfile.gettempdir(), "engine-gpu-build")
CASES = os.environ.get("ENGINE_GPU_CASES", "cases")


def retarget(text, arch):
    """The TTGIR for the device's architecture and the installed Triton.

    Triton 3.9's canonicaliser writes a division by a constant as the
    scalar op `tt.approx_divf`, which older Triton does not know; it
    becomes `arith.divf` (the TTIR's own op, on the same operands).
    """
    text = re.sub(r'ttg\.target = "cuda:\d+"', f'ttg.target = "cuda:{arch}"', text)
    text = text.replace("tt.approx_divf", "arith.divf")
    return negf_as_subf(split_broadcasts(text))


NEGF = re.compile(r"^(\s*)(%[\w#]+) = arith\.negf (%[\w#]+) : (.*)$")


def negf_as_subf(text):
    """`arith.negf x` as `-0.0 - x` (the same value, signed zeros included).

    Older Triton lowers `arith.negf` of a tensor to an LLVM op on a struct
    and fails; its front end never emits it.
    """
    out = []
    for n, line in enumerate(text.split("\n")):
        m = NEGF.match(line)
        if m:
            ind, res, arg, ty = m.groups()
            z = f"%compat_negz{n}"
            out.append(f"{ind}{z} = arith.constant dense<-0.000000e+00> : {ty}"
                       if ty.startswith("tensor<") else
                       f"{ind}{z} = arith.constant -0.000000e+00 : {ty}")
            line = f"{ind}{res} = arith.subf {z}, {arg} : {ty}"
        out.append(line)
    return "\n".join(out)


EXPECTED = re.compile(r'loc\("([^"]+)":(\d+):\d+\): error: Expected result encoding (#.*) but was ')


def respell_result(text, line_no, enc, n):
    """Give the op on `line_no` (1-based) the result encoding `enc` that the
    installed Triton infers, then convert it to the written one (equal maps:
    Triton 3.9 verified the written one against its own inference)."""
    lines = text.split("\n")
    line = lines[line_no - 1]
    m = re.match(r"^(\s*)(%[\w#]+) = ", line)
    ind, res = m.groups()
    k = line.rindex("tensor<")
    _, shape, old = tensor_type(line, k)
    tmp = f"%compat_rs{n}"
    lines[line_no - 1] = (f"{ind}{tmp} = " + line[m.end():k] + f"tensor<{shape}, {enc}>"
                          + line[tensor_type(line, k)[0]:])
    lines.insert(line_no, f"{ind}{res} = ttg.convert_layout {tmp} : tensor<{shape}, {enc}> "
                          f"-> tensor<{shape}, {old}>")
    return "\n".join(lines)


def with_stderr(fn):
    """Run `fn`, returning (value or None, exception or None, what the
    process wrote to file descriptor 2 meanwhile: MLIR's diagnostics)."""
    with tempfile.TemporaryFile(mode="w+") as tmp:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(tmp.fileno(), 2)
        try:
            value, err = fn(), None
        except Exception as e:  # noqa: BLE001
            value, err = None, e
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        tmp.seek(0)
        return value, err, tmp.read()


def tensor_type(s, i):
    """The `tensor<...>` type starting at `s[i]`: (end index, shape+elt, encoding)."""
    assert s.startswith("tensor<", i)
    depth, j = 0, i + len("tensor")
    while True:
        if s[j] == "<":
            depth += 1
        elif s[j] == ">":
            depth -= 1
            if depth == 0:
                break
        j += 1
    body = s[i + len("tensor<"):j]
    shape, _, enc = body.partition(", ")
    return j + 1, shape, enc


BROADCAST = re.compile(r"^(\s*)(%[\w#]+) = tt\.broadcast (%[\w#]+) : ")


def split_broadcasts(text):
    """`tt.broadcast` with one encoding spelled on each side.

    Triton 3.9 accepts an operand and a result whose encodings are equal as
    linear maps; older Triton wants one attribute. The operand is first
    given the result's attribute by a `ttg.convert_layout` between equal
    maps, which lowers to no instruction.
    """
    out, n = [], 0
    for line in text.split("\n"):
        m = BROADCAST.match(line)
        if m:
            i = m.end()
            j, shape_a, enc_a = tensor_type(line, i)
            k = line.index("tensor<", j)
            _, shape_b, enc_b = tensor_type(line, k)
            if enc_a != enc_b:
                ind, res, arg = m.groups()
                cvt = f"%compat_bc{n}"
                n += 1
                out.append(f"{ind}{cvt} = ttg.convert_layout {arg} : tensor<{shape_a}, {enc_a}> "
                           f"-> tensor<{shape_a}, {enc_b}>")
                line = (f"{ind}{res} = tt.broadcast {cvt} : tensor<{shape_a}, {enc_b}> "
                        f"-> tensor<{shape_b}, {enc_b}>")
        out.append(line)
    return "\n".join(out)


def source_path(case, which, arch):
    """The file Triton compiles for `which` (TTGIR retargeted, or the TTIR)."""
    d = os.path.join(HERE, CASES, case["dir"])
    os.makedirs(BUILD, exist_ok=True)
    name = {"ours": "ours.ttgir", "triton_pre": "triton.ttgir", "triton_full": "kernel.ttir"}[which]
    out = os.path.join(BUILD, f"{case['dir']}_{name}")
    text = retarget(open(os.path.join(d, name)).read(), arch)
    if which == "ours" and os.environ.get("ENGINE_GPU_PLANT"):
        # A planted error (the check must catch it): the last floating-point
        # multiplication of our kernel becomes an addition.
        i = text.rfind("arith.mulf")
        if i >= 0:
            text = text[:i] + "arith.addf" + text[i + len("arith.mulf"):]
    with open(out, "w") as f:
        f.write(text)
    return out


def compile_one(case, which, arch, cpu_target):
    import triton
    from triton.backends.compiler import GPUTarget
    path = source_path(case, which, arch)
    target = GPUTarget("cuda", arch, 32) if cpu_target else None
    opts = None
    if which == "triton_full":
        opts = {"num_warps": case["num_warps"], "num_stages": case["num_stages"]}
    def attempt():
        src = path
        if which != "triton_full" and arch >= 90:
            src = with_fences(path, arch, target)
        return triton.compile(src, target=target, options=opts)

    for n in range(16):
        k, err, log = with_stderr(attempt)
        if err is None:
            return k
        m = EXPECTED.search(log)
        if not m:
            raise RuntimeError(f"{err}; {log.strip()[-600:]}")
        with open(path) as f:
            text = f.read()
        with open(path, "w") as f:
            f.write(respell_result(text, int(m.group(2)), m.group(3), n))
    raise RuntimeError(f"{path}: still failing after 16 respellings")


def with_fences(path, arch, target):
    """The TTGIR after Triton's fence insertion (a copy beside `path`).

    The layout passes' output has no `fence.proxy.async` between a
    shared-memory write and the wgmma that reads it: Triton inserts them
    later in its pipeline (`add_fence_insertion`), and without them the
    sm90 dot kernels read stale operands. Both assignments get the pass.
    """
    import triton
    from triton._C.libtriton import ir, nvidia
    from triton.compiler.compiler import make_backend
    if target is None:
        target = triton.runtime.driver.active.get_current_target()
    backend = make_backend(target)
    ctx = ir.context()
    ir.load_dialects(ctx)
    backend.load_dialects(ctx)
    mod = ir.parse_mlir_module(path, ctx)
    mod.context = ctx
    pm = ir.pass_manager(ctx)
    pm.enable_debug()
    nvidia.passes.ttnvgpuir.add_fence_insertion(pm, arch)
    pm.run(mod, "fence_insertion")
    out = path + ".fenced.ttgir"
    with open(out, "w") as f:
        f.write(str(mod))
    return out


def _compile_job(args):
    case, which, arch, cpu_target = args
    try:
        k = compile_one(case, which, arch, cpu_target)
        return case["dir"], which, None, k.metadata.shared
    except Exception as e:  # noqa: BLE001  (reported per kernel)
        return case["dir"], which, f"{type(e).__name__}: {str(e)[:400]}", None


WHICH = ("triton_pre", "ours", "triton_full")


def precompile(cases, arch, cpu_target, jobs):
    """Compile every kernel in worker processes (fills Triton's cache)."""
    jobs_list = [(c, w, arch, cpu_target) for c in cases for w in WHICH]
    errors = {}
    with cf.ProcessPoolExecutor(jobs) as pool:
        for d, w, err, shared in pool.map(_compile_job, jobs_list):
            if err:
                errors[(d, w)] = err
    return errors


TORCH_DT = None


def buffers(case, elems, seed):
    import torch
    g = torch.Generator(device="cuda").manual_seed(seed)
    out = []
    for name, ty in case["args"]:
        m = re.fullmatch(r"!tt\.ptr<(\w+)>", ty)
        if not m:
            continue
        t = m.group(1)
        n = elems + 4096
        if t in ("f16", "bf16", "f32"):
            dt = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}[t]
            out.append((name, (0.5 * torch.randn(n, device="cuda", generator=g)).to(dt)))
        elif t in ("i32", "i64"):
            dt = torch.int32 if t == "i32" else torch.int64
            out.append((name, torch.randint(0, 8, (n,), device="cuda", generator=g, dtype=dt)))
        elif t == "i8":
            # Scales read as e8m0 exponents stay finite in [110, 128).
            out.append((name, torch.randint(110, 128, (n,), device="cuda", generator=g,
                                            dtype=torch.int8)))
        elif t.startswith("f8"):
            dt = torch.float8_e4m3fn if "E4M3" in t else torch.float8_e5m2
            out.append((name, torch.randn(n, device="cuda", generator=g).to(dt)))
        else:
            raise ValueError(f"no buffer for pointer type {ty} of {name}")
    return out


def launch_args(case, bufs, scalars):
    by_name = dict(bufs)
    args = []
    for name, ty in case["args"]:
        if name in by_name:
            args.append(by_name[name])
        elif name in scalars:
            args.append(scalars[name])
        else:
            raise KeyError(f"no value for argument {name} ({ty})")
    return args


def same(a, b):
    """(agree, measure): integers bit-identical (measure: elements that
    differ); floats with the same non-finite elements and
    ||a - b|| / ||b|| <= 1e-2 over the finite ones (a layout changes the
    order of a reduction's additions, not its value beyond rounding)."""
    import torch
    if a.dtype.is_floating_point:
        a32, b32 = a.float(), b.float()
        fa, fb = torch.isfinite(a32), torch.isfinite(b32)
        if not torch.equal(fa, fb):
            return False, f"{int((fa != fb).sum())} non-finite elements differ"
        a32, b32 = a32[fa], b32[fa]
        rel = ((a32 - b32).norm() / b32.norm().clamp_min(1e-30)).item()
        return rel <= 1e-2, rel
    return bool(torch.equal(a, b)), int((a != b).sum().item())


def time_kernels(kernels, grid, args_of, iters, reps):
    """Median µs per launch of each kernel: `iters` launches captured in a
    CUDA graph (no host launch gaps between kernels of ~10 µs), the graph
    replayed `reps` times, kernels interleaved replay by replay."""
    import torch
    graphs = {}
    for w, k in kernels.items():
        args = args_of[w]
        for _ in range(3):
            k[grid](*args)
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(iters):
                k[grid](*args)
        graphs[w] = g
    times = {w: [] for w in kernels}
    for _ in range(reps):
        for w, g in graphs.items():
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            g.replay()
            end.record()
            end.synchronize()
            times[w].append(start.elapsed_time(end) * 1000.0 / iters)
    return {w: statistics.median(v) for w, v in times.items()}


def run_case(case, arch, iters, reps):
    import torch
    grid, scalars, elems = SPECS[case["family"]](case["params"])
    res = {"dir": case["dir"], "id": case["id"], "family": case["family"],
           "differs": case["differs"], "model": case["model"], "grid": grid}
    kernels = {}
    for w in WHICH:
        try:
            kernels[w] = compile_one(case, w, arch, False)
            res.setdefault("shared", {})[w] = kernels[w].metadata.shared
        except Exception as e:  # noqa: BLE001
            res.setdefault("compile_error", {})[w] = f"{type(e).__name__}: {str(e)[:300]}"
    if "triton_pre" not in kernels or "ours" not in kernels:
        return res
    base = buffers(case, elems, seed=1234)
    args_of, outs = {}, {}
    for w in list(kernels):
        bufs = [(n, t.clone()) for n, t in base]
        args_of[w] = launch_args(case, bufs, scalars)
        try:
            kernels[w][grid](*args_of[w])
        except Exception as e:  # noqa: BLE001
            # Triton's whole pipeline is context only: a kernel it cannot
            # launch (its software pipelining asks more shared memory than
            # the SM has) is reported and left out; the two compared
            # kernels must launch.
            if w != "triton_full":
                raise
            res.setdefault("launch_error", {})[w] = f"{type(e).__name__}: {str(e)[:300]}"
            del kernels[w], args_of[w]
            continue
        outs[w] = bufs
    torch.cuda.synchronize()
    # Every buffer after one launch, each kernel against each other: ours
    # must agree with Triton's assignment (the check), and Triton's two
    # kernels with each other (a check of the harness and its inputs).
    checks = {}
    for x, y in (("ours", "triton_pre"), ("ours", "triton_full"), ("triton_full", "triton_pre")):
        if x not in outs or y not in outs:
            continue
        mism = []
        for (name, a), (_, b) in zip(outs[x], outs[y]):
            ok, diff = same(a, b)
            if not ok:
                mism.append(f"{name}: {diff}")
        checks[f"{x}~{y}"] = {"ok": not mism, "mismatch": mism}
    res["check"] = checks
    # The same Triton kernel timed a second time (its own arguments): the
    # spread between two timings of one kernel, to read ratios against.
    kernels["triton_pre_again"] = kernels["triton_pre"]
    args_of["triton_pre_again"] = args_of["triton_pre"]
    res["us"] = time_kernels(kernels, grid, args_of, iters, reps)
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="engine_gpu.jsonl")
    ap.add_argument("--compile-only", action="store_true")
    ap.add_argument("--arch", type=int, default=None)
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--reps", type=int, default=11)
    ap.add_argument("--only", default=None, help="comma-separated case dirs")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--cases", default=None, help="the cases directory (default: cases)")
    a = ap.parse_args()
    global CASES, BUILD
    if a.cases:
        CASES = a.cases
        os.environ["ENGINE_GPU_CASES"] = a.cases
    BUILD = os.path.join(tempfile.gettempdir(), f"engine-gpu-build-{CASES}")
    cases = json.load(open(os.path.join(HERE, CASES, "cases.json")))
    if a.only:
        keep = set(a.only.split(","))
        cases = [c for c in cases if c["dir"] in keep]
    if a.compile_only:
        arch = a.arch or 90
        errors = precompile(cases, arch, True, a.jobs)
        for (d, w), e in sorted(errors.items()):
            print(d, w, e)
        print(f"{len(cases) * len(WHICH) - len(errors)} of {len(cases) * len(WHICH)} compiled")
        return
    if a.child:
        return child(cases, a)
    import subprocess
    errors = precompile(cases, a.arch or device_arch(), False, a.jobs)
    print(f"precompiled, {len(errors)} errors", flush=True)
    # Cases run in a child process; a kernel that faults (the CUDA context
    # is lost) ends the child after its case is written, and the next
    # child starts at the case after it.
    done = 0
    open(a.out, "w").close()
    while done < len(cases):
        rest = ",".join(c["dir"] for c in cases[done:])
        cmd = [sys.executable, __file__, "--child", "--out", a.out, "--only", rest,
               "--iters", str(a.iters), "--reps", str(a.reps)]
        if a.arch:
            cmd += ["--arch", str(a.arch)]
        subprocess.run(cmd)
        written = sum(1 for _ in open(a.out))
        if written == done:  # the child died before writing its case
            with open(a.out, "a") as f:
                f.write(json.dumps({"dir": cases[done]["dir"], "id": cases[done]["id"],
                                    "error": "the process died"}) + "\n")
            written += 1
        done = written


def device_arch():
    import torch
    cap = torch.cuda.get_device_capability()
    return cap[0] * 10 + cap[1]


def child(cases, a):
    import torch
    arch = a.arch or device_arch()
    with open(a.out, "a") as f:
        for c in cases:
            fatal = False
            try:
                r = run_case(c, arch, a.iters, a.reps)
            except Exception as e:  # noqa: BLE001
                r = {"dir": c["dir"], "id": c["id"], "error": traceback.format_exc()[-600:]}
                fatal = "CUDA" in str(e) or "illegal" in str(e)
            f.write(json.dumps(r) + "\n")
            f.flush()
            us = r.get("us", {})
            print(c["dir"], c["id"][:60], {k: round(v, 2) for k, v in us.items()},
                  r.get("check", r.get("error", r.get("compile_error"))), flush=True)
            if fatal:
                sys.exit(3)
    torch.cuda.synchronize()

if __name__ == "__main__":
    main()
