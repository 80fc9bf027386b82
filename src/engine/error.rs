//! Engine errors and the one place they map to the spec's error codes and
//! exit codes (HCP.md §10.1–§10.3).

use serde::Serialize;

/// The error codes of §10.1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    NotFound,
    NotInstalled,
    NotActivated,
    NotConnected,
    GrantMissing,
    LintFailed,
    Usage,
    BootstrapProtected,
    AdapterUnsupported,
    ProgramNotFound,
    SenseOnly,
    EnvMissing,
    ProbeFailed,
    Timeout,
    StoreCorrupt,
    Io,
    SourceUnavailable,
    Integrity,
    ConfirmationRequired,
    /// A file the command would create is there already (`init`, §15.3).
    AlreadyExists,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::NotFound => "not_found",
            ErrorCode::NotInstalled => "not_installed",
            ErrorCode::NotActivated => "not_activated",
            ErrorCode::NotConnected => "not_connected",
            ErrorCode::GrantMissing => "grant_missing",
            ErrorCode::LintFailed => "lint_failed",
            ErrorCode::Usage => "usage",
            ErrorCode::BootstrapProtected => "bootstrap_protected",
            ErrorCode::AdapterUnsupported => "adapter_unsupported",
            ErrorCode::ProgramNotFound => "program_not_found",
            ErrorCode::SenseOnly => "sense_only",
            ErrorCode::EnvMissing => "env_missing",
            ErrorCode::ProbeFailed => "probe_failed",
            ErrorCode::Timeout => "timeout",
            ErrorCode::StoreCorrupt => "store_corrupt",
            ErrorCode::Io => "io",
            ErrorCode::SourceUnavailable => "source_unavailable",
            ErrorCode::Integrity => "integrity",
            ErrorCode::AlreadyExists => "already_exists",
            ErrorCode::ConfirmationRequired => "confirmation_required",
        }
    }

    /// Exit code of every subcommand but `exec` (§10.2).
    pub fn exit_code(self) -> i32 {
        use ErrorCode::*;
        match self {
            LintFailed | ProbeFailed | Timeout | StoreCorrupt | Io | SourceUnavailable
            | Integrity => 1,
            Usage => 2,
            NotInstalled | NotActivated | NotConnected | BootstrapProtected
            | AdapterUnsupported | ProgramNotFound | SenseOnly | EnvMissing
            | ConfirmationRequired | AlreadyExists => 3,
            GrantMissing => 4,
            NotFound => 5,
        }
    }

    /// Exit code of `exec` when the command did not run (§10.3).
    pub fn exec_exit_code(self) -> i32 {
        use ErrorCode::*;
        match self {
            Timeout => 124,
            Usage | LintFailed | ProbeFailed | StoreCorrupt | Io | SourceUnavailable
            | Integrity => 125,
            NotInstalled | NotActivated | NotConnected | GrantMissing | BootstrapProtected
            | AdapterUnsupported | ProgramNotFound | SenseOnly | EnvMissing
            | ConfirmationRequired | AlreadyExists => 126,
            NotFound => 127,
        }
    }
}

/// A step that fixes a refusal or an error (§10.1 `hint`, `why`'s `fix`),
/// as data: the subcommand and its arguments. The engine never formats a
/// command line: the CLI renders a fix as one (with the user's `--catalog`
/// and `--principal`), the TUI as the key that does it and that line. A
/// word in capitals (`SOURCE`, `DIR`, `PACK`) is a placeholder the user
/// fills in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fix {
    /// Install `pack`: a catalog pack's id, or a folder; `force` replaces
    /// the installed copy.
    Install {
        pack: String,
        force: bool,
    },
    Activate {
        pack: String,
    },
    Deactivate {
        pack: String,
    },
    /// Connect `pack`; `secret` when its Binding takes a secret (read from
    /// stdin).
    Connect {
        pack: String,
        secret: bool,
    },
    /// Grant `grant` (`CAPABILITY[:PACK]`) to `principal`; run by a
    /// principal holding `*` once grants are enforced (§9.4).
    Grant {
        principal: String,
        grant: String,
    },
    /// Set these environment variables (non-empty), then try again.
    SetEnv {
        names: Vec<String>,
    },
    /// Lint the pack at `path` to see every finding.
    Lint {
        path: String,
    },
    /// List the catalogs, as `catalog remove` takes them (§13.2).
    CatalogList,
    Uninstall {
        pack: String,
    },
    /// List the packs hcpx knows.
    List,
    /// Compare the installed packs (`pack` alone when given) with the lock
    /// file (§13.5).
    Verify {
        pack: Option<String>,
    },
    /// `doctor`; `fix` repairs what a change killed half way left (§14.7).
    Doctor {
        fix: bool,
    },
    /// Upgrade the packs of the lock file; `dry_run` only shows the diffs
    /// (§13.6).
    Upgrade {
        dry_run: bool,
    },
    /// The state of every Skill in the enabled harness targets (§12.8).
    HarnessStatus,
    /// Bring the enabled harness targets in step; `force` replaces edited
    /// copies (§12.7).
    HarnessSync {
        force: bool,
    },
    /// Disable the harness target `target` (a placeholder when the target
    /// is not known where the hint is written).
    HarnessDisable {
        target: String,
    },
    /// Make the working directory a project (§15.3).
    Init,
    /// Sync the project to its `hcp.yaml`, recording what it installs in
    /// `hcp.lock` (§15.3).
    Sync,
}

