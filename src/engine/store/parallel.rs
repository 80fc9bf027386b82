//! Work spread over every core, order kept: lint of many packs (catalog
//! scans, snapshots) is file I/O and parsing, independent per pack.

/// Maps `f` over `items` on every core (lint of many packs is file I/O and
/// parsing, independent per pack); keeps the order.
pub fn parallel_map<T: Send, R: Send>(mut items: Vec<T>, f: impl Fn(T) -> R + Sync) -> Vec<R> {
    if items.len() < 64 {
        return items.into_iter().map(f).collect();
    }
    let threads = cores();
    if threads < 2 {
        return items.into_iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    let mut parts = Vec::with_capacity(threads);
    while !items.is_empty() {
        let rest = items.split_off(chunk.min(items.len()));
        parts.push(std::mem::replace(&mut items, rest));
    }
    let f = &f;
    // The calling thread maps the first part itself: one thread fewer to
    // start and to wait for.
    let mut parts = parts.into_iter();
    let first = parts.next().unwrap_or_default();
    std::thread::scope(|scope| {
        let handles: Vec<_> = parts
            .map(|part| scope.spawn(move || part.into_iter().map(f).collect::<Vec<R>>()))
            .collect();
        let mut out: Vec<R> = first.into_iter().map(f).collect();
        for handle in handles {
            out.extend(
                handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            );
        }
        out
    })
}

/// How many threads to map on: the cores this process may use, asked once
/// (`available_parallelism` reads the cgroup's CPU quota, four files, each
/// time it is called), and only when there is enough work to share.
fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}
