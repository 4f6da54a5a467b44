#!/usr/bin/env python3
"""Differential-testing oracle for linear layouts, produced by Triton itself.

The generator samples random (mostly valid, a few deliberately broken)
parameterisations of every Gluon / TritonGPU layout family, asks the installed
Triton (3.9.0, CPU only) for the linear layout, prints the layout in Triton's
MLIR attribute syntax with Triton's own printer, and checks that the text
parses back (``ir.parse_mlir_module`` + verifier) to the same linear layout.

Every Triton call runs in a worker subprocess: several layout constructors and
conversions abort the process (LLVM ERROR / assertion) on bad input instead of
raising, so a crashed worker is recorded as a rejection and restarted.

Usage (see README.md):
    python3 gen_oracle.py --seed 2 --count 300 \
        --out DIR/sample-layouts.jsonl

Writes, next to --out (whose name should end in ``layouts.jsonl``):
    <prefix>layouts.jsonl, <prefix>rejects.jsonl, <prefix>bank-conflicts.jsonl,
    <prefix>trivial-cvt.jsonl, <prefix>layout-views.jsonl, <prefix>summary.json

Nothing here is Triton source: the script only calls the installed package.
"""

import argparse
import json
import os
import queue
import random
import select
import subprocess
import sys
import tempfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

GENERATOR_VERSION = 1
TASK_TIMEOUT_S = 120

# ---------------------------------------------------------------------------
# Small helpers shared by both sides
# ---------------------------------------------------------------------------


def log2(n):
    return n.bit_length() - 1


def shl(x, k):
    return x << k if k >= 0 else x >> (-k)


ELEM_NAME = {8: "i8", 16: "f16", 32: "f32", 64: "f64"}

# ---------------------------------------------------------------------------
# Worker side: everything that touches Triton
# ---------------------------------------------------------------------------

W = {}  # worker globals


def _stage(name):
    """Mark the current stage in the worker's stderr file (read after a crash)."""
    W["stage"] = name
    os.write(2, ("\n@@STAGE " + name + "\n").encode())


def _worker_setup(errpath):
    from triton._C.libtriton import ir, gluon_ir
    import triton.experimental.gluon.language as ttgl
    from triton.experimental.gluon.language import _layouts as gl_layouts
    from triton.experimental.gluon.language.amd import AMDMFMALayout, AMDWMMALayout
    from triton.experimental.gluon.language.amd.cdna5 import PartitionedSharedLayout
    from triton.experimental.gluon.language.nvidia.blackwell import (TensorMemoryLayout, TensorMemoryScalesLayout)
    from triton.experimental.gluon.language.nvidia.rubin import TensorMemoryScalesLayout as RubinScales
    from triton.experimental.gluon.language._semantic import _compute_tmem_reg_layout

    ctx = ir.context()
    ir.load_dialects(ctx)
    b = gluon_ir.GluonOpBuilder(ctx)
    # layoutToGluon only keeps TensorMemoryScales' blockRepOrder for arch sm107
    b_rubin = gluon_ir.GluonOpBuilder(ctx, "sm107")
    # get_shared_bank_conflicts looks up the parent module of the builder's
    # insertion block: without one it dereferences null and segfaults.
    mod = b.create_module()
    fn = b.get_or_insert_function(mod, "oracle", b.get_function_ty([], []), "public", False)
    mod.push_back(fn)
    b.set_insertion_point_to_start(fn.add_entry_block())
    W.update(
        ir=ir, gluon_ir=gluon_ir, ttgl=ttgl, ctx=ctx, b=b, b_rubin=b_rubin, mod=mod, fn=fn,
        compute_tmem=_compute_tmem_reg_layout, DLL=gl_layouts.DistributedLinearLayout,
        Padded=gl_layouts.PaddedSharedLayout,
        CLASSES={
            "BlockedLayout": ttgl.BlockedLayout,
            "SliceLayout": ttgl.SliceLayout,
            "DotOperandLayout": ttgl.DotOperandLayout,
            "NVMMADistributedLayout": ttgl.NVMMADistributedLayout,
            "DistributedLinearLayout": ttgl.DistributedLinearLayout,
            "AMDMFMALayout": AMDMFMALayout,
            "AMDWMMALayout": AMDWMMALayout,
            "NVMMASharedLayout": ttgl.NVMMASharedLayout,
            "SwizzledSharedLayout": ttgl.SwizzledSharedLayout,
            "PaddedSharedLayout": ttgl.PaddedSharedLayout,
            "SharedLinearLayout": ttgl.SharedLinearLayout,
            "PartitionedSharedLayout": PartitionedSharedLayout,
            "TensorMemoryLayout": TensorMemoryLayout,
            "TensorMemoryScalesLayout": TensorMemoryScalesLayout,
            "RubinTensorMemoryScalesLayout": RubinScales,
        },
        DTYPES={8: ttgl.int8, 16: ttgl.float16, 32: ttgl.float32, 64: ttgl.float64},
        tmpfile=os.path.join(os.path.dirname(errpath), "worker_%d.mlir" % os.getpid()),
    )


def _elem_ir(ebw):
    b = W["b"]
    return {8: b.get_int8_ty, 16: b.get_half_ty, 32: b.get_float_ty, 64: b.get_double_ty}[ebw]()


def _build(spec):
    """Build a Gluon layout object from a JSON spec ({"cls": ..., kwargs})."""
    if isinstance(spec, list):
        return [_build(x) for x in spec]
    if not isinstance(spec, dict):
        return spec
    if "legacy" in spec and len(spec) == 1:
        # CGA layout given as the legacy (CTAsPerCGA, CTASplitNum, CTAOrder) triple.
        c, s, o = spec["legacy"]
        return [list(v) for v in W["gluon_ir"].make_cga_layout(c, s, o)]
    cls = spec["cls"]
    kw = {k: _build(v) for k, v in spec.items() if k != "cls"}
    if cls == "tmem_reg":
        return W["compute_tmem"](W["DTYPES"][kw["element_bitwidth"]], kw["shape"], kw["alloc_shape"], kw["tmem_layout"],
                                 kw["num_warps"], kw["atom"])
    return W["CLASSES"][cls](**kw)


def _extract_attr(type_text):
    """Return the layout attribute text inside a printed tensor / memdesc type."""
    start = type_text.index(", #") + 2
    depth = 0
    i = start
    in_str = False
    while i < len(type_text):
        ch = type_text[i]
        if in_str:
            if ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "<{[(":
            depth += 1
        elif ch in ">}])":
            if depth == 0:
                break
            depth -= 1
            if depth == 0 and ch == ">":
                i += 1
                break
        elif ch == "," and depth == 0:
            break
        i += 1
    return type_text[start:i]


def _materialize(spec, shape, space, ebw):
    _stage("gluon_python")
    obj = _build(spec)
    if obj is None:
        raise ValueError("layout helper returned None (unsupported parameters)")
    _stage("build_attr")
    attr = obj._to_ir(W["b"])
    _stage("build_type")
    b = W["b"]
    ety = _elem_ir(ebw)
    if space == "dist":
        ty = b.get_distributed_ty(ety, list(shape), attr)
    elif space == "shared":
        ty = b.get_shared_mem_desc_ty(ety, list(shape), attr, list(shape))
    else:
        ty = b.get_tensor_mem_desc_ty(ety, list(shape), attr, list(shape))
    type_text = str(ty)
    attr_text = _extract_attr(type_text)
    W.setdefault("printed", []).append(type_text)
    os.write(2, ("\n@@TEXT " + type_text + "\n").encode())
    return obj, attr, type_text, attr_text


def _ll_dict(ll, space):
    if space == "dist":
        return {"register": ll.reg_bases, "lane": ll.lane_bases, "warp": ll.warp_bases, "block": ll.block_bases}
    if space == "shared":
        return {"offset": ll.offset_bases, "block": ll.block_bases}
    return {"row": ll.rows, "col": ll.cols}


def _linear(obj, attr, shape, space, attr_text):
    """Ask Triton for the linear layout.  Returns (linear dict, extras)."""
    _stage("to_linear_layout")
    extras = {}
    if space == "dist" and isinstance(obj, W["DLL"]) and attr_text.startswith("#ttg.generic_linear"):
        # to_linear_layout wraps the result in a LinearEncodingAttr, which
        # asserts on non-permutation layouts; the layout *is* its bases.
        extras["linear_source"] = "bases_as_given"
        return _ll_dict(obj, space), list(obj.shape), extras
    if space == "shared" and isinstance(obj, W["Padded"]):
        return None, list(shape), extras  # filled from the read-back (no to_linear_layout for padded)
    ll = W["b"].to_linear_layout(attr, list(shape))
    if space == "shared":
        extras["alignment"] = ll.alignment
    return _ll_dict(ll, space), list(ll.shape) if hasattr(ll, "shape") else list(shape), extras


MODULE_TMPL = """{aliases}
module attributes {{"ttg.num-ctas" = {nctas} : i32, "ttg.num-warps" = {nw} : i32, ttg.target = "{target}", "ttg.threads-per-warp" = {tpw} : i32}} {{
  tt.func public @f(%arg0: {ty_in}) -> {ty_out} {{
{body}    tt.return {ret} : {ty_out}
  }}
}}
"""


def _parse(text):
    _stage("parse")
    path = W["tmpfile"]
    with open(path, "w") as f:
        f.write(text)
    m = W["ir"].parse_mlir_module(path, W["ctx"])
    ops = []
    m.walk(lambda op: ops.append(op))
    if not m.verify():
        raise RuntimeError("module.verify() returned false")
    return m, ops


