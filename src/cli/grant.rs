//! `hcpx grant PRINCIPAL GRANT` and `hcpx revoke PRINCIPAL GRANT` (HCP.md §9).

use crate::cli::context::Ctx;
use serde::Serialize;

pub use crate::command::args::grant::GrantArgs;

#[derive(Serialize)]
struct Changed<'a> {
    principal: &'a str,
    grant: &'a str,
    changed: bool,
    /// True when this grant turned on enforcement (§9.3).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    enforced_now: bool,
}

pub fn grant(args: &GrantArgs, ctx: &Ctx) -> i32 {
    ctx.with_engine(|engine| match engine.grant(&args.principal_name, &args.grant) {
        Ok(change) => ctx.success(
            Changed {
                principal: &args.principal_name,
                grant: &args.grant,
                changed: change.changed,
                enforced_now: change.enforced_now,
            },
            |c| {
                if c.changed {
                    println!("granted {} to {}", c.grant, c.principal);
                } else {
                    println!("{} already holds {}", c.principal, c.grant);
                }
                if c.enforced_now {
                    println!(
                        "grants are now enforced: each principal holds only what is granted to it (`user` keeps `*`)"
                    );
                }
            },
        ),
        Err(err) => ctx.fail(&err),
    })
}

pub fn revoke(args: &GrantArgs, ctx: &Ctx) -> i32 {
    ctx.with_engine(
        |engine| match engine.revoke(&args.principal_name, &args.grant) {
            Ok(changed) => ctx.success(
                Changed {
                    principal: &args.principal_name,
                    grant: &args.grant,
                    changed,
                    enforced_now: false,
                },
                |c| {
                    if c.changed {
                        println!("revoked {} from {}", c.grant, c.principal);
                    } else {
                        println!("{} did not hold {}", c.principal, c.grant);
                    }
                },
            ),
            Err(err) => ctx.fail(&err),
        },
    )
}
