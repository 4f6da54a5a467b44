"""Shared-memory and shuffle instruction counts of generated programs' SASS,
without a GPU or a CUDA toolkit: NVRTC (`pip install nvidia-cuda-nvrtc-cu12`)
compiles the device part (guarded by `__CUDACC_RTC__`, as for the cudarc
runner) to sm_90a PTX, and the `ptxas` / `cuobjdump` bundled with Triton
(`pip install triton`) assemble and disassemble it.

    python3 bench/gpu/tools/local_sass.py bench/gpu/generated/mma2_to_dotA_64x64_f16_partial.cu

prints one line per program: counts of LDS*, STS*, LDSM, STSM, SHFL*, BAR*,
and the number of SASS instructions (code size: the instruction cache holds
128 KiB, 8192 of them, on Hopper).
A check before a device call (e.g. that the compiler kept the loads the plan
predicts: the benchmark loop's sink), not a measurement.
"""
import collections
import ctypes
import glob
import os
import re
import subprocess
import sys
import tempfile


def nvrtc():
    import nvidia.cuda_nvrtc as pkg
    base = list(pkg.__path__)[0]
    libs = sorted(glob.glob(os.path.join(base, "lib", "libnvrtc.so*")))
    if not libs:
        sys.exit("libnvrtc not found: pip install nvidia-cuda-nvrtc-cu12")
    return ctypes.CDLL(libs[0])


def ptx_of(lib, path):
    src = open(path, "rb").read()
    prog = ctypes.c_void_p()
    if lib.nvrtcCreateProgram(ctypes.byref(prog), src, path.encode(), 0, None, None) != 0:
        sys.exit(f"nvrtcCreateProgram failed for {path}")
    opts = [b"--gpu-architecture=compute_90a", b"-std=c++17", b"-default-device"]
    rc = lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
    n = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
    log = ctypes.create_string_buffer(n.value)
    lib.nvrtcGetProgramLog(prog, log)
    if rc != 0:
        sys.exit(f"NVRTC failed for {path}:\n{log.value.decode()}")
    lib.nvrtcGetPTXSize(prog, ctypes.byref(n))
    ptx = ctypes.create_string_buffer(n.value)
    lib.nvrtcGetPTX(prog, ptx)
    return ptx.value


def main():
    import triton
    tools = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin")
    lib = nvrtc()
    keep = ("LDS", "STS", "LDSM", "STSM", "SHFL", "BAR")
    with tempfile.TemporaryDirectory() as tmp:
        for path in sys.argv[1:]:
            name = os.path.basename(path)[: -len(".cu")]
            ptx, cubin = os.path.join(tmp, name + ".ptx"), os.path.join(tmp, name + ".cubin")
            open(ptx, "wb").write(ptx_of(lib, path))
            subprocess.run([os.path.join(tools, "ptxas"), "-arch=sm_90a", "-O3", ptx, "-o", cubin], check=True)
            sass = subprocess.run([os.path.join(tools, "cuobjdump"), "-sass", cubin],
                                  capture_output=True, text=True, check=True).stdout
            ops = collections.Counter(
                m.group(1) for m in re.finditer(
                    r"/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9]*(?:\.[A-Z0-9.]+)?)", sass))
            picked = {k: v for k, v in sorted(ops.items()) if k.split(".")[0] in keep}
            print(name, picked, "instructions:", sum(ops.values()))


if __name__ == "__main__":
    main()
