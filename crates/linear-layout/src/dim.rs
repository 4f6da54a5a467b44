//! Interned dimension names.
//!
//! A [`DimName`] is a `Copy` handle to a string interned for the life of the
//! process, so comparing and hashing names is comparing integers. Triton's
//! names (`register`, `lane`, `warp`, `block`, `offset`, `row`, `col`,
//! `dim0`..`dim15`, ...) are pre-interned with fixed handles and available as
//! associated constants.

use std::collections::HashMap;
use std::fmt;
use std::sync::{OnceLock, RwLock};

/// An interned dimension name (an input dim such as `register` or an output
/// dim such as `dim0`). Equality and hashing are by identity of the interned
/// string, i.e. by the string's value.
///
/// ```
/// use linear_layout::DimName;
/// assert_eq!(DimName::new("lane"), DimName::LANE);
/// assert_eq!(DimName::dim(1).as_str(), "dim1");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DimName(u32);

const PREINTERNED: &[&str] = &[
    "register",
    "lane",
    "warp",
    "block",
    "offset",
    "row",
    "col",
    "partition",
    "dim0",
    "dim1",
    "dim2",
    "dim3",
    "dim4",
    "dim5",
    "dim6",
    "dim7",
    "vector",
    "bank",
    "segment",
    "reps",
    "iteration",
    "message",
    "addr",
    "dim8",
    "dim9",
    "dim10",
    "dim11",
    "dim12",
    "dim13",
    "dim14",
    "dim15",
];

/// The handle of `dim8` in [`PREINTERNED`] (`dim8..dim15` follow it).
const DIM8: u32 = 23;

struct Interner {
    names: Vec<&'static str>,
    ids: HashMap<&'static str, u32>,
}

fn interner() -> &'static RwLock<Interner> {
    static INTERNER: OnceLock<RwLock<Interner>> = OnceLock::new();
    INTERNER.get_or_init(|| {
        let names: Vec<&'static str> = PREINTERNED.to_vec();
        let ids = names
            .iter()
            .enumerate()
            .map(|(i, n)| (*n, i as u32))
            .collect();
        RwLock::new(Interner { names, ids })
    })
}

impl DimName {
    /// A handle no interned name has (the interner would need 2^32 - 1
    /// names first, tens of GiB of leaked strings): marks unused slots of
    /// fixed-size dim arrays, so that no input name equals it.
    pub(crate) const UNUSED: DimName = DimName(u32::MAX);
    /// `register`: the per-thread element index of a distributed layout.
    pub const REGISTER: DimName = DimName(0);
    /// `lane`: the thread index within a warp.
    pub const LANE: DimName = DimName(1);
    /// `warp`: the warp index within a CTA.
    pub const WARP: DimName = DimName(2);
    /// `block`: the CTA index within a cluster (CGA).
    pub const BLOCK: DimName = DimName(3);
    /// `offset`: the element offset inside one CTA's shared-memory allocation.
    pub const OFFSET: DimName = DimName(4);
    /// `row`: the tensor-memory lane (row).
    pub const ROW: DimName = DimName(5);
    /// `col`: the tensor-memory column.
    pub const COL: DimName = DimName(6);
    /// `partition`: the partition of a partitioned shared layout.
    pub const PARTITION: DimName = DimName(7);

    /// Interns `name` and returns its handle.
    pub fn new(name: &str) -> DimName {
        if let Some(&id) = interner().read().expect("interner poisoned").ids.get(name) {
            return DimName(id);
        }
        let mut w = interner().write().expect("interner poisoned");
        if let Some(&id) = w.ids.get(name) {
            return DimName(id);
        }
        let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
        let id = w.names.len() as u32;
        w.names.push(leaked);
        w.ids.insert(leaked, id);
        DimName(id)
    }

    /// The standard output dim `dim{i}` (tensor dimension `i`, `dim0` first).
    pub fn dim(i: usize) -> DimName {
        if i < 8 {
            DimName(8 + i as u32)
        } else if i < 16 {
            // Rank-11 tiles (Triton's sort and top-k) name dims past 7 on
            // every shape op: no interner lookup for them.
            DimName(DIM8 + (i - 8) as u32)
        } else {
            DimName::new(&format!("dim{i}"))
        }
    }

    /// `dim0..dim{rank-1}`.
    pub fn standard_out_dims(rank: usize) -> Vec<DimName> {
        (0..rank).map(DimName::dim).collect()
    }

    /// The interned string.
    pub fn as_str(self) -> &'static str {
        interner().read().expect("interner poisoned").names[self.0 as usize]
    }
}

impl fmt::Debug for DimName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

impl fmt::Display for DimName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<&str> for DimName {
    fn from(s: &str) -> Self {
        DimName::new(s)
    }
}

impl serde::Serialize for DimName {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for DimName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Ok(DimName::new(&s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preinterned_names_round_trip() {
        for (i, n) in PREINTERNED.iter().enumerate() {
            assert_eq!(DimName::new(n), DimName(i as u32));
            assert_eq!(DimName(i as u32).as_str(), *n);
        }
        for i in 0..20 {
            assert_eq!(DimName::dim(i).as_str(), format!("dim{i}"));
            assert_eq!(DimName::new(&format!("dim{i}")), DimName::dim(i));
        }
    }

    #[test]
    fn new_names_are_stable() {
        let a = DimName::new("my_custom_dim");
        let b = DimName::new("my_custom_dim");
        assert_eq!(a, b);
        assert_ne!(a, DimName::LANE);
        assert_eq!(a.as_str(), "my_custom_dim");
    }
}
