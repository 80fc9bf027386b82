//! The event loop. One task `select!`s over terminal events (crossterm's
//! `EventStream`), a tick, and the channel the workers report on; each
//! becomes an [`Action`] for `App::update`, whose jobs run on tokio's
//! blocking pool, each inside the app's [`Scope`] (so that quitting or
//! cancelling ends the commands they started, HCP.md §14.6). Redraws are
//! coalesced: at most one frame every
//! [`FRAME`], and only when something changed.
//!
//! Inside a project the runner holds the engines of both stores
//! ([`Runner::with_user_store`], `tui::scope::Stores`); each job picks
//! the one of the store it is about.
//!
//! The same [`Runner`] drives any ratatui backend: tests use `TestBackend`
//! and [`run_headless`] (or [`Runner::dispatch`] and [`Runner::settle`]).

use crate::engine::exec::process::Scope;
use crate::engine::ops::Engine;
use crate::tui::action::Action;
use crate::tui::app::App;
use crate::tui::job::{Job, JobResult};
use crate::tui::keymap;
use crate::tui::keyqueue::{self, KeyQueue};
use crate::tui::scope::{Scopes, Stores};
use crate::tui::ui;
use crate::tui::worker;
use crossterm::event::{Event, KeyEventKind};
use futures::{Stream, StreamExt};
use ratatui::Terminal;
use ratatui::backend::Backend;
use std::io;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::time::{Instant, MissedTickBehavior};

/// The clock: spinner frames, and every tenth tick a look at the store.
pub const TICK: Duration = Duration::from_millis(100);
/// The shortest time between two frames.
pub const FRAME: Duration = Duration::from_millis(16);
/// How long [`Runner::settle`] waits for one worker before giving up.
const SETTLE_TIMEOUT: Duration = Duration::from_secs(120);

/// The app, its terminal, and the workers' channel.
pub struct Runner<B: Backend> {
    pub app: App,
    pub terminal: Terminal<B>,
    /// The engines jobs run on (the scope's, and the user store's beside
    /// a project's): [`Runner::base`] set up for the app's session
    /// (principal, `env` values, catalogs), made again when the session's
    /// generation moves.
    engine: Arc<Stores>,
    base: Stores,
    generation: u64,
    tx: UnboundedSender<Action>,
    rx: UnboundedReceiver<Action>,
    in_flight: usize,
    dirty: bool,
    last_draw: Option<Instant>,
    /// Frames drawn (for tests and benchmarks).
    pub frames: u64,
    /// Key presses handled, counted for the `debug` log.
    keys: u64,
    /// The loader thread's queue (see [`is_heavy`]).
    heavy: std::sync::mpsc::Sender<(Arc<Stores>, Job)>,
    /// Keys waiting for the selected pack's read (see [`keyqueue`]).
    queue: KeyQueue,
}

/// Jobs that read every catalog pack (the snapshot; `install ID`, which
/// looks the id up in the catalogs) run one at a time on one long-lived
/// thread. Their large short-lived allocations then always reuse that
/// thread's memory instead of each leaving a copy resident in another
/// thread's allocator arena.
fn is_heavy(job: &Job) -> bool {
    match job {
        Job::In { job, .. } => is_heavy(job),
        Job::PerStore(jobs) => jobs.iter().any(is_heavy),
        _ => matches!(
            job,
            Job::Load | Job::Stage { .. } | Job::InstallChosen { .. }
        ),
    }
}

/// Runs `job`, catching a panic, and reports the result on `tx`.
fn run_job(engine: &Stores, job: Job, tx: &UnboundedSender<Action>) {
    let label = job.label();
    let run = std::panic::AssertUnwindSafe(|| worker::run(engine, job, tx));
    let result = std::panic::catch_unwind(run).unwrap_or_else(|_| {
        tracing::error!(job = %label, "a worker panicked");
        JobResult::Panicked(format!("hcpx tui: a worker panicked while {label}"))
    });
    let _ = tx.send(Action::Done(result));
}

