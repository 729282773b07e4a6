//! An ordered parallel map with bounded memory.
//!
//! The calling thread pulls jobs from an iterator (which may read input as it
//! goes), hands each to the rayon pool, and passes the results to a sink in
//! job order. At most `max_in_flight` jobs are queued, running or waiting to
//! be written at once, so memory stays bounded whatever the input size, and
//! the caller's thread does the reading and writing while the pool solves.

use rayon::ThreadPool;
use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{mpsc, Mutex};

/// Output buffers handed back by the writer for workers to fill again.
///
/// Every chunk needs a buffer about as large as its input. Fresh ones cost
/// page faults, and with an allocator that asks for transparent huge pages a
/// fault can zero (or compact) 2 MiB; reusing the buffers of chunks already
/// written keeps a run's memory touched once.
#[derive(Debug, Default)]
pub struct BufferPool {
    spare: Mutex<Vec<Vec<u8>>>,
}

impl BufferPool {
    /// At most this many buffers wait for reuse; more are freed.
    const KEPT: usize = 64;

    pub fn new() -> Self {
        Self::default()
    }

    /// An empty buffer with room for at least `capacity` bytes.
    pub fn take(&self, capacity: usize) -> Vec<u8> {
        let reused = self.spare.lock().map(|mut s| s.pop()).unwrap_or(None);
        let mut buf = reused.unwrap_or_default();
        buf.clear();
        buf.reserve(capacity);
        buf
    }

    /// Returns a buffer whose contents are no longer needed.
    pub fn give(&self, buf: Vec<u8>) {
        if let Ok(mut spare) = self.spare.lock() {
            if spare.len() < Self::KEPT {
                spare.push(buf);
            }
        }
    }
}

/// Why [`run_ordered`] stopped early.
#[derive(Debug)]
pub enum Stop<E> {
    /// The job iterator failed (e.g. reading the input).
    Source(E),
    /// The sink asked to stop (e.g. a write failed or a run was interrupted).
    Sink(E),
}

