//! The clap arguments of `hcpx grant`.

/// A principal and a grant
#[derive(Debug, clap::Args)]
pub struct GrantArgs {
    /// The principal whose grants change, e.g. agent
    #[arg(value_name = "PRINCIPAL")]
    pub principal_name: String,
    /// A capability (pack.install, pack.connect, verb.exec.read, verb.exec.write or *), optionally scoped to one pack as CAPABILITY:PACK_ID
    #[arg(value_name = "GRANT")]
    pub grant: String,
    #[command(flatten)]
    pub json: super::JsonArg,
    #[command(flatten)]
    pub principal: super::PrincipalArg,
}
