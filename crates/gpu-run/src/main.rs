//! `gpu-run`: compiles each generated benchmark program with NVRTC (device
//! code only, `__CUDACC_RTC__`), loads it through the CUDA driver (cudarc,
//! libraries opened at run time), fills inputs with random non-zero data,
//! poisons the output, checks every element for R = 0 and R, and times
//! both with CUDA events (median of `--reps` after 5 warm-ups). Prints one
//! JSON line per case in the same form as the programs' own `main` (plus
//! `"runner": "cudarc"` and the kernel's registers), so `report.py` reads
//! either.
//!
//! ```text
//! gpu-run --dir bench/gpu/generated --r 256 --only swap1_64x64_f32
//! ```

use clap::Parser;
use cudarc::driver::{
    sys::CUfunction_attribute_enum, CudaContext, CudaFunction, CudaSlice, CudaStream, DeviceRepr,
    LaunchConfig, PushKernelArg, ValidAsZeroBits,
};
use cudarc::nvrtc::{compile_ptx_with_opts, CompileOptions};
use gpu_run::{
    expected_conversion, expected_gather, first_mismatch, median, nonzero_values, GatherTile,
    LaunchShape, Rng, RunError,
};
use serde_json::{json, Value};
use std::sync::Arc;

#[derive(Parser)]
#[command(about = "Run the generated benchmark kernels through NVRTC and the CUDA driver")]
struct Args {
    /// Folder of the generated programs and their cases.json.
    #[arg(long, default_value = "bench/gpu/generated")]
    dir: String,
    /// Iterations per kernel.
    #[arg(long, default_value_t = 256)]
    r: u32,
    /// Tiles (CTAs) per launch.
    #[arg(long, default_value_t = 1056)]
    tiles: u32,
    /// Timed launches per median.
    #[arg(long, default_value_t = 30)]
    reps: usize,
    /// Comma-separated case names (default: every case).
    #[arg(long)]
    only: Option<String>,
    /// Target architecture for NVRTC.
    #[arg(long, default_value = "sm_90a")]
    arch: String,
}

/// Element types of the benchmark buffers.
trait Elem: DeviceRepr + ValidAsZeroBits + Copy + Default + Unpin + 'static {
    fn from_u64(v: u64) -> Self;
    fn to_u64(self) -> u64;
}

macro_rules! elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            fn from_u64(v: u64) -> Self {
                v as $t
            }
            fn to_u64(self) -> u64 {
                u64::from(self)
            }
        }
    )*};
}

elem!(u8, u16, u32);

fn err<E: std::fmt::Debug>(what: &str) -> impl Fn(E) -> RunError + '_ {
    move |e| RunError::Device(format!("{what}: {e:?}"))
}

/// A loaded case: the kernel and what its launch needs.
struct Kernel {
    func: CudaFunction,
    shape: LaunchShape,
}

fn load(
    ctx: &Arc<CudaContext>,
    name: &str,
    code: &str,
    arch: &'static str,
) -> Result<Kernel, RunError> {
    let shape = LaunchShape::parse(code)?;
    // PTX for the named architecture; the driver finalises it to that
    // architecture's machine code when the module is loaded.
    let opts = CompileOptions {
        arch: Some(arch),
        options: vec!["-std=c++17".into()],
        name: Some(format!("{name}.cu")),
        ..Default::default()
    };
    let ptx = compile_ptx_with_opts(code, opts).map_err(|e| match e {
        cudarc::nvrtc::CompileError::CompileError { log, .. } => {
            RunError::Device(format!("{name}: NVRTC: {}", log.to_string_lossy()))
        }
        e => RunError::Device(format!("{name}: NVRTC: {e:?}")),
    })?;
    let module = ctx.load_module(ptx).map_err(err("load module"))?;
    let func = module.load_function("bench").map_err(err("load bench"))?;
    func.set_attribute(
        CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        shape.smem_bytes as i32,
    )
    .map_err(err("set shared-memory size"))?;
    Ok(Kernel { func, shape })
}

