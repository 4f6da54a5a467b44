"""Linear layouts: GPU tensor layouts as linear maps over GF(2).

A :class:`LinearLayout` maps named *input* dims (hardware coordinates:
``register, lane, warp, block`` for registers, ``offset, block`` for shared
memory, ``row, col`` for tensor memory) to named *output* dims (``dim0,
dim1, ...``: the tensor coordinate, dim0 first), exactly as Triton's
``LinearLayout``. Basis ``i`` of input dim ``d`` is the image of ``d = 2^i``;
the image of any input is the XOR of the bases of its set bits.

This package is a thin binding of the Rust crates ``linear-layout`` and
``hw-layouts``:

* :class:`LinearLayout`: constructors, the algebra (``*``, ``compose``,
  ``invert_and_compose``, ``divide_left``, ...), shape operations, evaluation
  (``apply``, ``table``, ``matrix``), JSON in the Triton-oracle schema
  (``to_dict`` / ``from_dict``), Triton's MLIR text (``to_mlir``), pickling.
* :func:`from_mlir`: the linear layout of a Triton layout attribute
  (``#ttg.blocked<{...}>``, ``#ttg.nvmma_shared<{...}>``, ...) for a shape.
* Gluon-keyword constructors (:func:`blocked`, :func:`slice`,
  :func:`dot_operand`, :func:`nvmma_distributed`, :func:`amd_mfma`,
  :func:`amd_wmma`, :func:`swizzled_shared`, :func:`nvmma_shared`,
  :func:`padded_shared`, :func:`shared_linear`, :func:`partitioned_shared`,
  :func:`tensor_memory`, :func:`tensor_memory_scales`,
  :func:`distributed_linear`): they build Triton's attribute text and return
  an :class:`Encoding`, or the :class:`LinearLayout` directly when ``shape``
  is given.
* :func:`from_gluon` / :meth:`LinearLayout.to_gluon`: interoperation with
  Triton's Gluon layout objects, without importing Triton for ``from_gluon``.

Every error is a :class:`LayoutError` (a ``ValueError``) with the message of
the Rust library.
"""

from __future__ import annotations

import builtins as _builtins  # noqa: F401 - `slice` below shadows the builtin
import operator as _operator

from ._native import (
    LayoutError,
    LinearLayout,
    assign_layouts,
    bank_conflicts,
    clear_cache,
    factor_through,
    from_cute,
    from_mlir,
    from_pycute,
    local_conversion,
    mlir_space,
    normalize_mlir,
    supremum,
)

__all__ = [
    "LayoutError",
    "LinearLayout",
    "Encoding",
    "from_mlir",
    "from_cute",
    "from_pycute",
    "clear_cache",
    "from_dict",
    "normalize_mlir",
    "mlir_space",
    "factor_through",
    "supremum",
    "blocked",
    "slice",
    "dot_operand",
    "nvmma_distributed",
    "distributed_linear",
    "amd_mfma",
    "amd_wmma",
    "swizzled_shared",
    "nvmma_shared",
    "padded_shared",
    "shared_linear",
    "partitioned_shared",
    "tensor_memory",
    "tensor_memory_scales",
    "gluon_to_mlir",
    "from_gluon",
    "to_gluon",
    "bank_conflicts",
    "convert",
    "swizzle",
    "partial",
    "plan",
    "local_conversion",
    "assign_layouts",
    "cuda",
    "Conversion",
    "Swizzle",
    "PartialPlan",
    "Plan",
]

__version__ = "0.1.0"

from_dict = LinearLayout.from_dict

from ._codegen import (  # noqa: E402 - after the native names it uses
    Conversion,
    PartialPlan,
    Plan,
    Swizzle,
    convert,
    cuda,
    partial,
    plan,
    swizzle,
)

# ---------------------------------------------------------------------------
# Encodings: Triton attribute text
# ---------------------------------------------------------------------------


