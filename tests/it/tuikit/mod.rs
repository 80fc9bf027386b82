//! Helpers for the TUI tests: a throwaway store and catalog, packs written
//! on the fly, and the app driven headless on ratatui's `TestBackend`.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers, MouseEvent, MouseEventKind};
use hcpx::engine::ops::Engine;
use hcpx::engine::pack::id::PackId;
use hcpx::tui::theme::Theme;
use hcpx::tui::{App, Config, Runner, run_headless};
use ratatui::Terminal;
use ratatui::backend::{Backend, ClearType, TestBackend, WindowSize};
use ratatui::buffer::Cell;
use ratatui::layout::{Position, Size};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tempfile::TempDir;

/// A store, a catalog and the TUI on a `TestBackend`.
pub struct Tui {
    pub dir: TempDir,
    pub runner: Runner<TestBackend>,
}

/// A temp folder with `home/` (the store) and `catalog/`.
pub fn sandbox() -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("catalog")).unwrap();
    dir
}

/// A [`sandbox`] whose catalog holds the pack `write` writes (for example
/// [`notes_pack`]).
pub fn sandbox_with(write: fn(&Path)) -> TempDir {
    let dir = sandbox();
    write(&catalog(&dir));
    dir
}

pub fn home(dir: &TempDir) -> PathBuf {
    dir.path().join("home")
}

pub fn catalog(dir: &TempDir) -> PathBuf {
    dir.path().join("catalog")
}

/// The engine the TUI uses, for checking and changing the store. Its
/// harness targets live under [`user_home`], never the real home folder
/// (and no test changes the process's `HOME`).
pub fn engine(dir: &TempDir) -> Engine {
    let mut engine = Engine::open(&home(dir), &[catalog(dir)], "user").unwrap();
    engine.set_harness_env(hcpx::engine::harness::HarnessEnv {
        home: user_home(dir),
        ..Default::default()
    });
    engine
}

/// `id` as the checked pack id the engine takes.
pub fn pack(id: &str) -> PackId {
    PackId::parse(id).unwrap_or_else(|| panic!("`{id}` is not a pack id"))
}

/// `engine` grants `grant` to `principal` (§9.4), the words checked.
pub fn grant(
    engine: &Engine,
    principal: &str,
    grant: &str,
) -> hcpx::engine::error::Result<hcpx::engine::policy::grants::GrantChange> {
    use hcpx::engine::policy::grants::{Principal, parse_grant};
    engine.grant(&Principal::parse(principal)?, &parse_grant(grant)?)
}

/// `engine` revokes `grant` from `principal` (§9.4).
pub fn revoke(engine: &Engine, principal: &str, grant: &str) -> hcpx::engine::error::Result<bool> {
    let principal = hcpx::engine::policy::grants::Principal::parse(principal)?;
    engine.revoke(&principal, grant)
}

/// Installs `id` from the catalog and activates it: the usual start of a
/// test about an active pack. Returns the engine for further changes.
pub fn install_active(dir: &TempDir, id: &str) -> Engine {
    let engine = engine(dir);
    engine.install(id, false).unwrap();
    engine.activate(&[pack(id)]);
    engine
}

/// [`install_active`], then connects `id` (a pack that needs no secret).
pub fn install_connected(dir: &TempDir, id: &str) -> Engine {
    let engine = install_active(dir, id);
    engine.connect(&pack(id), &mut no_secret).unwrap();
    engine
}

/// The fake home folder the harness targets of [`engine`] live in.
pub fn user_home(dir: &TempDir) -> PathBuf {
    dir.path().join("user")
}

/// The test configuration: no timings, catalogs shown as `./catalog`.
pub fn config() -> Config {
    let mut config = Config::new("user");
    config.catalog_args = vec!["./catalog".into()];
    config.show_timings = false;
    config.theme = Theme::COLOR;
    config
}

impl Tui {
    /// Starts the TUI on `dir`'s store at `width`×`height` and waits for the
    /// first snapshot.
    pub async fn start(dir: TempDir, width: u16, height: u16) -> Tui {
        Tui::start_with(dir, width, height, config()).await
    }

    pub async fn start_with(dir: TempDir, width: u16, height: u16, config: Config) -> Tui {
        let terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
        let runner = Runner::new(engine(&dir), App::new(config), terminal);
        let mut tui = Tui { dir, runner };
        run_headless(&mut tui.runner, []).await.unwrap();
        tui
    }

