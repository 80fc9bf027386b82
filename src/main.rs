//! The `hcpx` binary.

fn main() -> std::process::ExitCode {
    hcpx::binary::main()
}
