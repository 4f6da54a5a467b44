//! HTML pages.