class Encoding:
    """A Triton layout attribute, as its MLIR text (``#ttg.blocked<{...}>``).

    ``Encoding(text)`` does not parse the text; :meth:`to_linear_layout`
    does (and raises :class:`LayoutError` on bad text or parameters).
    """

    __slots__ = ("_mlir",)

    def __init__(self, mlir: str):
        if isinstance(mlir, Encoding):
            mlir = mlir.mlir
        if not isinstance(mlir, str):
            raise TypeError(f"Encoding needs the attribute text (str), got {type(mlir).__name__}")
        object.__setattr__(self, "_mlir", mlir)

    def __setattr__(self, name, value):
        raise AttributeError("Encoding is immutable")

    @property
    def mlir(self) -> str:
        """The attribute text."""
        return self._mlir

    def to_linear_layout(self, shape, threads_per_warp=None) -> LinearLayout:
        """The linear layout of a tensor of ``shape`` in this layout."""
        return from_mlir(self._mlir, list(shape), threads_per_warp)

    def space(self) -> str:
        """``"distributed"``, ``"shared"`` or ``"tensor_memory"``."""
        return mlir_space(self._mlir)

    def __str__(self):
        return self._mlir

    def __repr__(self):
        return f"Encoding({self._mlir!r})"

    def __eq__(self, other):
        return isinstance(other, Encoding) and other._mlir == self._mlir

    def __hash__(self):
        return hash(("Encoding", self._mlir))

    def __reduce__(self):
        return (Encoding, (self._mlir,))


def _unwrap(v):
    """Gluon wraps parameters in ``constexpr`` objects: take their value."""
    while type(v).__name__ == "constexpr" and hasattr(v, "value"):
        v = v.value
    return v


def _int(v, what):
    v = _unwrap(v)
    if isinstance(v, bool):
        raise LayoutError(f"{what} must be an integer, got {v!r}")
    try:
        return _operator.index(v)
    except TypeError:
        raise LayoutError(f"{what} must be an integer, got {v!r}") from None


def _bool(v, what):
    v = _unwrap(v)
    if not isinstance(v, (bool, int)) or (isinstance(v, int) and v not in (0, 1)):
        raise LayoutError(f"{what} must be a bool, got {v!r}")
    return "true" if v else "false"


def _ints(v, what):
    v = _unwrap(v)
    if isinstance(v, (str, bytes)):
        raise LayoutError(f"{what} must be a list of integers, got {v!r}")
    try:
        items = list(v)
    except TypeError:
        raise LayoutError(f"{what} must be a list of integers, got {v!r}") from None
    return "[" + ", ".join(str(_int(x, what)) for x in items) + "]"


def _matrix(v, what):
    v = _unwrap(v)
    if v is None:
        return "[]"
    try:
        rows = list(v)
    except TypeError:
        raise LayoutError(f"{what} must be a list of lists of integers, got {v!r}") from None
    return "[" + ", ".join(_ints(r, what) for r in rows) + "]"


def _has(v):
    v = _unwrap(v)
    return v is not None and len(v) > 0


def _parent_text(p, what):
    """Parent layouts: an Encoding, attribute text, or a Gluon layout object."""
    p = _unwrap(p)
    if isinstance(p, Encoding):
        return p.mlir
    if isinstance(p, str):
        return p
    return gluon_to_mlir(p)


def _finish(text, shape):
    if shape is None:
        return Encoding(text)
    return from_mlir(text, list(shape))


def _cga(cga_layout):
    return f", CGALayout = {_matrix(cga_layout, 'cga_layout')}" if _has(cga_layout) else ""


# ----- distributed layouts --------------------------------------------------


def blocked(size_per_thread, threads_per_warp, warps_per_cta, order, cga_layout=None, shape=None):
    """``#ttg.blocked`` (Gluon ``BlockedLayout``): each thread holds a
    ``size_per_thread`` block, ``threads_per_warp`` threads per warp and
    ``warps_per_cta`` warps tile the tensor, dims visited fastest-first in
    ``order``; ``cga_layout`` bases place the CTAs (in CTA-tile units).
    Returns an :class:`Encoding`, or the :class:`LinearLayout` for ``shape``."""
    text = (
        f"#ttg.blocked<{{sizePerThread = {_ints(size_per_thread, 'size_per_thread')}, "
        f"threadsPerWarp = {_ints(threads_per_warp, 'threads_per_warp')}, "
        f"warpsPerCTA = {_ints(warps_per_cta, 'warps_per_cta')}, "
        f"order = {_ints(order, 'order')}{_cga(cga_layout)}}}>"
    )
    return _finish(text, shape)


