//! The context ledger (HCP.md §17): what each harness lists to the model
//! at the start of every session — the name and description of every Skill
//! in its folders — and what that costs against the harness's budget.
//!
//! - `read`: the Skill folders of a harness's folders, frontmatter only,
//!   bounded (§17.1, §17.8);
//! - `claude`: Claude Code's rule (§17.2);
//! - `codex`: Codex's rule, from its public source (§17.3);
//! - here: one harness's listing priced ([`ledger`]) as §17.4's document.
//!
//! A harness whose rule is not public (Copilot, Cursor, …) has its Skills
//! priced as `- NAME: TEXT` entries, with no budget and the verdict
//! `unknown`.

pub mod claude;
pub mod codex;
pub mod read;

use crate::engine::harness::TargetName;
use crate::engine::project::Scope;
use read::FoundSkill;
use serde::Serialize;
use std::path::PathBuf;

/// How a harness prices its listing.
#[derive(Debug, Clone, PartialEq)]
pub enum Rule {
    /// Claude Code: the budget in characters and the cap on TEXT.
    Claude { budget: u64, cap: usize },
    /// Codex: the context window in tokens.
    Codex { context_tokens: u64 },
    /// Not public.
    Unknown,
}

/// One folder of a harness's listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LedgerFolder {
    pub scope: Scope,
    pub path: PathBuf,
}

/// Whether the listing fits its budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Fits,
    Over,
    Unknown,
}

/// One Skill of a listing and its cost (§17.4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillCost {
    /// Its frontmatter `name`, else its folder's.
    pub name: String,
    /// Its folder's name.
    pub folder: String,
    pub scope: Scope,
    /// The pack hcpx placed it for; `None` for one hcpx did not place.
    pub pack_id: Option<String>,
    /// TEXT's length before the cap.
    pub description_chars: usize,
    pub cost_chars: u64,
    pub cut: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What it costs listed by name only (not in the document).
    #[serde(skip)]
    pub name_only: u64,
    /// Whether the harness lists it (not in the document).
    #[serde(skip)]
    pub listed: bool,
}

/// One harness's listing (§17.4).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HarnessLedger {
    pub harness: TargetName,
    pub folders: Vec<LedgerFolder>,
    pub budget_chars: Option<u64>,
    pub used_chars: u64,
    pub percent: Option<f64>,
    pub verdict: Verdict,
    pub names_only_at_least: usize,
    pub not_counted: Vec<&'static str>,
    pub skills: Vec<SkillCost>,
}

impl HarnessLedger {
    /// Whether it uses more than `max` percent of a known budget (§17.5).
    pub fn over_percent(&self, max: f64) -> bool {
        self.budget_chars
            .is_some_and(|budget| self.used_chars as f64 * 100.0 > max * budget as f64)
    }
}

/// `harness`'s listing of `skills` (found in `folders`) priced by `rule`.
pub fn ledger(
    harness: TargetName,
    folders: Vec<LedgerFolder>,
    skills: Vec<FoundSkill>,
    rule: &Rule,
) -> HarnessLedger {
    let mut costs: Vec<SkillCost> = skills.into_iter().map(|s| price(s, rule)).collect();
    costs.sort_by(|a, b| {
        b.cost_chars
            .cmp(&a.cost_chars)
            .then_with(|| a.name.cmp(&b.name))
    });
    let listed: Vec<&SkillCost> = costs.iter().filter(|s| s.listed).collect();
    let (budget_chars, used_chars, not_counted) = match rule {
        Rule::Claude { budget, .. } => (
            Some(*budget),
            claude::listing_cost(listed.iter().map(|s| s.cost_chars as usize)),
            claude::NOT_COUNTED.to_vec(),
        ),
        Rule::Codex { context_tokens } => (
            Some(codex::budget_chars(*context_tokens)),
            listed.iter().map(|s| s.cost_chars).sum(),
            claude::NOT_COUNTED.to_vec(),
        ),
        Rule::Unknown => (
            None,
            claude::listing_cost(listed.iter().map(|s| s.cost_chars as usize)),
            Vec::new(),
        ),
    };
    let newline = u64::from(!matches!(rule, Rule::Codex { .. }));
    let names_only_at_least = match budget_chars {
        Some(budget) => {
            let pairs: Vec<(u64, u64)> =
                listed.iter().map(|s| (s.cost_chars, s.name_only)).collect();
            names_only_at_least(&pairs, budget, newline)
        }
        None => 0,
    };
    HarnessLedger {
        harness,
        folders,
        budget_chars,
        used_chars,
        percent: budget_chars.map(|b| (used_chars as f64 * 1000.0 / b as f64).round() / 10.0),
        verdict: match budget_chars {
            Some(b) if used_chars <= b => Verdict::Fits,
            Some(_) => Verdict::Over,
            None => Verdict::Unknown,
        },
        names_only_at_least,
        not_counted,
        skills: costs,
    }
}

/// The fewest descriptions that must go, the longest first, for a
/// listing of `entries` (each its cost and its cost by name only) to fit
/// `budget`, `newline` separating two entries; all of them when even the
/// names do not fit.
pub fn names_only_at_least(entries: &[(u64, u64)], budget: u64, newline: u64) -> usize {
    let n = entries.len() as u64;
    let mut total: u64 = entries.iter().map(|e| e.0).sum::<u64>() + n.saturating_sub(1) * newline;
    if total <= budget {
        return 0;
    }
    let mut savings: Vec<u64> = entries.iter().map(|e| e.0.saturating_sub(e.1)).collect();
    savings.sort_unstable_by(|a, b| b.cmp(a));
    for (gone, saving) in savings.iter().enumerate() {
        total -= saving;
        if total <= budget {
            return gone + 1;
        }
    }
    entries.len()
}

