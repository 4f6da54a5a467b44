//! `linlayout convert`, `swizzle` and `bank-conflicts`.

/// Arguments of `convert`.
#[derive(clap::Args)]
pub struct ConvertArgs {
    /// Tensor shape, e.g. 128x128.
    #[arg(long)]
    pub shape: String,
    /// Source layout.
    pub src: String,
    /// Destination layout.
    pub dst: String,
}

/// Arguments of `swizzle`.
#[derive(clap::Args)]
pub struct SwizzleArgs {
    /// Tensor shape, e.g. 128x128.
    #[arg(long)]
    pub shape: String,
    /// Source layout.
    pub src: String,
    /// Destination layout.
    pub dst: String,
}

/// Arguments of `bank-conflicts`.
#[derive(clap::Args)]
pub struct BankConflictsArgs {
    /// Tensor shape, e.g. 64x64.
    #[arg(long)]
    pub shape: String,
    /// Element bit width.
    #[arg(long)]
    pub bitwidth: u32,
    /// Distributed layout.
    pub distributed: String,
    /// Shared layout.
    pub shared: String,
}

/// Runs `convert`.
pub fn run_convert(_a: ConvertArgs) -> Result<(), String> {
    Err("convert is not implemented yet".into())
}

/// Runs `swizzle`.
pub fn run_swizzle(_a: SwizzleArgs) -> Result<(), String> {
    Err("swizzle is not implemented yet".into())
}

/// Runs `bank-conflicts`.
pub fn run_bank_conflicts(_a: BankConflictsArgs) -> Result<(), String> {
    Err("bank-conflicts is not implemented yet".into())
}