def slice(dim, parent, shape=None):  # noqa: A001 - Gluon's name
    """``#ttg.slice`` (Gluon ``SliceLayout``): ``parent`` with tensor dim
    ``dim`` removed. ``parent``: an :class:`Encoding`, attribute text or a
    Gluon layout object."""
    text = f"#ttg.slice<{{dim = {_int(dim, 'dim')}, parent = {_parent_text(parent, 'parent')}}}>"
    return _finish(text, shape)


def dot_operand(operand_index, parent, k_width=0, shape=None):
    """``#ttg.dot_op`` (Gluon ``DotOperandLayout``): operand ``operand_index``
    (0 = A, 1 = B) of a dot whose result has layout ``parent``; ``k_width``
    consecutive K elements per thread (0 for a blocked parent)."""
    k = _int(k_width, "k_width")
    kw = f", kWidth = {k}" if k != 0 else ""
    text = (
        f"#ttg.dot_op<{{opIdx = {_int(operand_index, 'operand_index')}, "
        f"parent = {_parent_text(parent, 'parent')}{kw}}}>"
    )
    return _finish(text, shape)


def nvmma_distributed(version, warps_per_cta, instr_shape, cga_layout=None, shape=None):
    """``#ttg.nvidia_mma`` (Gluon ``NVMMADistributedLayout``): the result
    layout of an NVIDIA mma (``version`` = ``[2, 0]`` Ampere or ``[3, 0]``
    Hopper)."""
    v = _unwrap(version)
    try:
        major, minor = (_int(x, "version") for x in v)
    except (TypeError, ValueError):
        raise LayoutError(f"version must be [major, minor], got {v!r}") from None
    text = (
        f"#ttg.nvidia_mma<{{versionMajor = {major}, versionMinor = {minor}, "
        f"warpsPerCTA = {_ints(warps_per_cta, 'warps_per_cta')}{_cga(cga_layout)}, "
        f"instrShape = {_ints(instr_shape, 'instr_shape')}}}>"
    )
    return _finish(text, shape)


def amd_mfma(
    version,
    instr_shape,
    transposed,
    warps_per_cta,
    element_bitwidth=None,
    tiles_per_warp=None,
    cga_layout=None,
    shape=None,
):
    """``#ttg.amd_mfma`` (Gluon ``AMDMFMALayout``)."""
    text = (
        f"#ttg.amd_mfma<{{version = {_int(version, 'version')}, "
        f"warpsPerCTA = {_ints(warps_per_cta, 'warps_per_cta')}, "
        f"instrShape = {_ints(instr_shape, 'instr_shape')}, "
        f"isTransposed = {_bool(transposed, 'transposed')}{_cga(cga_layout)}"
    )
    tiles = _unwrap(tiles_per_warp)
    if tiles is not None and any(_int(t, "tiles_per_warp") != 1 for t in tiles):
        text += f", tilesPerWarp = {_ints(tiles, 'tiles_per_warp')}"
    ebw = _unwrap(element_bitwidth)
    if ebw is not None and _int(ebw, "element_bitwidth") != 32:
        text += f", elementBitWidth = {_int(ebw, 'element_bitwidth')}"
    return _finish(text + "}>", shape)


