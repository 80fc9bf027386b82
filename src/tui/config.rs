//! The settings fixed for one run of the TUI: the principal and the flags
//! it was started with (repeated in every equivalent `hcpx` command it
//! shows), the theme, and what the principal may do.

use crate::fixline::shell_quote;
use crate::tui::theme::Theme;

/// Settings fixed for one run.
#[derive(Debug, Clone)]
pub struct Config {
    /// The principal the engine acts for (§9.1).
    pub principal: String,
    /// `--principal` as given, repeated in the equivalent commands.
    pub principal_arg: Option<String>,
    /// `--catalog` folders as given, repeated where a command needs them.
    pub catalog_args: Vec<String>,
    pub theme: Theme,
    /// Show durations (off in snapshot tests, where they would vary).
    pub show_timings: bool,
    /// What the principal may do beyond availability (grant, install),
    /// read with each snapshot: a fix it would be refused is not offered.
    pub powers: crate::tui::session::Powers,
    /// The principal was just switched: the next snapshot says what it may
    /// do (§9.3).
    pub announce_powers: bool,
}

impl Config {
    pub fn new(principal: impl Into<String>) -> Config {
        Config {
            principal: principal.into(),
            principal_arg: None,
            catalog_args: Vec::new(),
            theme: Theme::COLOR,
            show_timings: true,
            powers: Default::default(),
            announce_powers: false,
        }
    }

    /// `hcpx ARGS`, with `--principal` when one was given and the catalogs
    /// when the command looks packs up by id in them.
    pub fn hcpx(&self, args: &[String], catalogs: bool) -> String {
        let mut line = String::from("hcpx");
        for arg in args {
            line.push(' ');
            line.push_str(&shell_quote(arg));
        }
        if catalogs {
            for dir in &self.catalog_args {
                line.push_str(" --catalog ");
                line.push_str(&shell_quote(dir));
            }
        }
        if let Some(p) = &self.principal_arg {
            line.push_str(" --principal ");
            line.push_str(&shell_quote(p));
        }
        line
    }
}