/// Launches `bench(input, [idx,] out, r)` on `tiles` CTAs.
fn launch<T: Elem>(
    stream: &Arc<CudaStream>,
    k: &Kernel,
    tiles: u32,
    input: &CudaSlice<T>,
    idx: Option<&CudaSlice<u32>>,
    out: &mut CudaSlice<T>,
    r: i32,
) -> Result<(), RunError> {
    let cfg = LaunchConfig {
        grid_dim: (tiles, 1, 1),
        block_dim: (k.shape.threads, 1, 1),
        shared_mem_bytes: k.shape.smem_bytes,
    };
    let mut b = stream.launch_builder(&k.func);
    b.arg(input);
    if let Some(ix) = idx {
        b.arg(ix);
    }
    b.arg(out);
    b.arg(&r);
    // SAFETY: every generated kernel is
    // `bench(const T* in, [const uint32_t* idx,] T* out, int R)` with T the
    // case's element type (the cases.json bits that chose `T` here), and it
    // touches `tiles × tile` elements of each buffer, which is how they were
    // allocated; block size and shared memory are the program's own launch.
    unsafe { b.launch(cfg) }.map_err(err("launch"))?;
    Ok(())
}

/// Median launch time in ms for `r` iterations.
fn time<T: Elem>(
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    k: &Kernel,
    a: &Args,
    bufs: (&CudaSlice<T>, Option<&CudaSlice<u32>>, &mut CudaSlice<T>),
    r: u32,
) -> Result<f32, RunError> {
    let (input, idx, out) = bufs;
    let flags = Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);
    let (e0, e1) = (
        ctx.new_event(flags).map_err(err("event"))?,
        ctx.new_event(flags).map_err(err("event"))?,
    );
    for _ in 0..5 {
        launch(stream, k, a.tiles, input, idx, out, r as i32)?;
    }
    let mut ts = Vec::with_capacity(a.reps);
    for _ in 0..a.reps.max(1) {
        e0.record(stream).map_err(err("record"))?;
        launch(stream, k, a.tiles, input, idx, out, r as i32)?;
        e1.record(stream).map_err(err("record"))?;
        e1.synchronize().map_err(err("synchronize"))?;
        ts.push(e0.elapsed_ms(&e1).map_err(err("elapsed"))?);
    }
    Ok(median(ts))
}

fn run_case<T: Elem>(
    ctx: &Arc<CudaContext>,
    case: &Value,
    code: &str,
    a: &Args,
) -> Result<Value, RunError> {
    let name = case["name"].as_str().unwrap_or("?");
    let bits = case["bits"].as_u64().unwrap_or(32) as u32;
    // NVRTC's options take a 'static architecture name.
    let arch: &'static str = match a.arch.as_str() {
        "sm_90a" => "sm_90a",
        "sm_90" => "sm_90",
        "sm_100a" => "sm_100a",
        other => {
            return Err(RunError::Case(format!(
                "unsupported --arch {other:?} (sm_90a, sm_90, sm_100a)"
            )))
        }
    };
    let k = load(ctx, name, code, arch)?;
    let stream = ctx.default_stream();
    let shape: Vec<u64> = case["shape"]
        .as_array()
        .and_then(|dims| dims.iter().map(Value::as_u64).collect())
        .ok_or_else(|| {
            RunError::Case(format!(
                "{name}: shape {} is not a list of sizes",
                case["shape"]
            ))
        })?;
    let n = shape.iter().product::<u64>() as usize * a.tiles as usize;
    let host = nonzero_values(n, bits, 12345);
    // A gather's tile and its indices (uniform over the axis).
    let gather = if case["kind"].as_str() == Some("gather") {
        let axis = case["axis"].as_u64().unwrap_or(0) as usize;
        let size = *shape
            .get(axis)
            .ok_or_else(|| RunError::Case(format!("{name}: axis {axis} out of shape {shape:?}")))?;
        let mut rng = Rng::new(0x5eed ^ n as u64);
        let idx: Vec<u64> = (0..n).map(|_| rng.next_u64() % size).collect();
        Some((GatherTile { shape, axis }, idx))
    } else {
        None
    };
    let to_t = |v: &[u64]| v.iter().map(|&x| T::from_u64(x)).collect::<Vec<T>>();
    let input = stream.clone_htod(&to_t(&host)).map_err(err("copy in"))?;
    let idx = match &gather {
        Some((_, ix)) => Some(
            stream
                .clone_htod(&ix.iter().map(|&x| x as u32).collect::<Vec<u32>>())
                .map_err(err("copy idx"))?,
        ),
        None => None,
    };
    let poison = vec![T::from_u64(0xA5A5_A5A5); n];
    let mut out = stream.clone_htod(&poison).map_err(err("poison"))?;
    let mut ok = true;
    let mut mismatch = None;
    for rr in [0, a.r] {
        stream
            .memcpy_htod(&poison, &mut out)
            .map_err(err("poison"))?;
        launch(
            &stream,
            &k,
            a.tiles,
            &input,
            idx.as_ref(),
            &mut out,
            rr as i32,
        )?;
        stream.synchronize().map_err(err("synchronize"))?;
        let got: Vec<u64> = stream
            .clone_dtoh(&out)
            .map_err(err("copy out"))?
            .into_iter()
            .map(Elem::to_u64)
            .collect();
        let want = match &gather {
            Some((t, ix)) => expected_gather(t, &host, ix, bits, rr),
            None => expected_conversion(&host, bits, rr),
        };
        if let Some((i, g, w)) = first_mismatch(&got, &want) {
            ok = false;
            mismatch.get_or_insert(format!("at {i} (R={rr}): got {g} want {w}"));
        }
    }
    let t0 = time(ctx, &stream, &k, a, (&input, idx.as_ref(), &mut out), 0)?;
    let tr = time(ctx, &stream, &k, a, (&input, idx.as_ref(), &mut out), a.r)?;
    let per = if gather.is_some() {
        f64::from(tr - t0) * 1e3 / f64::from(a.r)
    } else {
        f64::from(tr - t0) * 1e3 / (2.0 * f64::from(a.r))
    };
    let regs = k.func.num_regs().map_err(err("registers"))?;
    let mut v = json!({
        "case": name, "ok": ok, "R": a.r, "tiles": a.tiles,
        "t0_ms": t0, "tR_ms": tr, "runner": "cudarc", "registers": regs,
    });
    let key = if gather.is_some() {
        "per_gather_us"
    } else {
        "per_cvt_us"
    };
    v[key] = json!(per);
    if let Some(m) = mismatch {
        v["mismatch"] = json!(m);
    }
    Ok(v)
}