/// Starts the loader thread; it ends when its queue's sender is dropped.
fn start_loader(
    tx: UnboundedSender<Action>,
    scope: Scope,
) -> std::sync::mpsc::Sender<(Arc<Stores>, Job)> {
    let (heavy, jobs) = std::sync::mpsc::channel::<(Arc<Stores>, Job)>();
    let spawned = std::thread::Builder::new()
        .name("hcpx-loader".into())
        .spawn(move || {
            for (engine, job) in jobs {
                scope.run(|| run_job(&engine, job, &tx));
            }
        });
    if let Err(err) = spawned {
        tracing::error!(%err, "cannot start the loader thread");
    }
    heavy
}

fn backend_error(err: impl std::fmt::Display) -> io::Error {
    io::Error::other(err.to_string())
}

impl<B: Backend> Runner<B> {
    /// A runner for `app` on `terminal`; nothing starts until [`start`].
    ///
    /// [`start`]: Runner::start
    pub fn new(engine: Engine, mut app: App, terminal: Terminal<B>) -> Self {
        if let Ok(size) = terminal.size() {
            app.size = (size.width, size.height);
        }
        app.warn_missing_catalogs(engine.catalogs());
        let (tx, rx) = unbounded_channel();
        let heavy = start_loader(tx.clone(), app.scope);
        let base = Stores::one(engine);
        Runner {
            app,
            terminal,
            engine: Arc::new(base.clone()),
            base,
            generation: 0,
            heavy,
            tx,
            rx,
            in_flight: 0,
            dirty: true,
            last_draw: None,
            frames: 0,
            keys: 0,
            queue: KeyQueue::default(),
        }
    }

    /// Inside a project (the runner's engine is the project's store): the
    /// user store's engine beside it, so that both stores show and each
    /// key acts on the store that holds its pack (HCP.md §15.1, §15.5).
    /// Call before [`Runner::start`].
    pub fn with_user_store(mut self, user: Engine) -> Self {
        if let Some(project) = self.base.main.project() {
            self.app.scopes = Scopes::in_project(project.root());
            self.base.user = Some(user);
            self.engine = Arc::new(self.base.clone());
        }
        self
    }

    /// Starts the first jobs (the snapshot load). Needs a tokio runtime.
    pub fn start(&mut self) {
        let jobs = self.app.init();
        self.spawn_all(jobs);
        self.dirty = true;
    }

    /// Feeds one action to `update` and starts the work it asks for.
    pub fn dispatch(&mut self, action: Action) {
        let tick = matches!(action, Action::Tick);
        if matches!(action, Action::Done(_)) {
            self.in_flight = self.in_flight.saturating_sub(1);
        }
        let done = matches!(action, Action::Done(_));
        let jobs = self.app.update(action);
        self.spawn_all(jobs);
        if done && self.in_flight == 0 {
            // Every job has reported, and none started another.
            tracing::debug!("idle");
        }
        if std::mem::take(&mut self.app.redraw) {
            // `Ctrl-L`: the next frame paints every cell again.
            if let Err(err) = self.terminal.clear() {
                tracing::warn!(%err, "cannot clear the terminal");
            }
        }
        if !tick || self.app.is_animating() {
            self.dirty = true;
        }
    }

    /// Turns a terminal event into an action and dispatches it, unless it
    /// must wait for a read (then it waits, with every event after it, and
    /// is applied once the read is in: see [`keyqueue`]).
    pub fn handle_event(&mut self, event: &Event) {
        if keyqueue::never_waits(event) || self.queue.is_empty() {
            let action = keymap::action_for(&self.app, event);
            if !action
                .as_ref()
                .is_some_and(|a| keyqueue::waits(&self.app, a))
            {
                self.apply_event(event, action);
                return;
            }
        }
        self.queue.push(event.clone());
        tracing::debug!(waiting = self.queue.len(), "key waits for a read");
    }

    /// Applies the waiting events that may be applied now, in order.
    fn drain_queue(&mut self) {
        while let Some((event, action)) = self.queue.pop_ready(&self.app) {
            self.apply_event(&event, action);
        }
    }

    /// Dispatches a worker's report, then the keys that waited for it.
    fn report(&mut self, action: Action) {
        self.dispatch(action);
        self.drain_queue();
    }

    fn apply_event(&mut self, event: &Event, action: Option<Action>) {
        if let Some(action) = action {
            self.dispatch(action);
        }
        if let Event::Key(key) = event
            && key.kind == KeyEventKind::Press
        {
            // Which key is never logged: it may be part of a secret.
            self.keys += 1;
            tracing::debug!(key = self.keys, in_flight = self.in_flight, "key handled");
        }
    }

