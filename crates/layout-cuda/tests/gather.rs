//! CPU checks of the gather emitter: the CUDA text it prints for the
//! shuffle gather is *executed* by a small interpreter on a modelled warp
//! (32 lanes in lock step, `__shfl_sync` reading another lane's register),
//! and the shared-memory gather's load addresses are executed the same way;
//! both must agree with a direct evaluation of `out[c] = src[c with c[axis]
//! := idx[c]]` from the layout's coordinates. Plus a snapshot of one small
//! generated program.

use layout_cuda::gather::{
    cases_of, emit_gather_benchmark, row_major_smem, suite_specs, GatherCase, GatherVariant,
};
use layout_cuda::smem_map;
use linear_layout::{DimName, LinearLayout};
use std::collections::HashMap;

/// Coordinates `L(r, lane, warp)`.
fn coords(l: &LinearLayout, r: u64, lane: u64, w: u64) -> Vec<u64> {
    l.apply(&[
        (DimName::REGISTER, r),
        (DimName::LANE, lane),
        (DimName::WARP, w),
        (DimName::BLOCK, 0),
    ])
    .unwrap()
    .iter()
    .map(|c| c.1)
    .collect()
}

/// Row-major offset of coordinates in an `[M, N]` tile: the element's tag.
fn tag(c: &[u64], shape: &[u64]) -> u64 {
    c[0] * shape[1] + c[1]
}

/// Index functions of the logical coordinates (so replicated elements get
/// the same index, as loading one index tile guarantees on the GPU).
type IndexFn = Box<dyn Fn(&[u64]) -> u64>;

fn index_fns(axis_size: u64) -> Vec<(&'static str, IndexFn)> {
    vec![
        (
            "hash",
            Box::new(move |c: &[u64]| {
                let h = (c[0].wrapping_mul(0x9E37_79B9) ^ c[1].wrapping_mul(0x85EB_CA6B)) >> 7;
                (h ^ (h >> 11)) % axis_size
            }),
        ),
        ("zero", Box::new(|_: &[u64]| 0)),
        ("last", Box::new(move |_: &[u64]| axis_size - 1)),
        (
            "reverse_row",
            Box::new(move |c: &[u64]| (axis_size - 1) - (c[0] + c[1]) % axis_size),
        ),
    ]
}

/// The body of a device function `name` of the emitted program.
fn function_body<'a>(code: &'a str, name: &str) -> Vec<&'a str> {
    let mut lines = code.lines();
    lines
        .by_ref()
        .find(|l| l.starts_with("__device__") && l.contains(&format!(" {name}(")))
        .unwrap_or_else(|| panic!("no function {name} in the program"));
    lines.take_while(|l| *l != "}").collect()
}

/// Per-lane variables.
type Env = HashMap<String, u64>;

/// `Cu`, a variable, or `Cu ^ ((0u - ((x >> k) & 1u)) & Mu) ^ …`.
fn eval_xor(e: &str, env: &Env) -> u64 {
    e.split(" ^ ")
        .map(|term| {
            let term = term.trim();
            if let Some(num) = term.strip_suffix('u') {
                if let Ok(v) = num.parse::<u64>() {
                    return v;
                }
            }
            if let Some(v) = env.get(term) {
                return *v;
            }
            // ((0u - ((x >> k) & 1u)) & Mu)
            let inner = term
                .strip_prefix("((0u - ((")
                .and_then(|t| t.strip_suffix("u)"))
                .unwrap_or_else(|| panic!("unknown term {term:?}"));
            let (shift, mask) = inner.split_once(") & 1u)) & ").expect("masked bit");
            let (var, k) = shift.split_once(" >> ").expect("shift");
            let x = env[var];
            let k: u32 = k.parse().unwrap();
            let m: u64 = mask.parse().unwrap();
            if x >> k & 1 == 1 {
                m
            } else {
                0
            }
        })
        .fold(0, |a, b| a ^ b)
}

/// `arr[k]` → (arr, k).
fn subscript(e: &str) -> Option<(&str, usize)> {
    let (arr, rest) = e.split_once('[')?;
    let k = rest.strip_suffix(']')?.parse().ok()?;
    Some((arr, k))
}

