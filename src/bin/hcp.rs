//! The `hcp` binary: the same program as `hcpx` (HCP §11.5).

fn main() -> std::process::ExitCode {
    hcpx::binary::main()
}