/// What to do, in words that may name commands (§10.1 `hint`): each
/// command is a [`Fix`] the front-end renders in place, so the sentence
/// keeps its words and the command line gets the user's flags and
/// quoting. A hint in words only is one [`Part::Words`].
///
/// Front-ends render a hint ([`Hint::render`]) before they show it or
/// write it in a document; it serializes as its text (an unrendered
/// command, which no front-end leaves, as its [`Fix`] in backticks).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Hint {
    parts: Vec<Part>,
}

/// A piece of a [`Hint`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    Words(String),
    Run(Fix),
}

impl Hint {
    /// These words after the hint so far.
    #[must_use]
    pub fn say(mut self, words: impl Into<String>) -> Self {
        self.parts.push(Part::Words(words.into()));
        self
    }

    /// The command of `fix` after the hint so far.
    #[must_use]
    pub fn cmd(mut self, fix: Fix) -> Self {
        self.parts.push(Part::Run(fix));
        self
    }

    /// The commands the hint names, in order.
    pub fn fixes(&self) -> impl Iterator<Item = &Fix> {
        self.parts.iter().filter_map(|p| match p {
            Part::Run(fix) => Some(fix),
            Part::Words(_) => None,
        })
    }

    /// The hint as one text, each command rendered by `line`.
    pub fn render(&self, line: &dyn Fn(&Fix) -> String) -> String {
        self.parts
            .iter()
            .map(|p| match p {
                Part::Words(words) => words.clone(),
                Part::Run(fix) => line(fix),
            })
            .collect()
    }

    /// The hint rendered by `line`, as words only.
    #[must_use]
    pub fn rendered(&self, line: &dyn Fn(&Fix) -> String) -> Hint {
        Hint::from(self.render(line))
    }

    /// The words of a hint that names no command.
    pub fn words(&self) -> Option<String> {
        self.fixes()
            .next()
            .is_none()
            .then(|| self.render(&|_| String::new()))
    }

    /// Changes every part in words (redaction, §8.6); commands are data
    /// from checked ids and stay.
    pub fn map_words(&mut self, mut change: impl FnMut(&mut String)) {
        for part in &mut self.parts {
            if let Part::Words(words) = part {
                change(words);
            }
        }
    }
}

impl From<String> for Hint {
    fn from(words: String) -> Self {
        Hint::default().say(words)
    }
}

impl From<&str> for Hint {
    fn from(words: &str) -> Self {
        Hint::default().say(words)
    }
}

impl From<Fix> for Hint {
    fn from(fix: Fix) -> Self {
        Hint::default().cmd(fix)
    }
}

impl std::fmt::Display for Hint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.render(&|fix| format!("`{fix:?}`")))
    }
}

impl Serialize for Hint {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// An engine error: a code, a message in plain words, and the fields that
/// locate the problem (§10.1). Never holds secret material.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    pub code: ErrorCode,
    pub message: String,
    #[serde(flatten)]
    pub context: Box<ErrorContext>,
}

/// The fields of an error object that say where the problem is (§10.1).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct ErrorContext {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pack_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verb_key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arg: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grant: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// What to change to fix it, in words that may name commands (each a
    /// [`Fix`] a front-end renders, see [`Hint`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<Hint>,
    /// The command that fixes it, as data: a front-end renders it (and
    /// shows it as the `hint`).
    #[serde(skip)]
    pub fix: Option<Fix>,
    /// The lint errors behind a `lint_failed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<Vec<crate::engine::lint::diagnostic::Diagnostic>>,
    /// The capability diffs (§13.7) a `confirmation_required` refused, as
    /// their JSON (`upgrade`'s `results`: the diff is a layer above this
    /// one): the failure document carries them as `results`, beside
    /// `error`, and the words list their `changes` (an escalating
    /// replacement by `install`, §11.1).
    #[serde(skip)]
    pub results: Option<Vec<serde_json::Value>>,
}

