//! Each way a plan can be wrong is caught by the simulator with its own
//! error, naming the offending instruction, slot or register.

use layout_codegen::choice::plan_conversion;
use layout_codegen::plan::{ConversionPlan, SharedMemoryPlan};
use layout_codegen::simulator::simulate;
use layout_codegen::CodegenError;
use linear_layout::{DimName, LinearLayout};

fn layout(reg: &[u64], lane: &[u64], warp: &[u64]) -> LinearLayout {
    let b = |xs: &[u64]| xs.iter().map(|&x| vec![x]).collect::<Vec<_>>();
    LinearLayout::new(
        vec![
            (DimName::REGISTER, b(reg)),
            (DimName::LANE, b(lane)),
            (DimName::WARP, b(warp)),
            (DimName::BLOCK, vec![]),
        ],
        vec![(DimName::dim(0), 256)],
        true,
    )
    .unwrap()
}

/// A 256-element 1-D tensor, 2 warps: src has registers low, dst has lanes
/// low and warp bits exchanged, so the conversion needs shared memory.
fn shared_case() -> (LinearLayout, LinearLayout, SharedMemoryPlan) {
    let src = layout(&[1, 2], &[8, 16, 32, 64, 128], &[4]);
    let dst = layout(&[64, 128], &[1, 2, 4, 8, 16], &[32]);
    match plan_conversion(&src, &dst, 32).unwrap() {
        ConversionPlan::SharedMemory(p) => (src, dst, *p),
        other => panic!("expected a shared-memory plan, got {other:?}"),
    }
}

fn run(src: &LinearLayout, dst: &LinearLayout, p: SharedMemoryPlan) -> CodegenError {
    simulate(&ConversionPlan::SharedMemory(Box::new(p)), src, dst).unwrap_err()
}

#[test]
fn the_unmodified_plan_is_proved() {
    let (src, dst, p) = shared_case();
    let rep = simulate(&ConversionPlan::SharedMemory(Box::new(p)), &src, &dst).unwrap();
    assert_eq!(rep.registers_checked, 2 * 32 * 4);
}

#[test]
fn out_of_bounds_store() {
    let (src, dst, mut p) = shared_case();
    p.rounds[0].stores[0].address.constant += p.scratch_elems;
    assert!(matches!(
        run(&src, &dst, p),
        CodegenError::OutOfBounds { .. }
    ));
}

#[test]
fn misaligned_vector() {
    let (src, dst, mut p) = shared_case();
    assert!(p.rounds[0].stores[0].registers.len() > 1);
    p.rounds[0].stores[0].address.constant ^= 1;
    assert!(matches!(
        run(&src, &dst, p),
        CodegenError::Misaligned { .. }
    ));
}

#[test]
fn two_threads_writing_one_slot_is_a_race() {
    let (src, dst, mut p) = shared_case();
    // Lane bit 0 no longer moves the store address: lanes 0 and 1 collide.
    p.rounds[0].stores[0].address.lane[0] = 0;
    assert!(matches!(run(&src, &dst, p), CodegenError::Race { .. }));
}

#[test]
fn reading_a_slot_nobody_wrote() {
    let (src, dst, mut p) = shared_case();
    p.rounds[0].stores.pop();
    assert!(matches!(
        run(&src, &dst, p),
        CodegenError::Uninitialised { .. }
    ));
}

#[test]
fn a_register_out_of_range() {
    let (src, dst, mut p) = shared_case();
    p.rounds[0].loads[0].registers[0] = 99;
    assert!(matches!(
        run(&src, &dst, p),
        CodegenError::BadRegister { register: 99, .. }
    ));
}

#[test]
fn a_wrong_permutation_names_the_first_wrong_register() {
    let src = layout(&[1, 2], &[4, 8, 16, 32, 64], &[128]);
    let dst = layout(&[2, 1], &[4, 8, 16, 32, 64], &[128]);
    let plan = plan_conversion(&src, &dst, 16).unwrap();
    assert_eq!(
        simulate(&plan, &src, &dst).unwrap().registers_checked,
        4 * 32 * 2
    );
    // The identity instead of the swap: register 1 of warp 0 lane 0 holds
    // element 1, the destination wants element 2.
    let wrong = ConversionPlan::RegisterPermutation {
        src_register: vec![0, 1, 2, 3],
    };
    match simulate(&wrong, &src, &dst).unwrap_err() {
        CodegenError::WrongElement {
            block,
            warp,
            lane,
            register,
            expected,
            found,
        } => {
            assert_eq!((block, warp, lane, register), (0, 0, 0, 1));
            assert_eq!(expected, vec![2]);
            assert_eq!(found, Some(vec![1]));
        }
        e => panic!("{e}"),
    }
}
