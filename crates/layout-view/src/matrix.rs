//! The layout as a 0/1 matrix over GF(2) (the paper's §4.1 form).
//!
//! Column `k` is input bit `k` (`register[0]`, `register[1]`, ...,
//! `lane[0]`, ...: input dims in the layout's order, low bit first); row `r`
//! is output bit `r` (`dim0[0]`, `dim0[1]`, ..., `dim1[0]`, ...: output dims
//! in order, low bit first). Entry `(r, k)` is bit `r` of basis `k`, so the
//! layout maps an input bit vector `x` to `M·x` over GF(2).

use linear_layout::LinearLayout;

/// A labelled 0/1 matrix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BitMatrix {
    /// `dim[bit]` for every output bit, in row order.
    pub row_labels: Vec<String>,
    /// Output dims with their bit counts, in order.
    pub row_groups: Vec<(String, u32)>,
    /// `dim[bit]` for every input bit, in column order.
    pub col_labels: Vec<String>,
    /// Input dims with their bit counts, in order.
    pub col_groups: Vec<(String, u32)>,
    /// `bits[r][k]`, each 0 or 1.
    pub bits: Vec<Vec<u8>>,
}

impl BitMatrix {
    /// The matrix of `ll`.
    pub fn of(ll: &LinearLayout) -> BitMatrix {
        let outs = ll.out_dims();
        let ins = ll.in_dims();
        let mut row_labels = Vec::new();
        let mut row_groups = Vec::new();
        for (name, size) in &outs {
            let n = size.trailing_zeros();
            row_groups.push((name.to_string(), n));
            row_labels.extend((0..n).map(|b| format!("{name}[{b}]")));
        }
        let mut col_labels = Vec::new();
        let mut col_groups = Vec::new();
        let mut columns: Vec<Vec<u8>> = Vec::new();
        for (name, size) in &ins {
            let n = size.trailing_zeros();
            col_groups.push((name.to_string(), n));
            for (b, basis) in ll.bases(*name).iter().enumerate() {
                col_labels.push(format!("{name}[{b}]"));
                let mut col = Vec::new();
                for ((_, osize), &v) in outs.iter().zip(basis) {
                    col.extend((0..osize.trailing_zeros()).map(|i| ((v >> i) & 1) as u8));
                }
                columns.push(col);
            }
        }
        let bits = (0..row_labels.len())
            .map(|r| columns.iter().map(|c| c[r]).collect())
            .collect();
        BitMatrix {
            row_labels,
            row_groups,
            col_labels,
            col_groups,
            bits,
        }
    }

    /// Text: a header line with the input dim names over their column
    /// groups, a line with the bit indices, then one line per output bit
    /// (`dim0[0]  0 1 ...`). Groups are separated by two spaces.
    pub fn to_text(&self) -> String {
        let label_w = self.row_labels.iter().map(|l| l.len()).max().unwrap_or(0);
        // (name, first column, bit count, printed width) of non-empty groups.
        let mut groups: Vec<(&str, usize, usize, usize)> = Vec::new();
        let mut start = 0usize;
        for (name, n) in &self.col_groups {
            let n = *n as usize;
            if n > 0 {
                groups.push((name.as_str(), start, n, name.len().max(2 * n - 1)));
            }
            start += n;
        }
        let mut head = " ".repeat(label_w);
        let mut idx = " ".repeat(label_w);
        for &(name, _, n, w) in &groups {
            head.push_str(&format!("  {name:<w$}"));
            let s: Vec<String> = (0..n).map(|b| (b % 10).to_string()).collect();
            idx.push_str(&format!("  {:<w$}", s.join(" ")));
        }
        let mut out = format!("{}\n{}\n", head.trim_end(), idx.trim_end());
        for (r, label) in self.row_labels.iter().enumerate() {
            let mut line = format!("{label:<label_w$}");
            for &(_, start, n, w) in &groups {
                let s: Vec<String> = (0..n)
                    .map(|k| self.bits[r][start + k].to_string())
                    .collect();
                line.push_str(&format!("  {:<w$}", s.join(" ")));
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

/// [`BitMatrix::of`] as text ([`BitMatrix::to_text`]).
pub fn matrix_text(ll: &LinearLayout) -> String {
    BitMatrix::of(ll).to_text()
}
