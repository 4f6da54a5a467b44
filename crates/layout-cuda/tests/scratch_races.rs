//! The barriers of every committed GPU-suite conversion program
//! (`bench/gpu/generated/*.cu`, gathers aside), read back from the CUDA
//! text: each conversion's shared-memory stores, barriers and loads in
//! program order, and the benchmark loop's calls (with the scratch buffer
//! each is given) and barriers. [`first_race`] must find no store and load
//! of one buffer that no barrier separates; and
//! deleting any one barrier line of a program must open such a race (the
//! check can fail, and every barrier the emitter writes is needed).

use layout_codegen::loop_schedule::{first_race, Access};
use std::collections::BTreeMap;

fn generated_dir() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/gpu/generated").to_string()
}

/// A barrier line: `__syncwarp()` orders the warp-private conversions
/// (each warp touches only its own part of the buffer, which the planner
/// proves and the simulator checks: `layout-codegen`'s
/// `tests/warp_private.rs`), `__syncthreads()` and `PARTIAL_SYNC()` the
/// others.
fn is_barrier(line: &str) -> bool {
    let l = line.trim();
    l == "__syncthreads();" || l == "PARTIAL_SYNC();" || l == "__syncwarp();"
}

/// A store or load of the scratch buffer on this line, if any.
fn access_kind(line: &str) -> Option<bool> {
    let l = line.trim_start();
    if l.contains("stmatrix") && !l.starts_with("__device__") {
        return Some(true);
    }
    if l.contains("ldmatrix") && !l.starts_with("__device__") {
        return Some(false);
    }
    // A scalar store of the buffer (or of its word view): `smem[..] = v;`,
    // `smem_w[..] = v;`.
    if l.starts_with("smem") && l.contains("] = ") {
        return Some(true);
    }
    let reads_smem = l.contains("(&smem") || l.contains("= smem");
    if !reads_smem {
        return None;
    }
    if l.contains("reinterpret_cast<const ") || l.contains("= smem") {
        Some(false)
    } else {
        Some(true)
    }
}

/// The body of `void name(` up to its closing line `}`.
fn function_body<'a>(code: &'a str, name: &str) -> Option<Vec<&'a str>> {
    let start = code.find(&format!("void {name}("))?;
    let lines: Vec<&str> = code[start..].lines().skip(1).collect();
    let end = lines.iter().position(|l| *l == "}")?;
    Some(lines[..end].to_vec())
}

/// A conversion's accesses, on a buffer id to be filled in.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Event {
    Store,
    Load,
    Barrier,
}

fn conversion_events(code: &str, name: &str) -> Vec<Event> {
    let body = function_body(code, name).unwrap_or_else(|| panic!("no {name}"));
    body.iter()
        .filter_map(|l| {
            if is_barrier(l) {
                Some(Event::Barrier)
            } else {
                access_kind(l).map(|st| if st { Event::Store } else { Event::Load })
            }
        })
        .collect()
}

/// The loop body's lines: the first `for (...it...)` loop of the program
/// (in `run_warp` for warp-specialised programs), up to its closing `  }`.
/// For an unrolled loop also the remainder block's lines.
fn loop_lines(code: &str) -> (Vec<&str>, Option<Vec<&str>>) {
    let lines: Vec<&str> = code.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.trim_start().starts_with("for (") && l.contains("it") && l.contains("< R"))
        .expect("benchmark loop");
    let end = start + lines[start..].iter().position(|l| *l == "  }").unwrap();
    let body = lines[start + 1..end].to_vec();
    let rest = (lines[end + 1].trim() == "if (it < R) {").then(|| {
        let e = end + 1 + lines[end + 1..].iter().position(|l| *l == "  }").unwrap();
        lines[end + 2..e].to_vec()
    });
    (body, rest)
}

/// The scratch buffer of a call's `smem` argument: its element offset.
fn call_buffer(line: &str) -> u64 {
    let args = &line[line.find('(').unwrap() + 1..];
    let smem = args
        .split(", ")
        .find(|a| a.starts_with("smem"))
        .expect("smem argument");
    match smem.strip_prefix("smem + ") {
        Some(n) => n.trim_end_matches('u').parse().unwrap(),
        None => 0,
    }
}

