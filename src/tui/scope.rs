//! The project scope in the TUI (HCP.md §15.1, §15.5). Inside a project
//! the TUI shows the project's packs and the user store's, each row with
//! the store that holds it ([`Row::held`]), a user pack that a project
//! pack of the same id shadows marked as such ([`merge`]); a key that acts
//! on a pack acts on the store that holds it, and `S` switches where
//! installing from a catalog goes ([`Scopes`]). [`Stores`] holds the
//! engines the workers run on: the scope's, and the user store's beside a
//! project's. Outside a project (or with `-g`) there is one store, the
//! user's, and nothing here shows.

use crate::engine::ops::Engine;
pub use crate::engine::project::Scope as Store;
use crate::tui::job::Row;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Where the TUI runs, and where an install goes.
#[derive(Debug, Clone, Default)]
pub struct Scopes {
    /// The project's folder, when the TUI runs in one.
    project: Option<PathBuf>,
    /// Where installing from a catalog goes (`S` switches it); always the
    /// user store outside a project.
    adds_to: Option<Store>,
}

impl Scopes {
    /// Inside the project at `root`: installs go to the project at first.
    pub fn in_project(root: &Path) -> Scopes {
        Scopes {
            project: Some(root.to_path_buf()),
            adds_to: Some(Store::Project),
        }
    }

    /// The project's folder, inside one.
    pub fn project(&self) -> Option<&Path> {
        self.project.as_deref()
    }

    /// Where installing from a catalog goes.
    pub fn adds_to(&self) -> Store {
        self.adds_to.unwrap_or(Store::User)
    }

    /// `S`: the other store takes the installs; outside a project, why
    /// there is no other.
    pub fn toggle(&mut self) -> Result<Store, String> {
        if self.project.is_none() {
            return Err(
                "outside a project every key acts on the user store (hcpx init makes a project)"
                    .into(),
            );
        }
        let next = match self.adds_to() {
            Store::Project => Store::User,
            Store::User => Store::Project,
        };
        self.adds_to = Some(next);
        Ok(next)
    }

    /// The flag a command acting on `store` needs: `-g` for the user
    /// store inside a project (§15.1), else none.
    pub fn flag(&self, store: Store) -> Option<&'static str> {
        (self.project.is_some() && store == Store::User).then_some("-g")
    }

    /// The project's folder name, for the browser's title.
    pub fn project_name(&self) -> Option<String> {
        let root = self.project.as_deref()?;
        let name = root.file_name().map_or_else(
            || root.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        Some(name)
    }

    /// The words of the browser's title inside a project: the project,
    /// and where installs go.
    pub fn title(&self) -> Option<String> {
        let name = self.project_name()?;
        Some(format!(
            "project {} (installs: {})",
            crate::tui::text::one_line(&name),
            self.adds_to().as_str()
        ))
    }

    /// The terminal's window title, set once at the start: the project's
    /// folder, else the user store at `user_home` (where installs go, which
    /// `S` changes, is the browser's title).
    pub fn window_title(&self, user_home: &Path) -> String {
        match &self.project {
            Some(root) => format!("hcpx — project {}", root.display()),
            None => format!("hcpx — user store {}", user_home.display()),
        }
    }

    /// `store` in words: `the project's store`, `the user store`.
    pub fn store_words(store: Store) -> &'static str {
        match store {
            Store::Project => "the project's store",
            Store::User => "the user store",
        }
    }

    /// How a row's scope shows in the browser's SCOPE column.
    pub fn tag(row: &Row) -> &'static str {
        match (row.held, row.shadowed) {
            (_, true) => "shadowed",
            (Some(store), false) => store.as_str(),
            (None, false) => "-",
        }
    }

    /// The store a key acting on `row` acts on: the one that holds it,
    /// else (a catalog pack) where installs go.
    pub fn store_of(&self, row: &Row) -> Store {
        match self.project {
            None => Store::User,
            Some(_) => row.held.unwrap_or(self.adds_to()),
        }
    }
}

/// The engines jobs run on: `main`, the scope's (the project's inside
/// one), and beside a project's the user store's.
#[derive(Debug, Clone)]
pub struct Stores {
    pub main: Engine,
    pub user: Option<Engine>,
}

impl Stores {
    /// One store: the user's, or a project's with `-g` left out.
    pub fn one(engine: Engine) -> Stores {
        Stores {
            main: engine,
            user: None,
        }
    }

    /// The engine of `store`.
    pub fn of(&self, store: Store) -> &Engine {
        match (store, &self.user) {
            (Store::User, Some(user)) => user,
            _ => &self.main,
        }
    }

