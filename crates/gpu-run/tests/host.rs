//! The runner's host side against the generated programs and against
//! independent facts (identity and involutive gathers, wrap-around).

use gpu_run::{
    device_view, expected_conversion, expected_gather, first_mismatch, nonzero_values, GatherTile,
    LaunchShape,
};
use proptest::prelude::*;
use serde_json::Value;

fn generated() -> (String, Vec<Value>) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/gpu/generated");
    let cases = std::fs::read_to_string(format!("{dir}/cases.json")).unwrap();
    (dir.to_string(), serde_json::from_str(&cases).unwrap())
}

#[test]
fn every_generated_program_has_a_device_view_and_its_own_launch_shape() {
    let (dir, cases) = generated();
    assert!(cases.len() >= 40, "{} cases", cases.len());
    for c in &cases {
        let name = c["name"].as_str().unwrap();
        let code = std::fs::read_to_string(format!("{dir}/{name}.cu")).unwrap();
        let shape = LaunchShape::parse(&code).unwrap();
        // Threads from the case's warps, independently of the text.
        assert_eq!(
            u64::from(shape.threads),
            32 * c["num_warps"].as_u64().unwrap(),
            "{name}"
        );
        if let Some(s) = c["smem_bytes"].as_u64() {
            assert_eq!(u64::from(shape.smem_bytes), s, "{name}");
        }
        let dev = device_view(&code).unwrap();
        assert!(dev.contains("extern \"C\" __global__ void"), "{name}");
        assert!(dev.contains(" bench("), "{name}");
        assert!(dev.contains("typedef unsigned int uint32_t;"), "{name}");
        for host_only in [
            "#include",
            "int main(",
            "std::vector",
            "cudaMalloc",
            "printf",
        ] {
            assert!(!dev.contains(host_only), "{name}: {host_only} under NVRTC");
        }
        // nvcc's view keeps the host program.
        assert!(code.contains("int main("), "{name}");
    }
}

#[test]
fn malformed_programs_are_errors_that_name_the_problem() {
    let e = LaunchShape::parse("no launch here").unwrap_err();
    assert!(e.to_string().contains("no launch"), "{e}");
    let e = LaunchShape::parse("bench<<<tiles, 128x, 0>>>").unwrap_err();
    assert!(e.to_string().contains("\"128x\""), "{e}");
    let e = LaunchShape::parse("bench<<<tiles, 128>>>").unwrap_err();
    assert!(e.to_string().contains("two operands"), "{e}");
    let e = device_view("#ifdef FOO\n#endif\n").unwrap_err();
    assert!(e.to_string().contains("FOO"), "{e}");
    let e = device_view("#ifndef __CUDACC_RTC__\nint main();\n").unwrap_err();
    assert!(e.to_string().contains("unterminated"), "{e}");
    let e = device_view("#endif\n").unwrap_err();
    assert!(e.to_string().contains("line 1"), "{e}");
}

#[test]
fn conversions_add_two_per_iteration_modulo_the_width() {
    assert_eq!(expected_conversion(&[250, 1], 8, 3), vec![0, 7]);
    assert_eq!(expected_conversion(&[65535], 16, 1), vec![1]);
    assert_eq!(expected_conversion(&[7], 32, 0), vec![7]);
    let v = nonzero_values(1000, 8, 9);
    assert!(v.iter().all(|&x| (1..256).contains(&x)));
}

/// Axis coordinate of row-major element `e`.
fn axis_coord(t: &GatherTile, e: u64) -> u64 {
    let stride: u64 = t.shape[t.axis + 1..].iter().product();
    e / stride % t.shape[t.axis]
}

proptest! {
    /// Gathering every element's own axis coordinate reads the element
    /// itself: R iterations add R; reversing the axis twice is the
    /// identity too.
    #[test]
    fn identity_and_reversal_gathers(
        rows_log in 0u32..4, cols_log in 0u32..4, axis in 0usize..2, r in 0u32..4, seed in 1u64..100,
    ) {
        let t = GatherTile { shape: vec![1 << rows_log, 1 << cols_log], axis };
        let n = t.elems();
        let input = nonzero_values(2 * n, 16, seed);
        let ident: Vec<u64> = (0..2 * n as u64).map(|e| axis_coord(&t, e % n as u64)).collect();
        let got = expected_gather(&t, &input, &ident, 16, r);
        prop_assert_eq!(first_mismatch(&got, &expected_conversion(&input, 16, 0).iter().map(|v| (v + u64::from(r)) & 0xffff).collect::<Vec<_>>()), None);
        let size = t.shape[axis];
        let rev: Vec<u64> = ident.iter().map(|&c| size - 1 - c).collect();
        let twice = expected_gather(&t, &input, &rev, 16, 2);
        let plus2: Vec<u64> = input.iter().map(|v| (v + 2) & 0xffff).collect();
        prop_assert_eq!(twice, plus2);
    }
}
