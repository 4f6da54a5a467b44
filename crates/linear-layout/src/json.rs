//! JSON in the schema of the Triton oracle: `{"register": [[..]], "lane":
//! [[..]], ...}` (one list of bases per input dim, in order, each basis one
//! component per output dim) plus `"out_dims": [["dim0", 16], ...]`, or
//! instead of `"out_dims"` the `"shape": [16, 16]` that the CLI's
//! `to-linear --json` writes (out dims `dim0..` of those sizes).

use crate::error::{LayoutError, Result};
use crate::{DimName, LinearLayout};
use serde_json::{Map, Value};

impl LinearLayout {
    /// The layout as a JSON object: input dims in order, each a list of
    /// bases, then `"out_dims"`: a list of `[name, size]`.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        for (d, bs) in self.all_bases() {
            m.insert(d.to_string(), serde_json::json!(bs));
        }
        let outs: Vec<Value> = self
            .out_dims()
            .into_iter()
            .map(|(n, s)| serde_json::json!([n.as_str(), s]))
            .collect();
        m.insert("out_dims".into(), Value::Array(outs));
        Value::Object(m)
    }

    /// The bases object alone (the oracle's `linear` field).
    pub fn bases_json(&self) -> Value {
        let mut m = Map::new();
        for (d, bs) in self.all_bases() {
            m.insert(d.to_string(), serde_json::json!(bs));
        }
        Value::Object(m)
    }

    /// Reads [`Self::to_json`]'s form. Without `"out_dims"`, the out dims
    /// are `dim0..` with sizes from `shape` if given, else from the object's
    /// `"shape"` key, else inferred (and then the layout must be surjective,
    /// as Triton's inferring ctor). A `shape` argument that differs from the
    /// object's `"shape"` is an error naming both.
    ///
    /// ```
    /// use linear_layout::LinearLayout;
    /// let v = serde_json::json!({"register": [[0, 1]], "lane": [[1, 0]], "shape": [2, 2]});
    /// let l = LinearLayout::from_json(&v, None).unwrap();
    /// assert_eq!(l.total_out_dim_size(), 4);
    /// assert!(LinearLayout::from_json(&v, Some(&[2, 4])).is_err());
    /// ```
    pub fn from_json(v: &Value, shape: Option<&[u64]>) -> Result<LinearLayout> {
        let obj = v
            .as_object()
            .ok_or_else(|| LayoutError::Json("expected an object of bases".into()))?;
        let recorded = match obj.get("shape") {
            None => None,
            Some(s) => Some(
                s.as_array()
                    .and_then(|a| a.iter().map(Value::as_u64).collect::<Option<Vec<u64>>>())
                    .ok_or_else(|| {
                        LayoutError::Json(format!(
                            "\"shape\" must be a list of non-negative integers, got {s}"
                        ))
                    })?,
            ),
        };
        let shape = match (shape, recorded.as_deref()) {
            (Some(a), Some(b)) if a != b => {
                return Err(LayoutError::Json(format!(
                    "shape {a:?} differs from the layout's recorded \"shape\" {b:?}"
                )))
            }
            (Some(a), _) => Some(a),
            (None, b) => b,
        };
        let mut bases = Vec::new();
        let mut out_dims: Option<Vec<(DimName, u64)>> = None;
        for (k, val) in obj {
            if k == "shape" {
                continue;
            }
            if k == "out_dims" {
                let arr = val.as_array().ok_or_else(|| {
                    LayoutError::Json("out_dims must be a list of [name, size]".into())
                })?;
                let mut outs = Vec::new();
                for e in arr {
                    match e.as_array().map(|a| a.as_slice()) {
                        Some([Value::String(n), s]) => {
                            let s = s.as_u64().ok_or_else(|| {
                                LayoutError::Json(format!(
                                    "size of out dim '{n}' must be a non-negative integer, got {s}"
                                ))
                            })?;
                            outs.push((DimName::new(n), s));
                        }
                        _ => {
                            return Err(LayoutError::Json(format!(
                                "out_dims entry {e} is not [name, size]"
                            )))
                        }
                    }
                }
                out_dims = Some(outs);
                continue;
            }
            let d = DimName::new(k);
            let list = val
                .as_array()
                .ok_or_else(|| LayoutError::Json(format!("bases of '{k}' must be a list")))?;
            let mut bs = Vec::with_capacity(list.len());
            for (i, b) in list.iter().enumerate() {
                let comps = b.as_array().ok_or_else(|| {
                    LayoutError::Json(format!("basis {i} of '{k}' must be a list of integers"))
                })?;
                let mut basis = Vec::with_capacity(comps.len());
                for c in comps {
                    match c.as_i64() {
                        Some(x) if x < 0 => {
                            return Err(LayoutError::NegativeComponent {
                                in_dim: d,
                                index: i,
                                value: x,
                            })
                        }
                        Some(x) => basis.push(x as u64),
                        None => {
                            return Err(LayoutError::Json(format!(
                                "basis {i} of '{k}': {c} is not an integer"
                            )))
                        }
                    }
                }
                bs.push(basis);
            }
            bases.push((d, bs));
        }
        if let Some(outs) = out_dims {
            return LinearLayout::new(bases, outs, false);
        }
        let rank = match shape {
            Some(s) => s.len(),
            None => bases
                .iter()
                .flat_map(|(_, bs)| bs.first())
                .map(|b| b.len())
                .next()
                .unwrap_or(0),
        };
        match shape {
            Some(s) => LinearLayout::new(
                bases,
                s.iter()
                    .enumerate()
                    .map(|(i, &n)| (DimName::dim(i), n))
                    .collect(),
                false,
            ),
            None => LinearLayout::with_inferred_out_sizes(bases, DimName::standard_out_dims(rank)),
        }
    }
}

impl serde::Serialize for LinearLayout {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

impl<'de> serde::Deserialize<'de> for LinearLayout {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        LinearLayout::from_json(&v, None).map_err(serde::de::Error::custom)
    }
}