def amd_wmma(
    version,
    transposed,
    warp_bases,
    reg_bases=None,
    instr_shape=None,
    cga_layout=None,
    rank=None,
    shape=None,
):
    """``#ttg.amd_wmma`` (Gluon ``AMDWMMALayout``). The text always carries
    ``warp = ...`` and, for rank 3, ``rank = 3`` (Triton's parser needs them
    although its printer omits them)."""
    cta = []
    if _has(reg_bases):
        cta.append(f"register = {_matrix(reg_bases, 'reg_bases')}")
    cta.append(f"warp = {_matrix(warp_bases, 'warp_bases')}")
    text = (
        f"#ttg.amd_wmma<{{version = {_int(version, 'version')}, "
        f"isTranspose = {_bool(transposed, 'transposed')}, ctaLayout = {{{', '.join(cta)}}}"
        f"{_cga(cga_layout)}"
    )
    instr = _unwrap(instr_shape)
    if instr is not None and [_int(x, "instr_shape") for x in instr] != [16, 16, 16]:
        text += f", instrShape = {_ints(instr, 'instr_shape')}"
    r = _unwrap(rank)
    if r is None:
        for src in (reg_bases, warp_bases, cga_layout):
            src = _unwrap(src)
            if src:
                r = len(list(src)[0])
                break
    if r is not None and _int(r, "rank") != 2:
        text += f", rank = {_int(r, 'rank')}"
    return _finish(text + "}>", shape)


def distributed_linear(reg_bases, lane_bases, warp_bases, block_bases=None, shape=None):
    """Gluon ``DistributedLinearLayout``: a distributed layout given by its
    bases (``#ttg.linear`` / ``#ttg.generic_linear``). ``shape`` (the
    tensor shape, also the output sizes) is required by Gluon; with it the
    :class:`LinearLayout` is returned, else an :class:`Encoding`."""
    bases = {
        "register": _list2(reg_bases),
        "lane": _list2(lane_bases),
        "warp": _list2(warp_bases),
        "block": _list2(block_bases),
    }
    if shape is not None:
        shape = [_int(s, "shape") for s in _unwrap(shape)]
        return LinearLayout(bases, [(f"dim{i}", s) for i, s in enumerate(shape)], True)
    return Encoding(LinearLayout(bases, None, False).to_mlir())


def _list2(v):
    v = _unwrap(v)
    if v is None:
        return []
    return [[_int(c, "basis component") for c in _unwrap(b)] for b in v]


# ----- shared layouts -------------------------------------------------------


def swizzled_shared(vec, per_phase, max_phase, order, cga_layout=None, shape=None):
    """``#ttg.swizzled_shared`` (Gluon ``SwizzledSharedLayout``)."""
    text = (
        f"#ttg.swizzled_shared<{{vec = {_int(vec, 'vec')}, perPhase = {_int(per_phase, 'per_phase')}, "
        f"maxPhase = {_int(max_phase, 'max_phase')}, order = {_ints(order, 'order')}{_cga(cga_layout)}}}>"
    )
    return _finish(text, shape)


def nvmma_shared(
    swizzle_byte_width,
    element_bitwidth,
    rank=2,
    transposed=False,
    fp4_padded=False,
    cga_layout=None,
    shape=None,
):
    """``#ttg.nvmma_shared`` (Gluon ``NVMMASharedLayout``)."""
    text = (
        f"#ttg.nvmma_shared<{{swizzlingByteWidth = {_int(swizzle_byte_width, 'swizzle_byte_width')}, "
        f"transposed = {_bool(transposed, 'transposed')}, "
        f"elementBitWidth = {_int(element_bitwidth, 'element_bitwidth')}"
    )
    if _unwrap(fp4_padded):
        text += ", fp4Padded = true"
    text += _cga(cga_layout)
    r = _int(rank if _unwrap(rank) is not None else 2, "rank")
    if not _has(cga_layout) and r != 2:
        text += f", rank = {r}"
    return _finish(text + "}>", shape)


def _split_nums(cga_layout, rank):
    split = [1] * rank
    for b in _unwrap(cga_layout) or []:
        b = [_int(c, "cga_layout") for c in _unwrap(b)]
        if len(b) != rank:
            raise LayoutError(f"cga_layout basis {b} has {len(b)} components, expected {rank}")
        for d, c in enumerate(b):
            split[d] |= c
    out = []
    for s in split:
        n = 1
        while n <= s:
            n <<= 1
        out.append(n if s else 1)
    return out