/// Executes the emitted `gather_shfl` on one warp. `a[lane][c]` and
/// `ix[lane][r]` are the inputs; returns `b[lane][r]`.
fn run_shuffle_text(body: &[&str], a: &[Vec<u64>], ix: &[Vec<u64>], bits: u32) -> Vec<Vec<u64>> {
    let n = ix[0].len();
    let mut env: Vec<Env> = (0..32)
        .map(|l| HashMap::from([("lane".to_string(), l as u64)]))
        .collect();
    let mut b = vec![vec![u64::MAX; n]; 32];
    let tmask = if bits == 32 {
        u64::from(u32::MAX)
    } else {
        (1 << bits) - 1
    };
    let mut statements = 0;
    for line in body {
        let code = line.split("//").next().unwrap();
        for st in code.split(';') {
            let st = st
                .trim()
                .trim_start_matches('{')
                .trim_end_matches('}')
                .trim();
            if st.is_empty() || st.starts_with("(void)") {
                continue;
            }
            statements += 1;
            let (lhs, rhs) = st.split_once(" = ").unwrap_or_else(|| panic!("{st:?}"));
            let lhs = lhs
                .trim_start_matches("const ")
                .trim_start_matches("uint32_t ")
                .trim();
            // Evaluate for all lanes first (lock step), then assign.
            let vals: Vec<u64> = (0..32)
                .map(|l| {
                    if let Some(args) = rhs.strip_prefix("__shfl_sync(0xffffffffu, (uint32_t)") {
                        let (src, var) = args.strip_suffix(')').unwrap().split_once(", ").unwrap();
                        let (arr, c) = subscript(src).unwrap();
                        assert_eq!(arr, "a");
                        let sl = env[l][var];
                        assert!(sl < 32, "source lane {sl} out of the warp");
                        a[sl as usize][c]
                    } else if let Some(g) = rhs.strip_prefix(&format!(
                        "({})",
                        if bits == 32 { "uint32_t" } else { "uint16_t" }
                    )) {
                        env[l][g] & tmask
                    } else if let Some(sel) = rhs.strip_prefix('(') {
                        // (sr == Cu) ? t : g
                        let (cond, arms) = sel.split_once(") ? ").unwrap();
                        let (x, c) = cond.split_once(" == ").unwrap();
                        let (t, f) = arms.split_once(" : ").unwrap();
                        if env[l][x] == eval_xor(c, &env[l]) {
                            env[l][t]
                        } else {
                            env[l][f]
                        }
                    } else if let Some((arr, k)) = subscript(rhs) {
                        match arr {
                            "ix" => ix[l][k],
                            "b" => b[l][k],
                            _ => panic!("reads {arr}"),
                        }
                    } else {
                        eval_xor(rhs, &env[l])
                    }
                })
                .collect();
            for (l, v) in vals.into_iter().enumerate() {
                match subscript(lhs) {
                    Some(("b", k)) => b[l][k] = v,
                    Some((arr, _)) => panic!("writes {arr}"),
                    None => {
                        env[l].insert(lhs.to_string(), v);
                    }
                }
            }
        }
    }
    assert!(statements > 0);
    b
}

fn shape_axis_size(case: &GatherCase) -> u64 {
    case.shape[case.axis]
}

/// Direct evaluation: the tag of `c with c[axis] := f(c)`.
fn want(case: &GatherCase, f: &dyn Fn(&[u64]) -> u64, r: u64, lane: u64, w: u64) -> u64 {
    let mut c = coords(&case.layout, r, lane, w);
    c[case.axis] = f(&c);
    tag(&c, &case.shape)
}

fn inputs(case: &GatherCase, f: &dyn Fn(&[u64]) -> u64, w: u64) -> (Vec<Vec<u64>>, Vec<Vec<u64>>) {
    let n = case.layout.in_dim_size(DimName::REGISTER);
    let a = (0..32)
        .map(|l| {
            (0..n)
                .map(|c| tag(&coords(&case.layout, c, l, w), &case.shape))
                .collect()
        })
        .collect();
    let ix = (0..32)
        .map(|l| (0..n).map(|r| f(&coords(&case.layout, r, l, w))).collect())
        .collect();
    (a, ix)
}