def _module_params(space, lin, obj, nw_default=4):
    if space == "dist":
        return (1 << len(lin["warp"])), (1 << len(lin["lane"])), (1 << len(lin["block"]))
    cga = getattr(obj, "cga_layout", None) or []
    if space == "shared" and lin is not None and "block" in lin:
        return nw_default, 32, 1 << len(lin["block"])
    return nw_default, 32, 1 << len(cga)


def _match_close(text, i):
    """Index just past the bracket group opening at text[i]."""
    pairs = {"<": ">", "{": "}", "[": "]", "(": ")"}
    stack = []
    j = i
    while j < len(text):
        ch = text[j]
        if ch in pairs:
            stack.append(pairs[ch])
        elif stack and ch == stack[-1]:
            stack.pop()
            if not stack:
                return j + 1
        j += 1
    raise ValueError("unbalanced: " + text)


def _wmma_ranks(spec, out):
    if isinstance(spec, dict):
        if spec.get("cls") == "AMDWMMALayout":
            out.append(spec.get("rank") or 2)
        for v in spec.values():
            _wmma_ranks(v, out)
    return out


def repair_text(attr_text, spec):
    """Make Triton's printed attribute text parseable by Triton's own parser.

    Triton 3.9 prints #ttg.amd_wmma without an empty `warp = []` entry (one
    warp) and without `rank = 3` for rank-3 layouts, but its parser requires
    both.  Returns (text, [notes])."""
    notes = []
    ranks = _wmma_ranks(spec, [])
    key = "#ttg.amd_wmma<{"
    pos = 0
    k = 0
    while True:
        i = attr_text.find(key, pos)
        if i < 0:
            break
        d0 = i + len(key) - 1  # the '{' of the dict
        d1 = _match_close(attr_text, d0)  # just past the dict's '}'
        body = attr_text[d0:d1]
        c = body.find("ctaLayout = {")
        if c >= 0:
            c0 = c + len("ctaLayout = ")
            c1 = _match_close(body, c0)
            cta = body[c0:c1]
            if "warp = " not in cta:
                new_cta = "{warp = []}" if cta.strip() == "{}" else cta[:-1] + ", warp = []}"
                body = body[:c0] + new_cta + body[c1:]
                notes.append("added 'warp = []' to ctaLayout (printer omits empty warp bases, parser requires them)")
        rank = ranks[k] if k < len(ranks) else 2
        if rank != 2 and "rank = " not in body:
            body = body[:-1] + ", rank = %d}" % rank
            notes.append("added 'rank = %d' (printer omits it, parser needs it for rank != 2)" % rank)
        attr_text = attr_text[:d0] + body + attr_text[d1:]
        pos = d0 + len(body)
        k += 1
    return attr_text, notes


def _validate_roundtrip(obj, attr, type_text, attr_text, shape, space, lin, nw, tpw, nctas, target, parse_text=None):
    ty_alias = type_text.replace(attr_text, "#l", 1)
    text = MODULE_TMPL.format(aliases="#l = " + (parse_text or attr_text), nctas=nctas, nw=nw, target=target, tpw=tpw,
                              ty_in=ty_alias, ty_out=ty_alias, body="", ret="%arg0")
    m, ops = _parse(text)
    _stage("roundtrip_text")
    ret = [op for op in ops if op.get_name() == "tt.return"][0]
    v = ret.get_operand(0)
    back_text = str(v.get_type())
    if back_text != type_text:
        raise RuntimeError("printed type does not round-trip: %r -> %r" % (type_text, back_text))
    _stage("roundtrip_readback")
    b = W["b"]
    rb = W["b_rubin"] if "blockRepOrder" in type_text else b
    back = rb.get_gluon_layout_from_tensor(v) if space == "dist" else rb.get_gluon_layout_from_memdesc(v)
    if space == "shared" and isinstance(obj, W["Padded"]):
        # layoutToGluon puts the linear component's block bases (tensor-element
        # units) into PaddedSharedLayout.cga_layout.
        return back, {"offset": back.offset_bases, "block": back.cga_layout}
    _stage("roundtrip_ll")
    if isinstance(back, W["DLL"]) and attr_text.startswith("#ttg.generic_linear"):
        back_lin = _ll_dict(back, space)
    else:
        back_lin = _ll_dict(b.to_linear_layout(back._to_ir(b), list(shape)), space)
    if back_lin != lin:
        raise RuntimeError("linear layout does not round-trip through the parsed attribute: %r vs %r" % (lin, back_lin))
    return back, lin


def _task_layout(t):
    spec, shape, space, ebw, target = t["spec"], t["shape"], t["space"], t["ebw"], t["target"]
    obj, attr, type_text, attr_text = _materialize(spec, shape, space, ebw)
    lin, ll_shape, extras = _linear(obj, attr, shape, space, attr_text)
    nw, tpw, nctas = _module_params(space, lin, obj)
    parse_text, notes = repair_text(attr_text, spec)
    back, lin2 = _validate_roundtrip(obj, attr, type_text, attr_text, shape, space, lin, nw, tpw, nctas, target,
                                     parse_text)
    if lin is None:
        lin = lin2
        nw, tpw, nctas = 4, 32, 1 << len(lin["block"])
        extras["linear_source"] = "linear_component_of_parsed_attr"
    rec = {
        "mlir": parse_text,
        "type": type_text,
        "linear": lin,
        "linear_shape": ll_shape,
        "gluon": repr(obj),
        "module_attrs": {"ttg.num-warps": nw, "ttg.threads-per-warp": tpw, "ttg.num-ctas": nctas, "ttg.target": target},
    }
    if repr(back) != repr(obj):
        rec["gluon_readback"] = repr(back)
    if notes:
        rec["mlir_printed"] = attr_text
        rec["mlir_repair"] = notes
    rec.update(extras)
    return rec


def _validate_texts(items, nw, tpw, nctas, target):
    """Parse a module whose function takes one argument per (type, attr, parse_text)."""
    aliases, args = [], []
    for i, (type_text, attr_text, parse_text) in enumerate(items):
        aliases.append("#l%d = %s" % (i, parse_text))
        args.append("%%arg%d: %s" % (i, type_text.replace(attr_text, "#l%d" % i, 1)))
    text = """{aliases}
module attributes {{"ttg.num-ctas" = {nctas} : i32, "ttg.num-warps" = {nw} : i32, ttg.target = "{target}", "ttg.threads-per-warp" = {tpw} : i32}} {{
  tt.func public @f({args}) {{
    tt.return
  }}
}}
""".format(aliases="\n".join(aliases), nctas=nctas, nw=nw, target=target, tpw=tpw, args=", ".join(args))
    _parse(text)


def _task_bank(t):
    reg_obj, reg_attr, reg_type, reg_text = _materialize(t["reg"], t["shape"], "dist", t["bitwidth"])
    reg_lin, _, _ = _linear(reg_obj, reg_attr, t["shape"], "dist", reg_text)
    sm_obj, sm_attr, sm_type, sm_text = _materialize(t["smem"], t["shape"], "shared", t["bitwidth"])
    sm_lin, _, sm_extra = _linear(sm_obj, sm_attr, t["shape"], "shared", sm_text)
    reg_parse, _ = repair_text(reg_text, t["reg"])
    sm_parse, _ = repair_text(sm_text, t["smem"])
    nw, tpw, nctas = _module_params("dist", reg_lin, reg_obj)
    _validate_texts([(reg_type, reg_text, reg_parse), (sm_type, sm_text, sm_parse)], nw, tpw, nctas, t["target"])
    _stage("bank_conflicts")
    n = W["b"].get_shared_bank_conflicts(reg_attr, sm_attr, list(t["shape"]), t["bitwidth"])
    return {
        "conflicts": n,
        "reg": {"mlir": reg_parse, "gluon": repr(reg_obj), "linear": reg_lin},
        "shared": {"mlir": sm_parse, "gluon": repr(sm_obj), "linear": sm_lin, "alignment": sm_extra.get("alignment")},
        "module_attrs": {"ttg.num-warps": nw, "ttg.threads-per-warp": tpw, "ttg.num-ctas": nctas, "ttg.target": t["target"]},
    }


def _task_trivial(t):
    shape, ebw = t["shape"], t["ebw"]
    s_obj, s_attr, s_type, s_text = _materialize(t["src"], shape, "dist", ebw)
    s_lin, _, _ = _linear(s_obj, s_attr, shape, "dist", s_text)
    d_obj, d_attr, d_type, d_text = _materialize(t["dst"], shape, "dist", ebw)
    d_lin, _, _ = _linear(d_obj, d_attr, shape, "dist", d_text)
    nw, tpw, nctas = _module_params("dist", s_lin, s_obj)
    s_alias = s_type.replace(s_text, "#src", 1)
    d_alias = d_type.replace(d_text, "#dst", 1)
    s_text, _ = repair_text(s_text, t["src"])
    d_text, _ = repair_text(d_text, t["dst"])
    text = MODULE_TMPL.format(aliases="#src = %s\n#dst = %s" % (s_text, d_text), nctas=nctas, nw=nw,
                              target=t["target"], tpw=tpw, ty_in=s_alias, ty_out=d_alias,
                              body="    %%0 = ttg.convert_layout %%arg0 : %s -> %s\n" % (s_alias, d_alias), ret="%0")
    m, ops = _parse(text)
    _stage("is_convert_layout_trivial")
    cvt = [op for op in ops if op.get_name() == "ttg.convert_layout"][0]
    trivial = W["b"].is_convert_layout_trivial(cvt.get_result(0).get_type(), cvt.get_operand(0))
    return {
        "trivial": bool(trivial),
        "src": {"mlir": s_text, "gluon": repr(s_obj), "linear": s_lin},
        "dst": {"mlir": d_text, "gluon": repr(d_obj), "linear": d_lin},
        "module_attrs": {"ttg.num-warps": nw, "ttg.threads-per-warp": tpw, "ttg.num-ctas": nctas, "ttg.target": t["target"]},
    }