/// One Skill priced by `rule`.
fn price(skill: FoundSkill, rule: &Rule) -> SkillCost {
    let FoundSkill {
        folder,
        scope,
        skill_md,
        pack_id,
        front,
    } = skill;
    let mut cost = SkillCost {
        name: folder.clone(),
        folder,
        scope,
        pack_id,
        description_chars: 0,
        cost_chars: 0,
        cut: false,
        error: None,
        name_only: 0,
        listed: false,
    };
    let front = match front {
        Ok(front) => front,
        Err(error) => {
            cost.error = Some(error);
            return cost;
        }
    };
    if let Some(name) = front.name.as_deref().filter(|n| !n.trim().is_empty()) {
        cost.name = name.trim().to_string();
    }
    match rule {
        Rule::Codex { .. } => {
            let (name, description) = codex::name_and_description(&cost.folder, &front);
            let Some(description) = description else {
                cost.error = Some("no description: Codex does not list it".into());
                return cost;
            };
            let path = skill_md.display().to_string();
            cost.description_chars = description.chars().count();
            cost.cost_chars = codex::line_cost(&codex::line(&name, &description, &path));
            cost.name_only = codex::line_cost(&codex::line(&name, "", &path));
        }
        Rule::Claude { .. } | Rule::Unknown if front.disable_model_invocation => return cost,
        Rule::Claude { cap, .. } => claude_price(&mut cost, &front, *cap),
        Rule::Unknown => claude_price(&mut cost, &front, usize::MAX),
    }
    cost.listed = true;
    cost
}

fn claude_price(cost: &mut SkillCost, front: &read::Front, cap: usize) {
    let entry = claude::entry_cost(
        &claude::entry_name(&cost.folder, front),
        &claude::text(front),
        cap,
    );
    cost.description_chars = entry.description_chars;
    cost.cost_chars = entry.cost_chars as u64;
    cost.name_only = entry.name_only as u64;
    cost.cut = entry.cut;
}

#[cfg(test)]
mod tests {
    use super::*;
    use read::Front;

    fn skill(folder: &str, description: Option<&str>) -> FoundSkill {
        FoundSkill {
            folder: folder.into(),
            scope: Scope::User,
            skill_md: PathBuf::from(format!("/s/{folder}/SKILL.md")),
            pack_id: None,
            front: Ok(Front {
                description: description.map(str::to_string),
                ..Front::default()
            }),
        }
    }

    /// `- aa: xxxx…` (10 x): 2 + 4 + 10 = 16; `- b: yyyyy`: 1 + 4 + 5 =
    /// 10; with the newline 27 of a budget of 20: over, 135%; dropping
    /// the longest description saves 12 (27 − 12 = 15 ≤ 20): one goes.
    #[test]
    fn a_claude_listing_is_priced_and_sorted() {
        let skills = vec![
            skill("b", Some("yyyyy")),
            skill("aa", Some(&"x".repeat(10))),
            FoundSkill {
                front: Err("not a regular file".into()),
                ..skill("c", None)
            },
        ];
        let l = ledger(
            TargetName::ClaudeCode,
            Vec::new(),
            skills,
            &Rule::Claude {
                budget: 20,
                cap: 1_536,
            },
        );
        let names: Vec<&str> = l.skills.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["aa", "b", "c"]);
        assert_eq!(l.used_chars, 27);
        assert_eq!(l.percent, Some(135.0));
        assert_eq!(l.verdict, Verdict::Over);
        assert_eq!(l.names_only_at_least, 1);
        assert_eq!(l.skills[2].error.as_deref(), Some("not a regular file"));
        assert_eq!(l.skills[2].cost_chars, 0);
        assert!(l.over_percent(100.0));
        assert!(!l.over_percent(135.0));
    }

    /// A Skill that turns model invocation off is not listed: cost 0.
    #[test]
    fn disabled_model_invocation_costs_nothing() {
        let mut off = skill("off", Some("never listed"));
        if let Ok(front) = &mut off.front {
            front.disable_model_invocation = true;
        }
        let l = ledger(
            TargetName::ClaudeCode,
            Vec::new(),
            vec![off, skill("on", Some("abc"))],
            &Rule::Claude {
                budget: 8_000,
                cap: 1_536,
            },
        );
        assert_eq!(l.used_chars, 2 + 4 + 3);
        assert_eq!(l.skills[1].cost_chars, 0);
        assert_eq!(l.verdict, Verdict::Fits);
    }

    /// Codex: `- pdf: Reads PDFs (file: /s/pdf/SKILL.md)` costs 44 of
    /// 16,000 (0.3%); an unknown rule has no budget.
    #[test]
    fn codex_and_unknown_listings() {
        let mut pdf = skill("pdf", Some("Reads PDFs"));
        if let Ok(front) = &mut pdf.front {
            front.name = Some("pdf".into());
        }
        let l = ledger(
            TargetName::Codex,
            Vec::new(),
            vec![pdf.clone()],
            &Rule::Codex {
                context_tokens: 200_000,
            },
        );
        assert_eq!((l.used_chars, l.budget_chars), (44, Some(16_000)));
        assert_eq!(l.percent, Some(0.3));
        let u = ledger(TargetName::Cursor, Vec::new(), vec![pdf], &Rule::Unknown);
        assert_eq!(
            (u.budget_chars, u.percent, u.verdict),
            (None, None, Verdict::Unknown)
        );
        assert_eq!(u.used_chars, 3 + 4 + 10);
        assert!(!u.over_percent(0.0));
    }
}
