//! What the benchmarks share (each bench is its own crate and takes what
//! it uses of this module).

#![allow(dead_code)]

use std::path::Path;
use std::time::Duration;

/// The middle sample.
pub fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// A pack with a `local` Binding, a `read` command taking an integer and a
/// `write` command, both running `true`.
pub fn write_pack(dir: &Path, id: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("pack.yaml"),
        format!(
            "hcp: \"1\"\nid: {id}\nname: Bench\nversion: 1.0.0\ndescription: A benchmark pack.\n\
             binding: {{kind: local}}\ncommands:\n  - key: run\n    summary: Run true\n    effect: read\n\
             \x20   args: [{{name: n, type: integer, default: 1}}]\n\
             \x20   adapter: {{kind: process, program: \"true\", argv: [\"{{n}}\"]}}\n\
             \x20 - key: write\n    summary: Write\n    effect: write\n    adapter: {{kind: process, program: \"true\"}}\n"
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        "---\nname: bench\ndescription: Bench.\n---\nUse `run` and `write`.\n",
    )
    .unwrap();
}