def _task_view(t):
    obj, attr, type_text, attr_text = _materialize(t["spec"], t["shape"], t["space"], t["ebw"])
    lin, _, _ = _linear(obj, attr, t["shape"], t["space"], attr_text)
    parse_text, _ = repair_text(attr_text, t["spec"])
    nw, tpw, nctas = _module_params(t["space"], lin, obj)
    _validate_texts([(type_text, attr_text, parse_text)], nw, tpw, nctas, t["target"])
    attr_text = parse_text
    _stage("get_layout_view_tensor")
    tv = W["gluon_ir"].get_layout_view(obj, list(t["shape"]), False)
    _stage("get_layout_view_hardware")
    hv = W["gluon_ir"].get_layout_view(obj, list(t["shape"]), True)
    return {"mlir": attr_text, "gluon": repr(obj), "linear": lin, "tensor_view": tv, "hardware_view": hv}


TASKS = {"layout": _task_layout, "bank": _task_bank, "trivial": _task_trivial, "view": _task_view}


def worker_main(errpath):
    # fd 1 stays the protocol channel; C++ output on fd 1/2 goes to the err file.
    proto = os.fdopen(os.dup(1), "w")
    errfd = os.open(errpath, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(errfd, 2)
    os.dup2(errfd, 1)
    sys.stdout = sys.stderr = os.fdopen(2, "w", buffering=1)
    _worker_setup(errpath)
    proto.write(json.dumps({"ready": True}) + "\n")
    proto.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        t = json.loads(line)
        os.ftruncate(errfd, 0)
        W["stage"] = "start"
        W["printed"] = []
        try:
            res = {"ok": True, "result": TASKS[t["op"]](t)}
        except BaseException as e:  # noqa: BLE001 - everything is data here
            diag = _read_diag(errpath)
            res = {"ok": False, "stage": W["stage"], "error": "%s: %s" % (type(e).__name__, str(e).strip()),
                   "diagnostics": diag, "printed_types": W["printed"]}
            if W["stage"] == "parse":
                try:
                    with open(W["tmpfile"]) as f:
                        res["module_text"] = f.read()
                except OSError:
                    pass
        proto.write(json.dumps(res) + "\n")
        proto.flush()
    try:
        os.unlink(W["tmpfile"])
    except OSError:
        pass


def _clean_diag(text):
    import re
    text = re.sub(r"[^\s\"]*[/]worker_\d+\.mlir", "input.mlir", text)
    keep = []
    for ln in text.splitlines():
        if not ln.strip() or ln.startswith("@@") or "nanobind" in ln or ln.startswith(" - leaked") \
                or ln.startswith(" - skipped"):
            continue
        keep.append(ln.rstrip())
    out = "\n".join(keep).strip()
    return out[-4000:]


def _read_diag(path):
    try:
        with open(path, "r", errors="replace") as f:
            text = f.read()
    except OSError:
        return ""
    # Only what was printed in the last stage.
    return _clean_diag(text.rsplit("@@STAGE", 1)[-1].split("\n", 1)[-1] if "@@STAGE" in text else text)


# ---------------------------------------------------------------------------
# Parent side: worker pool
# ---------------------------------------------------------------------------


class Worker:

    def __init__(self, wid, tmpdir):
        self.errpath = os.path.join(tmpdir, "worker%d.err" % wid)
        self.proc = None
        self.restarts = 0
        self._start()

    def _start(self):
        if self.proc is not None:
            self.restarts += 1
        open(self.errpath, "w").close()
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker", self.errpath],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True, bufsize=1)
        line = self._readline(300)
        if not line or not json.loads(line).get("ready"):
            raise RuntimeError("worker failed to start: " + open(self.errpath, errors="replace").read()[-2000:])

    def _readline(self, timeout):
        r, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not r:
            return None
        return self.proc.stdout.readline()

    def call(self, task):
        try:
            self.proc.stdin.write(json.dumps(task) + "\n")
            self.proc.stdin.flush()
            line = self._readline(TASK_TIMEOUT_S)
        except (BrokenPipeError, OSError):
            line = ""
        if line:
            return json.loads(line)
        # crashed (EOF) or timed out
        timed_out = line is None
        if timed_out:
            self.proc.kill()
        rc = self.proc.wait()
        with open(self.errpath, "r", errors="replace") as f:
            text = f.read()
        stage = "unknown"
        if "@@STAGE " in text:
            stage = text.rsplit("@@STAGE ", 1)[1].split("\n", 1)[0].strip()
        stale = os.path.join(os.path.dirname(self.errpath), "worker_%d.mlir" % self.proc.pid)
        res = {"ok": False, "crashed": True, "stage": stage, "exit_code": rc,
               "error": "timeout after %ds" % TASK_TIMEOUT_S if timed_out else "process aborted (exit %d)" % rc,
               "diagnostics": _read_diag(self.errpath),
               "printed_types": [ln[len("@@TEXT "):] for ln in text.splitlines() if ln.startswith("@@TEXT ")]}
        if stage == "parse":
            path = os.path.join(os.path.dirname(self.errpath), "worker_%d.mlir" % self.proc.pid)
            try:
                with open(path) as f:
                    res["module_text"] = f.read()
                os.unlink(path)
            except OSError:
                pass
        if os.path.exists(stale):
            os.unlink(stale)
        self._start()
        return res

    def close(self):
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
        except Exception:  # noqa: BLE001
            self.proc.kill()
        try:
            os.unlink(self.errpath)
        except OSError:
            pass


class Pool:

    def __init__(self, n, tmpdir):
        self.workers = [Worker(i, tmpdir) for i in range(n)]
        self.free = queue.Queue()
        for w in self.workers:
            self.free.put(w)
        self.ex = ThreadPoolExecutor(max_workers=n)

    def _run(self, task):
        w = self.free.get()
        try:
            return w.call(task)
        finally:
            self.free.put(w)

    def map(self, tasks):
        return list(self.ex.map(self._run, tasks))

    def close(self):
        for w in self.workers:
            w.close()
        self.ex.shutdown()

    @property
    def restarts(self):
        return sum(w.restarts for w in self.workers)


# ---------------------------------------------------------------------------
# Sampling (parent side, pure Python, deterministic given --seed)
# ---------------------------------------------------------------------------


def split_bits(rng, nbits, rank, weights=None):
    e = [0] * rank
    for _ in range(nbits):
        e[rng.choices(range(rank), weights=weights)[0] if weights else rng.randrange(rank)] += 1
    return e


def perm(rng, n):
    p = list(range(n))
    rng.shuffle(p)
    return p


def wchoice(rng, items):
    """items: list of (value, weight)."""
    vals, ws = zip(*items)
    return rng.choices(vals, weights=ws)[0]


SHAPE_SCALE = [(-3, 1), (-2, 1), (-1, 2), (0, 3), (1, 3), (2, 2), (3, 1)]


def pick_shape(rng, tile, floor=None, max_log_total=18, max_log_dim=11):
    """Tensor shape around the layout's tile: smaller (broadcast) to larger (repeat)."""
    rank = len(tile)
    floor = floor or [1] * rank
    shape = []
    for d in range(rank):
        k = wchoice(rng, SHAPE_SCALE)
        s = shl(tile[d], k)
        lo = floor[d] if rng.random() < 0.9 else 1
        s = max(s, lo, 1)
        s = min(s, 1 << max_log_dim)
        shape.append(s)
    while sum(log2(s) for s in shape) > max_log_total:
        d = max(range(rank), key=lambda i: shape[i])
        shape[d] //= 2
    return shape


def sample_cga(rng, rank, max_log=3, p=0.2):
    """Returns (cga spec or [], per-dim CTA split (grid) sizes)."""
    if rng.random() >= p:
        return [], [1] * rank
    n = wchoice(rng, [(1, 4), (2, 3), (3, 2), (4, 1)])
    n = min(n, max_log)
    if rng.random() < 0.4:
        ctas = [1] * rank
        for _ in range(n):
            ctas[rng.randrange(rank)] *= 2
        split = [c >> (1 if (c > 1 and rng.random() < 0.25) else 0) for c in ctas]
        return {"legacy": [ctas, split, perm(rng, rank)]}, split
    exps = [0] * rank
    bases = []
    for _ in range(n):
        if rng.random() < 0.15:
            bases.append([0] * rank)
        else:
            d = rng.randrange(rank)
            v = [0] * rank
            v[d] = 1 << exps[d]
            exps[d] += 1
            bases.append(v)
    if rng.random() < 0.3:
        rng.shuffle(bases)
    return bases, [1 << e for e in exps]


def _mul(a, b):
    return [x * y for x, y in zip(a, b)]


# Each sampler returns dict(spec=..., shape=..., space=..., ebw=..., target=..., tile=...)


def s_blocked(rng, rank=None):
    rank = rank or wchoice(rng, [(1, 2), (2, 5), (3, 3)])
    tpw_log = 5 if rng.random() < 0.8 else 6
    w_log = rng.randint(0, 4)
    spt_e = [0] * rank
    for _ in range(rng.randint(0, 4)):
        spt_e[rng.randrange(rank)] += 1
    spt = [1 << e for e in spt_e]
    tpw = [1 << e for e in split_bits(rng, tpw_log, rank)]
    wpc = [1 << e for e in split_bits(rng, w_log, rank)]
    cga, grid = sample_cga(rng, rank)
    spec = {"cls": "BlockedLayout", "size_per_thread": spt, "threads_per_warp": tpw, "warps_per_cta": wpc,
            "order": perm(rng, rank), "cga_layout": cga}
    tile = [a * b * c * d for a, b, c, d in zip(spt, tpw, wpc, grid)]
    return dict(spec=spec, tile=tile, floor=grid, space="dist", target="cuda:90" if tpw_log == 5 else "hip:gfx942")


def s_nvidia_mma(rng, version=None, rank=None):
    version = version or wchoice(rng, [(2, 5), (3, 5)])
    w_log = rng.randint(0, 4) if version == 2 else rng.randint(2, 4)
    if version == 2:
        rank = rank or wchoice(rng, [(2, 4), (3, 1)])
        instr = [16, 8] if rank == 2 else [1, 16, 8]
        wpc = [1 << e for e in split_bits(rng, w_log, rank)]
        target = "cuda:80"
    else:
        rank = 2
        n = wchoice(rng, [(8, 1), (16, 2), (32, 2), (64, 3), (128, 3), (256, 2)])
        k = wchoice(rng, [(8, 1), (16, 3), (32, 2)])
        instr = [16, n, k]
        e = split_bits(rng, w_log - 2, 2)
        wpc = [4 << e[0], 1 << e[1]]
        target = "cuda:90"
    cga, grid = sample_cga(rng, rank, p=0.15)
    spec = {"cls": "NVMMADistributedLayout", "version": [version, 0], "warps_per_cta": wpc, "instr_shape": instr,
            "cga_layout": cga}
    if version == 2:
        tile = [16 * wpc[-2], 8 * wpc[-1]] if rank == 2 else [wpc[0], 16 * wpc[1], 8 * wpc[2]]
    else:
        tile = [16 * wpc[0], instr[1] * wpc[1]]
    return dict(spec=spec, tile=_mul(tile, grid), floor=grid, space="dist", target=target)


MFMA_K = {(32, 32): [(8, 4), (16, 3), (4, 2), (2, 1), (64, 1)], (16, 16): [(16, 4), (32, 3), (8, 2), (4, 1), (128, 1)],
          (64, 4): [(4, 3), (1, 1), (16, 1)], (4, 64): [(4, 3), (1, 1), (16, 1)]}


def s_amd_mfma(rng, rank=None):
    version = wchoice(rng, [(1, 1), (2, 2), (3, 4), (4, 4)])
    mn = wchoice(rng, [((32, 32), 4), ((16, 16), 4), ((64, 4), 1), ((4, 64), 1)])
    k = wchoice(rng, MFMA_K[mn])
    rank = rank or wchoice(rng, [(2, 5), (3, 1)])
    w_log = rng.randint(0, 4)
    wpc = [1 << e for e in split_bits(rng, w_log, rank)]
    tpw_ = [1] * rank
    if rng.random() < 0.35:
        for d in (rank - 2, rank - 1):
            tpw_[d] = wchoice(rng, [(1, 3), (2, 2), (4, 1)])
    ebw = 64 if rng.random() < 0.12 else 32
    cga, grid = sample_cga(rng, rank, p=0.12)
    # toLinearLayout asserts "64x4 mfma must be transposed"
    transposed = True if mn == (64, 4) else rng.random() < 0.5
    spec = {"cls": "AMDMFMALayout", "version": version, "instr_shape": [mn[0], mn[1], k],
            "transposed": transposed, "warps_per_cta": wpc, "element_bitwidth": ebw,
            "tiles_per_warp": tpw_, "cga_layout": cga}
    tile = [1] * rank
    tile[-2] = mn[0] * wpc[-2] * tpw_[-2]
    tile[-1] = mn[1] * wpc[-1] * tpw_[-1]
    if rank == 3:
        tile[0] = wpc[0]
    target = {1: "hip:gfx908", 2: "hip:gfx90a", 3: "hip:gfx942", 4: "hip:gfx950"}[version]
    return dict(spec=spec, tile=_mul(tile, grid), floor=grid, space="dist", target=target)


def _unit_bases(rng, rank, nbits_per_dim, start_exp=None):
    """Unit bases covering nbits_per_dim[d] bits of each dim, in random order."""
    out = []
    start_exp = start_exp or [0] * rank
    for d in range(rank):
        for j in range(nbits_per_dim[d]):
            v = [0] * rank
            v[d] = 1 << (start_exp[d] + j)
            out.append(v)
    rng.shuffle(out)
    return out


def s_amd_wmma(rng, rank=None):
    version = wchoice(rng, [(1, 1), (2, 2), (3, 3)])
    # valid (verifier): v1 16x16x16; v2 16x16x{16,32}; v3 16x16x{4,32,64,128}
    if version == 3:
        instr = [16, 16, wchoice(rng, [(32, 3), (64, 2), (128, 1), (4, 1)])]
    elif version == 2:
        instr = [16, 16, wchoice(rng, [(16, 2), (32, 1)])]
    else:
        instr = [16, 16, 16]
    rank = rank or wchoice(rng, [(2, 5), (3, 1)])
    w_log = rng.randint(0, 4)
    r_log = rng.randint(0, 3)
    weights = [1] * rank if rank == 2 else [1, 2, 2]
    e = split_bits(rng, w_log + r_log, rank, weights)
    units = _unit_bases(rng, rank, e)
    warp = units[:w_log]
    reg = units[w_log:]
    # broadcast warps now and then (an extra warp bit that moves nothing)
    if w_log < 4 and rng.random() < 0.1:
        warp.insert(rng.randint(0, len(warp)), [0] * rank)
    cga, grid = sample_cga(rng, rank, p=0.1)
    spec = {"cls": "AMDWMMALayout", "version": version, "transposed": rng.random() < 0.5, "warp_bases": warp,
            "reg_bases": reg, "instr_shape": instr, "cga_layout": cga, "rank": rank}
    tile = [1 << x for x in e]
    tile[-2] *= instr[0]
    tile[-1] *= instr[1]
    target = {1: "hip:gfx1100", 2: "hip:gfx1200", 3: "hip:gfx1250"}[version]
    return dict(spec=spec, tile=_mul(tile, grid), floor=grid, space="dist", target=target)


def _flatint_to_vec(x, dim_bits):
    vec = [0] * len(dim_bits)
    off = 0
    for d, nb in enumerate(dim_bits):
        vec[d] = (x >> off) & ((1 << nb) - 1)
        off += nb
    return vec


def s_linear(rng, rank=None, generic=None):
    rank = rank or wchoice(rng, [(1, 2), (2, 5), (3, 3)])
    generic = (rng.random() < 0.6) if generic is None else generic
    n = rng.randint(0, 14)
    dim_bits = split_bits(rng, n, rank)
    shape = [1 << x for x in dim_bits]
    L = 5 if rng.random() < 0.8 else 6
    w = rng.randint(0, 4)
    c = wchoice(rng, [(0, 8), (1, 1), (2, 1)])
    r = rng.randint(0, 6)
    slots = r + L + w + c
    if slots < n:
        r += n - slots
        slots = n
    # flat bases as integers over n bits
    chosen = rng.sample(range(slots), n)
    flat = [0] * slots
    for bit, s in enumerate(rng.sample(range(n), n)):
        flat[chosen[bit]] = 1 << s
    if generic and n >= 2:
        # Triton 3.9 accepts generic_linear layouts whose register / lane /
        # block bases are single powers of two (zero allowed); anything else
        # aborts the module verifier.  Warp bases may be arbitrary.  Two ways
        # to leave the permutation family while staying surjective:
        #  * xor another non-zero basis into a warp basis (invertible);
        #  * copy a non-zero basis into a zero slot (non-injective).
        warp_slots = list(range(r + L, r + L + w))
        for _ in range(rng.randint(1, 3)):
            nonzero = [k for k in range(slots) if flat[k]]
            if warp_slots and rng.random() < 0.6:
                i = rng.choice(warp_slots)
                j = rng.choice([k for k in nonzero if k != i] or [i])
                if j != i:
                    flat[i] ^= flat[j]
            else:
                zeros = [k for k in range(slots) if not flat[k]]
                pow2 = [k for k in nonzero if flat[k] & (flat[k] - 1) == 0]
                if zeros and pow2:
                    i = rng.choice(zeros)
                    flat[i] = flat[rng.choice(nonzero if i in warp_slots else pow2)]
        # make sure we still span everything (xor into a warp slot whose own
        # basis was zero keeps the span; the check is cheap insurance)
        basis = []
        for x in flat:
            y = x
            for bb in basis:
                y = min(y, y ^ bb)
            if y:
                basis.append(y)
        if len(basis) < n:
            flat = [0] * slots
            for bit, s in enumerate(rng.sample(range(n), n)):
                flat[chosen[bit]] = 1 << s
    vecs = [_flatint_to_vec(x, dim_bits) for x in flat]
    spec = {"cls": "DistributedLinearLayout", "reg_bases": vecs[:r], "lane_bases": vecs[r:r + L],
            "warp_bases": vecs[r + L:r + L + w], "block_bases": vecs[r + L + w:], "shape": shape}
    return dict(spec=spec, tile=shape, floor=shape, space="dist", target="cuda:90" if L == 5 else "hip:gfx942",
                exact_shape=True)


def s_slice(rng):
    parent_kind = wchoice(rng, [("blocked", 5), ("nvidia_mma", 2), ("amd_mfma", 2), ("amd_wmma", 1), ("linear", 1),
                                ("slice", 1), ("dot_op", 1)])
    if parent_kind == "slice":
        inner = s_blocked(rng, rank=3)
        d0 = rng.randrange(3)
        par = dict(spec={"cls": "SliceLayout", "dim": d0, "parent": inner["spec"]}, target=inner["target"],
                   tile=[t for i, t in enumerate(inner["tile"]) if i != d0],
                   floor=[t for i, t in enumerate(inner["floor"]) if i != d0])
    elif parent_kind == "linear":
        par = s_linear(rng, rank=wchoice(rng, [(2, 3), (3, 1)]), generic=False)
    elif parent_kind == "dot_op":
        par = s_dot_op(rng)
    else:
        par = SAMPLERS[parent_kind](rng)
        if len(par["tile"]) < 2:
            par = s_blocked(rng, rank=2)
    prank = len(par["tile"])
    dim = rng.randrange(prank)
    spec = {"cls": "SliceLayout", "dim": dim, "parent": par["spec"]}
    tile = [t for i, t in enumerate(par["tile"]) if i != dim]
    floor = [t for i, t in enumerate(par.get("floor", [1] * prank)) if i != dim]
    out = dict(spec=spec, tile=tile, floor=floor, space="dist", target=par["target"], parent_kind=parent_kind)
    if par.get("exact_shape"):
        out["exact_shape"] = True
    return out


def s_dot_op(rng):
    parent_kind = wchoice(rng, [("mma_v2", 4), ("mma_v3", 2), ("blocked", 2), ("amd_mfma", 3), ("amd_wmma", 2)])
    op = rng.randrange(2)
    if parent_kind == "mma_v2":
        par = s_nvidia_mma(rng, version=2)
        kw = wchoice(rng, [(1, 1), (2, 3), (4, 2), (8, 2), (16, 1)])
        kt = 4 * kw * 2  # two 32-bit registers of k per thread-quad
    elif parent_kind == "mma_v3":
        par = s_nvidia_mma(rng, version=3)
        op = 0 if rng.random() < 0.9 else 1
        kw = wchoice(rng, [(1, 1), (2, 3), (4, 2), (8, 1)])
        kt = 4 * kw * 2
    elif parent_kind == "blocked":
        par = s_blocked(rng, rank=wchoice(rng, [(2, 3), (3, 1)]))
        kw = 0
        kt = 8
    elif parent_kind == "amd_mfma":
        par = s_amd_mfma(rng)
        kw = wchoice(rng, [(1, 1), (2, 1), (4, 3), (8, 3), (16, 2), (32, 1)])
        kt = par["spec"]["instr_shape"][2]
    else:
        par = s_amd_wmma(rng)
        v = par["spec"]["version"]
        # verifier: v1 kWidth 8/16, v2 4/8/16
        kw = wchoice(rng, {1: [(8, 1), (16, 1)], 2: [(4, 1), (8, 2), (16, 2)],
                           3: [(2, 1), (4, 1), (8, 3), (16, 3), (32, 1)]}[v])
        kt = par["spec"]["instr_shape"][2]
    spec = {"cls": "DotOperandLayout", "operand_index": op, "parent": par["spec"], "k_width": kw}
    pt = list(par["tile"])
    rank = len(pt)
    tile = list(pt)
    if op == 0:
        tile[rank - 1] = kt
    else:
        tile[rank - 2] = kt
    return dict(spec=spec, tile=tile, floor=[1] * rank, space="dist", target=par["target"], parent_kind=parent_kind)


TMEM_ATOMS = [("32x32b", 4), ("16x64b", 2), ("16x128b", 2), ("16x256b", 2), ("32x32b_splitn", 1)]


def s_tmem_layout(rng, ebw=None):
    ebw = ebw or wchoice(rng, [(32, 5), (16, 3), (8, 1)])
    block_m = wchoice(rng, [(128, 3), (64, 2)])
    block_n = 1 << rng.randint(3, 8)
    packed = rng.random() < 0.5
    col_stride = 1 if packed else 32 // ebw
    two_ctas = rng.random() < 0.1
    cga = []
    if two_ctas:  # "twoCTAs layout requires the first CGALayout block basis to be [1, 0]"
        cga = wchoice(rng, [([[1, 0]], 4), ([[1, 0], [0, 1]], 1), ([[1, 0], [2, 0]], 1)])
    elif rng.random() < 0.12:
        cga = wchoice(rng, [([[1, 0]], 2), ([[0, 1]], 1), ([[1, 0], [0, 1]], 1), ([[0, 0]], 1)])
    spec = {"cls": "TensorMemoryLayout", "block": [block_m, block_n], "col_stride": col_stride, "cga_layout": cga,
            "two_ctas": two_ctas}
    grid = [1, 1]
    for bb in cga:
        for d in range(2):
            if bb[d]:
                grid[d] = max(grid[d], 2 * bb[d])
    return spec, ebw, grid


def s_tensor_memory(rng):
    spec, ebw, grid = s_tmem_layout(rng)
    bm, bn = spec["block"]
    m = bm * wchoice(rng, [(1, 4), (2, 2), (4, 1)]) * grid[0]
    n = bn * wchoice(rng, [(1, 3), (2, 2), (4, 1), (8, 1)]) * grid[1]
    if rng.random() < 0.1:
        n = max(1, n // 4)
    return dict(spec=spec, shape=[m, min(n, 1024)], space="tmem", ebw=ebw, target="cuda:100")


def s_tensor_memory_scales(rng):
    cga = [] if rng.random() < 0.8 else wchoice(rng, [([[1, 0]], 2), ([[0, 1]], 1), ([[0, 0]], 1)])
    if rng.random() < 0.3:
        spec = {"cls": "RubinTensorMemoryScalesLayout", "cga_layout": cga,
                "block_rep_order": wchoice(rng, [("mnThenK", 1), ("kThenMn", 1)])}
    else:
        spec = {"cls": "TensorMemoryScalesLayout", "cga_layout": cga}
    m = wchoice(rng, [(128, 4), (256, 2), (64, 1), (512, 1)])
    k = 1 << rng.randint(0, 5)
    return dict(spec=spec, shape=[m, k], space="tmem", ebw=8, target="cuda:100")


def s_tmem_reg(rng):
    tl, ebw, grid = s_tmem_layout(rng)
    bm, bn = tl["block"]
    m = bm * wchoice(rng, [(1, 4), (2, 2)]) * grid[0]
    n = bn * wchoice(rng, [(1, 3), (2, 2), (4, 1)]) * grid[1]
    n = min(n, 512)
    nw = wchoice(rng, [(4, 5), (8, 4), (16, 1)])
    atom = wchoice(rng, TMEM_ATOMS)
    spec = {"cls": "tmem_reg", "element_bitwidth": ebw, "shape": [m, n], "alloc_shape": [m, n], "tmem_layout": tl,
            "num_warps": nw, "atom": atom}
    return dict(spec=spec, shape=[m, n], space="dist", ebw=ebw, target="cuda:100")


def s_swizzled(rng):
    rank = wchoice(rng, [(1, 1), (2, 5), (3, 2)])
    cga, grid = sample_cga(rng, rank, p=0.15)
    spec = {"cls": "SwizzledSharedLayout", "vec": 1 << rng.randint(0, 4), "per_phase": 1 << rng.randint(0, 3),
            "max_phase": 1 << rng.randint(0, 4), "order": perm(rng, rank), "cga_layout": cga}
    nbits = rng.randint(1, 14) if rng.random() < 0.98 else 0
    per_cta = [1 << x for x in split_bits(rng, nbits, rank)]
    return dict(spec=spec, shape=_mul(per_cta, grid), space="shared", ebw=wchoice(rng, [(8, 1), (16, 2), (32, 1)]),
                target="cuda:90")


def s_nvmma_shared(rng):
    rank = wchoice(rng, [(2, 30), (3, 8), (1, 1)])
    sw = wchoice(rng, [(0, 1), (32, 1), (64, 1), (128, 2)])
    ebw = wchoice(rng, [(8, 3), (16, 4), (32, 2), (64, 1)])
    fp4 = sw == 128 and ebw == 8 and rng.random() < 0.25
    transposed = rng.random() < 0.3
    cga, grid = sample_cga(rng, rank, p=0.15)
    spec = {"cls": "NVMMASharedLayout", "swizzle_byte_width": sw, "element_bitwidth": ebw, "rank": rank,
            "transposed": transposed, "fp4_padded": fp4, "cga_layout": cga}
    # per-CTA shape: contiguous dim (last; dim 0 when transposed) of >= swizzle bytes
    per = [1] * rank
    contig = 0 if transposed else rank - 1
    row_bytes = shl(max(sw, 16), wchoice(rng, [(-1, 1), (0, 8), (1, 6), (2, 2)])) if sw else shl(16, rng.randint(-1, 3))
    row_bytes = max(row_bytes, 1)
    per[contig] = max(1, row_bytes * 8 // ebw // (2 if fp4 else 1))
    for d in range(rank):
        if d != contig:
            per[d] = 1 << rng.randint(0, 2)
    if rank >= 2:
        # Triton collapses the per-CTA shape to a 2-D TMA box [rows, cols] and,
        # when swizzling, wants rows >= 8.  Non-transposed: rows = prod(dims
        # 0..r-2); transposed (order [0, 1, ..]): rows = the last dim.
        rows = shl(8, wchoice(rng, [(-3, 1), (-1, 1), (0, 8), (1, 6), (2, 4), (4, 2)]))
        if transposed:
            per[rank - 1] = rows
        else:
            rows_dims = list(range(rank - 1))
            e = split_bits(rng, log2(max(rows, 1)), len(rows_dims))
            for d, x in zip(rows_dims, e):
                per[d] = 1 << x
    return dict(spec=spec, shape=_mul(per, grid), space="shared", ebw=ebw, target="cuda:90")


def s_padded(rng, rank=None, shape=None):
    rank = rank or wchoice(rng, [(1, 1), (2, 5), (3, 2)])
    cga, grid = sample_cga(rng, rank, p=0.15)
    if isinstance(cga, dict):  # padded takes explicit bases only
        cga, grid = sample_cga(rng, rank, p=0.0)
    per = shape or [1 << x for x in split_bits(rng, rng.randint(1, 13), rank)]
    npairs = wchoice(rng, [(1, 6), (2, 3), (3, 1)])
    intervals = rng.sample([1 << i for i in range(1, 11)], npairs)
    pairs = [[iv, 1 << rng.randint(0, 4)] for iv in sorted(intervals)]
    if rng.random() < 0.6:
        order = perm(rng, rank)
        offs = []
        for d in order:
            for j in range(log2(per[d])):
                v = [0] * rank
                v[d] = 1 << j
                offs.append(v)
        mode = "identity"
    else:
        offs = _unit_bases(rng, rank, [log2(x) for x in per])
        mode = "permuted"
    spec = {"cls": "PaddedSharedLayout", "interval_padding_pairs": pairs, "offset_bases": offs, "cga_layout": cga,
            "shape": _mul(per, grid)}
    return dict(spec=spec, shape=_mul(per, grid), space="shared", ebw=wchoice(rng, [(8, 1), (16, 2), (32, 1)]),
                target="hip:gfx950", offset_mode=mode)


def s_shared_linear(rng):
    rank = wchoice(rng, [(1, 1), (2, 5), (3, 2)])
    n = rng.randint(1, 14)
    dim_bits = split_bits(rng, n, rank)
    shape = [1 << x for x in dim_bits]
    c = wchoice(rng, [(0, 7), (1, 2), (2, 1)])
    c = min(c, n)
    # flat identity-ish ordering: a permutation of output bits, then optional xor swizzle
    order = rng.sample(range(n), n) if rng.random() < 0.5 else list(range(n))
    flat = [1 << s for s in order]
    if rng.random() < 0.6 and n >= 4:
        # swizzle: high "row" bits also flip some low "column" bits
        lo = rng.randint(1, max(1, n // 2))
        for i in range(lo, n - c):
            if rng.random() < 0.5:
                flat[i] ^= flat[rng.randrange(lo)]
    offs = flat[:n - c]
    blk = flat[n - c:]
    if rng.random() < 0.15:
        blk = blk + [0]  # broadcast CTA
    spec = {"cls": "SharedLinearLayout", "offset_bases": [_flatint_to_vec(x, dim_bits) for x in offs],
            "block_bases": [_flatint_to_vec(x, dim_bits) for x in blk],
            "alignment": wchoice(rng, [(16, 4), (128, 2), (1024, 2), (8, 1)])}
    if not spec["offset_bases"]:
        spec["offset_bases"] = [[0] * rank]
    return dict(spec=spec, shape=shape, space="shared", ebw=wchoice(rng, [(8, 1), (16, 2), (32, 1)]), target="cuda:90")


def s_partitioned(rng):
    rank = wchoice(rng, [(2, 4), (3, 1)])
    npart = wchoice(rng, [(2, 4), (4, 2)])  # verifier: power of 2 and at least 2
    ngroups = wchoice(rng, [(1, 3), (2, 2), (4, 1)])
    pdim = rng.randrange(rank)
    inner_shape = [1 << x for x in split_bits(rng, rng.randint(2, 12), rank)]
    if rng.random() < 0.15:
        inner = s_padded(rng, rank=rank, shape=inner_shape)["spec"]
        inner["cga_layout"] = []
        inner["shape"] = inner_shape
    else:
        inner = {"cls": "SwizzledSharedLayout", "vec": 1 << rng.randint(0, 3), "per_phase": 1 << rng.randint(0, 2),
                 "max_phase": 1 << rng.randint(0, 3), "order": perm(rng, rank), "cga_layout": []}
    shape = list(inner_shape)
    shape[pdim] *= npart * ngroups
    spec = {"cls": "PartitionedSharedLayout", "num_partitions": npart, "num_groups": ngroups, "partition_dim": pdim,
            "partition_layout": inner}
    return dict(spec=spec, shape=shape, space="shared", ebw=wchoice(rng, [(8, 1), (16, 2), (32, 1)]),
                target="hip:gfx1250")


SAMPLERS = {
    "blocked": s_blocked,
    "slice": s_slice,
    "dot_op": s_dot_op,
    "nvidia_mma": s_nvidia_mma,
    "amd_mfma": s_amd_mfma,
    "amd_wmma": s_amd_wmma,
    "linear": s_linear,
    "tmem_reg": s_tmem_reg,
    "swizzled_shared": s_swizzled,
    "nvmma_shared": s_nvmma_shared,
    "padded_shared": s_padded,
    "shared_linear": s_shared_linear,
    "partitioned_shared": s_partitioned,
    "tensor_memory": s_tensor_memory,
    "tensor_memory_scales": s_tensor_memory_scales,
}

KIND_WEIGHTS = [
    ("blocked", 13), ("slice", 8), ("dot_op", 10), ("nvidia_mma", 8), ("amd_mfma", 8), ("amd_wmma", 6), ("linear", 8),
    ("tmem_reg", 6), ("swizzled_shared", 8), ("nvmma_shared", 9), ("padded_shared", 5), ("shared_linear", 5),
    ("partitioned_shared", 3), ("tensor_memory", 3), ("tensor_memory_scales", 2)
]

# ----- deliberate breakage ("must be rejected" candidates) -----

BAD_INTS = [0, 3, 5, 6, 12, 24, 48, -1, 4096]


def _int_paths(x, path=()):
    if isinstance(x, bool):
        return
    if isinstance(x, int):
        yield path
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from _int_paths(v, path + (i, ))
    elif isinstance(x, dict):
        for k, v in x.items():
            if k != "cls":
                yield from _int_paths(v, path + (k, ))


def _list_paths(x, path=()):
    if isinstance(x, list):
        if x and all(isinstance(v, int) and not isinstance(v, bool) for v in x):
            yield path
        for i, v in enumerate(x):
            yield from _list_paths(v, path + (i, ))
    elif isinstance(x, dict):
        for k, v in x.items():
            if k != "cls":
                yield from _list_paths(v, path + (k, ))


def _get(x, path):
    for p in path:
        x = x[p]
    return x


def _set(x, path, val):
    for p in path[:-1]:
        x = x[p]
    x[path[-1]] = val


def mutate(rng, case):
    case = json.loads(json.dumps(case))
    spec = case["spec"]
    how = wchoice(rng, [("int", 5), ("list_len", 2), ("shape", 2), ("dup", 1)])
    if how == "shape":
        d = rng.randrange(len(case["shape"]))
        v = rng.choice([0, 3, 6, 48, 96, case["shape"][d] * 3])
        case["shape"][d] = v
        return case, "shape[%d]=%d" % (d, v)
    if how == "list_len":
        paths = list(_list_paths(spec))
        if paths:
            p = rng.choice(paths)
            lst = _get(spec, p)
            if rng.random() < 0.5 and len(lst) > 0:
                new = lst[:-1]
            else:
                new = lst + [rng.choice([1, 2, 0])]
            _set(spec, p, new)
            return case, "%s: %r -> %r" % ("/".join(map(str, p)), lst, new)
    if how == "dup":
        paths = [p for p in _list_paths(spec) if len(_get(spec, p)) >= 2]
        if paths:
            p = rng.choice(paths)
            lst = _get(spec, p)
            new = [lst[0]] * len(lst)
            _set(spec, p, new)
            return case, "%s: %r -> %r" % ("/".join(map(str, p)), lst, new)
    paths = list(_int_paths(spec))
    if not paths:
        return case, "none"
    p = rng.choice(paths)
    old = _get(spec, p)
    v = rng.choice([x for x in BAD_INTS if x != old])
    _set(spec, p, v)
    return case, "%s: %r -> %r" % ("/".join(map(str, p)), old, v)


def sample_case(rng, kind, p_mutate):
    c = SAMPLERS[kind](rng)
    if "shape" not in c:
        if c.get("exact_shape"):
            c["shape"] = list(c["tile"])
        else:
            c["shape"] = pick_shape(rng, c["tile"], c.get("floor"))
    c.setdefault("ebw", wchoice(rng, [(16, 3), (32, 2), (8, 1)]))
    case = {"kind": kind, "spec": c["spec"], "shape": c["shape"], "space": c["space"], "ebw": c["ebw"],
            "target": c["target"]}
    for extra in ("parent_kind", "offset_mode"):
        if extra in c:
            case[extra] = c[extra]
    if rng.random() < p_mutate:
        case, desc = mutate(rng, case)
        case["mutation"] = desc
    return case


# ---------------------------------------------------------------------------
# Derived layouts for the convert-layout triviality pairs
# ---------------------------------------------------------------------------


def _dll_spec(lin, shape):
    return {"cls": "DistributedLinearLayout", "reg_bases": lin["register"], "lane_bases": lin["lane"],
            "warp_bases": lin["warp"], "block_bases": lin["block"], "shape": shape}


def _simple_basis(v):
    """All-zero, or one non-zero component that is a power of two."""
    nz = [x for x in v if x]
    return not nz or (len(nz) == 1 and nz[0] & (nz[0] - 1) == 0)


def derive_pair(rng, rec, how):
    """Returns (dst spec, how actually applied)."""
    lin = json.loads(json.dumps(rec["linear"]))
    if how in ("lane_reg_swap", "warp_reg_swap") and not all(
            _simple_basis(v) for k in ("register", "lane", "warp") for v in lin[k]):
        how = "reg_permute"  # moving a swizzled warp basis into registers is not a valid generic_linear
    if how == "same":
        return rec["params"], how
    if how == "as_linear":
        return _dll_spec(lin, rec["shape"]), how
    if how == "reg_permute":
        rng.shuffle(lin["register"])
        return _dll_spec(lin, rec["shape"]), how
    if how == "lane_reg_swap":
        if lin["register"] and lin["lane"]:
            i, j = rng.randrange(len(lin["register"])), rng.randrange(len(lin["lane"]))
            lin["register"][i], lin["lane"][j] = lin["lane"][j], lin["register"][i]
        else:
            how = "as_linear"  # nothing to swap
        return _dll_spec(lin, rec["shape"]), how
    if how == "lane_permute":
        rng.shuffle(lin["lane"])
        return _dll_spec(lin, rec["shape"]), how
    if how == "warp_reg_swap":
        if lin["register"] and lin["warp"]:
            i, j = rng.randrange(len(lin["register"])), rng.randrange(len(lin["warp"]))
            lin["register"][i], lin["warp"][j] = lin["warp"][j], lin["register"][i]
        else:
            how = "as_linear"  # nothing to swap
        return _dll_spec(lin, rec["shape"]), how
    raise ValueError(how)


# ---------------------------------------------------------------------------
# Main driver
# ---------------------------------------------------------------------------


def companion_paths(out):
    d = os.path.dirname(os.path.abspath(out))
    base = os.path.basename(out)
    if base.endswith("layouts.jsonl"):
        prefix = base[:-len("layouts.jsonl")]
    else:
        prefix = (base[:-len(".jsonl")] if base.endswith(".jsonl") else base) + "-"
    names = ["layouts", "rejects", "bank-conflicts", "trivial-cvt", "layout-views"]
    paths = {n: os.path.join(d, prefix + n + ".jsonl") for n in names}
    paths["layouts"] = os.path.abspath(out)
    paths["summary"] = os.path.join(d, prefix + "summary.json")
    return paths


# Rejections where the input is fine but Triton 3.9 cannot produce the answer.
LIMITATIONS = [
    ("SharedLinearLayout offset_bases must not be empty",
     "1-element shared tensor: Gluon's SharedLinearLayout cannot hold an empty offset basis list"),
    ("toLinearLayout does not support partitioned layouts wrapping padded",
     "partitioned_shared around padded_shared has no linear layout in Triton"),
    ("reshapeIns", "get_shared_bank_conflicts asserts when the tensor is smaller than one vector x bank row"),
    ("cannot be visualized", "get_layout_view does not support padded_shared"),
    ("Dimensions must match, ignoring order", "get_layout_view aborts on this layout family"),
]


def _reject_record(rid, query, case, res):
    r = {"id": rid, "query": query}
    r.update({k: v for k, v in case.items() if k not in ("spec", )})
    r["params"] = case.get("spec")
    r["stage"] = res.get("stage")
    r["error"] = res.get("error")
    r["diagnostics"] = res.get("diagnostics", "")
    r["crashed"] = bool(res.get("crashed", False))
    if res.get("printed_types"):
        r["printed_types"] = res["printed_types"]
    if res.get("module_text"):
        r["module_text"] = res["module_text"]
    blob = (r["error"] or "") + "\n" + r["diagnostics"]
    for pat, note in LIMITATIONS:
        if pat in blob:
            r["triton_limitation"] = note
            break
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--count", type=int, required=True, help="number of accepted layout cases to write")
    ap.add_argument("--out", required=True, help="path of the layouts file, e.g. DIR/sample-layouts.jsonl")
    ap.add_argument("--bank-count", type=int, default=None, help="bank-conflict cases (default count/6)")
    ap.add_argument("--trivial-count", type=int, default=None, help="convert-layout triviality pairs (default count/6)")
    ap.add_argument("--view-count", type=int, default=None, help="layout-view cases (default min(40, count/10))")
    ap.add_argument("--mutate", type=float, default=0.06, help="fraction of layout cases deliberately broken")
    ap.add_argument("--jobs", type=int, default=max(1, min(4, os.cpu_count() or 1)))
    ap.add_argument("--tmpdir", default=tempfile.gettempdir())
    args = ap.parse_args()

    bank_count = args.bank_count if args.bank_count is not None else max(1, args.count // 6)
    triv_count = args.trivial_count if args.trivial_count is not None else max(1, args.count // 6)
    view_count = args.view_count if args.view_count is not None else max(1, min(40, args.count // 10))

    paths = companion_paths(args.out)
    os.makedirs(os.path.dirname(paths["layouts"]), exist_ok=True)
    tmpdir = os.path.join(args.tmpdir, "oracle_%d_%d" % (args.seed, os.getpid()))
    os.makedirs(tmpdir, exist_ok=True)
    pool = Pool(args.jobs, tmpdir)
    rng = random.Random(args.seed)
    tag = "s%d" % args.seed

    import triton
    summary = {"generator_version": GENERATOR_VERSION, "triton_version": triton.__version__, "seed": args.seed,
               "python": sys.version.split()[0]}

    # ---- 1. layouts ----
    accepted, rejects = [], []
    attempt = 0
    kinds, kweights = zip(*KIND_WEIGHTS)
    max_attempts = 4 * args.count + 200
    while len(accepted) < args.count and attempt < max_attempts:
        batch = []
        for _ in range(64):
            kind = rng.choices(kinds, weights=kweights)[0]
            batch.append(sample_case(rng, kind, args.mutate))
        results = pool.map([{"op": "layout", **c} for c in batch])
        for case, res in zip(batch, results):
            if len(accepted) >= args.count:
                break
            rid = "%s-L%05d" % (tag, attempt)
            attempt += 1
            if res["ok"]:
                r = res["result"]
                rec = {"id": rid, "kind": case["kind"], "attr": r["mlir"].split("<", 1)[0].lstrip("#"),
                       "mlir": r["mlir"], "shape": case["shape"], "linear": r["linear"], "type": r["type"],
                       "space": case["space"], "elem_bitwidth": case["ebw"], "gluon": r["gluon"], "params": case["spec"],
                       "module_attrs": r["module_attrs"]}
                for k in ("alignment", "linear_source", "gluon_readback", "mlir_printed", "mlir_repair", "parent_kind",
                          "offset_mode", "mutation"):
                    if k in r:
                        rec[k] = r[k]
                    elif k in case:
                        rec[k] = case[k]
                if r["linear_shape"] != case["shape"]:
                    rec["linear_shape"] = r["linear_shape"]
                if case["spec"].get("cls") == "PaddedSharedLayout":
                    rec["interval_padding_pairs"] = case["spec"]["interval_padding_pairs"]
                if case["space"] == "tmem" and r["module_attrs"]["ttg.num-ctas"] > 1:
                    rec["linear_incomplete"] = ("Triton's to_linear_layout result for tensor memory keeps only the "
                                                "row/col input dims; the block (CTA) bases are not in 'linear'")
                if case["spec"].get("cls") == "PartitionedSharedLayout":
                    rec["linear_incomplete"] = ("Triton's to_linear_layout result keeps only the offset/block input "
                                                "dims; the partition selection is not in 'linear'")
                accepted.append(rec)
            else:
                rejects.append(_reject_record(rid, "layout", case, res))
        print("layouts: %d accepted, %d rejected, %d worker restarts" %
              (len(accepted), len(rejects), pool.restarts), file=sys.stderr, flush=True)

    with open(paths["layouts"], "w") as f:
        for rec in accepted:
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")

    # ---- 2. bank conflicts: (distributed layout, shared layout, shape, bitwidth) ----
    dist_recs = [r for r in accepted if r["space"] == "dist" and r["module_attrs"]["ttg.num-ctas"] == 1
                 and r["module_attrs"]["ttg.threads-per-warp"] == 32 and not r.get("mutation")]
    bank_cases = []
    for i in range(bank_count if dist_recs else 0):
        reg = rng.choice(dist_recs)
        shape = reg["shape"]
        rank = len(shape)
        bw = wchoice(rng, [(8, 1), (16, 3), (32, 2)])
        sk = wchoice(rng, [("swizzled", 4), ("nvmma", 3 if rank >= 2 else 0), ("shared_linear", 2)])
        if sk == "swizzled":
            smem = {"cls": "SwizzledSharedLayout", "vec": 1 << rng.randint(0, 3), "per_phase": 1 << rng.randint(0, 3),
                    "max_phase": 1 << rng.randint(0, 3), "order": perm(rng, rank), "cga_layout": []}
        elif sk == "nvmma":
            transposed = rng.random() < 0.3
            contig = 0 if transposed else rank - 1
            contig_bytes = shape[contig] * bw // 8
            rows = shape[rank - 1] if transposed else 1
            if not transposed:
                for d in range(rank - 1):
                    rows *= shape[d]
            ok = [0] + [sw for sw in (32, 64, 128) if contig_bytes >= sw and rows >= 8]
            smem = {"cls": "NVMMASharedLayout", "swizzle_byte_width": rng.choice(ok), "element_bitwidth": bw,
                    "rank": rank, "transposed": transposed, "fp4_padded": False, "cga_layout": []}
        else:
            dim_bits = [log2(s) for s in shape]
            n = sum(dim_bits)
            flat = [1 << s for s in (rng.sample(range(n), n) if rng.random() < 0.5 else range(n))]
            if n >= 4 and rng.random() < 0.7:
                lo = rng.randint(1, n // 2)
                for j in range(lo, n):
                    if rng.random() < 0.5:
                        flat[j] ^= flat[rng.randrange(lo)]
            smem = {"cls": "SharedLinearLayout", "offset_bases": [_flatint_to_vec(x, dim_bits) for x in flat] or
                    [[0] * rank], "block_bases": [], "alignment": 16}
        bank_cases.append({"op": "bank", "reg": reg["params"], "smem": smem, "shape": shape, "bitwidth": bw,
                           "reg_id": reg["id"], "reg_kind": reg["kind"], "shared_kind": sk,
                           "target": reg["module_attrs"]["ttg.target"]})
    bank_out = []
    for case, res in zip(bank_cases, pool.map(bank_cases) if bank_cases else []):
        rid = "%s-B%05d" % (tag, len(bank_out) + sum(1 for r in rejects if r["query"] == "bank_conflicts"))
        if res["ok"]:
            r = res["result"]
            bank_out.append({"id": rid, "shape": case["shape"], "bitwidth": case["bitwidth"],
                             "conflicts": r["conflicts"], "reg_id": case["reg_id"], "reg_kind": case["reg_kind"],
                             "shared_kind": case["shared_kind"], "reg": r["reg"], "shared": r["shared"],
                             "module_attrs": r["module_attrs"], "reg_params": case["reg"],
                             "shared_params": case["smem"]})
        else:
            rc = {k: v for k, v in case.items() if k not in ("op", )}
            rejects.append(_reject_record(rid, "bank_conflicts", {"kind": "bank_conflicts", **rc}, res))
    with open(paths["bank-conflicts"], "w") as f:
        for rec in bank_out:
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")

    # ---- 3. is_convert_layout_trivial pairs ----
    by_group = {}
    for r in accepted:
        if r["space"] != "dist" or r.get("mutation"):
            continue
        key = (tuple(r["shape"]), r["module_attrs"]["ttg.num-warps"], r["module_attrs"]["ttg.threads-per-warp"],
               r["module_attrs"]["ttg.num-ctas"])
        by_group.setdefault(key, []).append(r)
    dist_all = [r for r in accepted if r["space"] == "dist" and not r.get("mutation")]
    triv_cases = []
    for i in range(triv_count if dist_all else 0):
        how = wchoice(rng, [("random", 4), ("as_linear", 2), ("reg_permute", 2), ("lane_reg_swap", 2),
                            ("lane_permute", 1), ("warp_reg_swap", 1), ("same", 1)])
        src = rng.choice(dist_all)
        if how == "random":
            key = (tuple(src["shape"]), src["module_attrs"]["ttg.num-warps"],
                   src["module_attrs"]["ttg.threads-per-warp"], src["module_attrs"]["ttg.num-ctas"])
            others = [r for r in by_group[key] if r["id"] != src["id"]]
            if others:
                dst = rng.choice(others)["params"]
            else:
                dst, how = derive_pair(rng, src, rng.choice(["lane_reg_swap", "reg_permute", "lane_permute"]))
        else:
            dst, how = derive_pair(rng, src, how)
        ebw = wchoice(rng, [(16, 2), (32, 1)])
        triv_cases.append({"op": "trivial", "src": src["params"], "dst": dst, "shape": src["shape"], "ebw": ebw,
                           "target": src["module_attrs"]["ttg.target"], "how": how, "src_id": src["id"]})
    triv_out = []
    for case, res in zip(triv_cases, pool.map(triv_cases) if triv_cases else []):
        rid = "%s-T%05d" % (tag, len(triv_out) + sum(1 for r in rejects if r["query"] == "trivial_cvt"))
        if res["ok"]:
            r = res["result"]
            triv_out.append({"id": rid, "shape": case["shape"], "trivial": r["trivial"], "pair": case["how"],
                             "src_id": case["src_id"], "src": r["src"], "dst": r["dst"], "elem_bitwidth": case["ebw"],
                             "module_attrs": r["module_attrs"], "src_params": case["src"], "dst_params": case["dst"]})
        else:
            rc = {k: v for k, v in case.items() if k not in ("op", )}
            rejects.append(_reject_record(rid, "trivial_cvt", {"kind": "trivial_cvt", **rc}, res))
    with open(paths["trivial-cvt"], "w") as f:
        for rec in triv_out:
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")

    # ---- 4. layout views for a few small layouts ----
    def small(r):
        n = 1
        for s in r["shape"]:
            n *= s
        # get_layout_view: padded -> "cannot be visualized", partitioned and
        # tensor memory -> the process aborts (LLVM ERROR)
        if r["space"] == "tmem" or r.get("mutation") or r["kind"] in ("padded_shared", "partitioned_shared"):
            return False
        if r["space"] == "dist":
            hw = (1 << len(r["linear"]["register"])) * (1 << len(r["linear"]["lane"])) * \
                (1 << len(r["linear"]["warp"])) * (1 << len(r["linear"]["block"]))
            return n <= 256 and hw <= 1024
        return n <= 512
    small_recs = [r for r in accepted if small(r)]
    view_cases = []
    if small_recs:
        by_kind = {}
        for r in small_recs:
            by_kind.setdefault(r["kind"], []).append(r)
        ks = sorted(by_kind)
        for i in range(view_count):
            k = ks[i % len(ks)]
            r = rng.choice(by_kind[k])
            view_cases.append({"op": "view", "spec": r["params"], "shape": r["shape"], "space": r["space"],
                               "ebw": r["elem_bitwidth"], "layout_id": r["id"], "kind": r["kind"],
                               "target": r["module_attrs"]["ttg.target"]})
    view_out = []
    for case, res in zip(view_cases, pool.map(view_cases) if view_cases else []):
        rid = "%s-V%05d" % (tag, len(view_out) + sum(1 for r in rejects if r["query"] == "layout_view"))
        if res["ok"]:
            r = res["result"]
            view_out.append({"id": rid, "layout_id": case["layout_id"], "kind": case["kind"], "shape": case["shape"],
                             "space": case["space"], "mlir": r["mlir"], "gluon": r["gluon"], "linear": r["linear"],
                             "tensor_view": r["tensor_view"], "hardware_view": r["hardware_view"]})
        else:
            rc = {k: v for k, v in case.items() if k not in ("op", )}
            rejects.append(_reject_record(rid, "layout_view", rc, res))
    with open(paths["layout-views"], "w") as f:
        for rec in view_out:
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")

    with open(paths["rejects"], "w") as f:
        for rec in rejects:
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")

    pool.close()
    try:
        os.rmdir(tmpdir)
    except OSError:
        pass
    summary["args"] = {"seed": args.seed, "count": args.count, "bank_count": bank_count, "trivial_count": triv_count,
                       "view_count": view_count, "mutate": args.mutate}
    summary.update({
        "layouts": len(accepted),
        "layout_attempts": attempt,
        "layouts_per_kind": dict(sorted(Counter(r["kind"] for r in accepted).items())),
        "layouts_per_attr": dict(sorted(Counter(r["attr"] for r in accepted).items())),
        "mutated_but_accepted": sum(1 for r in accepted if r.get("mutation")),
        "rejects_per_query": dict(sorted(Counter(r["query"] for r in rejects).items())),
        "layout_rejects_per_kind": dict(sorted(Counter(r["kind"] for r in rejects if r["query"] == "layout").items())),
        "layout_rejects_mutated": sum(1 for r in rejects if r["query"] == "layout" and r.get("mutation")),
        "layout_rejects_crashed": sum(1 for r in rejects if r["query"] == "layout" and r["crashed"]),
        "rejects_per_stage": dict(sorted(Counter("%s/%s" % (r["query"], r["stage"]) for r in rejects).items())),
        "bank_conflicts": len(bank_out),
        "bank_conflicts_histogram": dict(sorted(Counter(r["conflicts"] for r in bank_out).items())),
        "trivial_cvt": len(triv_out),
        "trivial_cvt_true": sum(1 for r in triv_out if r["trivial"]),
        "trivial_cvt_per_pair": {k: [sum(1 for r in triv_out if r["pair"] == k and r["trivial"]),
                                     sum(1 for r in triv_out if r["pair"] == k)]
                                 for k in sorted(set(r["pair"] for r in triv_out))},
        "layout_views": len(view_out),
        "worker_restarts": pool.restarts,
        "files": {k: os.path.basename(v) for k, v in paths.items()},
    })
    with open(paths["summary"], "w") as f:
        json.dump(summary, f, indent=1, sort_keys=True)
        f.write("\n")
    print(json.dumps(summary, indent=1), file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--worker":
        worker_main(sys.argv[2])
    else:
        main()
