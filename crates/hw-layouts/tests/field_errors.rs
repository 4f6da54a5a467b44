//! The unknown-field and CGA-form errors of every family, pinned word for
//! word: the families share one field check (`Attribute::check_fields`) and
//! one CGA-form check (`cga::cga_field`), and each keeps the wording it had
//! when it carried its own copy (`known:` for AMD, `allowed:` for shared and
//! tensor memory, no list for the other distributed families).

use hw_layouts::Encoding;

fn error_of(text: &str) -> String {
    match Encoding::parse(text).and_then(|e| e.to_linear_layout(&[64, 64])) {
        Ok(_) => panic!("accepted: {text}"),
        Err(e) => e.to_string(),
    }
}

const BLOCKED: &str =
    "sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]";
const MFMA: &str =
    "version = 2, warpsPerCTA = [4, 2], instrShape = [16, 16, 16], isTransposed = false";

#[test]
fn distributed_families_name_the_field_without_a_list() {
    assert_eq!(
        error_of(&format!("#ttg.blocked<{{{BLOCKED}, extra = 1}}>")),
        "invalid blocked layout: unknown field 'extra'"
    );
}

#[test]
fn amd_families_list_the_known_fields() {
    let e = error_of(&format!("#ttg.amd_mfma<{{{MFMA}, extra = 1}}>"));
    assert!(
        e.starts_with("invalid amd_mfma layout: unknown field 'extra' (known: "),
        "{e}"
    );
    assert!(e.contains("warpsPerCTA") && e.ends_with(')'), "{e}");
}

#[test]
fn shared_families_list_the_allowed_fields() {
    let e = error_of(
        "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1], extra = 1}>",
    );
    assert!(
        e.starts_with("invalid swizzled_shared layout: unknown field 'extra' (allowed: "),
        "{e}"
    );
    assert!(e.contains("perPhase") && e.ends_with(')'), "{e}");
}

#[test]
fn cga_layout_and_the_legacy_triple_are_not_both_given() {
    let both = "CGALayout = [[0, 1]], CTAsPerCGA = [1, 2]";
    for (name, fields) in [("blocked", BLOCKED), ("amd_mfma", MFMA)] {
        assert_eq!(
            error_of(&format!("#ttg.{name}<{{{fields}, {both}}}>")),
            format!(
                "invalid {name} layout: give either CGALayout or CTAsPerCGA/CTASplitNum/CTAOrder, not both"
            )
        );
    }
}

#[test]
fn each_cga_form_still_reads() {
    // Two CTAs along dim1, as bases and as the legacy triple: the same
    // block basis (CTA-tile units [0, 1] → 32 elements of dim1 at 64x64
    // split in two), for the blocked and the AMD reader.
    for (name, fields) in [("blocked", BLOCKED), ("amd_mfma", MFMA)] {
        let block = |cga: &str| {
            let l = Encoding::parse(&format!("#ttg.{name}<{{{fields}, {cga}}}>"))
                .and_then(|e| e.to_linear_layout(&[64, 64]))
                .unwrap_or_else(|e| panic!("{name} {cga}: {e}"));
            l.bases(linear_layout::DimName::BLOCK)
        };
        let bases = block("CGALayout = [[0, 1]]");
        assert_eq!(bases, vec![vec![0, 32]], "{name}");
        assert_eq!(
            block("CTAsPerCGA = [1, 2], CTASplitNum = [1, 2], CTAOrder = [1, 0]"),
            bases,
            "{name}"
        );
    }
}