def padded_shared(interval_padding_pairs, offset_bases, cga_layout=None, shape=None):
    """``#ttg.padded_shared`` (Gluon ``PaddedSharedLayout``): ``offset_bases``
    give the linear component (offset → coordinate inside one CTA), then
    ``padding`` elements are inserted after every ``interval`` elements.
    ``cga_layout`` bases are in CTA-tile units (the text uses elements)."""
    pairs = []
    for p in _unwrap(interval_padding_pairs):
        i, pad = (_int(x, "interval_padding_pairs") for x in _unwrap(p))
        pairs.append(f"{i}:+{pad}")
    offs = _list2(offset_bases)
    block = "[]"
    if _has(cga_layout):
        rank = len(offs[0]) if offs else len(list(_unwrap(cga_layout))[0])
        tile = [1] * rank
        for b in offs:
            for d, c in enumerate(b):
                tile[d] |= c
        tile = [1 << t.bit_length() if t else 1 for t in tile]
        block_bases = [[c * tile[d] for d, c in enumerate(b)] for b in _list2(cga_layout)]
        block = _matrix(block_bases, "cga_layout")
    ident = None if _has(cga_layout) else _identity_order(offs)
    if ident is not None:
        order, tile = ident
        body = f"{{order = {_ints(order, 'order')}, shape = {_ints(tile, 'shape')}}}"
    else:
        body = f"{{offset = {_matrix(offs, 'offset_bases')}, block = {block}}}"
    return _finish(f"#ttg.padded_shared<[{', '.join(pairs)}] {body}>", shape)


def _identity_order(offs):
    """`(order, shape)` when the offset bases are the identity of `shape`
    walked in `order` (dim order[0] fastest), as Triton prints such padded
    layouts; dims without bases come last, highest first. Else None."""
    if not offs:
        return None
    rank = len(offs[0])
    order, tile, i = [], [1] * rank, 0
    while i < len(offs):
        nz = [d for d, c in enumerate(offs[i]) if c]
        if len(nz) != 1 or offs[i][nz[0]] != 1 or nz[0] in order:
            return None
        d = nz[0]
        order.append(d)
        while i < len(offs) and offs[i] == [tile[d] if k == d else 0 for k in range(rank)]:
            tile[d] *= 2
            i += 1
    order += [d for d in reversed(range(rank)) if d not in order]
    return order, tile


def shared_linear(offset_bases, block_bases=None, alignment=16, shape=None):
    """``#ttg.shared_linear`` (Gluon ``SharedLinearLayout``): a shared layout
    given by its bases; ``alignment`` in bytes."""
    text = f"#ttg.shared_linear<{{offset = {_matrix(offset_bases, 'offset_bases')}"
    if _has(block_bases):
        text += f", block = {_matrix(block_bases, 'block_bases')}"
    text += f"}}, alignment = {_int(alignment, 'alignment')}>"
    return _finish(text, shape)


def partitioned_shared(num_partitions, num_groups, partition_dim, partition_layout, shape=None):
    """``#ttg.partitioned_shared`` (Gluon ``PartitionedSharedLayout``)."""
    text = (
        f"#ttg.partitioned_shared<{{numPartitions = {_int(num_partitions, 'num_partitions')}, "
        f"numGroups = {_int(num_groups, 'num_groups')}, partitionDim = {_int(partition_dim, 'partition_dim')}, "
        f"partitionLayout = {_parent_text(partition_layout, 'partition_layout')}}}>"
    )
    return _finish(text, shape)


# ----- tensor memory --------------------------------------------------------


def tensor_memory(block, col_stride, cga_layout=None, two_ctas=False, shape=None):
    """``#ttng.tensor_memory_encoding`` (Gluon ``TensorMemoryLayout``):
    ``block = [blockM, blockN]``."""
    b = _unwrap(block)
    try:
        m, n = (_int(x, "block") for x in b)
    except (TypeError, ValueError):
        raise LayoutError(f"block must be [blockM, blockN], got {b!r}") from None
    text = (
        f"#ttng.tensor_memory_encoding<blockM = {m}, blockN = {n}, "
        f"colStride = {_int(col_stride, 'col_stride')}{_cga(cga_layout)}"
    )
    if _unwrap(two_ctas):
        text += ", twoCTAs = true"
    return _finish(text + ">", shape)


