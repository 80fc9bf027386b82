//! `hcpx mcp` driven by the official Python SDK's client (the `mcp`
//! package): initialize, tools/list, a call, a resource. `.ci/run`
//! installs the SDK into `target/mcp-venv`; elsewhere a `python3` that has
//! it is used, and without one the test says it was skipped (and fails
//! under `CI=true`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::mcp_server::sandbox;
use std::path::PathBuf;
use std::process::Command;

const CLIENT: &str = r#"
import asyncio, json, sys
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

async def main():
    server = StdioServerParameters(command=sys.argv[1], args=["mcp"], env={"HCP_HOME": sys.argv[2], "PATH": sys.argv[3]})
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            names = sorted(t.name for t in tools.tools)
            echo = next(t for t in tools.tools if t.name == "t_mcp__echo")
            result = await session.call_tool("t_mcp__echo", {"s": "py", "i": 7, "b": True})
            info = await session.call_tool("t_mcp__info", {})
            skill = await session.read_resource("hcp://skills/t-mcp/SKILL.md")
            print(json.dumps({
                "protocol": init.protocol_version,
                "server": init.server_info.name,
                "names": names,
                "required": echo.input_schema.get("required"),
                "text": result.content[0].text,
                "is_error": result.is_error,
                "structured": info.structured_content,
                "skill": skill.contents[0].text,
            }))

asyncio.run(main())
"#;

/// A Python with the SDK: the venv `.ci/run` makes, else `python3`.
fn python_with_sdk() -> Option<PathBuf> {
    let venv = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/mcp-venv/bin/python");
    for python in [venv, PathBuf::from("python3")] {
        let ok = Command::new(&python)
            .args(["-c", "import mcp.client.stdio"])
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            return Some(python);
        }
    }
    None
}

#[test]
fn the_python_sdk_client_lists_and_calls_tools() {
    let Some(python) = python_with_sdk() else {
        let what = "the Python MCP SDK (pip install mcp) is not installed";
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("{what} (CI=true: CI must not skip a test)");
        }
        eprintln!("skipped: the_python_sdk_client_lists_and_calls_tools: {what}");
        return;
    };
    let (sb, _) = sandbox();
    let hcpx = assert_cmd::cargo::cargo_bin("hcpx");
    let out = Command::new(python)
        .args(["-c", CLIENT])
        .arg(&hcpx)
        .arg(sb.home())
        .arg(std::env::var("PATH").unwrap_or_default())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["server"], "hcpx");
    assert_eq!(doc["protocol"].as_str().unwrap().len(), 10, "{doc}");
    assert!(
        doc["names"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n == "t_mcp__echo")
    );
    assert_eq!(doc["required"], serde_json::json!(["s"]));
    assert_eq!(doc["text"], "py|7|0.5|true|x");
    assert_eq!(doc["is_error"], false);
    assert_eq!(
        doc["structured"],
        serde_json::json!({"answer": 42, "list": [1, 2]})
    );
    assert_eq!(doc["skill"], crate::mcp_server::SKILL);
}