    fn spawn_all(&mut self, jobs: Vec<Job>) {
        for job in jobs {
            self.spawn(job);
        }
    }

    fn spawn(&mut self, job: Job) {
        self.in_flight += 1;
        let session = &self.app.session;
        if session.generation() != self.generation {
            let mut engines = self.base.clone();
            session.apply(&mut engines.main);
            if let Some(user) = &mut engines.user {
                session.apply(user);
            }
            self.engine = Arc::new(engines);
            self.generation = session.generation();
        }
        let engine = Arc::clone(&self.engine);
        if is_heavy(&job) {
            if let Err(std::sync::mpsc::SendError((engine, job))) = self.heavy.send((engine, job)) {
                // No loader thread: run it on the blocking pool instead.
                self.spawn_blocking(engine, job);
            }
            return;
        }
        self.spawn_blocking(engine, job);
    }

    fn spawn_blocking(&self, engine: Arc<Stores>, job: Job) {
        let tx = self.tx.clone();
        let scope = self.app.scope;
        tokio::task::spawn_blocking(move || scope.run(|| run_job(&engine, job, &tx)));
    }

    /// Draws a frame from the state.
    pub fn draw(&mut self) -> io::Result<()> {
        let app = &self.app;
        self.terminal
            .draw(|frame| ui::draw(frame, app))
            .map_err(backend_error)?;
        self.dirty = false;
        self.last_draw = Some(Instant::now());
        self.frames += 1;
        Ok(())
    }

    /// Jobs still running.
    pub fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// Handles worker results until no job runs, or one waits for the
    /// masked input; then draws.
    pub async fn settle(&mut self) -> io::Result<()> {
        loop {
            while let Ok(action) = self.rx.try_recv() {
                self.report(action);
            }
            if self.in_flight == 0 || self.app.awaits_input() {
                break;
            }
            match tokio::time::timeout(SETTLE_TIMEOUT, self.rx.recv()).await {
                Ok(Some(action)) => self.report(action),
                _ => break,
            }
        }
        self.draw()
    }

    /// Handles the next worker report (waiting at most `bound` for it) and
    /// the keys that waited for it, then draws: for a test that looks at
    /// the screen while a job runs. Returns whether a report came.
    pub async fn pump(&mut self, bound: Duration) -> io::Result<bool> {
        let got = match tokio::time::timeout(bound, self.rx.recv()).await {
            Ok(Some(action)) => {
                self.report(action);
                true
            }
            _ => false,
        };
        self.draw()?;
        Ok(got)
    }

    /// The interactive loop, until the app quits or `events` ends.
    pub async fn run<S>(&mut self, mut events: S) -> io::Result<()>
    where
        S: Stream<Item = io::Result<Event>> + Unpin,
    {
        self.start();
        // The first frame at once: "loading…" until the snapshot arrives.
        self.draw()?;
        let mut ticker = tokio::time::interval(TICK);
        ticker.set_missed_tick_behavior(MissedTickBehavior::Skip);
        while !self.app.quit {
            let next_frame = self.last_draw.map_or_else(Instant::now, |t| t + FRAME);
            tokio::select! {
                event = events.next() => match event {
                    Some(Ok(event)) => self.handle_event(&event),
                    Some(Err(err)) => return Err(err),
                    None => break,
                },
                _ = ticker.tick() => self.dispatch(Action::Tick),
                Some(action) = self.rx.recv() => self.report(action),
                _ = tokio::time::sleep_until(next_frame), if self.dirty => self.draw()?,
            }
        }
        Ok(())
    }
}

/// The headless loop: starts the app, then for each event handles it, lets
/// the work it started finish, and draws, so the screen and the store can
/// be checked after any step. Stops early when the app quits.
pub async fn run_headless<B, I>(runner: &mut Runner<B>, events: I) -> io::Result<()>
where
    B: Backend,
    I: IntoIterator<Item = Event>,
{
    if !runner.app.loads.loaded() && !runner.app.loads.loading() {
        runner.start();
    }
    runner.settle().await?;
    for event in events {
        if runner.app.quit {
            break;
        }
        runner.handle_event(&event);
        runner.settle().await?;
    }
    Ok(())
}
