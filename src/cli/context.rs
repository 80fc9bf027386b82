//! What every subcommand shares: the output mode, the principal, the store
//! location and the catalogs, turned into an [`Engine`].

use crate::cli::GlobalArgs;
use crate::cli::output::Output;
use crate::engine::error::{Error, ErrorCode, Result};
use crate::engine::ops::Engine;
use crate::engine::policy::grants::DEFAULT_PRINCIPAL;
use crate::engine::store;
use serde::Serialize;

/// One invocation's settings.
#[derive(Debug, Clone)]
pub struct Ctx {
    pub out: Output,
    pub global: GlobalArgs,
}

/// A success document: `{"ok": true, ...fields}`.
#[derive(Serialize)]
pub struct Success<T: Serialize> {
    pub ok: bool,
    #[serde(flatten)]
    pub body: T,
}

impl Ctx {
    pub fn new(global: GlobalArgs) -> Self {
        Ctx {
            out: Output::new(global.json),
            global,
        }
    }

    /// `--principal`, else `$HCP_PRINCIPAL`, else `user` (§9.1).
    pub fn principal(&self) -> String {
        self.global
            .principal
            .clone()
            .or_else(|| {
                std::env::var("HCP_PRINCIPAL")
                    .ok()
                    .filter(|p| !p.is_empty())
            })
            .unwrap_or_else(|| DEFAULT_PRINCIPAL.to_string())
    }

    /// Opens the store (`$HCP_HOME`, else `~/.hcp`).
    pub fn engine(&self) -> Result<Engine> {
        let home = store::default_home().ok_or_else(|| {
            Error::new(ErrorCode::Io, "cannot find a home folder for the store")
                .hint("set HCP_HOME to the folder hcpx should use")
        })?;
        Engine::open(&home, &self.global.catalogs, &self.principal())
    }

    /// Prints a success document (JSON) or runs `text` to print text.
    pub fn success<T: Serialize>(&self, body: T, text: impl FnOnce(&T)) -> i32 {
        if self.out.json {
            self.out.json(&Success { ok: true, body });
        } else {
            text(&body);
        }
        0
    }

    /// Reports an error; returns the exit code of §10.2.
    pub fn fail(&self, err: &Error) -> i32 {
        self.out.error(err);
        err.code.exit_code()
    }

    /// Runs `f` with an engine, reporting any error.
    pub fn with_engine(&self, f: impl FnOnce(&Engine) -> i32) -> i32 {
        match self.engine() {
            Ok(engine) => f(&engine),
            Err(err) => self.fail(&err),
        }
    }
}