#[test]
fn emitted_shuffle_gathers_agree_with_direct_evaluation() {
    let mut checked = 0;
    for spec in suite_specs() {
        let [shfl, _] = cases_of(&spec).unwrap();
        let em = emit_gather_benchmark(&shfl).unwrap();
        let body = function_body(&em.code, "gather_shfl");
        // The text has as many shuffles as the plan says.
        let nshfl: usize = body.iter().map(|l| l.matches("__shfl_sync").count()).sum();
        assert_eq!(nshfl, em.shuffles, "{}", shfl.name);
        for (fname, f) in index_fns(shape_axis_size(&shfl)) {
            for w in 0..u64::from(shfl.num_warps) {
                let (a, ix) = inputs(&shfl, &*f, w);
                let b = run_shuffle_text(&body, &a, &ix, shfl.bits);
                for l in 0..32u64 {
                    for r in 0..ix[0].len() as u64 {
                        assert_eq!(
                            b[l as usize][r as usize],
                            want(&shfl, &*f, r, l, w),
                            "{} index fn {fname}: warp {w} lane {l} register {r}",
                            shfl.name
                        );
                    }
                }
            }
        }
        checked += 1;
    }
    assert!(checked >= 4);
}

#[test]
fn the_interpreter_catches_a_wrong_lane_constant() {
    // Mutation check: flip one source-lane mask in the emitted text of a
    // case whose axis crosses lanes; the interpreter must see wrong values.
    let [shfl, _] = cases_of(&suite_specs()[2]).unwrap();
    let em = emit_gather_benchmark(&shfl).unwrap();
    let body: Vec<String> = function_body(&em.code, "gather_shfl")
        .iter()
        .map(|l| {
            if l.contains("const uint32_t sl") {
                l.replacen("((v >> 2) & 1u)) & 1u)", "((v >> 2) & 1u)) & 2u)", 1)
            } else {
                l.to_string()
            }
        })
        .collect();
    let body: Vec<&str> = body.iter().map(|s| s.as_str()).collect();
    let fns = index_fns(shape_axis_size(&shfl));
    let f = &fns[0].1;
    let (a, ix) = inputs(&shfl, &**f, 0);
    let b = run_shuffle_text(&body, &a, &ix, shfl.bits);
    let wrong = (0..32u64)
        .flat_map(|l| (0..ix[0].len() as u64).map(move |r| (l, r)))
        .filter(|&(l, r)| b[l as usize][r as usize] != want(&shfl, &**f, r, l, 0))
        .count();
    assert!(wrong > 0, "mutated text still passes");
}

#[test]
fn candidates_are_two_to_the_register_bits_on_the_axis() {
    // Independent count: the candidates of a register are all source
    // registers its index can reach, 2^(register bases moving along the
    // axis) when lanes carry no register component.
    let expected = [1, 2, 4, 4, 2, 32];
    for (spec, want) in suite_specs().iter().zip(expected) {
        let [shfl, _] = cases_of(spec).unwrap();
        let em = emit_gather_benchmark(&shfl).unwrap();
        let moving = shfl
            .layout
            .bases(DimName::REGISTER)
            .iter()
            .filter(|b| b[shfl.axis] != 0)
            .count();
        assert_eq!(1usize << moving, want, "{}", shfl.name);
        assert_eq!(em.candidates, want, "{}", shfl.name);
        let regs = shfl.layout.in_dim_size(DimName::REGISTER) as usize;
        assert_eq!(em.shuffles, regs * want, "{}", shfl.name);
        assert_eq!(em.selects, regs * (want - 1), "{}", shfl.name);
    }
}

