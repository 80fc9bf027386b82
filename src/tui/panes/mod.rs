//! One file per pane of the main screen, `frame` (what every pane is drawn
//! in) and `dialog` (the frame of the overlay open; each overlay draws its
//! lines in its own module of `tui::dialog`). Each `draw` only reads the
//! [`App`].
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
