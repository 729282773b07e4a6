//! The rayon pools the calls run on (bounded in number and size), the
//! work split into tasks, and Ctrl-C while a call waits.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use rayon::ThreadPool;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
/// Set when Ctrl-C reaches a waiting call: solvers stop within a thousand
/// guesses, chunks not started are skipped, and the call raises
/// `KeyboardInterrupt`.
pub(crate) static STOP: AtomicBool = AtomicBool::new(false);

/// Records per parallel task: enough to amortise the task, small enough
/// that two threads finish together.
pub(crate) const TASK: usize = 1024;

// ---------------------------------------------------------------------
// Thread pools

/// Pools kept for later calls, the most recent first, and the process
/// they were made in (a pool made before `fork()` has no threads in the
/// child, which makes its own). Only the last [`POOLS_KEPT`] sizes are
/// kept: an older pool is dropped, and its threads end once idle, so
/// calls with ever new `threads` values do not pile threads up.
pub(crate) static POOLS: Mutex<Option<(u32, PoolsBySize)>> = Mutex::new(None);

/// Pools by size (threads), the most recently used first.
pub(crate) type PoolsBySize = Vec<(usize, Arc<ThreadPool>)>;

/// How many pools (of different sizes) are kept between calls: the
/// default one and one other (a call with little work gets a smaller one).
pub(crate) const POOLS_KEPT: usize = 2;

/// The most threads a call runs on: four per core, or 64 on a machine of
/// fewer than 16 cores. The work is all CPU, so more never helps, and a
/// pool's threads are started when it is made.
pub(crate) fn most_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    cores.saturating_mul(4).max(64)
}

/// The pool for a call asking for `threads` (0: `BATCHDOKU_THREADS`, else
/// one per core) with `work` pieces that can run at once: never more
/// threads than pieces, nor than [`most_threads`].
pub(crate) fn pool(threads: usize, work: usize) -> PyResult<Arc<ThreadPool>> {
    let asked = match threads {
        0 => std::env::var("BATCHDOKU_THREADS")
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .filter(|&n: &usize| n > 0)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        n => n,
    };
    let size = asked.min(most_threads()).min(work).max(1);
    let pid = std::process::id();
    let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    if pools.as_ref().is_none_or(|(p, _)| *p != pid) {
        *pools = Some((pid, Vec::new()));
    }
    let (_, kept) = pools.as_mut().expect("set above");
    if let Some(k) = kept.iter().position(|(s, _)| *s == size) {
        let entry = kept.remove(k);
        let p = Arc::clone(&entry.1);
        kept.insert(0, entry);
        return Ok(p);
    }
    let p = rayon::ThreadPoolBuilder::new()
        .num_threads(size)
        .thread_name(|i| format!("batchdoku-{i}"))
        .build()
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start {size} threads: {e}")))?;
    let p = Arc::new(p);
    kept.insert(0, (size, Arc::clone(&p)));
    // A pool dropped here ends its threads once they are idle (one still
    // running a call ends when that call lets it go).
    kept.truncate(POOLS_KEPT);
    Ok(p)
}

/// The pieces a call over `n` records runs in parallel: tasks of [`TASK`].
pub(crate) fn tasks(n: usize) -> usize {
    n.div_ceil(TASK)
}

/// Runs `work` on `pool` with the GIL released, checking for Ctrl-C every
/// 50 ms: on one, the work is told to stop, and once it has, the
/// `KeyboardInterrupt` is raised. A panic in the work is a `RuntimeError`.
/// With `pool` `None`, `work` runs on a thread of its own (it hands work to
/// a pool itself and must not wait for it from inside that pool).
pub(crate) fn run<T: Send>(
    py: Python<'_>,
    pool: Option<&ThreadPool>,
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::channel();
        let handle = scope.spawn(move || {
            let out = match pool {
                Some(pool) => pool.install(work),
                None => work(),
            };
            // The receiver waits until this is sent (or the thread ends).
            let _ = tx.send(out);
        });
        let mut rx = rx;
        loop {
            // The receiver goes into the GIL-free wait and comes back.
            let (got, back) = py.detach(move || (rx.recv_timeout(Duration::from_millis(50)), rx));
            rx = back;
            match got {
                Ok(out) => {
                    let _ = handle.join();
                    return Ok(out);
                }
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    if let Err(e) = py.check_signals() {
                        STOP.store(true, Ordering::SeqCst);
                        let _ = py.detach(|| handle.join());
                        STOP.store(false, Ordering::SeqCst);
                        return Err(e);
                    }
                }
                // The work panicked: the thread ended without sending.
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    let what = match py.detach(|| handle.join()) {
                        Err(p) => p
                            .downcast_ref::<&str>()
                            .map(|s| s.to_string())
                            .or_else(|| p.downcast_ref::<String>().cloned())
                            .unwrap_or_default(),
                        Ok(()) => String::new(),
                    };
                    return Err(PyRuntimeError::new_err(format!(
                        "batchdoku: internal error (a bug): {what}"
                    )));
                }
            }
        }
    })
}

/// The `KeyboardInterrupt` for a call whose work stopped on STOP without
/// `run` having seen the signal itself (another call's Ctrl-C set it).
pub(crate) fn stopped_error() -> PyErr {
    pyo3::exceptions::PyKeyboardInterrupt::new_err("interrupted")
}

// ---------------------------------------------------------------------
// Inputs