/// The loop body as accesses, and the buffers it passes.
fn loop_accesses(code: &str, body: &[&str]) -> (Vec<Access>, Vec<u64>) {
    let fwd = conversion_events(code, "cvt_fwd");
    let bwd = conversion_events(code, "cvt_bwd");
    let mut out = Vec::new();
    let mut buffers = Vec::new();
    for l in body {
        let t = l.trim_start();
        if is_barrier(l) {
            out.push(Access::Barrier);
            continue;
        }
        let events = if t.starts_with("cvt_fwd(") {
            &fwd
        } else if t.starts_with("cvt_bwd(") {
            &bwd
        } else {
            continue;
        };
        let b = call_buffer(t);
        buffers.push(b);
        let id = b as u32;
        out.extend(events.iter().map(|e| match e {
            Event::Store => Access::Store(id),
            Event::Load => Access::Load(id),
            Event::Barrier => Access::Barrier,
        }));
    }
    (out, buffers)
}

/// The launch's dynamic shared memory in bytes and the element size.
fn launch_bytes(code: &str) -> (u64, u64) {
    let i = code.find("bench<<<tiles, ").unwrap();
    let rest = &code[i..];
    let bytes = rest[..rest.find(">>>").unwrap()]
        .rsplit(", ")
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let elem = if code.contains("bench(const uint8_t*") {
        1
    } else if code.contains("bench(const uint16_t*") {
        2
    } else if code.contains("bench(const uint32_t*") {
        4
    } else {
        8
    };
    (bytes, elem)
}

fn programs() -> Vec<(String, String)> {
    let dir = generated_dir();
    let mut v: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".cu") && !n.starts_with("gather_"))
        .map(|n| {
            let code = std::fs::read_to_string(format!("{dir}/{n}")).unwrap();
            (n.trim_end_matches(".cu").to_string(), code)
        })
        .collect();
    v.sort();
    v
}

/// The race check of one program; returns (barriers per iteration, buffers).
fn check(name: &str, code: &str) -> Result<(usize, usize), String> {
    let (body, rest) = loop_lines(code);
    let (acc, buffers) = loop_accesses(code, &body);
    if let Some((i, j)) = first_race(&acc) {
        return Err(format!(
            "{name}: race between accesses {i} and {j} of {acc:?}"
        ));
    }
    let unroll = if rest.is_some() { 2 } else { 1 };
    if let Some(rest) = rest {
        // The remainder is the body's first iteration.
        let (r, _) = loop_accesses(code, &rest);
        if acc[..r.len()] != r[..] {
            return Err(format!("{name}: remainder {r:?} is not the body's start"));
        }
    }
    let mut distinct: Vec<u64> = buffers.clone();
    distinct.sort();
    distinct.dedup();
    let used = acc.iter().any(|a| *a != Access::Barrier);
    if used {
        // Buffers do not overlap: distinct offsets, each a multiple of the
        // launch's share per buffer.
        let (bytes, elem) = launch_bytes(code);
        let span = bytes / elem / distinct.len() as u64;
        for b in &distinct {
            if b % span != 0 || b / span >= distinct.len() as u64 {
                return Err(format!("{name}: buffer offset {b} vs span {span}"));
            }
        }
    }
    let barriers = acc.iter().filter(|a| **a == Access::Barrier).count();
    Ok((barriers / unroll, if used { distinct.len() } else { 0 }))
}

#[test]
fn committed_programs_have_no_unordered_shared_accesses() {
    let mut shape: BTreeMap<(usize, usize), Vec<String>> = BTreeMap::new();
    for (name, code) in programs() {
        let k = check(&name, &code).unwrap();
        shape.entry(k).or_default().push(name);
    }
    // Both schedules occur: one buffer with two barriers per conversion
    // (4 per iteration), two buffers with one (2 per iteration), and the
    // partial plans whose way back stays in registers (1 per iteration on
    // two buffers, 2 on one).
    for k in [(4, 1), (2, 2), (1, 2), (2, 1), (0, 0)] {
        assert!(shape.contains_key(&k), "no program with {k:?}: {shape:?}");
    }
    assert_eq!(
        shape.keys().copied().collect::<Vec<_>>(),
        vec![(0, 0), (1, 2), (2, 1), (2, 2), (4, 1)],
        "{shape:?}"
    );
}

/// Mutation: every barrier line of every program is needed.
#[test]
fn deleting_any_barrier_opens_a_race() {
    let mut mutated = 0;
    for (name, code) in programs() {
        let lines: Vec<&str> = code.lines().collect();
        for (k, l) in lines.iter().enumerate() {
            if !is_barrier(l) {
                continue;
            }
            // Barriers of functions the loop does not call (none today)
            // would not matter; the loop's and the conversions' do.
            let m: String = lines
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != k)
                .map(|(_, l)| format!("{l}\n"))
                .collect();
            assert!(
                check(&name, &m).is_err(),
                "{name}: deleting line {} ({l}) leaves no race",
                k + 1
            );
            mutated += 1;
        }
    }
    assert!(mutated > 50, "{mutated}");
}