    /// Starts the TUI (see [`Tui::start`]) and selects pack `id`.
    pub async fn start_at(dir: TempDir, id: &str, width: u16, height: u16) -> Tui {
        let mut tui = Tui::start(dir, width, height).await;
        tui.select(id).await;
        tui
    }

    pub fn home(&self) -> PathBuf {
        home(&self.dir)
    }

    pub fn catalog(&self) -> PathBuf {
        catalog(&self.dir)
    }

    pub fn engine(&self) -> Engine {
        engine(&self.dir)
    }

    /// The screen as text, one line per row, trailing spaces trimmed.
    pub fn screen(&self) -> String {
        screen(self.runner.terminal.backend())
    }

    /// Sends events, each followed by the work it started.
    pub async fn send(&mut self, events: Vec<Event>) {
        run_headless(&mut self.runner, events).await.unwrap();
    }

    /// Types each character of `keys` as a key press.
    pub async fn keys(&mut self, keys: &str) {
        self.send(keys.chars().map(|c| key(KeyCode::Char(c))).collect())
            .await;
    }

    pub async fn press(&mut self, code: KeyCode) {
        self.send(vec![key(code)]).await;
    }

    /// Selects a pack by filtering for its id (`/ID`, Enter).
    pub async fn select(&mut self, id: &str) {
        self.press(KeyCode::Esc).await;
        self.keys("/").await;
        self.keys(id).await;
        self.press(KeyCode::Enter).await;
        let selected = self.runner.app.selected_row().map(|e| e.id().to_string());
        assert_eq!(selected.as_deref(), Some(id), "{}", self.screen());
    }

    /// Lets the clock run until the status line has let go of its
    /// message (the log keeps it): for a snapshot taken after an outcome
    /// whose words name a path of the temp store.
    pub async fn clear_status(&mut self) {
        for _ in 0..=hcpx::tui::app::NOTICE_TICKS {
            self.runner.dispatch(hcpx::tui::action::Action::Tick);
        }
        self.runner.settle().await.unwrap();
    }

    /// Resizes the terminal and tells the app.
    pub async fn resize(&mut self, width: u16, height: u16) {
        self.runner.terminal.backend_mut().resize(width, height);
        self.send(vec![Event::Resize(width, height)]).await;
    }

    pub async fn click(&mut self, column: u16, row: u16) {
        self.send(vec![Event::Mouse(MouseEvent {
            kind: MouseEventKind::Down(crossterm::event::MouseButton::Left),
            column,
            row,
            modifiers: KeyModifiers::NONE,
        })])
        .await;
    }

