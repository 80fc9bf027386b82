//! The words of each outcome (HCP.md §10.1: text for people, the
//! `--json` document for programs): one renderer per subcommand, written into
//! any [`std::fmt::Write`] with the styles of [`crate::command::style`].
//! Pack-derived text goes through `terminal_safe` (§14.5), and through
//! `one_line` in a one-line field (an id, a path, a table cell, a status
//! line), so a source cannot forge a row.

pub mod activate;
pub mod availability;
pub mod catalog;
pub mod connect;
pub mod context;
pub mod doctor;
pub mod error;
pub mod grant;
pub mod harness;
pub mod install;
pub mod lint;
pub mod list;
pub mod outdated;
pub mod project;
pub mod search;
pub mod show;
pub mod sync;
pub mod uninstall;
pub mod upgrade;
pub mod verify;
pub mod why;

/// `1 pack`, `N packs`: every count of packs the words say.
pub fn packs(n: usize) -> String {
    if n == 1 {
        "1 pack".into()
    } else {
        format!("{n} packs")
    }
}

/// `yes` or `no`.
pub fn yes_no(flag: bool) -> &'static str {
    if flag { "yes" } else { "no" }
}