def tensor_memory_scales(cga_layout=None, block_rep_order=None, shape=None):
    """``#ttng.tensor_memory_scales_encoding`` (Gluon
    ``TensorMemoryScalesLayout``; ``block_rep_order="kThenMn"`` is Rubin's)."""
    parts = []
    if _has(cga_layout):
        parts.append(f"CGALayout = {_matrix(cga_layout, 'cga_layout')}")
    order = _unwrap(block_rep_order)
    if order is not None and str(order) not in ("mnThenK", "default", ""):
        if str(order) != "kThenMn":
            raise LayoutError(f"block_rep_order must be 'kThenMn' or 'mnThenK', got {order!r}")
        parts.append("blockRepOrder = kThenMn")
    return _finish(f"#ttng.tensor_memory_scales_encoding<{', '.join(parts)}>", shape)


# ---------------------------------------------------------------------------
# Gluon interoperation (duck typing: Triton is not imported)
# ---------------------------------------------------------------------------


def _field(obj, name, default=None):
    return _unwrap(getattr(obj, name, default))


def gluon_to_mlir(layout) -> str:
    """Triton's attribute text for a Gluon layout object, recognised by its
    class name and fields (``BlockedLayout(size_per_thread=..., ...)``,
    ``SliceLayout``, ``DotOperandLayout``, ``NVMMADistributedLayout``,
    ``DistributedLinearLayout``, ``AMDMFMALayout``, ``AMDWMMALayout``,
    ``SwizzledSharedLayout``, ``NVMMASharedLayout``, ``PaddedSharedLayout``,
    ``SharedLinearLayout``, ``PartitionedSharedLayout``,
    ``TensorMemoryLayout``, ``TensorMemoryScalesLayout``). Triton is not
    imported."""
    layout = _unwrap(layout)
    if isinstance(layout, Encoding):
        return layout.mlir
    if isinstance(layout, str):
        return layout
    cls = type(layout).__name__
    f = lambda name, default=None: _field(layout, name, default)  # noqa: E731
    if cls == "BlockedLayout":
        e = blocked(f("size_per_thread"), f("threads_per_warp"), f("warps_per_cta"), f("order"), f("cga_layout"))
    elif cls == "SliceLayout":
        e = slice(f("dim"), f("parent"))
    elif cls == "DotOperandLayout":
        e = dot_operand(f("operand_index"), f("parent"), f("k_width", 0) or 0)
    elif cls == "NVMMADistributedLayout":
        e = nvmma_distributed(f("version"), f("warps_per_cta"), f("instr_shape"), f("cga_layout"))
    elif cls == "DistributedLinearLayout":
        return _gluon_dll(layout).to_mlir()
    elif cls == "AMDMFMALayout":
        e = amd_mfma(
            f("version"),
            f("instr_shape"),
            f("transposed"),
            f("warps_per_cta"),
            f("element_bitwidth"),
            f("tiles_per_warp"),
            f("cga_layout"),
        )
    elif cls == "AMDWMMALayout":
        e = amd_wmma(
            f("version"),
            f("transposed"),
            f("warp_bases"),
            f("reg_bases"),
            f("instr_shape"),
            f("cga_layout"),
            f("rank"),
        )
    elif cls == "SwizzledSharedLayout":
        e = swizzled_shared(f("vec"), f("per_phase"), f("max_phase"), f("order"), f("cga_layout"))
    elif cls == "NVMMASharedLayout":
        e = nvmma_shared(
            f("swizzle_byte_width"),
            f("element_bitwidth"),
            f("rank", 2),
            f("transposed", False),
            f("fp4_padded", False),
            f("cga_layout"),
        )
    elif cls == "PaddedSharedLayout":
        e = padded_shared(f("interval_padding_pairs"), f("offset_bases"), f("cga_layout"))
    elif cls == "SharedLinearLayout":
        e = shared_linear(f("offset_bases"), f("block_bases"), f("alignment", 16))
    elif cls == "PartitionedSharedLayout":
        e = partitioned_shared(f("num_partitions"), f("num_groups"), f("partition_dim"), f("partition_layout"))
    elif cls == "TensorMemoryLayout":
        e = tensor_memory(f("block"), f("col_stride"), f("cga_layout"), f("two_ctas", False))
    elif cls == "TensorMemoryScalesLayout":
        e = tensor_memory_scales(f("cga_layout"), f("block_rep_order"))
    else:
        raise LayoutError(f"unsupported Gluon layout class '{cls}'")
    return e.mlir


