//! Errors of the code generator and of the simulator.

use linear_layout::{DimName, LayoutError};
use thiserror::Error;

/// Everything that can go wrong while planning, analysing or simulating.
#[derive(Debug, Error)]
pub enum CodegenError {
    /// An error of the layout algebra (non-invertible map, size mismatch, ...).
    #[error("layout algebra: {0}")]
    Layout(#[from] LayoutError),
    /// The input does not have the form the operation needs.
    #[error("invalid input: {0}")]
    Invalid(String),
    /// The bit width is not one of the supported element widths.
    #[error("unsupported bit width {0} (expected 8, 16, 32 or 64)")]
    BadBitwidth(u32),
    /// The conversion moves data between CTAs (the `block` dim is not trivial).
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// The simulator found a destination register holding the wrong element.
    #[error(
        "wrong element: block {block} warp {warp} lane {lane} register {register} holds \
         {found:?}, the destination layout wants {expected:?}"
    )]
    WrongElement {
        /// CTA.
        block: u64,
        /// Warp.
        warp: u64,
        /// Lane.
        lane: u64,
        /// Destination register.
        register: u64,
        /// The tensor coordinate the destination layout places there.
        expected: Vec<u64>,
        /// What the register holds after the plan ran (`None`: never written).
        found: Option<Vec<u64>>,
    },
    /// A plan instruction reads or writes outside the plan's scratch buffer.
    #[error("out of bounds: {what} at element offset {offset} (scratch holds {size} elements)")]
    OutOfBounds {
        /// Which instruction.
        what: String,
        /// The offending element offset.
        offset: u64,
        /// Scratch size in elements.
        size: u64,
    },
    /// A plan instruction refers to a register the thread does not have.
    #[error("bad register: {what} uses register {register}, the thread has {count}")]
    BadRegister {
        /// Which instruction.
        what: String,
        /// The register index.
        register: u64,
        /// Registers per thread.
        count: u64,
    },
    /// A vector access is not aligned to its own width.
    #[error("misaligned access: {what} at byte address {byte_address} with width {bytes} bytes")]
    Misaligned {
        /// Which instruction.
        what: String,
        /// Byte address.
        byte_address: u64,
        /// Access width in bytes.
        bytes: u64,
    },
    /// Two threads write different elements to the same shared-memory slot in
    /// one round (a race).
    #[error("race: offset {offset} written with {first:?} and {second:?} in round {round}")]
    Race {
        /// Element offset.
        offset: u64,
        /// First element written.
        first: Vec<u64>,
        /// Second element written.
        second: Vec<u64>,
        /// Round.
        round: usize,
    },
    /// A load read a slot no store of this round wrote.
    #[error("uninitialised read: round {round} reads offset {offset} that no store wrote")]
    Uninitialised {
        /// Round.
        round: usize,
        /// Element offset.
        offset: u64,
    },
    /// A warp-private plan ([`crate::warp_private`]) touches a scratch
    /// element that another warp of its CTA wrote in the same round.
    #[error(
        "not warp-private: round {round}, warp {warp} touches offset {offset}, which warp {writer} wrote"
    )]
    SharedAcrossWarps {
        /// Round.
        round: usize,
        /// Element offset.
        offset: u64,
        /// The warp that wrote it.
        writer: u64,
        /// The warp touching it.
        warp: u64,
    },
    /// Layout dims missing or wrong.
    #[error("layout is missing in dim '{0}'")]
    MissingDim(DimName),
}

/// Result with [`CodegenError`].
pub type Result<T, E = CodegenError> = std::result::Result<T, E>;

/// Checks that register `register` is below `count` (the registers per
/// thread), else [`CodegenError::BadRegister`] naming `what` accessed it.
pub(crate) fn check_register(what: &str, register: u64, count: u64) -> Result<()> {
    if register >= count {
        return Err(CodegenError::BadRegister {
            what: what.into(),
            register,
            count,
        });
    }
    Ok(())
}

/// Checks that `bitwidth` is 8, 16, 32 or 64.
pub fn check_bitwidth(bitwidth: u32) -> Result<()> {
    match bitwidth {
        8 | 16 | 32 | 64 => Ok(()),
        b => Err(CodegenError::BadBitwidth(b)),
    }
}
