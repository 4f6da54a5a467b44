//! Kernels from outside the oracle's generator (`tests/data/elsewhere/`,
//! made by `tools/elsewhere.py` with Triton 3.9): TTIR exactly as Triton
//! prints it (source locations included), with ops the corpus lacks
//! (`tt.mulhiui`, `tt.precise_sqrt`, inline PTX, libdevice calls, tensor
//! descriptors, atomics, `tt.assert`, fp8 casts). Each one is read,
//! assigned and checked, its printed TTGIR reads back, and the layouts of
//! its loads and dots equal those in Triton's own TTGIR as linear maps.

use layout_engine::anchors::Target;
use layout_engine::cost::Pricer;
use layout_engine::engine::{assign, Options};
use layout_engine::ir::{OpKind, Program};
use layout_engine::ttgir::print_ttgir;
use layout_engine::{check, parse_program, Assignment};

fn dir() -> &'static str {
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/elsewhere")
}

/// Result values of the loads and dots of `p`, in program order, with
/// their op names.
fn anchored(p: &Program) -> Vec<(String, usize)> {
    p.walk()
        .into_iter()
        .filter(|&o| {
            let op = &p.ops[o];
            matches!(op.kind, OpKind::Load | OpKind::Dot | OpKind::WarpGroupDot)
                || op.name == "tt.descriptor_load"
        })
        .filter_map(|o| {
            let op = &p.ops[o];
            op.results.first().map(|&r| (op.name.clone(), r))
        })
        .collect()
}

#[test]
fn kernels_from_elsewhere_are_assigned_as_triton_anchors_them() {
    let mut names: Vec<String> = std::fs::read_dir(dir())
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".ttir"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 17, "{names:?}");
    let mut pricer = Pricer::new();
    let (mut compared, mut diffs, mut pipelined) = (0, Vec::new(), Vec::new());
    for name in &names {
        let ttir = std::fs::read_to_string(format!("{}/{name}", dir())).unwrap();
        let target = if name.contains(".sm80.") {
            Target::Sm80
        } else {
            Target::Sm90
        };
        let p = parse_program(&ttir).unwrap_or_else(|e| panic!("{name}: {e}"));
        let opts = Options::new(target, 4);
        let out = assign(&p, opts, &mut pricer).unwrap_or_else(|e| panic!("{name}: {e}"));
        let v = check(&p, &out.assignment);
        assert!(v.is_empty(), "{name}: {}", v[0]);
        let g = print_ttgir(&p, &ttir, &out.assignment, target, 4).unwrap();
        assert!(
            !g.text.contains("loc("),
            "{name}: a location left without its definition"
        );
        let ours = parse_program(&g.text).unwrap_or_else(|e| panic!("{name} printed: {e}"));
        let oa = Assignment::from_types(&ours).unwrap();
        let tt = std::fs::read_to_string(format!(
            "{}/{}",
            dir(),
            name.replace(".ttir", ".triton.ttgir")
        ))
        .unwrap();
        let theirs = parse_program(&tt).unwrap_or_else(|e| panic!("{name} Triton's: {e}"));
        let ta = Assignment::from_types(&theirs).unwrap();
        let (a, b) = (anchored(&ours), anchored(&theirs));
        // Triton's pipeliner turns a loop's loads into async copies; the
        // others correspond in program order.
        if a.iter().map(|x| &x.0).eq(b.iter().map(|x| &x.0)) {
            for ((op, x), (_, y)) in a.iter().zip(&b) {
                compared += 1;
                let (lx, ly) = (oa.layout(*x).unwrap(), ta.layout(*y).unwrap());
                if lx.ll != ly.ll {
                    diffs.push(format!(
                        "{name} {op}: ours {} Triton {}",
                        lx.mlir(),
                        ly.mlir()
                    ));
                }
            }
        } else {
            pipelined.push(name.as_str());
        }
    }
    // Descriptor loads Triton lowered to TMA copies (sm90) have no
    // register layout in its final TTGIR (`tests/anchors_corpus.rs` checks
    // them against the oracle's pre-pipeline TTGIR).
    assert_eq!(pipelined, ["block_ptr_copy.sm90.ttir"]);
    assert_eq!(compared, 22, "loads and dots compared");
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}
