//! One file per pane and the overlays. Each `draw` only reads the [`App`].
//!
//! [`App`]: crate::tui::app::App

pub mod browser;
pub mod details;
pub mod dialog;
pub mod frame;
pub mod lint;
pub mod log;
pub mod matrix;
pub mod output;