impl Error {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
            context: Box::default(),
        }
    }

    pub fn usage(message: impl Into<String>) -> Self {
        Error::new(ErrorCode::Usage, message)
    }

    pub fn pack(mut self, pack_id: impl Into<String>) -> Self {
        self.context.pack_id = Some(pack_id.into());
        self
    }

    pub fn verb(mut self, verb_key: impl Into<String>) -> Self {
        self.context.verb_key = Some(verb_key.into());
        self
    }

    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        self.context.arg = Some(arg.into());
        self
    }

    pub fn grant(mut self, grant: impl Into<String>) -> Self {
        self.context.grant = Some(grant.into());
        self
    }

    pub fn missing(mut self, missing: Vec<String>) -> Self {
        self.context.missing = Some(missing);
        self
    }

    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.context.path = Some(path.into());
        self
    }

    pub fn hint(mut self, hint: impl Into<Hint>) -> Self {
        self.context.hint = Some(hint.into());
        self
    }

    pub fn fix(mut self, fix: Fix) -> Self {
        self.context.fix = Some(fix);
        self
    }

    /// An I/O failure on `path`. A full disk or an exceeded quota (ENOSPC,
    /// EDQUOT) gets a hint naming the file system to free space on.
    pub fn io(what: &str, path: &std::path::Path, err: &std::io::Error) -> Self {
        let error = Error::new(ErrorCode::Io, format!("{what} {}: {err}", path.display()))
            .path(path.display().to_string());
        match no_space(err) {
            Some(why) => {
                let fs = mount_point(path);
                error.hint(format!(
                    "{why}: free some space on the file system mounted at {} (it holds {}), then try again",
                    fs.display(),
                    path.display()
                ))
            }
            None => error,
        }
    }
}

/// Why an I/O error means there is no room left, if it does.
fn no_space(err: &std::io::Error) -> Option<&'static str> {
    use std::io::ErrorKind;
    match err.kind() {
        ErrorKind::StorageFull => Some("the disk is full"),
        ErrorKind::QuotaExceeded => Some("your disk quota is used up"),
        _ => None,
    }
}

/// The mount point of the file system holding `path` (or its nearest
/// existing ancestor): the highest ancestor on the same device.
fn mount_point(path: &std::path::Path) -> std::path::PathBuf {
    use std::os::unix::fs::MetadataExt;
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut ancestors = absolute.ancestors();
    let Some((mut top, dev)) = ancestors
        .by_ref()
        .find_map(|a| std::fs::metadata(a).ok().map(|m| (a, m.dev())))
    else {
        return absolute;
    };
    for parent in ancestors {
        match std::fs::metadata(parent) {
            Ok(m) if m.dev() == dev => top = parent,
            _ => break,
        }
    }
    top.to_path_buf()
}

pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_serialize_as_their_spec_names() {
        for code in [
            ErrorCode::NotFound,
            ErrorCode::BootstrapProtected,
            ErrorCode::StoreCorrupt,
        ] {
            let json = serde_json::to_value(code).unwrap_or_default();
            assert_eq!(json, serde_json::Value::String(code.as_str().into()));
        }
    }

    #[test]
    fn exit_codes_follow_section_10() {
        assert_eq!(ErrorCode::Usage.exit_code(), 2);
        assert_eq!(ErrorCode::NotActivated.exit_code(), 3);
        assert_eq!(ErrorCode::GrantMissing.exit_code(), 4);
        assert_eq!(ErrorCode::NotFound.exit_code(), 5);
        assert_eq!(ErrorCode::Timeout.exec_exit_code(), 124);
        assert_eq!(ErrorCode::Usage.exec_exit_code(), 125);
        assert_eq!(ErrorCode::GrantMissing.exec_exit_code(), 126);
        assert_eq!(ErrorCode::NotFound.exec_exit_code(), 127);
    }

    #[test]
    fn a_full_disk_says_where_to_free_space() {
        let dir = std::env::temp_dir();
        let path = dir.join("no-such-folder/state.json");
        for raw in [28, 122] {
            // ENOSPC, EDQUOT
            let err = Error::io(
                "cannot write",
                &path,
                &std::io::Error::from_raw_os_error(raw),
            );
            assert_eq!(err.code, ErrorCode::Io);
            let hint = err.context.hint.unwrap_or_default().to_string();
            assert!(hint.contains("free some space"), "{hint}");
            assert!(hint.contains(&path.display().to_string()), "{hint}");
            assert!(hint.contains(" mounted at /"), "{hint}");
        }
        let other = Error::io(
            "cannot write",
            &path,
            &std::io::Error::from_raw_os_error(13),
        );
        assert_eq!(other.context.hint, None);
    }

    #[test]
    fn the_mount_point_is_the_top_of_the_device() {
        assert_eq!(
            mount_point(std::path::Path::new("/proc/self")),
            std::path::Path::new("/proc")
        );
        assert_eq!(
            mount_point(std::path::Path::new("/")),
            std::path::Path::new("/")
        );
    }
}
