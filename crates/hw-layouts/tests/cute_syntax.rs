//! CuTe text: printing then parsing gives the same value (C++ and pycute
//! spellings), and malformed text is an error naming the problem, never a
//! panic.

use hw_layouts::cute::{self, CuteError, CuteLayout, IntTuple, Layout, Swizzle};
use proptest::prelude::*;

fn tuple_pair() -> impl Strategy<Value = (IntTuple, IntTuple)> {
    let leaf = (0i64..1 << 20, -(1i64 << 20)..1 << 20)
        .prop_map(|(s, d)| (IntTuple::Int(s), IntTuple::Int(d)));
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop::collection::vec(inner, 0..4).prop_map(|v| {
            let (s, d): (Vec<_>, Vec<_>) = v.into_iter().unzip();
            (IntTuple::Tuple(s), IntTuple::Tuple(d))
        })
    })
}

fn cute_layout() -> impl Strategy<Value = CuteLayout> {
    let sw = prop::option::of(
        (0i64..4, 0i64..6, 0i64..5, any::<bool>()).prop_filter_map("|S| >= B", |(b, m, s, neg)| {
            Swizzle::new(b, m, if neg { -s } else { s }).ok()
        }),
    );
    (tuple_pair(), sw, prop_oneof![Just(0i64), 0i64..64]).prop_map(
        |((shape, stride), swizzle, offset)| CuteLayout {
            swizzle,
            offset: if swizzle.is_some() { offset } else { 0 },
            layout: Layout::new(shape, stride).unwrap(),
        },
    )
}

/// pycute's spelling: `(4, 8):(8, 1)`, `(8,)`, `SW_3_4_3 o 0 o ...`.
fn pycute_text(c: &CuteLayout) -> String {
    fn t(x: &IntTuple) -> String {
        match x {
            IntTuple::Int(v) => v.to_string(),
            IntTuple::Tuple(v) if v.len() == 1 => format!("({},)", t(&v[0])),
            IntTuple::Tuple(v) => format!("({})", v.iter().map(t).collect::<Vec<_>>().join(", ")),
        }
    }
    let l = format!("{}:{}", t(&c.layout.shape), t(&c.layout.stride));
    match c.swizzle {
        Some(s) => format!("SW_{}_{}_{} o {} o {l}", s.bits, s.base, s.shift, c.offset),
        None => l,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn print_then_parse_is_identity(c in cute_layout()) {
        let text = c.to_string();
        prop_assert_eq!(cute::parse(&text).unwrap(), c.clone(), "{}", text);
        let py = pycute_text(&c);
        prop_assert_eq!(cute::parse(&py).unwrap(), c, "{}", py);
    }

    #[test]
    fn arbitrary_text_never_panics(s in "[ -~]{0,40}") {
        let _ = cute::parse(&s);
    }

    #[test]
    fn mangled_layout_text_never_panics(c in cute_layout(), cut in 0usize..200, junk in "[(),:<>_ oSWw0-9-]{0,3}") {
        let mut t = c.to_string();
        let at = cut.min(t.len());
        t.insert_str(at, &junk);
        let _ = cute::parse(&t);
    }
}

#[test]
fn static_integers_and_compact_strides() {
    let c = cute::parse("(_4,_8):(_8,_1)").unwrap();
    assert_eq!(c.to_string(), "(4,8):(8,1)");
    // No stride: CuTe's column-major compact strides (exclusive prefix product).
    assert_eq!(
        cute::parse("((2,4),8)").unwrap().to_string(),
        "((2,4),8):((1,2),8)"
    );
    assert_eq!(
        cute::parse("Sw<3,4,3> o _0 o (8,64):(64,1)")
            .unwrap()
            .to_string(),
        "Swizzle<3,4,3> o (8,64):(64,1)"
    );
}

fn err(text: &str) -> String {
    match cute::parse(text) {
        Ok(c) => panic!("'{text}' parsed as {c}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_input_is_an_error_naming_the_problem() {
    assert!(
        err("(4,8):(8)").contains("congruent to shape (4,8)"),
        "{}",
        err("(4,8):(8)")
    );
    assert!(err("(4,8").contains("expected ',' or ')'"));
    assert!(err("(4,8):(8,1) trailing").contains("expected end of input, found 'trailing'"));
    assert!(err("(4;8)").contains("byte 2"));
    assert!(err("").contains("found end of input"));
    assert!(err("Swizzle<3,4,2> o 8:1").contains("Swizzle<3,4,2>: CuTe needs |shift| >= bits"));
    assert!(err("Swizzle<3,4> o 8:1").contains("expected ','"));
    assert!(err("99999999999999999999:1").contains("integer is 18446744073709551615"));
    assert!(err("Swizzle<30,20,30> o 8:1").contains("swizzle width"));
    let deep = format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000));
    assert!(err(&deep).contains("nesting depth is 33, the limit is 32"));
    let wide = format!("({})", vec!["1"; 5000].join(","));
    assert!(err(&wide).contains("number of integers is 1025"));
    assert!(matches!(
        cute::parse("(4,8):(8,1,2)"),
        Err(CuteError::Parse { pos: 6, .. })
    ));
}