def _gluon_dll(layout) -> LinearLayout:
    shape = [_int(s, "shape") for s in _field(layout, "shape")]
    return distributed_linear(
        _field(layout, "reg_bases"),
        _field(layout, "lane_bases"),
        _field(layout, "warp_bases"),
        _field(layout, "block_bases"),
        shape=shape,
    )


def from_gluon(layout, shape=None) -> LinearLayout:
    """The linear layout of a Gluon layout object for a tensor of ``shape``
    (what Triton's ``to_linear_layout(layout, shape)`` computes), by duck
    typing on the object's class name and fields: Triton need not be
    installed. ``DistributedLinearLayout`` and Gluon's tensor-memory linear
    layouts carry their own shape (``shape`` may then be omitted);
    ``SharedLinearLayout`` is taken from its bases (out sizes inferred
    without ``shape``)."""
    layout = _unwrap(layout)
    cls = type(layout).__name__
    if cls == "DistributedLinearLayout":
        ll = _gluon_dll(layout)
        if shape is not None and [s for _, s in ll.out_dims] != [_int(s, "shape") for s in shape]:
            raise LayoutError(
                f"shape {list(shape)} differs from the DistributedLinearLayout's shape "
                f"{[s for _, s in ll.out_dims]}"
            )
        return ll
    if cls == "_TensorMemoryLinearLayout":
        own = [_int(s, "shape") for s in _field(layout, "shape")]
        return LinearLayout(
            {"row": _list2(_field(layout, "rows")), "col": _list2(_field(layout, "cols"))},
            [(f"dim{i}", s) for i, s in enumerate(own)],
            False,
        )
    if cls == "SharedLinearLayout":
        bases = {"offset": _list2(_field(layout, "offset_bases")), "block": _list2(_field(layout, "block_bases"))}
        lay = LinearLayout(bases)
        if shape is not None:
            want = [_int(s, "shape") for s in _unwrap(shape)]
            got = [s for _, s in lay.out_dims]
            if got != want:
                raise LayoutError(f"SharedLinearLayout bases span shape {got}, expected shape {want}")
        return lay
    if shape is None:
        raise LayoutError(f"from_gluon needs a shape for a {cls}")
    return from_mlir(gluon_to_mlir(layout), [_int(s, "shape") for s in _unwrap(shape)])


def to_gluon(layout: LinearLayout, alignment: int = 16):
    """Triton's Gluon object for a linear layout: ``DistributedLinearLayout``
    for in dims among ``register, lane, warp, block``, ``SharedLinearLayout``
    for ``offset, block`` (with ``alignment``). Needs Triton."""
    try:
        from triton.experimental.gluon import language as ttgl
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("to_gluon needs Triton (pip install triton)") from e
    ins = set(layout.in_dim_names)
    outs = layout.out_dim_names
    if outs != [f"dim{i}" for i in range(len(outs))]:
        raise LayoutError(f"to_gluon needs out dims dim0..dim{{rank-1}}, got {outs}")
    b = layout.bases()
    shape = [s for _, s in layout.out_dims]
    if ins <= {"register", "lane", "warp", "block"}:
        return ttgl.DistributedLinearLayout(
            reg_bases=b.get("register", []),
            lane_bases=b.get("lane", []),
            warp_bases=b.get("warp", []),
            block_bases=b.get("block", []),
            shape=shape,
        )
    if ins <= {"offset", "block"}:
        return ttgl.SharedLinearLayout(
            offset_bases=b.get("offset", []), block_bases=b.get("block", []), alignment=alignment
        )
    raise LayoutError(f"to_gluon: no Gluon class for in dims {layout.in_dim_names}")


del _builtins
