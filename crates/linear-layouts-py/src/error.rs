//! `LayoutError` and the guard every binding runs under: a Rust `Err`
//! becomes `LayoutError` carrying its message, and a panic becomes
//! `LayoutError("internal error: ...")`, so no input brings the interpreter
//! down. Every other module of the bindings depends on this one.

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(
    linear_layouts,
    LayoutError,
    PyValueError,
    "A rejected layout operation or input; the message names the problem and the value."
);

pub(crate) fn err(e: impl std::fmt::Display) -> PyErr {
    LayoutError::new_err(e.to_string())
}

thread_local! {
    /// Set while `guard` runs: the panic hook stays silent (the panic becomes
    /// a `LayoutError` carrying its message).
    static IN_GUARD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Installs (once) a panic hook that is silent inside `guard` and otherwise
/// defers to the previous hook.
pub(crate) fn install_quiet_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !IN_GUARD.with(|g| g.get()) {
                previous(info);
            }
        }));
    });
}

/// Runs `f`, turning an `Err` into `LayoutError` and a panic into
/// `LayoutError("internal error: ...")`.
pub(crate) fn guard<T>(f: impl FnOnce() -> Result<T, String>) -> PyResult<T> {
    let was = IN_GUARD.with(|g| g.replace(true));
    let r = catch_unwind(AssertUnwindSafe(f));
    IN_GUARD.with(|g| g.set(was));
    match r {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(m)) => Err(LayoutError::new_err(m)),
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(LayoutError::new_err(format!("internal error: {msg}")))
        }
    }
}

/// Runs a fallible Rust call under `guard`, with its error's message.
pub(crate) fn run<T, E: std::fmt::Display>(f: impl FnOnce() -> Result<T, E>) -> PyResult<T> {
    guard(|| f().map_err(|e| e.to_string()))
}
