"""Code generation from Python: conversion plans (Triton's and the
planner's), the optimal swizzle, partial cross-warp plans and CUDA source,
each a thin call into the Rust crates ``layout-codegen`` and ``layout-cuda``
returning plain data. Re-exported by :mod:`linear_layouts`."""

from __future__ import annotations

from ._native import LayoutError, LinearLayout, _convert, _cuda, _partial, _plan, _swizzle

import dataclasses as _dataclasses
import json as _json

_DTYPE_BITS = {"f64": 64, "i64": 64, "f32": 32, "i32": 32, "tf32": 32, "f16": 16, "bf16": 16,
               "i16": 16, "f8": 8, "i8": 8, "f8e4m3fn": 8, "f8e5m2": 8}


def _bits(dtype) -> int:
    if isinstance(dtype, int):
        return dtype
    d = str(dtype).lower().replace("float", "f").replace("int", "i").replace("bfloat", "bf")
    if d not in _DTYPE_BITS:
        raise LayoutError(f"unknown dtype {dtype!r} (expected f16, bf16, f32, f8, i8, ... or a bit width)")
    return _DTYPE_BITS[d]


@_dataclasses.dataclass(frozen=True)
class Conversion:
    """A planned conversion: its class (``"noop"``, ``"register"``,
    ``"shuffle"``, ``"shared"``), the conversion layout
    ``dst.invert_and_compose(src)`` (destination hardware coordinates to the
    source coordinates holding the same element), the simulated cost and the
    plan (plain data, as ``linlayout convert --json`` prints it); ``text``
    (and ``str()``) is the plan as ``linlayout convert`` prints it."""

    kind: str
    conversion: LinearLayout
    cost: dict
    plan: dict
    text: str = ""

    def __str__(self):
        return self.text


@_dataclasses.dataclass(frozen=True)
class Swizzle:
    """The optimal swizzled shared layout for a conversion, with its vector
    width (elements), write/read conflicts and the paper's lower bound
    (log2 wavefronts of the worse side)."""

    shared: LinearLayout
    vector_elems: int
    write_conflicts: int
    read_conflicts: int
    lower_bound_log2: int


def convert(src: LinearLayout, dst: LinearLayout, dtype="f16") -> Conversion:
    """Plans the conversion ``src -> dst`` of elements of ``dtype`` (a name
    such as ``"f16"`` or a bit width) and proves the plan on the simulator.

    >>> import linear_layouts as ll
    >>> a = ll.blocked([1, 4], [8, 4], [4, 1], [1, 0], shape=[32, 32])
    >>> ll.convert(a, a, "f16").kind
    'noop'
    """
    kind, conv, rest = _convert(src, dst, _bits(dtype))
    rest = _json.loads(rest)
    return Conversion(kind, conv, rest["cost"], rest["plan"], rest["text"])


def swizzle(src: LinearLayout, dst: LinearLayout, dtype="f16") -> Swizzle:
    """The optimal swizzled shared layout for converting ``src -> dst``."""
    return Swizzle(*_swizzle(src, dst, _bits(dtype)))


@_dataclasses.dataclass(frozen=True)
class PartialPlan:
    """A partial cross-warp plan: only the elements that leave their warp go
    through shared memory (``staying_elements`` of ``elements`` destination
    elements stay, by register moves or ``shfl.sync.idx``). ``partial_units``
    and ``full_units`` are the predicted shared-memory wavefronts plus
    shuffles per CTA of this plan and of the full shared-memory plan through
    the same shared layout; ``plan`` is its plain data (warp classes with
    their stores, staying moves and loads), proved by the simulator."""

    staying_elements: int
    elements: int
    partial_units: int
    full_units: int
    plan: dict