    /// `state.json` as JSON.
    pub fn state(&self) -> serde_json::Value {
        let text = std::fs::read_to_string(self.home().join("state.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    /// The activated packs, sorted (`state.json` keeps them in activation
    /// order).
    pub fn activated(&self) -> Vec<String> {
        let mut ids = list(&self.state()["activated"]);
        ids.sort();
        ids
    }

    pub fn connected(&self) -> Vec<String> {
        list(&self.state()["connected"])
    }

    pub fn installed(&self, id: &str) -> bool {
        self.home().join("packs").join(id).is_dir()
    }
}

/// A list of ids in `state.json`. Anything else fails the test: "not in
/// the list" must not also mean "no list".
fn list(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("state.json: not a list: {v}"))
        .iter()
        .map(|s| {
            s.as_str()
                .unwrap_or_else(|| panic!("state.json: not an id: {s}"))
                .to_string()
        })
        .collect()
}

/// A `TestBackend` that publishes the text of every frame it shows, so a
/// test can wait for what the app drew while `Runner::run` owns the
/// terminal.
pub struct WatchedBackend {
    inner: TestBackend,
    shown: Arc<Mutex<String>>,
}

impl WatchedBackend {
    pub fn new(width: u16, height: u16) -> WatchedBackend {
        WatchedBackend {
            inner: TestBackend::new(width, height),
            shown: Arc::new(Mutex::new(String::new())),
        }
    }

    /// The last frame shown, as [`screen`] text; updated on every flush.
    pub fn shown(&self) -> Arc<Mutex<String>> {
        Arc::clone(&self.shown)
    }

    pub fn inner(&self) -> &TestBackend {
        &self.inner
    }
}

impl Backend for WatchedBackend {
    type Error = <TestBackend as Backend>::Error;

    fn draw<'a, I>(&mut self, content: I) -> Result<(), Self::Error>
    where
        I: Iterator<Item = (u16, u16, &'a Cell)>,
    {
        self.inner.draw(content)
    }

    fn append_lines(&mut self, n: u16) -> Result<(), Self::Error> {
        self.inner.append_lines(n)
    }

    fn hide_cursor(&mut self) -> Result<(), Self::Error> {
        self.inner.hide_cursor()
    }

    fn show_cursor(&mut self) -> Result<(), Self::Error> {
        self.inner.show_cursor()
    }

    fn get_cursor_position(&mut self) -> Result<Position, Self::Error> {
        self.inner.get_cursor_position()
    }

    fn set_cursor_position<P: Into<Position>>(&mut self, position: P) -> Result<(), Self::Error> {
        self.inner.set_cursor_position(position)
    }

    fn clear(&mut self) -> Result<(), Self::Error> {
        self.inner.clear()
    }

    fn clear_region(&mut self, clear_type: ClearType) -> Result<(), Self::Error> {
        self.inner.clear_region(clear_type)
    }

    fn size(&self) -> Result<Size, Self::Error> {
        self.inner.size()
    }

    fn window_size(&mut self) -> Result<WindowSize, Self::Error> {
        self.inner.window_size()
    }

    fn flush(&mut self) -> Result<(), Self::Error> {
        self.inner.flush()?;
        *self.shown.lock().unwrap() = screen(&self.inner);
        Ok(())
    }
}

/// A secret input for packs that need none.
pub fn no_secret(
    _: &hcpx::engine::pack::manifest::SecretSpec,
) -> Result<String, hcpx::engine::error::Error> {
    panic!("no secret expected")
}

/// A key press.
pub fn key(code: KeyCode) -> Event {
    Event::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

pub fn ctrl(c: char) -> Event {
    Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
}

/// The backend's screen as text.
pub fn screen(backend: &TestBackend) -> String {
    let buffer = backend.buffer();
    let mut out = String::new();
    for y in 0..buffer.area.height {
        let mut line = String::new();
        for x in 0..buffer.area.width {
            line.push_str(buffer[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Writes a pack folder `catalog/<dir>` with a manifest and a Skill.
pub fn write_pack(catalog: &Path, dir: &str, manifest: &str, skill: &str) -> PathBuf {
    let root = catalog.join(dir);
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("pack.yaml"), manifest).unwrap();
    std::fs::write(root.join("SKILL.md"), skill).unwrap();
    root
}

/// Writes `catalog/<id>`: a pack whose one `read` command `key` runs
/// `program`, bound by `binding` (a YAML flow mapping).
pub fn one_command_pack(
    catalog: &Path,
    id: &str,
    (name, description): (&str, &str),
    binding: &str,
    key: &str,
    program: &str,
) {
    let mut summary = key.to_string();
    summary[..1].make_ascii_uppercase();
    write_pack(
        catalog,
        id,
        &format!(
            "hcp: \"1\"\nid: {id}\nname: {name}\nversion: 1.0.0\ndescription: {description}\nbinding: {binding}\ncommands:\n  - key: {key}\n    summary: {summary}\n    effect: read\n    adapter: {{kind: process, program: \"{program}\"}}\n"
        ),
        &format!(
            "---\nname: {}\ndescription: {name}.\n---\nRun `{key}`.\n",
            id.replace('.', "-")
        ),
    );
}

/// `dir` with `acme.notes` 1.2.0 installed from its catalog, whose catalog
/// then has 1.3.0, otherwise the same (a plain upgrade).
pub fn notes_with_a_newer_version(dir: &TempDir) {
    engine(dir).install("acme.notes", false).unwrap();
    let manifest = catalog(dir).join("acme.notes/pack.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replace("version: 1.2.0", "version: 1.3.0")).unwrap();
}

/// Types `:LINE` and Enter.
pub async fn colon(tui: &mut Tui, line: &str) {
    tui.keys(":").await;
    tui.keys(line).await;
    tui.press(crossterm::event::KeyCode::Enter).await;
}

/// The command log's newest entry.
pub fn last_entry(tui: &Tui) -> hcpx::tui::log::LogEntry {
    tui.runner.app.log().entries.last().unwrap().clone()
}

/// What the Output pane shows of the newest answer (its words, or its
/// document after `J`); empty without one.
pub fn shown_report(tui: &Tui) -> String {
    tui.runner
        .app
        .report()
        .map(|r| r.shown().to_string())
        .unwrap_or_default()
}

/// `acme.probe`: a `local` Binding whose probe `check` runs `false`, so
/// every connect fails.
pub fn failing_probe_pack(catalog: &Path) {
    one_command_pack(
        catalog,
        "acme.probe",
        ("Probe", "A failing probe."),
        "{kind: local, probe: check}",
        "check",
        "false",
    );
}

/// `dir` with `acme.notes` 1.2.0 installed from its catalog, whose catalog
/// then has 1.3.0 with a new `wipe` command running `rm` (an escalation).
pub fn notes_with_an_update(dir: TempDir) -> TempDir {
    notes_pack(&catalog(&dir));
    engine(&dir).install("acme.notes", false).unwrap();
    let manifest = catalog(&dir).join("acme.notes/pack.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let text = text.replace("version: 1.2.0", "version: 1.3.0")
        + "  - key: wipe\n    summary: Remove every note\n    effect: write\n    adapter: {kind: process, program: rm, argv: [\"-rf\", \"notes\"]}\n";
    std::fs::write(&manifest, text).unwrap();
    dir
}

/// `acme.notes`: a `local` Binding whose probe is `hello`; `hello` echoes.
pub fn notes_pack(catalog: &Path) {
    write_pack(
        catalog,
        "acme.notes",
        r#"hcp: "1"
id: acme.notes
name: Acme notes
version: 1.2.0
description: Keep short notes in a local folder.
binding:
  kind: local
  probe: hello
commands:
  - key: hello
    summary: Say hello
    effect: read
    args:
      - {name: who, type: string, default: world, description: Whom to greet}
    adapter: {kind: process, program: echo, argv: ["hello", "{who}"]}
  - key: add
    summary: Add a note
    effect: write
    args:
      - {name: text, type: string, required: true}
    adapter: {kind: process, program: "true"}
"#,
        "---\nname: acme-notes\ndescription: Keep notes for the user.\n---\n# Notes\n\nRun `hello` to check the folder, `add` to add a note.\n",
    );
}

/// `acme.vault`: a `secret` Binding, no probe.
pub fn vault_pack(catalog: &Path) {
    write_pack(
        catalog,
        "acme.vault",
        r#"hcp: "1"
id: acme.vault
name: Acme vault
version: 0.3.0
description: Read entries from the Acme vault with a token.
binding:
  kind: secret
  secret: {name: VAULT_TOKEN, prompt: Acme vault token}
commands:
  - key: whoami
    summary: Show the token's owner
    effect: read
    adapter: {kind: process, program: "true"}
"#,
        "---\nname: acme-vault\ndescription: Vault access.\n---\nRun `whoami` first.\n",
    );
}

/// `acme.broken`: a catalog pack with lint errors and warnings.
pub fn broken_pack(catalog: &Path) {
    write_pack(
        catalog,
        "acme.broken",
        r#"hcp: "1"
id: acme.broken
name: Broken pack
version: one
description: A pack with lint errors.
binding: {kind: env}
frobnicate: true
commands:
  - key: list
    summary: List things
    effect: maybe
    adapter: {kind: process, program: ls}
"#,
        "---\nname: acme-broken\n---\nNothing useful here.\n",
    );
}

/// `acme.mixed`: commands that cannot run for different reasons: a
/// program not on PATH, an adapter kind hcpx cannot run, and a write.
pub fn mixed_pack(catalog: &Path) {
    write_pack(
        catalog,
        "acme.mixed",
        r#"hcp: "1"
id: acme.mixed
name: Acme mixed
version: 2.0.0
description: Commands with every kind of problem.
commands:
  - key: ok
    summary: Works
    effect: read
    adapter: {kind: process, program: "true"}
  - key: missing
    summary: Needs a program that is not installed
    effect: read
    adapter: {kind: process, program: hcpx-test-no-such-program}
  - key: remote
    summary: Uses an adapter hcpx cannot run
    effect: read
    adapter: {kind: grpc}
  - key: write
    summary: Changes something
    effect: write
    adapter: {kind: process, program: "true"}
"#,
        "---\nname: acme-mixed\ndescription: Mixed.\n---\nRun `ok`, `missing`, `remote` or `write`.\n",
    );
}

/// `count` small valid packs `bulk.pack-000`...
pub fn many_packs(catalog: &Path, count: usize) {
    for i in 0..count {
        let id = format!("bulk.pack-{i:03}");
        write_pack(
            catalog,
            &id,
            &format!(
                "hcp: \"1\"\nid: {id}\nname: Bulk {i}\nversion: 1.0.{i}\ndescription: Bulk pack number {i}.\ncommands:\n  - key: run\n    summary: Run\n    effect: read\n    adapter: {{kind: process, program: \"true\"}}\n"
            ),
            &format!("---\nname: bulk-{i}\ndescription: Bulk.\n---\nUse `run`.\n"),
        );
    }
}
