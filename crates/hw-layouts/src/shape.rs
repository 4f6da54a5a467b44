//! Shape checks shared by every layout family: a leaf module (it knows only
//! [`crate::error`]), so the families and [`crate::encoding`] can all call it
//! without importing one another.

use crate::error::{HwError, Result};

/// Checks that a tensor shape (dim0 first) can carry a linear layout: rank
/// ≥ 1, every dim a power of two ≥ 1, and at most 2^40 elements in all (so
/// that every coordinate bit fits the algebra's 64-bit columns with room to
/// spare).
///
/// ```
/// use hw_layouts::check_shape;
/// assert!(check_shape(&[16, 64]).is_ok());
/// assert!(check_shape(&[12]).is_err());
/// assert!(check_shape(&[]).is_err());
/// ```
pub fn check_shape(shape: &[u64]) -> Result<()> {
    if shape.is_empty() {
        return Err(HwError::InvalidShape {
            shape: vec![],
            message: "rank 0".into(),
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
