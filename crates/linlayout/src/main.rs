//! `linlayout`: the linear-layouts command-line tool. Front end only: it
//! translates between people and the library crates.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod cmd_codegen;
mod cmd_explain;
mod cmd_show;
mod cmd_to_linear;
mod input;

/// Linear layouts: GPU tensor layouts as linear maps over GF(2).
#[derive(Parser)]
#[command(name = "linlayout", version, about, long_about = None)]
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
    Show(cmd_show::ShowArgs),
    /// Print a layout as a 0/1 matrix with labelled rows and columns.
    Matrix(cmd_show::MatrixArgs),
    /// Plan a conversion between two distributed layouts.
    Convert(cmd_codegen::ConvertArgs),
    /// Find the optimal swizzled shared layout for a conversion.
    Swizzle(cmd_codegen::SwizzleArgs),
    /// Count bank conflicts (Triton's meaning) of a distributed layout accessing a shared layout.
    BankConflicts(cmd_codegen::BankConflictsArgs),
    /// Explain an operation step by step (invert-and-compose, free-variables, swizzle).
    Explain(cmd_explain::Args),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            let code = match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => 0,
                _ => 2,
            };
            let _ = e.print();
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
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            let line = msg.lines().next().unwrap_or("error").to_string();
            eprintln!("linlayout: {line}");
            ExitCode::from(2)
        }
    }
}