#[test]
fn emitted_shared_gathers_agree_with_direct_evaluation() {
    for spec in suite_specs() {
        let [_, smem] = cases_of(&spec).unwrap();
        assert_eq!(smem.variant, GatherVariant::Shared);
        let em = emit_gather_benchmark(&smem).unwrap();
        let body = function_body(&em.code, "gather_smem");
        let elems = smem.shape[0] * smem.shape[1];
        assert_eq!(em.smem_bytes, elems * u64::from(smem.bits) / 8);
        // Stores: the emitted (vectorised) stores use this map (checked by
        // tests/emit.rs); every element of the tile lands at its tag.
        let st = smem_map(&smem.layout, &row_major_smem(&smem.shape)).unwrap();
        let nregs = smem.layout.in_dim_size(DimName::REGISTER);
        let nw = u64::from(smem.num_warps);
        let mut mem = vec![None; elems as usize];
        for w in 0..nw {
            for l in 0..32 {
                for r in 0..nregs {
                    let c = coords(&smem.layout, r, l, w);
                    mem[st.offset(r, l, w) as usize] = Some(tag(&c, &smem.shape));
                }
            }
        }
        assert!(mem.iter().all(|m| m.is_some()), "{}", smem.name);
        // Loads: execute the emitted address lines.
        let after = body
            .iter()
            .skip_while(|l| !l.contains("__syncthreads"))
            .collect::<Vec<_>>();
        let thread = after
            .iter()
            .find_map(|l| l.trim().strip_prefix("unsigned o_g = "))
            .unwrap()
            .trim_end_matches(';');
        let loads: Vec<(usize, u64, usize, u64)> = after
            .iter()
            .filter_map(|l| {
                // b[r] = smem[(o_g ^ Cu) + ix[r] * Su];
                let l = l.trim().strip_prefix("b[")?;
                let (r, rest) = l.split_once("] = smem[(o_g ^ ")?;
                let (c, rest) = rest.split_once("u) + ix[")?;
                let (r2, s) = rest.split_once("] * ")?;
                Some((
                    r.parse().ok()?,
                    c.parse().ok()?,
                    r2.parse().ok()?,
                    s.strip_suffix("u];")?.parse().ok()?,
                ))
            })
            .collect();
        assert_eq!(loads.len() as u64, nregs, "{}", smem.name);
        for (fname, f) in index_fns(shape_axis_size(&smem)) {
            for w in 0..nw {
                for l in 0..32u64 {
                    let env = HashMap::from([("lane".to_string(), l), ("warp".to_string(), w)]);
                    let o = eval_xor(thread, &env);
                    for &(r, c, r2, s) in &loads {
                        assert_eq!(r, r2);
                        let v = f(&coords(&smem.layout, r as u64, l, w));
                        let got = mem[((o ^ c) + v * s) as usize];
                        assert_eq!(
                            got,
                            Some(want(&smem, &*f, r as u64, l, w)),
                            "{} index fn {fname}: warp {w} lane {l} register {r}",
                            smem.name
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn gathers_across_warps_have_no_shuffle_variant() {
    // Warps split the gather axis (warpsPerCTA = [1, 4], axis 1): Triton's
    // warp-local test fails, the shuffle emitter must refuse and say why,
    // the shared-memory one still works.
    let attr = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [1, 0]}>";
    let spec = ("across_warps", [32, 32], 32, 4, attr, 1);
    let [shfl, smem] = cases_of(&spec).unwrap();
    let err = emit_gather_benchmark(&shfl).unwrap_err();
    assert!(err.0.contains("not warp-local"), "{err}");
    assert!(emit_gather_benchmark(&smem).is_ok());
    // A bad axis is an error naming it.
    let mut bad = smem.clone();
    bad.axis = 2;
    let err = emit_gather_benchmark(&bad).unwrap_err();
    assert!(err.0.contains("axis 2"), "{err}");
}

#[test]
fn emitted_gather_snapshot() {
    let [shfl, _] = cases_of(&suite_specs()[0]).unwrap();
    let code = emit_gather_benchmark(&shfl).unwrap().code;
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/snapshots/gather_snapshot.cu"
    );
    if std::env::var("UPDATE_SNAPSHOTS").is_ok() {
        std::fs::write(path, &code).unwrap();
    }
    let want =
        std::fs::read_to_string(path).expect("snapshot exists (UPDATE_SNAPSHOTS=1 to write)");
    assert_eq!(code, want);
}
