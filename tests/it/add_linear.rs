//! `hcpx add SOURCE --all` stays linear in the packs it takes (HCP.md
//! §15.3, §12.6; README "Performance"): every pack is installed in one
//! change and activated in one more, so the state, `hcp.lock` and
//! `hcp.yaml` are written, and the harness targets read and planned, a
//! fixed number of times whatever the number of packs — not once per pack,
//! which made 181 Skills take seconds (each activation re-read every copy
//! placed before it). Counted without a clock: the debug build's step log
//! (`HCPX_TEST_STEP_LOG`, §14.11: a release binary has no such hook) names
//! each step a command reaches.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::project_scope::Machine;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// A collection of `n` Skill folders, each with a script, below `root`.
fn collection(root: &Path, n: usize) {
    for i in 0..n {
        let dir = root.join(format!("plugins/p{}/skills/skill-{i:03}", i % 4));
        std::fs::create_dir_all(dir.join("scripts")).unwrap();
        std::fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: skill-{i:03}\ndescription: Skill {i}.\n---\nRun scripts/run.sh.\n"),
        )
        .unwrap();
        std::fs::write(dir.join("scripts/run.sh"), "#!/bin/sh\necho hi\n").unwrap();
        crate::common::make_executable(&dir.join("scripts/run.sh"));
    }
}

/// How often `hcpx --json add COLLECTION --all` (in `cwd`) reached each
/// step that writes a store file or plans the targets, and its document.
fn add_all(m: &Machine, cwd: &Path, source: &Path) -> (BTreeMap<String, usize>, Value) {
    let log = m.dir.path().join("steps.log");
    let _ = std::fs::remove_file(&log);
    let out = m
        .hcpx(cwd)
        .env("HCPX_TEST_STEP_LOG", &log)
        .args(["--json", "add", source.to_str().unwrap(), "--all"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    let mut counts = BTreeMap::new();
    for name in std::fs::read_to_string(&log).unwrap_or_default().lines() {
        let counted = ["state.write", "lock.write", "project.write", "harness.sync"];
        if counted.contains(&name) {
            *counts.entry(name.to_string()).or_insert(0) += 1;
        }
    }
    (counts, doc)
}

/// Every result of `add` is ok and activated, `n` in all.
fn all_activated(doc: &Value, n: usize) {
    let results = doc["results"].as_array().unwrap_or_else(|| panic!("{doc}"));
    assert_eq!(results.len(), n, "{doc}");
    for result in results {
        assert_eq!(result["ok"], true, "{result}");
        assert_eq!(result["activated"], true, "{result}");
    }
}

/// Runs `add --all` of a small and a larger collection, each on a fresh
/// machine (`scoped` makes it a project), and returns both step counts.
fn counts_for(scoped: bool) -> Vec<BTreeMap<String, usize>> {
    [3, 12]
        .into_iter()
        .map(|n| {
            let m = Machine::new();
            let proj = m.proj();
            let source = proj.join("vendor/skills");
            collection(&source, n);
            if scoped {
                m.json(&proj, &["init"], 0);
            } else {
                m.json(&proj, &["harness", "enable", "agents", "claude-code"], 0);
            }
            let (counts, doc) = add_all(&m, &proj, &source);
            all_activated(&doc, n);
            let placed = m.home().join(".claude/skills");
            let placed = if scoped {
                proj.join(".claude/skills")
            } else {
                placed
            };
            assert!(
                placed
                    .join(format!("skill-{:03}/scripts/run.sh", n - 1))
                    .is_file(),
                "the last Skill is placed in {}",
                placed.display()
            );
            counts
        })
        .collect()
}

/// In the user store, with two harness targets enabled: 12 Skills write
/// the state and plan the targets as often as 3 do (at most twice: the
/// install, then the activation).
#[test]
fn add_all_writes_the_state_and_plans_the_targets_a_fixed_number_of_times() {
    let counts = counts_for(false);
    assert_eq!(counts[0], counts[1], "3 Skills vs 12: {counts:?}");
    for step in ["state.write", "harness.sync", "lock.write"] {
        let times = counts[1].get(step).copied().unwrap_or(0);
        assert!((1..=2).contains(&times), "{step} {times} times: {counts:?}");
    }
}

/// In a project: `hcp.yaml`, `hcp.lock` and the state are written a fixed
/// number of times too (at most twice each).
#[test]
fn add_all_in_a_project_writes_hcp_yaml_a_fixed_number_of_times() {
    let counts = counts_for(true);
    assert_eq!(counts[0], counts[1], "3 Skills vs 12: {counts:?}");
    for step in ["state.write", "project.write", "lock.write", "harness.sync"] {
        let times = counts[1].get(step).copied().unwrap_or(0);
        assert!((1..=2).contains(&times), "{step} {times} times: {counts:?}");
    }
}
