//! Fixes as command lines (HCP.md §10.1 `hint`, §9.1, §11.6): the engine
//! returns a [`Fix`] as data; this renders it as a complete `hcpx` command
//! line a user can paste, repeating the `--principal NAME` and
//! `--catalog DIR` flags the user gave where the command needs them. The
//! TUI shows the same line (`tui::fix`): both render it with
//! [`crate::fixline`], which shell-quotes every word.

use crate::engine::error::Error;
pub use crate::fixline::{FixFlags, command_line, hint_text};

/// What an error shows as its `hint`: its fix as a command line, else its
/// hint in words (each command in them a command line).
pub fn hint(err: &Error, flags: &FixFlags) -> Option<String> {
    match &err.context.fix {
        Some(fix) => Some(command_line(fix, flags)),
        None => err.context.hint.as_ref().map(|h| hint_text(h, flags)),
    }
}

/// `err` with its fix rendered into `hint`, for a `--json` error object.
pub fn with_hint(err: &Error, flags: &FixFlags) -> Error {
    let mut err = err.clone();
    err.context.hint = hint(&err, flags).map(Into::into);
    err
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::error::Fix;

    #[test]
    fn an_error_shows_its_fix_as_its_hint() {
        let err = Error::usage("no").fix(Fix::Activate {
            pack: "acme.x".into(),
        });
        assert_eq!(
            with_hint(&err, &FixFlags::default())
                .context
                .hint
                .and_then(|h| h.words())
                .as_deref(),
            Some("hcpx activate acme.x")
        );
        let words = Error::usage("no").hint("do this");
        assert_eq!(
            hint(&words, &FixFlags::default()).as_deref(),
            Some("do this")
        );
    }
}
