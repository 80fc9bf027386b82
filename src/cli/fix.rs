//! Fixes as command lines (HCP.md §10.1 `hint`, §9.1, §11.6): the engine
//! returns a [`Fix`] as data; this renders it as a complete `hcpx` command
//! line a user can paste, repeating the `--principal NAME` and
//! `--catalog DIR` flags the user gave where the command needs them. The
//! TUI shows the same line (`tui::fix`): both render it with
//! [`crate::fixline`], which shell-quotes every word.

pub use crate::fixline::{FixFlags, command_line, hint, hint_text, with_hint};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::error::{Error, Fix};

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
