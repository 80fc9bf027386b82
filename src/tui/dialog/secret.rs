//! The masked input of a `secret` Binding (HCP.md §8.5 step 4): a connect
//! waiting in its worker asks for the secret, and the prompt answers it.
//! The typed text never leaves this module but to the connect: the screen
//! draws only its length, and its `Debug` shows the length too (§14.3).

use crate::tui::action::SecretRequest;
use crate::tui::config::Config;
use crate::tui::dialog::lines::wrap;
use ratatui::text::{Line, Span};
use tokio::sync::oneshot;

/// The masked input of a `secret` Binding. The typed text is private: the
/// screen only ever sees its length, and it leaves this struct when sent.
/// Its `Debug` shows the length too, never the text (§14.3).
pub struct SecretPrompt {
    pub pack_id: String,
    pub prompt: String,
    pub name: String,
    input: String,
    reply: Option<oneshot::Sender<Option<String>>>,
}

impl SecretPrompt {
    /// How many characters were typed (shown as bullets).
    pub fn typed(&self) -> usize {
        self.input.chars().count()
    }

    /// The prompt for `request`, nothing typed yet.
    pub fn new(request: SecretRequest) -> SecretPrompt {
        SecretPrompt {
            pack_id: request.pack_id,
            prompt: request.prompt,
            name: request.name,
            input: String::with_capacity(128),
            reply: Some(request.reply),
        }
    }

    /// A character typed.
    pub fn push(&mut self, c: char) {
        self.input.push(c);
    }

    /// `Backspace`.
    pub fn pop(&mut self) {
        self.input.pop();
    }

    /// `Ctrl-U`.
    pub fn clear(&mut self) {
        self.input.clear();
    }

    /// `Enter`: the typed secret goes to the waiting connect, and leaves
    /// this prompt.
    pub fn send(&mut self) {
        let secret = std::mem::take(&mut self.input);
        self.answer(Some(secret));
    }

    fn answer(&mut self, answer: Option<String>) {
        if let Some(reply) = self.reply.take() {
            let _ = reply.send(answer);
        }
    }

    /// `Esc`, or the prompt closed: the connect ends, recording nothing.
    pub fn cancel(&mut self) {
        self.input.clear();
        self.answer(None);
    }
}

impl std::fmt::Debug for SecretPrompt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretPrompt")
            .field("pack_id", &self.pack_id)
            .field("prompt", &self.prompt)
            .field("name", &self.name)
            .field("typed", &self.typed())
            .field("waiting", &self.reply.is_some())
            .finish()
    }
}

impl Drop for SecretPrompt {
    fn drop(&mut self) {
        self.cancel();
    }
}

/// The prompt's key bar (its keys are every text input's).
pub const BAR: &[(&str, &str)] = &[
    ("type", "the secret"),
    ("Enter", "connect"),
    ("Ctrl-U", "clear"),
    ("Esc", "cancel"),
];

// Drawing.

pub fn lines<'a>(config: &Config, prompt: &SecretPrompt, width: usize) -> Vec<Line<'a>> {
    let theme = config.theme;
    let mut lines = wrap(&prompt.prompt, width, theme.bold());
    lines.extend(wrap(
        &format!(
            "Stored in the store's secrets/ with mode 0600 and passed to commands as {}; never shown.",
            prompt.name
        ),
        width,
        theme.dim(),
    ));
    lines.push(Line::raw(""));
    // Only the length of the input is ever drawn, never its characters.
    let masked = "•".repeat(prompt.typed().min(width.saturating_sub(4)));
    lines.push(Line::from(vec![
        Span::styled("> ", theme.key()),
        Span::styled(format!("{masked}▏"), theme.bold()),
    ]));
    lines.push(Line::raw(""));
    lines.push(Line::from(vec![
        Span::styled("Enter", theme.key()),
        Span::raw(" connect   "),
        Span::styled("Esc", theme.key()),
        Span::raw(" cancel"),
    ]));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_typed_secret_never_shows_in_debug_output() {
        let prompt = SecretPrompt {
            pack_id: "acme.notes".into(),
            prompt: "API token".into(),
            name: "token".into(),
            input: "hunter2-s3cret".into(),
            reply: None,
        };
        let shown = format!("{:?}", Some(prompt));
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(shown.contains("typed: 14"), "{shown}");
    }
}
