"""Session 9's trial programs (bench/gpu/session9a.sh, session9b.sh): two
scratch buffers, one barrier per conversion, hand-made from session 8's
generated programs (commit 2af8e03; the emitter now does this itself, see
layout_cuda::scratch). Writes bench/gpu/trial/s9/NAME_db.cu (git-ignored):
main-emitter programs get cvt_bwd on smem + S and both trailing barriers
dropped; partial programs whose way back stays in registers get the loop
unrolled by two with cvt_fwd alternating smem / smem + S. With --parity
(NAME_dp.cu) the partial programs pick the buffer by the iteration's parity
instead of unrolling.

    git checkout 2af8e03 -- bench/gpu/generated   # session 8's programs
    python3 bench/gpu/session9_trial_make.py blocked_T_64x64_f16 ...
    python3 bench/gpu/session9_trial_make.py --parity mma2_to_dotA_64x64_f16_partial ...
"""
import re, sys, pathlib
G = pathlib.Path("bench/gpu/generated")
out = pathlib.Path("bench/gpu/trial/s9")
out.mkdir(parents=True, exist_ok=True)
def drop_trailing_sync(src, fname, sync):
    i = src.index(f"void {fname}(")
    j = src.index("\n}\n", i)
    body = src[i:j]
    k = body.rindex(sync)
    assert body[k:].strip() == sync, (fname, body[k:][:80])
    return src[:i] + body[:k].rstrip() + src[j:]
PARITY = sys.argv[1] == "--parity"
SUF = "_dp" if PARITY else "_db"
for name in sys.argv[1 + PARITY:]:
    src = (G / f"{name}.cu").read_text()
    m = re.search(r"bench<<<tiles, (\d+), (\d+)>>>", src)
    nbytes = int(m.group(2))
    esize = {"uint8_t": 1, "uint16_t": 2, "uint32_t": 4}[re.search(r"extern \"C\" __global__ void __launch_bounds__\([^)]*\) bench\(const (\w+)\*", src).group(1)]
    S = nbytes // esize
    if name.endswith("_partial"):
        src = drop_trailing_sync(src, "cvt_fwd", "PARTIAL_SYNC();")
        loop = re.search(r"  for \(int it = 0; it < R; \+\+it\) \{\n(.*?)\n  \}\n", src, re.S)
        body = loop.group(1)
        assert body.count("cvt_fwd(aw, bw, smem,") == 1
        if PARITY:
            b = body.replace("cvt_fwd(aw, bw, smem,", "cvt_fwd(aw, bw, (it & 1) ? smem + %du : smem," % S)
            new = f"  for (int it = 0; it < R; ++it) {{\n{b}\n  }}\n"
        else:
            b1 = body
            b2 = body.replace("cvt_fwd(aw, bw, smem,", f"cvt_fwd(aw, bw, smem + {S}u,")
            new = f"  int it = 0;\n  for (; it + 1 < R; it += 2) {{\n{b1}\n{b2}\n  }}\n  if (it < R) {{\n{b1}\n  }}\n"
        src = src[:loop.start()] + new + src[loop.end():]
    else:
        src = drop_trailing_sync(src, "cvt_fwd", "__syncthreads();")
        src = drop_trailing_sync(src, "cvt_bwd", "__syncthreads();")
        assert src.count("cvt_bwd(bw, aw, smem,") + src.count("cvt_bwd(b, a, smem,") == 1
        src = src.replace("cvt_bwd(bw, aw, smem,", f"cvt_bwd(bw, aw, smem + {S}u,").replace("cvt_bwd(b, a, smem,", f"cvt_bwd(b, a, smem + {S}u,")
    src = src.replace(f", {nbytes}>>>", f", {2 * nbytes}>>>").replace(f"MaxDynamicSharedMemorySize, {nbytes})", f"MaxDynamicSharedMemorySize, {2 * nbytes})")
    src = src.replace(f"case '{name}'", f"case '{name}{SUF}'").replace(f'\\"case\\": \\"{name}\\"', f'\\"case\\": \\"{name}{SUF}\\"')
    (out / f"{name}{SUF}.cu").write_text(src)
    print(name, nbytes, "->", 2 * nbytes)
