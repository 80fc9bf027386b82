//! The `hcpx` binary.

fn main() -> std::process::ExitCode {
    let _ = color_eyre::install();
    hcpx::cli::main()
}
