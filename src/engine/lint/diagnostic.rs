//! Lint diagnostics: the rule ids and severities of HCP.md §10.5 and the
//! diagnostic shape of §10.4.

use serde::{Deserialize, Serialize};
use std::fmt;

/// How bad a finding is (§10.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        })
    }
}

macro_rules! rules {
    ($($variant:ident => $id:literal, $sev:ident;)*) => {
        /// Every lint rule of §10.5, with its exact id.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Rule { $($variant,)* }

        impl Rule {
            /// All rules, in the order of the §10.5 table.
            pub const ALL: &'static [Rule] = &[$(Rule::$variant,)*];

            /// The rule id as the spec spells it, e.g. `manifest.id-format`.
            pub fn id(self) -> &'static str {
                match self { $(Rule::$variant => $id,)* }
            }

            /// The severity the spec gives the rule (a Skill pack's long
    /// `description` is the one finding reported below it, §2.6).
            pub fn severity(self) -> Severity {
                match self { $(Rule::$variant => Severity::$sev,)* }
            }
        }
    };
}

rules! {
    PackNotADirectory => "pack.not-a-directory", Error;
    PackManifestMissing => "pack.manifest-missing", Error;
    PackManifestAmbiguous => "pack.manifest-ambiguous", Error;
    PackSymlink => "pack.symlink", Error;
    PackFileName => "pack.file-name", Error;
    PackTooLarge => "pack.too-large", Error;
    ManifestParse => "manifest.parse", Error;
    ManifestMissingField => "manifest.missing-field", Error;
    ManifestType => "manifest.type", Error;
    ManifestHcpVersion => "manifest.hcp-version", Error;
    ManifestIdFormat => "manifest.id-format", Error;
    ManifestIdReserved => "manifest.id-reserved", Error;
    ManifestName => "manifest.name", Error;
    ManifestVersion => "manifest.version", Error;
    ManifestDescription => "manifest.description", Error;
    ManifestPlane => "manifest.plane", Error;
    ManifestRequires => "manifest.requires", Error;
    ManifestUnknownKey => "manifest.unknown-key", Warning;
    ManifestText => "manifest.text", Error;
    BindingKind => "binding.kind", Error;
    BindingEnv => "binding.env", Error;
    BindingSecret => "binding.secret", Error;
    BindingProbe => "binding.probe", Error;
    CommandNone => "command.none", Warning;
    CommandKey => "command.key", Error;
    CommandKeyDuplicate => "command.key-duplicate", Error;
    CommandSummary => "command.summary", Error;
    CommandEffect => "command.effect", Error;
    CommandArg => "command.arg", Error;
    CommandArgDefault => "command.arg-default", Error;
    CommandPlaceholder => "command.placeholder", Error;
    CommandAdapter => "command.adapter", Error;
    CommandAdapterBuiltin => "command.adapter-builtin", Error;
    CommandProgram => "command.program", Error;
    CommandTimeout => "command.timeout", Error;
    AdapterUnknownKind => "adapter.unknown-kind", Warning;
    SkillMissing => "skill.missing", Error;
    SkillFrontmatter => "skill.frontmatter", Error;
    SkillName => "skill.name", Error;
    SkillDescription => "skill.description", Error;
    SkillEmptyBody => "skill.empty-body", Error;
    SkillCommandUndocumented => "skill.command-undocumented", Warning;
    SkillNameFolder => "skill.name-folder", Warning;
    SkillControlChar => "skill.control-char", Error;
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl Serialize for Rule {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

/// A rule read back by its id (the lint cache); an unknown id is an error.
impl<'de> Deserialize<'de> for Rule {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let id = String::deserialize(d)?;
        Rule::ALL
            .iter()
            .copied()
            .find(|r| r.id() == id)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown rule `{id}`")))
    }
}

pub use crate::engine::pack::document::Position;

/// One finding, in the JSON shape of §10.4.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    pub rule: Rule,
    pub severity: Severity,
    /// Relative to the pack root; `.` for the pack directory itself.
    pub file: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
    pub hint: Option<String>,
}

impl Diagnostic {
    pub fn new(rule: Rule, file: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic {
            rule,
            severity: rule.severity(),
            file: file.into(),
            line: None,
            column: None,
            message: message.into(),
            hint: None,
        }
    }

    pub fn at(mut self, pos: Option<Position>) -> Self {
        if let Some(pos) = pos {
            self.line = Some(pos.line);
            self.column = Some(pos.column);
        }
        self
    }

    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Collects diagnostics for one file.
#[derive(Debug)]
pub struct Findings<'a> {
    file: &'a str,
    pub list: &'a mut Vec<Diagnostic>,
}

impl<'a> Findings<'a> {
    pub fn new(file: &'a str, list: &'a mut Vec<Diagnostic>) -> Self {
        Findings { file, list }
    }

    /// Records a finding at `pos` and returns it for an optional hint.
    pub fn report(
        &mut self,
        rule: Rule,
        pos: Option<Position>,
        message: impl Into<String>,
    ) -> &mut Diagnostic {
        self.list
            .push(Diagnostic::new(rule, self.file, message).at(pos));
        let last = self.list.len() - 1;
        &mut self.list[last]
    }
}

impl Diagnostic {
    /// Sets the hint in place (for use after [`Findings::report`]).
    pub fn with_hint(&mut self, hint: impl Into<String>) {
        self.hint = Some(hint.into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_ids_are_unique_and_follow_the_spec_grammar() {
        let mut seen = std::collections::HashSet::new();
        for rule in Rule::ALL {
            assert!(seen.insert(rule.id()), "duplicate id {}", rule.id());
            let (family, name) = rule.id().split_once('.').unwrap_or(("", ""));
            assert!(
                ["pack", "manifest", "binding", "command", "adapter", "skill"].contains(&family),
                "{}",
                rule.id()
            );
            assert!(!name.is_empty());
        }
        assert_eq!(Rule::ALL.len(), 44);
    }

    #[test]
    fn only_the_five_warning_rules_are_warnings() {
        let warnings: Vec<_> = Rule::ALL
            .iter()
            .filter(|r| r.severity() == Severity::Warning)
            .map(|r| r.id())
            .collect();
        assert_eq!(
            warnings,
            [
                "manifest.unknown-key",
                "command.none",
                "adapter.unknown-kind",
                "skill.command-undocumented",
                "skill.name-folder"
            ]
        );
    }
}
