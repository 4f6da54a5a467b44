//! Printing a [`LinearLayout`]: `Display` is Triton's `toString` byte for
//! byte; `Debug` wraps it in `LinearLayout(...)`.

use crate::LinearLayout;
use std::fmt;

impl fmt::Display for LinearLayout {
    /// Triton's `toString`, byte for byte: a leading newline, then one line
    /// per basis (` - in=1 -> (c0, c1)`, continuation lines `   in=2 -> ...`,
    /// components in out-dim order), ` - in is a size 1 dimension` for a dim
    /// without bases, and `where out dims are: [dim0 (size 4), ...]`. With no
    /// in dims at all it is `\n(empty layout)` or
    /// `\n(empty layout with out-dims [...])`. The alternate form `{:#}`
    /// omits the leading newline.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !f.alternate() {
            writeln!(f)?;
        }
        let outs: Vec<String> = self
            .outs
            .iter()
            .map(|o| format!("{} (size {})", o.name, 1u64 << o.log2))
            .collect();
        let outs = format!("[{}]", outs.join(", "));
        if self.ins.is_empty() {
            return if self.outs.is_empty() {
                write!(f, "(empty layout)")
            } else {
                write!(f, "(empty layout with out-dims {outs})")
            };
        }
        for d in &self.ins {
            if d.log2 == 0 {
                writeln!(f, " - {} is a size 1 dimension", d.name)?;
                continue;
            }
            for i in 0..d.log2 {
                let comps: Vec<String> = self
                    .unpack(self.bases[(d.start + i) as usize])
                    .iter()
                    .map(|c| c.to_string())
                    .collect();
                let lead = if i == 0 { " - " } else { "   " };
                writeln!(
                    f,
                    "{lead}{}={} -> ({})",
                    d.name,
                    1u64 << i,
                    comps.join(", ")
                )?;
            }
        }
        write!(f, "where out dims are: {outs}")
    }
}

impl fmt::Debug for LinearLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LinearLayout(")?;
        fmt::Display::fmt(self, f)?;
        write!(f, ")")
    }
}
