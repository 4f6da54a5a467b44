//! Shape checks shared by every layout family: a leaf module (it knows only
//! [`crate::error`]), so the families and [`crate::encoding`] can all call it
//! without importing one another.

use crate::error::{HwError, Result};

/// Checks that a tensor shape (dim0 first) can carry a linear layout: rank
/// from 1 to [`linear_layout::MAX_DIMS`], every dim a power of two ≥ 1, and
/// at most 2^40 elements in all (so that every coordinate bit fits the
/// algebra's 64-bit columns with room to spare).
///
/// ```
/// use hw_layouts::check_shape;
/// assert!(check_shape(&[16, 64]).is_ok());
/// assert!(check_shape(&[12]).is_err());
/// assert!(check_shape(&[]).is_err());
/// // Rank 65 (every dim 1): refused before the per-dim work, which is
/// // quadratic in the rank (rank 20 000 took 3 s).
/// assert!(check_shape(&[1; 64]).is_ok());
/// let e = check_shape(&[1; 65]).unwrap_err();
/// assert!(e.to_string().ends_with("rank 65 is more than 64"), "{e}");
/// ```
pub fn check_shape(shape: &[u64]) -> Result<()> {
    if shape.is_empty() {
        return Err(HwError::InvalidShape {
            shape: vec![],
            message: "rank 0".into(),
        });
    }
    if shape.len() > linear_layout::MAX_DIMS {
        return Err(HwError::InvalidShape {
            shape: shape.to_vec(),
            message: format!(
                "rank {} is more than {}",
                shape.len(),
                linear_layout::MAX_DIMS
            ),
        });
    }
    for &s in shape {
        if s == 0 || !s.is_power_of_two() {
            return Err(HwError::InvalidShape {
                shape: shape.to_vec(),
                message: format!("dimension {s} is not a power of two"),
            });
        }
    }
    if shape.iter().map(|s| s.trailing_zeros()).sum::<u32>() > 40 {
        return Err(HwError::InvalidShape {
            shape: shape.to_vec(),
            message: "more than 2^40 elements".into(),
        });
    }
    Ok(())
}