fn main() {
    let a = Args::parse();
    if a.r == 0 {
        eprintln!("error: --r must be at least 1 (the cost divides by R)");
        std::process::exit(2);
    }
    let cases_path = format!("{}/cases.json", a.dir);
    let cases: Vec<Value> = match std::fs::read_to_string(&cases_path)
        .map_err(|e| format!("{cases_path}: {e}"))
        .and_then(|t| serde_json::from_str(&t).map_err(|e| format!("{cases_path}: {e}")))
    {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let only: Option<Vec<&str>> = a.only.as_deref().map(|s| s.split(',').collect());
    // cudarc panics when libcuda or libnvrtc cannot be opened; those panics
    // are caught and reported as errors, without the default hook's dump.
    std::panic::set_hook(Box::new(|_| {}));
    let ctx = match std::panic::catch_unwind(|| CudaContext::new(0)) {
        Ok(Ok(c)) => c,
        Ok(Err(e)) => {
            eprintln!("error: no CUDA device: {e:?}");
            std::process::exit(1);
        }
        Err(_) => {
            eprintln!("error: the CUDA driver library could not be loaded");
            std::process::exit(1);
        }
    };
    let mut failed = false;
    for case in &cases {
        let name = case["name"].as_str().unwrap_or("?");
        if only.as_ref().is_some_and(|o| !o.contains(&name)) {
            continue;
        }
        let path = format!("{}/{name}.cu", a.dir);
        let result = std::fs::read_to_string(&path)
            .map_err(|e| RunError::Device(format!("{path}: {e}")))
            .and_then(|code| {
                let go = || match case["bits"].as_u64() {
                    Some(8) => run_case::<u8>(&ctx, case, &code, &a),
                    Some(16) => run_case::<u16>(&ctx, case, &code, &a),
                    Some(32) => run_case::<u32>(&ctx, case, &code, &a),
                    b => Err(RunError::Case(format!(
                        "{name}: unsupported element bits {b:?}"
                    ))),
                };
                // NVRTC is opened on first use and panics when missing.
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(go)).unwrap_or_else(|_| {
                    Err(RunError::Device(format!(
                        "{name}: NVRTC could not be loaded"
                    )))
                })
            });
        match result {
            Ok(v) => {
                failed |= v["ok"] != json!(true);
                println!("{v}");
            }
            Err(e) => {
                failed = true;
                println!("{}", json!({"case": name, "error": e.to_string()}));
            }
        }
    }
    std::process::exit(i32::from(failed));
}
