# Runs the shared oracle generator restricted to AMD kinds (amd_mfma,
# amd_wmma, dot_op with an AMD parent). Only calls the installed Triton.
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_oracle as g
g.KIND_WEIGHTS[:] = [("amd_mfma", 8), ("amd_wmma", 6), ("dot_op", 10)]
orig = g.SAMPLERS["dot_op"]
def amd_dot(rng):
    while True:
        c = orig(rng)
        if c["parent_kind"] in ("amd_mfma", "amd_wmma"):
            return c
g.SAMPLERS["dot_op"] = amd_dot
sys.argv = [sys.argv[0]] + sys.argv[1:]
g.main()