/// Runs `work` on every job from `jobs` in `pool` and gives the results to
/// `sink` in job order.
///
/// When `jobs` yields an error, no further jobs start, but results of jobs
/// already started are still given to the sink in order; then the error is
/// returned. When `sink` breaks, no further jobs start and results not yet
/// given are dropped. When `work` panics, the call panics with its payload
/// once the jobs running have finished.
pub fn run_ordered<'env, J, R, E, I, W, S>(
    pool: &ThreadPool,
    jobs: I,
    max_in_flight: usize,
    work: W,
    mut sink: S,
) -> Result<(), Stop<E>>
where
    J: Send + 'env,
    R: Send + 'env,
    I: Iterator<Item = Result<J, E>>,
    W: Fn(J) -> R + Sync + 'env,
    S: FnMut(R) -> ControlFlow<E>,
{
    let max_in_flight = max_in_flight.max(1);
    let work = &work;
    pool.in_place_scope_fifo(|scope| {
        let (tx, rx) = mpsc::channel::<(u64, std::thread::Result<R>)>();
        let mut jobs = jobs;
        let mut started = 0u64;
        let mut next_to_write = 0u64;
        let mut waiting: BTreeMap<u64, R> = BTreeMap::new();
        let mut source_error = None;
        let mut sink_error = None;
        loop {
            // Keep the pool fed while there is room.
            while source_error.is_none()
                && sink_error.is_none()
                && (started - next_to_write) < max_in_flight as u64
            {
                match jobs.next() {
                    None => break,
                    Some(Err(e)) => source_error = Some(e),
                    Some(Ok(job)) => {
                        let tx = tx.clone();
                        let seq = started;
                        scope.spawn_fifo(move |_| {
                            // A panic (a bug, never input) goes to the
                            // calling thread with the job's place, which
                            // would otherwise wait for its result forever.
                            let result = panic::catch_unwind(AssertUnwindSafe(|| work(job)));
                            // The receiver outlives every job of the scope.
                            let _ = tx.send((seq, result));
                        });
                        started += 1;
                    }
                }
            }
            let in_flight = started - next_to_write - waiting.len() as u64;
            if in_flight == 0 && waiting.is_empty() {
                break;
            }
            if in_flight > 0 {
                let (seq, result) = rx.recv().expect("a sender lives while jobs run");
                match result {
                    Ok(result) => waiting.insert(seq, result),
                    // The run ends with the job's panic once the jobs
                    // running have finished (the scope waits for them).
                    Err(payload) => panic::resume_unwind(payload),
                };
            }
            while let Some(result) = waiting.remove(&next_to_write) {
                next_to_write += 1;
                if let ControlFlow::Break(e) = sink(result) {
                    sink_error = Some(e);
                    break;
                }
            }
            if sink_error.is_some() {
                // Jobs still running finish inside the scope; their sends
                // fail quietly once the receiver is gone.
                break;
            }
        }
        match (sink_error, source_error) {
            (Some(e), _) => Err(Stop::Sink(e)),
            (None, Some(e)) => Err(Stop::Source(e)),
            (None, None) => Ok(()),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(n: usize) -> ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    }

    #[test]
    fn results_come_back_in_order_despite_uneven_work() {
        let mut seen = Vec::new();
        let jobs = (0..200u64).map(Ok::<_, ()>);
        run_ordered(
            &pool(4),
            jobs,
            8,
            |i| {
                // Early jobs take longest, so later ones finish first.
                std::thread::sleep(std::time::Duration::from_micros((200 - i) * 20));
                i * 2
            },
            |r| {
                seen.push(r);
                ControlFlow::Continue(())
            },
        )
        .unwrap();
        assert_eq!(seen, (0..200).map(|i| i * 2).collect::<Vec<_>>());
    }

    /// A job that panics ends the run with its panic: the caller does not
    /// wait forever for the result it will never send.
    #[test]
    fn a_panicking_job_ends_the_run_with_its_panic() {
        let (done, ended) = mpsc::channel();
        std::thread::spawn(move || {
            let run = panic::catch_unwind(|| {
                let jobs = (0..100u64).map(Ok::<_, ()>);
                let work = |i| if i == 7 { panic!("job 7") } else { i };
                run_ordered(&pool(2), jobs, 4, work, |_| ControlFlow::Continue(()))
            });
            let message = run
                .err()
                .and_then(|p| p.downcast_ref::<&str>().map(|s| s.to_string()));
            let _ = done.send(message);
        });
        let message = ended
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("the run ended");
        assert_eq!(message.as_deref(), Some("job 7"));
    }

    #[test]
    fn a_source_error_still_delivers_started_jobs() {
        let mut seen = Vec::new();
        let jobs = (0..10u64).map(|i| if i == 5 { Err("bad read") } else { Ok(i) });
        let r = run_ordered(
            &pool(2),
            jobs,
            3,
            |i| i,
            |r| {
                seen.push(r);
                ControlFlow::Continue(())
            },
        );
        assert!(matches!(r, Err(Stop::Source("bad read"))));
        assert_eq!(seen, vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn a_sink_break_stops_the_run() {
        let mut seen = Vec::new();
        let jobs = (0..1000u64).map(Ok::<_, &str>);
        let r = run_ordered(
            &pool(2),
            jobs,
            4,
            |i| i,
            |r| {
                seen.push(r);
                if r == 10 {
                    ControlFlow::Break("full")
                } else {
                    ControlFlow::Continue(())
                }
            },
        );
        assert!(matches!(r, Err(Stop::Sink("full"))));
        assert_eq!(seen, (0..=10).collect::<Vec<_>>());
    }

    #[test]
    fn buffers_come_back_empty_and_large_enough() {
        let pool = BufferPool::new();
        let mut a = pool.take(100);
        assert!(a.capacity() >= 100);
        a.extend_from_slice(b"written");
        let addr = a.as_ptr();
        pool.give(a);
        let b = pool.take(10);
        assert!(b.is_empty());
        assert_eq!(b.as_ptr(), addr, "the given buffer is reused");
        let c = pool.take(1000);
        assert!(c.capacity() >= 1000 && c.is_empty());
    }

    #[test]
    fn in_flight_jobs_stay_bounded() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let live = AtomicUsize::new(0);
        let peak = AtomicUsize::new(0);
        let jobs = (0..300u64).map(|i| {
            let now = live.fetch_add(1, Ordering::SeqCst) + 1;
            peak.fetch_max(now, Ordering::SeqCst);
            Ok::<_, ()>(i)
        });
        run_ordered(
            &pool(2),
            jobs,
            5,
            |i| i,
            |_| {
                live.fetch_sub(1, Ordering::SeqCst);
                ControlFlow::Continue(())
            },
        )
        .unwrap();
        assert!(peak.load(Ordering::SeqCst) <= 5);
    }
}
