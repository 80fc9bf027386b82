//! The one refusal (HCP.md §6.1, §7.3, §10.1–§10.3, §11.3): why a command
//! cannot run here. The availability function reports it per command, exec
//! refuses with it, `why` and the TUI explain it. Its serde form is the
//! §11.3 reason string (`grant_missing:verb.exec.write`); [`Refusal::code`]
//! is its §10.1 error code, whose exit codes `ErrorCode` maps.

use crate::engine::error::{Error, ErrorCode, Fix, Hint};
use crate::engine::policy::grants::Capability;
use serde::{Serialize, Serializer};
use std::fmt;

/// An unmet condition for executing a command (§11.3), in the order the
/// availability function checks them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    NotActivated,
    NotConnected,
    GrantMissing(Capability),
    /// An adapter kind this runtime does not run (§6.6).
    AdapterUnsupported {
        kind: String,
    },
    /// The `process` program is not on PATH, not in the pack, not
    /// executable, or leaves the pack (§6.3); `detail` says which, in words.
    ProgramNotFound {
        program: String,
        detail: String,
    },
    SenseOnly,
}

/// The conditions of §11.2 that make a command `executable`, each a column
/// of the TUI's availability matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Condition {
    Activated,
    Connected,
    Grant,
    Adapter,
}

impl Condition {
    pub const ALL: [Condition; 4] = [
        Condition::Activated,
        Condition::Connected,
        Condition::Grant,
        Condition::Adapter,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Condition::Activated => "activated",
            Condition::Connected => "connected",
            Condition::Grant => "grant",
            Condition::Adapter => "adapter",
        }
    }
}

impl Refusal {
    /// The §11.2 condition this refusal leaves unmet; `None` for
    /// `sense_only`, which is no condition of §11.2 but still makes a
    /// command non-executable (§7.3).
    pub fn condition(&self) -> Option<Condition> {
        match self {
            Refusal::NotActivated => Some(Condition::Activated),
            Refusal::NotConnected => Some(Condition::Connected),
            Refusal::GrantMissing(_) => Some(Condition::Grant),
            Refusal::AdapterUnsupported { .. } | Refusal::ProgramNotFound { .. } => {
                Some(Condition::Adapter)
            }
            Refusal::SenseOnly => None,
        }
    }

    /// The error code of §10.1 (its exit codes are `ErrorCode`'s).
    pub fn code(&self) -> ErrorCode {
        match self {
            Refusal::NotActivated => ErrorCode::NotActivated,
            Refusal::NotConnected => ErrorCode::NotConnected,
            Refusal::GrantMissing(_) => ErrorCode::GrantMissing,
            Refusal::AdapterUnsupported { .. } => ErrorCode::AdapterUnsupported,
            Refusal::ProgramNotFound { .. } => ErrorCode::ProgramNotFound,
            Refusal::SenseOnly => ErrorCode::SenseOnly,
        }
    }

    /// The refusal as an engine error saying `message`, with the fields of
    /// §10.1 that locate it (`grant` for `grant_missing`).
    pub fn error(&self, message: impl Into<String>) -> Error {
        let err = Error::new(self.code(), message);
        match self {
            Refusal::GrantMissing(cap) => err.grant(cap.as_str()),
            _ => err,
        }
    }

    /// The adapter refusals as the exec engine reports them when asked to
    /// run such a command anyway: the detail in words, and what to do.
    pub fn to_error(&self) -> Error {
        match self {
            Refusal::ProgramNotFound { detail, .. } => self.error(detail.clone()).hint(
                Hint::from("install the program, or run `")
                    .cmd(Fix::Lint {
                        path: "PATH".into(),
                    })
                    .say("` on the pack"),
            ),
            Refusal::AdapterUnsupported { kind } => self
                .error(format!(
                    "adapter kind `{kind}` is not supported by this runtime"
                ))
                .hint("this runtime runs `process` and `http` adapters"),
            other => other.error(other.to_string()),
        }
    }
}

/// The §11.3 reason string.
impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::NotActivated => f.write_str("not_activated"),
            Refusal::NotConnected => f.write_str("not_connected"),
            Refusal::GrantMissing(cap) => write!(f, "grant_missing:{cap}"),
            Refusal::AdapterUnsupported { kind } => write!(f, "adapter_unsupported:{kind}"),
            Refusal::ProgramNotFound { program, .. } => write!(f, "program_not_found:{program}"),
            Refusal::SenseOnly => f.write_str("sense_only"),
        }
    }
}

impl Serialize for Refusal {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_refusal_has_its_reason_string_code_and_exit_codes() {
        let program = || Refusal::ProgramNotFound {
            program: "gh".into(),
            detail: "`gh` is not found on PATH".into(),
        };
        let table: [(Refusal, &str, ErrorCode, i32, i32); 7] = [
            (
                Refusal::NotActivated,
                "not_activated",
                ErrorCode::NotActivated,
                3,
                126,
            ),
            (
                Refusal::NotConnected,
                "not_connected",
                ErrorCode::NotConnected,
                3,
                126,
            ),
            (
                Refusal::GrantMissing(Capability::ExecWrite),
                "grant_missing:verb.exec.write",
                ErrorCode::GrantMissing,
                4,
                126,
            ),
            (
                Refusal::GrantMissing(Capability::ExecRead),
                "grant_missing:verb.exec.read",
                ErrorCode::GrantMissing,
                4,
                126,
            ),
            (
                Refusal::AdapterUnsupported {
                    kind: "grpc".into(),
                },
                "adapter_unsupported:grpc",
                ErrorCode::AdapterUnsupported,
                3,
                126,
            ),
            (
                program(),
                "program_not_found:gh",
                ErrorCode::ProgramNotFound,
                3,
                126,
            ),
            (
                Refusal::SenseOnly,
                "sense_only",
                ErrorCode::SenseOnly,
                3,
                126,
            ),
        ];
        for (refusal, text, code, exit, exec_exit) in table {
            assert_eq!(refusal.to_string(), text);
            assert_eq!(
                serde_json::to_value(&refusal).ok(),
                Some(serde_json::Value::String(text.into()))
            );
            assert_eq!(refusal.code(), code, "{text}");
            assert_eq!(code.exit_code(), exit, "{text}");
            assert_eq!(code.exec_exit_code(), exec_exit, "{text}");
            let err = refusal.error("no");
            assert_eq!(err.code, code);
            let grant = matches!(refusal, Refusal::GrantMissing(_));
            assert_eq!(err.context.grant.is_some(), grant, "{text}");
        }
        assert_eq!(program().to_error().message, "`gh` is not found on PATH");
    }
}
