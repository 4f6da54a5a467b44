//! CPU checks of the gather emitter: the CUDA text it prints for the
//! shuffle gather is *executed* by a small interpreter on a modelled warp
//! (32 lanes in lock step, `__shfl_sync` reading another lane's register),
//! and the shared-memory gather's load addresses are executed the same way;
//! both must agree with a direct evaluation of `out[c] = src[c with c[axis]
//! := idx[c]]` from the layout's coordinates. Plus a snapshot of one small
//! generated program.

use layout_cuda::gather::{
    cases_of, emit_gather_benchmark, row_major_smem, suite_specs, xor_expr, xor_runs_expr,
    GatherCase, GatherVariant,
};
use layout_cuda::smem_map;
use linear_layout::{DimName, LinearLayout};
use proptest::prelude::*;
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

/// `Cu`, a variable, or `Cu ^ term ^ …` with terms
/// `((0u - ((x >> k) & 1u)) & Mu)` (bit `k` of `x` selects mask `M`) or
/// `(((x >> k) & Lu) << j)` (a shift run).
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
            if let Some(inner) = term.strip_prefix("(((") {
                // (((x >> k) & Lu) << j)
                let (shift, rest) = inner.split_once(") & ").expect("shift run");
                let (mask, j) = rest
                    .strip_suffix(')')
                    .and_then(|r| r.split_once("u) << "))
                    .unwrap_or_else(|| panic!("bad run {term:?}"));
                let (var, k) = shift.split_once(" >> ").expect("shift");
                let k: u32 = k.parse().unwrap();
                let m: u64 = mask.parse().unwrap();
                let j: u32 = j.parse().unwrap();
                return ((env[var] >> k) & m) << j;
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

/// `X | (Y << K)` (a control word from its lane and register parts).
fn eval_word(e: &str, env: &Env) -> Option<u64> {
    let (x, rest) = e.split_once(" | (")?;
    let (y, k) = rest.strip_suffix(')')?.split_once(" << ")?;
    Some(env[x] | env[y] << k.parse::<u32>().ok()?)
}

/// `(((w[r] ^ Ku) & Mu) == 0u)`: the candidate test.
fn eval_test(cond: &str, env: &Env) -> bool {
    let inner = cond
        .strip_prefix("(((")
        .and_then(|c| c.strip_suffix(") == 0u)"))
        .unwrap_or_else(|| panic!("bad test {cond:?}"));
    let (xk, m) = inner.split_once(") & ").unwrap();
    let (x, k) = xk.split_once(" ^ ").unwrap();
    let num = |t: &str| t.strip_suffix('u').unwrap().parse::<u64>().unwrap();
    (env[x] ^ num(k)) & num(m) == 0
}

/// Executes the emitted `gather_ctl` and then `gather_shfl` on one warp
/// (32 lanes in lock step). `a[lane][c]` and `ix[lane][r]` are the inputs;
/// returns `b[lane][r]`. A shuffle reads lane `w & 31` of the source, as
/// `shfl.idx` reads bits 4:0 of its lane operand.
fn run_shuffle_text(
    ctl: &[&str],
    body: &[&str],
    a: &[Vec<u64>],
    ix: &[Vec<u64>],
    bits: u32,
) -> Vec<Vec<u64>> {
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
    let ty = format!("({})", if bits == 32 { "uint32_t" } else { "uint16_t" });
    let mut statements = 0;
    for line in ctl.iter().chain(body) {
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
                        let word = env[l][var];
                        a[(word & 31) as usize][c]
                    } else if let Some(g) = rhs.strip_prefix(&ty) {
                        env[l][g] & tmask
                    } else if let Some(w) = eval_word(rhs, &env[l]) {
                        w
                    } else if let Some((cond, arms)) = rhs.split_once(" ? ") {
                        // (((w[r] ^ Ku) & Mu) == 0u) ? t : g
                        let (t, f) = arms.split_once(" : ").unwrap();
                        if eval_test(cond, &env[l]) {
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
                    Some(("w", _)) => {
                        env[l].insert(lhs.to_string(), v);
                    }
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
        let ctl = function_body(&em.code, "gather_ctl");
        let body = function_body(&em.code, "gather_shfl");
        // The text has as many shuffles as the plan says.
        let nshfl: usize = body.iter().map(|l| l.matches("__shfl_sync").count()).sum();
        assert_eq!(nshfl, em.shuffles, "{}", shfl.name);
        for (fname, f) in index_fns(shape_axis_size(&shfl)) {
            for w in 0..u64::from(shfl.num_warps) {
                let (a, ix) = inputs(&shfl, &*f, w);
                let b = run_shuffle_text(&ctl, &body, &a, &ix, shfl.bits);
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
    let body = function_body(&em.code, "gather_shfl");
    let ctl: Vec<String> = function_body(&em.code, "gather_ctl")
        .iter()
        .map(|l| {
            if l.contains("const uint32_t sl") {
                let m = l.replacen("(((v >> 2) & 7u) << 0)", "(((v >> 2) & 7u) << 1)", 1);
                assert_ne!(&m, l, "the mutation must apply");
                m
            } else {
                l.to_string()
            }
        })
        .collect();
    let ctl: Vec<&str> = ctl.iter().map(|s| s.as_str()).collect();
    let fns = index_fns(shape_axis_size(&shfl));
    let f = &fns[0].1;
    let (a, ix) = inputs(&shfl, &**f, 0);
    let b = run_shuffle_text(&ctl, &body, &a, &ix, shfl.bits);
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
    assert!(err.to_string().contains("not warp-local"), "{err}");
    assert!(emit_gather_benchmark(&smem).is_ok());
    // A bad axis is an error naming it.
    let mut bad = smem.clone();
    bad.axis = 2;
    let err = emit_gather_benchmark(&bad).unwrap_err();
    assert!(err.to_string().contains("axis 2"), "{err}");
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

/// Direct XOR-linear evaluation: `c ⊕ ⨁ { m_k : bit k of x set }`.
fn xor_linear(constant: u64, masks: &[u64], x: u64) -> u64 {
    masks
        .iter()
        .enumerate()
        .filter(|(k, _)| x >> k & 1 == 1)
        .fold(constant, |a, (_, &m)| a ^ m)
}

proptest! {
    /// Both printed forms of an XOR-linear map evaluate to the map, for
    /// masks mixing runs of consecutive single bits, scattered bits,
    /// several-bit columns and zeros.
    #[test]
    fn printed_xor_maps_evaluate_to_the_map(
        constant in 0u64..64,
        masks in prop::collection::vec(
            prop_oneof![Just(0u64), (0u32..6).prop_map(|j| 1u64 << j), 0u64..64],
            0..7,
        ),
        run_start in 0u32..4,
        x in 0u64..128,
    ) {
        // Splice in a guaranteed run (k..k+3 → run_start..run_start+3).
        let mut masks = masks;
        masks.extend((0..3).map(|i| 1u64 << (run_start + i)));
        let env: Env = [("v".to_string(), x)].into_iter().collect();
        let want = xor_linear(constant, &masks, x);
        prop_assert_eq!(eval_xor(&xor_expr(constant, &[("v", &masks)]), &env), want);
        prop_assert_eq!(eval_xor(&xor_runs_expr(constant, &[("v", &masks)]), &env), want);
    }
}

#[test]
fn runs_print_as_one_shift_and_mask() {
    // v's bits 1..6 to bits 0..5 and bit 0 alone to 8: two terms.
    let e = xor_runs_expr(3, &[("v", &[256, 1, 2, 4, 8, 16])]);
    assert_eq!(e, "3u ^ (((v >> 0) & 1u) << 8) ^ (((v >> 1) & 31u) << 0)");
}

#[test]
fn the_interpreter_catches_a_wrong_candidate_test() {
    // Mutation check: in a case with several candidates per register, make
    // the second candidate's test compare against the first candidate's
    // register; the interpreter must see wrong values.
    let [shfl, _] = cases_of(&suite_specs()[2]).unwrap();
    let em = emit_gather_benchmark(&shfl).unwrap();
    let ctl = function_body(&em.code, "gather_ctl");
    let body: Vec<String> = function_body(&em.code, "gather_shfl")
        .iter()
        .map(|l| l.replacen("(((w[0] ^ 32u)", "(((w[0] ^ 0u)", 1))
        .collect();
    assert!(
        body.iter().any(|l| l.contains("(((w[0] ^ 0u)")),
        "the mutation must apply"
    );
    let body: Vec<&str> = body.iter().map(|s| s.as_str()).collect();
    let fns = index_fns(shape_axis_size(&shfl));
    let f = &fns[0].1;
    let (a, ix) = inputs(&shfl, &**f, 0);
    let b = run_shuffle_text(&ctl, &body, &a, &ix, shfl.bits);
    let wrong = (0..32u64)
        .filter(|&l| b[l as usize][0] != want(&shfl, &**f, 0, l, 0))
        .count();
    assert!(wrong > 0, "mutated candidate test still passes");
}
