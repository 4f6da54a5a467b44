//! The committed Figure 1 pictures are what the example draws today, and
//! layout A places the elements where the paper's §4.1 text says.

#[allow(dead_code)]
#[path = "../examples/figure1.rs"]
mod figure1;

use layout_view::svg::{hardware_picture, tensor_picture};

fn committed(name: &str) -> String {
    let p = format!("{}/../../docs/pictures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(p).expect("committed picture")
}

#[test]
fn committed_pictures_are_up_to_date() {
    for (name, ll) in [("a", figure1::layout_a()), ("b", figure1::layout_b())] {
        let t = tensor_picture(&ll, &[16, 16]).unwrap();
        assert_eq!(
            t.svg,
            committed(&format!("figure1-{name}.svg")),
            "rerun: cargo run -p layout-view --example figure1"
        );
        let h = hardware_picture(&ll, &[16, 16]).unwrap();
        assert_eq!(h.svg, committed(&format!("figure1-{name}-hardware.svg")));
        assert_eq!(
            layout_view::html::page(&t),
            committed(&format!("figure1-{name}.html"))
        );
    }
}

#[test]
fn layout_a_matches_the_paper_text() {
    // §4.1: "R0 of thread 1 is located at (0,2)", "R1 of T9 is located at
    // (2,3)", "R0 of T10 is located at (2,4)".
    let t = tensor_picture(&figure1::layout_a(), &[16, 16]).unwrap();
    let info = &t.panels[0].info;
    for (i, j, who) in [(0, 2, "(T1:0)"), (2, 3, "(T9:1)"), (2, 4, "(T10:0)")] {
        let cell = &info[i * 16 + j];
        assert!(
            cell.starts_with(&format!("({i},{j}) ←")) && cell.contains(who),
            "{cell}"
        );
    }
    // Layout B: consecutive lanes go down a column (lane 1 at row 2).
    let t = tensor_picture(&figure1::layout_b(), &[16, 16]).unwrap();
    assert!(
        t.panels[0].info[2 * 16].contains("(T1:0)"),
        "{}",
        t.panels[0].info[32]
    );
}
