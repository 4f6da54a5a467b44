//! `linlayout`: the linear-layouts command-line tool. Front end only: it
//! translates between people and the library crates.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// mimalloc: the engine allocates many small layouts (the workspace's
/// `Cargo.toml` has the measurement).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod cmd_codegen;
mod cmd_cuda;
mod cmd_cute;
mod cmd_engine;
mod cmd_explain;
mod cmd_partial;
mod cmd_show;
mod cmd_to_linear;
mod common;
mod error;
mod input;
mod output;

/// Linear layouts: GPU tensor layouts as linear maps over GF(2).
#[derive(Parser)]
#[command(name = "linlayout", version, about, long_about = None, after_help = output::EXIT_STATUS_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the linear layout of a Triton layout attribute for a shape.
    ///
    /// Example: linlayout to-linear --shape 128x64 '#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>'
    ToLinear(cmd_to_linear::Args),
    /// Show a layout: tensor view, hardware view (--hw), or a picture (--svg/--html).
    ///
    /// Example: linlayout show --shape 16x16 --svg a.svg '#ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [4, 8], warpsPerCTA = [2, 1], order = [1, 0]}>'
    Show(cmd_show::ShowArgs),
    /// Print a layout as a 0/1 matrix with labelled rows and columns.
    ///
    /// Example: linlayout matrix --shape 16x16 '#ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [4, 8], warpsPerCTA = [2, 1], order = [1, 0]}>'
    Matrix(cmd_show::MatrixArgs),
    /// Plan a conversion between two distributed layouts.
    ///
    /// Example: linlayout convert --shape 128x128 --dtype f16 '#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>' '#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>'
    Convert(cmd_codegen::ConvertArgs),
    /// Find the optimal swizzled shared layout for a conversion.
    ///
    /// Example: linlayout swizzle --shape 64x64 --bitwidth 16 '#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>' '#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>'
    Swizzle(cmd_codegen::SwizzleArgs),
    /// Count bank conflicts (Triton's meaning) of a distributed layout accessing a shared layout.
    ///
    /// Example: linlayout bank-conflicts --shape 64x64 --bitwidth 16 '#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>' '#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>'
    BankConflicts(cmd_codegen::BankConflictsArgs),
    /// Explain an operation step by step (invert-and-compose, free-variables, swizzle).
    ///
    /// Example: linlayout explain invert-and-compose --shape 16x16 '#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>' '#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [0, 1]}>'
    Explain(cmd_explain::Args),
    /// CUDA for a conversion: a device function (default), a load-convert-store kernel, or the benchmark program.
    ///
    /// Example: linlayout cuda --shape 64x64 --dtype f16 --device-function '#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>' '#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>'
    Cuda(cmd_cuda::Args),
    /// Read CuTe text: a shared layout (#ttg.shared_linear), or with --tv --shape a thread-value layout (#ttg.linear).
    ///
    /// Example: linlayout from-cute 'Swizzle<3,3,3> o (8,64):(64,1)'
    FromCute(cmd_cute::FromArgs),
    /// Print a Triton layout as CuTe text (Shape:Stride, maybe behind a Swizzle; TV layouts for distributed ones).
    ///
    /// Example: linlayout to-cute --shape 16x8 '#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>'
    ToCute(cmd_cute::ToArgs),
    /// Assign layouts to a whole kernel (TTIR) and place the conversions by cost.
    ///
    /// Example: linlayout engine kernel.ttir --target sm90 --num-warps 4 --explain
    Engine(cmd_engine::Args),
}

fn main() -> ExitCode {
    // Output piped into `head` closes early: stop quietly (as `cat` does)
    // instead of reporting println!'s broken-pipe panic.
    std::panic::set_hook(Box::new(|info| {
        let p = info.payload();
        let msg = p
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| p.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if msg.contains("Broken pipe") {
            std::process::exit(0);
        }
        if let Some(why) = output::write_failure(msg) {
            eprintln!("linlayout: {why}");
            std::process::exit(output::EXIT_OUTPUT.into());
        }
        eprintln!("linlayout: internal error: {msg}");
        std::process::exit(output::EXIT_INTERNAL.into());
    }));
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            let code = match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => 0,
                _ => output::EXIT_INPUT,
            };
            // Help (also when no subcommand is given) prints as clap
            // formats it; a usage error is one line.
            if code == 0 || e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                let _ = e.print();
            } else {
                eprintln!("linlayout: {}", output::usage_error_line(&e));
            }
            return ExitCode::from(code);
        }
    };
    let result = match cli.command {
        Command::ToLinear(a) => cmd_to_linear::run(a),
        Command::Show(a) => cmd_show::run_show(a),
        Command::Matrix(a) => cmd_show::run_matrix(a),
        Command::Convert(a) => cmd_codegen::run_convert(a),
        Command::Swizzle(a) => cmd_codegen::run_swizzle(a),
        Command::BankConflicts(a) => cmd_codegen::run_bank_conflicts(a),
        Command::Explain(a) => cmd_explain::run(a),
        Command::Cuda(a) => cmd_cuda::run(a),
        Command::FromCute(a) => cmd_cute::run_from(a),
        Command::ToCute(a) => cmd_cute::run_to(a),
        Command::Engine(a) => cmd_engine::run(a),
    };
    match result.and_then(|()| output::flush_stdout()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => match output::failure(&e) {
            Some((code, line)) => {
                eprintln!("linlayout: {line}");
                ExitCode::from(code)
            }
            None => ExitCode::SUCCESS,
        },
    }
}
