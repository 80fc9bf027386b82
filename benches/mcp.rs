//! Benchmarks of `hcpx mcp` (HCP.md §16), on the release binary over raw
//! stdio lines: the overhead of a `tools/call` of a command that runs
//! `true` over spawning `true` directly (target ≤ 3 ms median), and
//! `tools/list` over 1,000 activated packs (target ≤ 50 ms), both when the
//! store is unchanged since the last list and just after another process
//! changed it (every pack read again). Run with
//! `cargo bench --bench mcp`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
use common::{median, write_pack};

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

const HCPX: &str = env!("CARGO_BIN_EXE_hcpx");

struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next: u64,
}

impl Server {
    fn start(home: &std::path::Path) -> Server {
        let mut child = Command::new(HCPX)
            .arg("mcp")
            .env("HCP_HOME", home)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut server = Server {
            child,
            stdin,
            stdout,
            next: 0,
        };
        server.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25",
            "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}),
        );
        writeln!(
            server.stdin,
            r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
        )
        .unwrap();
        server
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
        loop {
            let mut text = String::new();
            assert!(self.stdout.read_line(&mut text).unwrap() > 0);
            let reply: Value = serde_json::from_str(&text).unwrap();
            if reply["id"] == id {
                assert!(reply.get("error").is_none(), "{reply}");
                return reply;
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The user and system CPU time of process `pid` so far (Linux
/// `/proc/PID/stat`, in clock ticks of 10 ms).
fn cpu_ms(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // The fields after the command name, which ends at the last ')'.
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    ticks * 10.0
}

fn time_runs(runs: usize, mut f: impl FnMut()) -> Duration {
    f();
    median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .collect(),
    )
}

/// A store of 1,000 installed, activated and connected packs at `home`.
fn store_of_1000(home: &std::path::Path) {
    let status = Command::new(HCPX)
        .arg("list")
        .env("HCP_HOME", home)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let ids: Vec<String> = (0..1000).map(|i| format!("bench.p{i:04}")).collect();
    for id in &ids {
        write_pack(&home.join("packs").join(id), id);
    }
    let mut all = ids.clone();
    all.push("hcp-cli".into());
    all.sort();
    std::fs::write(
        home.join("state.json"),
        serde_json::to_string(&json!({"activated": all, "connected": all})).unwrap(),
    )
    .unwrap();
}

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    store_of_1000(&home);
    // Past the lint cache's racy margin (2 s), as a user's store is: the
    // first list writes the cache entries the later reads trust.
    std::thread::sleep(Duration::from_millis(2500));
    let mut server = Server::start(&home);
    let listed = server.request("tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().unwrap().len();
    assert!(tools >= 2000, "{tools} tools");

    let spawn_true = time_runs(200, || {
        Command::new("true").status().unwrap();
    });
    let call = time_runs(200, || {
        let r = server.request(
            "tools/call",
            json!({"name": "bench_p0000__run", "arguments": {"n": 3}}),
        );
        assert_eq!(r["result"]["isError"], false, "{r}");
    });
    let list = time_runs(20, || {
        server.request("tools/list", json!({}));
    });
    // Another process changed the store (state.json written again, as a
    // grant or an activation writes it): the next list reads every pack.
    let state = home.join("state.json");
    let state_text = std::fs::read(&state).unwrap();
    let mut changes = Vec::new();
    let cpu_before = cpu_ms(server.child.id());
    for _ in 0..20 {
        std::fs::write(&state, &state_text).unwrap();
        let t = Instant::now();
        server.request("tools/list", json!({}));
        changes.push(t.elapsed());
    }
    let changed = median(changes);
    // CPU time the server spent per list: what a load on the machine
    // inflates least.
    let changed_cpu = (cpu_ms(server.child.id()) - cpu_before) / 20.0;
    // The same pass as a process of its own, for scale.
    let availability = time_runs(10, || {
        let out = Command::new(HCPX)
            .args(["availability", "--json"])
            .env("HCP_HOME", &home)
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(out.success());
    });
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "spawn `true` directly:                 {:8.2} ms",
        ms(spawn_true)
    );
    println!(
        "tools/call of a command running `true`: {:8.2} ms",
        ms(call)
    );
    println!(
        "tools/call overhead:                   {:8.2} ms  (target <= 3 ms)",
        ms(call.saturating_sub(spawn_true))
    );
    println!(
        "tools/list, 1,000 packs ({tools} tools):  {:8.2} ms  (target <= 50 ms)",
        ms(list)
    );
    println!(
        "tools/list after the store changed:    {:8.2} ms  (target <= 50 ms)",
        ms(changed)
    );
    println!("  of which the server's CPU time:       {changed_cpu:8.2} ms");
    println!(
        "`hcpx availability --json`, same store: {:8.2} ms",
        ms(availability)
    );
}
