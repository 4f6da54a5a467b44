"""linear_layouts.cuda: CUDA source for a conversion (layout_cuda::device_fn).

The sizes in the device function's macros are derived by hand from the
layouts; the forms differ as documented; bad requests raise LayoutError
naming the value. (The emitted programs themselves run under the CPU
emulation of layout-cuda's and linlayout's tests.)"""

import pytest

import linear_layouts as ll

SHAPE = [64, 64]


def mma():
    return ll.nvmma_distributed([2, 0], [2, 2], [16, 8], shape=SHAPE)


def blk():
    return ll.blocked([1, 4], [8, 4], [4, 1], [1, 0], shape=SHAPE)


def test_device_function_sizes_by_hand():
    text = ll.cuda(mma(), blk(), "f16")
    # 64 x 64 elements over 128 threads: 32 registers each on both sides.
    for line in ("#define CVT_SRC_REGS 32", "#define CVT_DST_REGS 32",
                 "#define CVT_THREADS 128", "#define CVT_TILE 4096"):
        assert line in text
    assert "typedef uint16_t CVT_T;" in text
    assert "__device__ __forceinline__ void cvt(" in text
    # f32: same registers, 32-bit type.
    assert "typedef uint32_t CVT_T;" in ll.cuda(mma(), blk(), "f32")


def test_kernel_and_bench_forms_and_name():
    k = ll.cuda(mma(), blk(), "f16", what="kernel")
    assert "__global__" in k and "int main(" not in k
    b = ll.cuda(mma(), blk(), "bf16", what="bench", name="mine")
    assert "int main(" in b and "case 'mine'" in b


@pytest.mark.parametrize(
    "kwargs, needle",
    [
        ({"what": "ptx"}, "ptx"),
        ({"name": "9lives"}, "9lives"),
        ({"dtype": "f12"}, "f12"),
    ],
)
def test_bad_requests_name_the_value(kwargs, needle):
    args = {"dtype": "f16", **kwargs}
    with pytest.raises(ll.LayoutError, match=needle):
        ll.cuda(mma(), blk(), **args)


def test_mismatched_warps_and_rank_are_errors():
    w8 = ll.blocked([1, 4], [8, 4], [8, 1], [1, 0], shape=SHAPE)
    with pytest.raises(ll.LayoutError, match="warps"):
        ll.cuda(blk(), w8, "f16")
    r3 = ll.blocked([1, 1, 4], [1, 8, 4], [1, 4, 1], [2, 1, 0], shape=[2, 64, 64])
    with pytest.raises(ll.LayoutError, match="rank-2"):
        ll.cuda(r3, r3, "f16")