def partial(src: LinearLayout, dst: LinearLayout, dtype="f16") -> PartialPlan:
    """Plans ``src -> dst`` as a partial cross-warp conversion through the
    optimal swizzle (a broadcast source is read from the copy in the
    reader's own warp); raises :class:`LayoutError` naming the condition
    that fails (e.g. a transpose, whose staying elements depend on the lane).

    >>> import linear_layouts as ll
    >>> mma = ll.nvmma_distributed([2, 0], [2, 2], [16, 8], shape=[64, 64])
    >>> a = ll.dot_operand(0, ll.nvmma_distributed([2, 0], [2, 2], [16, 8]), 2, shape=[64, 64])
    >>> p = ll.partial(mma, a, "f16")
    >>> (p.staying_elements * 2 == p.elements, p.partial_units, p.full_units)
    (True, 128, 192)
    """
    rest = _json.loads(_partial(src, dst, _bits(dtype)))
    cost = rest["plan"]["cost"]
    return PartialPlan(cost["staying_elements"], cost["elements"], rest["partial_units"],
                       rest["full_units"], rest["plan"])


@_dataclasses.dataclass(frozen=True)
class Plan:
    """The planner's answer for a conversion (``layout_codegen::planner::plan``):
    the cheapest proved candidate among Triton's plan, warp shuffles, the
    paper's swizzle and partial cross-warp plans, on one cost scale.
    ``kind`` is ``"noop"``, ``"register"``, ``"shuffle"``, ``"shared"`` or
    ``"partial"``; ``cycles`` the model's cycles per warp; ``lower_bound``
    the conversion's floor (bytes that must leave their warp or lane, the
    wavefronts and shuffles they need, its cycles) and ``above_bound`` =
    ``cycles / lower_bound["cycles"]``; ``candidates`` every candidate with
    its cycles or why it was refused; ``lowering`` the chosen plan's data;
    ``text`` a whole-CTA plan as ``linlayout convert`` prints it (``None``
    for a partial plan)."""

    kind: str
    candidate: str
    cycles: float
    lower_bound: dict
    above_bound: float
    candidates: list
    lowering: dict
    text: object


def plan(src: LinearLayout, dst: LinearLayout, dtype="f16", target="sm90") -> Plan:
    """Plans ``src -> dst`` with the planner's entry point for ``target``
    (``"sm90"``: NVIDIA Hopper, 32 lanes; ``"cdna3"``: AMD MI300, 64 lanes).

    >>> import linear_layouts as ll
    >>> b22 = ll.blocked([1, 4], [8, 4], [2, 2], [1, 0], shape=[128, 128])
    >>> b41 = ll.blocked([1, 4], [8, 4], [4, 1], [1, 0], shape=[128, 128])
    >>> p = ll.plan(b22, b41, "f16")
    >>> (p.kind, p.cycles, p.lower_bound["cycles"], p.above_bound)
    ('partial', 100.0, 100.0, 1.0)
    """
    j = _json.loads(_plan(src, dst, _bits(dtype), target))
    return Plan(j["kind"], j["candidate"], j["cycles"], j["lower_bound"], j["above_bound"],
                j["candidates"], j["lowering"], j["text"])


def cuda(src: LinearLayout, dst: LinearLayout, dtype="f16", what="device_function", name="cvt") -> str:
    """CUDA source converting a tile from ``src`` to ``dst`` (rank 2, one
    CTA; the tile is the layouts' shape): ``what="device_function"`` the
    ``__device__`` function ``name(src_regs, dst_regs, scratch, lane,
    warp)`` with its offset helpers and size macros (calling convention:
    ``layout_cuda::device_fn``), ``"kernel"`` a load-convert-store kernel,
    ``"bench"`` the benchmark program with its forward element check.

    >>> import linear_layouts as ll
    >>> mma = ll.nvmma_distributed([2, 0], [2, 2], [16, 8], shape=[64, 64])
    >>> blk = ll.blocked([1, 4], [8, 4], [4, 1], [1, 0], shape=[64, 64])
    >>> text = ll.cuda(mma, blk, "f16")
    >>> "void cvt(const uint16_t (&a)[32], uint16_t (&b)[32]" in text, "#define CVT_SCRATCH_BYTES" in text
    (True, True)
    """
    return _cuda(src, dst, _bits(dtype), what, name)