    /// Every engine: the main one, then the user store's.
    pub fn all(&self) -> Vec<&Engine> {
        std::iter::once(&self.main)
            .chain(self.user.as_ref())
            .collect()
    }

    /// The engine a row of `id` is read from: the store `held` names, else
    /// the one that has the pack installed now (the project's first), else
    /// the main one (a catalog pack).
    pub fn holding(&self, id: &str, held: Option<Store>) -> (&Engine, Store) {
        let main = self.main.scope();
        let Some(user) = &self.user else {
            return (&self.main, main);
        };
        if let Some(store) = held {
            return (self.of(store), store);
        }
        let has = |engine: &Engine| {
            crate::engine::pack::id::PackId::parse(id).is_some_and(|id| {
                crate::engine::store::Store::holds_at(engine.store().root(), &id, false)
            })
        };
        if !has(&self.main) && has(user) {
            return (user, Store::User);
        }
        (&self.main, main)
    }
}

/// The rows of both stores as one list (§15.5): the project's packs, the
/// user store's (a user pack whose id the project holds too is
/// `shadowed`), and each catalog pack neither installs, once; sorted by
/// id, a project row before the shadowed user row of its id.
pub fn merge(project: Vec<Row>, user: Vec<Row>) -> Vec<Row> {
    let in_project: BTreeSet<Box<str>> = project
        .iter()
        .filter(|r| r.installed)
        .map(|r| r.id.clone())
        .collect();
    let in_user: BTreeSet<Box<str>> = user
        .iter()
        .filter(|r| r.installed)
        .map(|r| r.id.clone())
        .collect();
    let mut rows: Vec<Row> = Vec::with_capacity(project.len() + in_user.len());
    for row in project {
        if row.installed || !in_user.contains(&row.id) {
            rows.push(row.in_store(Store::Project, false));
        }
    }
    for row in user {
        if row.installed {
            let shadowed = in_project.contains(&row.id);
            rows.push(row.in_store(Store::User, shadowed));
        } else if !rows.iter().any(|r| r.id == row.id) && !in_project.contains(&row.id) {
            rows.push(row.in_store(Store::User, false));
        }
    }
    rows.sort_by(|a, b| (&a.id, a.shadowed).cmp(&(&b.id, b.shadowed)));
    rows.dedup_by(|a, b| a.key() == b.key());
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::pack::manifest::PackKind;
    use crate::engine::policy::availability::Status;

    fn row(id: &str, installed: bool) -> Row {
        Row {
            id: id.into(),
            kind: PackKind::Pack,
            version: None,
            description: "".into(),
            status: if installed {
                Status::Installed
            } else {
                Status::Available
            },
            installed,
            activated: false,
            connected: false,
            bound: false,
            catalog_dir: None,
            verbs: Default::default(),
            haystack: Default::default(),
            held: None,
            shadowed: false,
        }
    }

    #[test]
    fn both_stores_show_a_shadowed_user_pack_after_the_project_one() {
        let project = vec![
            row("a.both", true),
            row("a.cat", false),
            row("a.proj", true),
        ];
        let user = vec![
            row("a.both", true),
            row("a.cat", false),
            row("a.user", true),
        ];
        let rows = merge(project, user);
        let tags: Vec<(&str, &str)> = rows.iter().map(|r| (r.id(), Scopes::tag(r))).collect();
        assert_eq!(
            tags,
            vec![
                ("a.both", "project"),
                ("a.both", "shadowed"),
                ("a.cat", "-"),
                ("a.proj", "project"),
                ("a.user", "user"),
            ]
        );
    }

    #[test]
    fn a_catalog_pack_the_user_store_installs_shows_once_as_the_user_s() {
        let rows = merge(vec![row("a.cat", false)], vec![row("a.cat", true)]);
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].held, Some(Store::User));
        assert!(!rows[0].shadowed);
    }

    #[test]
    fn s_switches_installs_only_inside_a_project() {
        let mut outside = Scopes::default();
        assert!(outside.toggle().is_err());
        assert_eq!(outside.flag(Store::User), None);
        let mut inside = Scopes::in_project(Path::new("/work/demo"));
        assert_eq!(inside.adds_to(), Store::Project);
        assert_eq!(inside.toggle(), Ok(Store::User));
        assert_eq!(inside.flag(Store::User), Some("-g"));
        assert_eq!(inside.flag(Store::Project), None);
        assert_eq!(
            inside.title().as_deref(),
            Some("project demo (installs: user)")
        );
        assert_eq!(
            inside.window_title(Path::new("/home/me/.hcp")),
            "hcpx — project /work/demo"
        );
        assert_eq!(
            outside.window_title(Path::new("/home/me/.hcp")),
            "hcpx — user store /home/me/.hcp"
        );
    }
}
