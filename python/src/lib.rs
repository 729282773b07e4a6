//! The batchdoku engine for Python: batch calls over numpy arrays, lists of
//! strings and Arrow string buffers that release the GIL and run on a rayon
//! pool. The Python package (`python/batchdoku/__init__.py`) turns every
//! input it accepts into one of the forms [`Puzzles`] reads, and the codes
//! returned here into words; everything Sudoku is the `batchdoku` library's.

use batchdoku::batch::solve_puzzle;
use batchdoku::canon::Canonicalizer;
use batchdoku::engine::{forced_format, open_sources, Job};
use batchdoku::generate::{
    candidates_of_class, generate as generate_one, GenerateOptions, Symmetry, TRIES_PER_PUZZLE,
};
use batchdoku::grid::{Grid, ParseError, CELLS};
use batchdoku::input::records;
use batchdoku::npy::Dtype;
use batchdoku::pipeline::{run_ordered, Stop};
use batchdoku::puzzle::Status;
use batchdoku::rate::{rate as rate_one, Difficulty, Inference};
use batchdoku::solver::FastSolver;
use batchdoku::verify::{check, parse_answer, AnswerColumns, AnswerFormat, CheckOptions, Claim};
use batchdoku::{Puzzle, Solver, SolverKind};
use numpy::ndarray::Array2;
use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::{PyBackedBytes, PyBackedStr};
use pyo3::types::{PyList, PyString, PyTuple};
use rayon::prelude::*;
use rayon::ThreadPool;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Set when Ctrl-C reaches a waiting call: solvers stop within a thousand
/// guesses, chunks not started are skipped, and the call raises
/// `KeyboardInterrupt`.
static STOP: AtomicBool = AtomicBool::new(false);

/// Records per parallel task: enough to amortise the task, small enough
/// that two threads finish together.
const TASK: usize = 1024;

// ---------------------------------------------------------------------
// Thread pools

/// Pools kept for later calls, the most recent first, and the process
/// they were made in (a pool made before `fork()` has no threads in the
/// child, which makes its own). Only the last [`POOLS_KEPT`] sizes are
/// kept: an older pool is dropped, and its threads end once idle, so
/// calls with ever new `threads` values do not pile threads up.
static POOLS: Mutex<Option<(u32, PoolsBySize)>> = Mutex::new(None);

/// Pools by size (threads), the most recently used first.
type PoolsBySize = Vec<(usize, Arc<ThreadPool>)>;

/// How many pools (of different sizes) are kept between calls: the
/// default one and one other (a call with little work gets a smaller one).
const POOLS_KEPT: usize = 2;

/// The most threads a call runs on: four per core, or 64 on a machine of
/// fewer than 16 cores. The work is all CPU, so more never helps, and a
/// pool's threads are started when it is made.
fn most_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    cores.saturating_mul(4).max(64)
}

/// The pool for a call asking for `threads` (0: `BATCHDOKU_THREADS`, else
/// one per core) with `work` pieces that can run at once: never more
/// threads than pieces, nor than [`most_threads`].
fn pool(threads: usize, work: usize) -> PyResult<Arc<ThreadPool>> {
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
fn tasks(n: usize) -> usize {
    n.div_ceil(TASK)
}

/// Runs `work` on `pool` with the GIL released, checking for Ctrl-C every
/// 50 ms: on one, the work is told to stop, and once it has, the
/// `KeyboardInterrupt` is raised. A panic in the work is a `RuntimeError`.
/// With `pool` `None`, `work` runs on a thread of its own (it hands work to
/// a pool itself and must not wait for it from inside that pool).
fn run<T: Send>(
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
fn stopped_error() -> PyErr {
    pyo3::exceptions::PyKeyboardInterrupt::new_err("interrupted")
}

// ---------------------------------------------------------------------
// Inputs

/// One element of a list of puzzles: a `str` (UTF-8), or `bytes`.
enum Text {
    Str(PyBackedStr),
    Bytes(PyBackedBytes),
}

impl Text {
    fn bytes(&self) -> &[u8] {
        match self {
            Text::Str(s) => s.as_bytes(),
            Text::Bytes(b) => b,
        }
    }
}

/// The elements of a list of puzzles (or answers: `what` names them in
/// errors): `str`, `bytes` (or `bytearray`) or `None` (a null). A `str`
/// UTF-8 cannot hold (a lone surrogate, as `'\ud800'` or a name decoded
/// with `surrogateescape`) is kept as the bytes its `surrogatepass`
/// encoding gives, which are not UTF-8 either: that record is malformed
/// (or its answer wrong) in its row, like any bad bytes, and the call goes
/// on.
fn texts(list: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<Option<Text>>> {
    let list = list
        .cast::<PyList>()
        .map_err(|_| PyTypeError::new_err("internal: a texts spec holds a list"))?;
    let mut out = Vec::with_capacity(list.len());
    for (i, item) in list.iter().enumerate() {
        if item.is_none() {
            out.push(None);
        } else if let Ok(s) = item.cast::<PyString>() {
            out.push(Some(match PyBackedStr::try_from(s.clone()) {
                Ok(s) => Text::Str(s),
                Err(_) => Text::Bytes(
                    s.call_method1("encode", ("utf-8", "surrogatepass"))?
                        .extract()?,
                ),
            }));
        } else if let Ok(b) = item.extract::<PyBackedBytes>() {
            out.push(Some(Text::Bytes(b)));
        } else {
            return Err(PyTypeError::new_err(format!(
                "{what}[{i}]: str or bytes (None for a missing one) was expected, not {}",
                item.get_type()
                    .name()
                    .map_or_else(|_| "another type".into(), |n| n.to_string())
            )));
        }
    }
    Ok(out)
}

/// Puzzles in one of the forms the Python package passes, each record read
/// by the CLI's rules.
enum Puzzles<'a> {
    /// Rows of 81 integers of `dtype`, 0 for blanks (native byte order).
    Ints { data: &'a [u8], dtype: Dtype },
    /// Texts (`None`: a null), each read as a line.
    Texts(Vec<Option<&'a [u8]>>),
    /// Arrow-style strings: `offsets[i]..offsets[i + 1]` of `data`.
    Offsets {
        offsets: &'a [i64],
        data: &'a [u8],
        valid: Option<&'a [bool]>,
    },
    /// Fixed-width byte strings, NUL-padded (numpy `S`).
    Fixed { data: &'a [u8], width: usize },
}

impl Puzzles<'_> {
    fn len(&self) -> usize {
        match self {
            Puzzles::Ints { data, dtype } => data.len() / dtype.row_bytes(),
            Puzzles::Texts(t) => t.len(),
            Puzzles::Offsets { offsets, .. } => offsets.len().saturating_sub(1),
            Puzzles::Fixed { data, width } => data.len() / width.max(&1),
        }
    }

    /// Record `i`'s puzzle, or why it is not one: integer rows as npy rows
    /// are read, texts as lines (81 cells, or 729 pencilmark characters).
    fn puzzle(&self, i: usize) -> Result<Puzzle, ParseError> {
        match self {
            Puzzles::Ints { data, dtype } => {
                let n = dtype.row_bytes();
                dtype.grid(&data[i * n..(i + 1) * n]).map(Puzzle::from)
            }
            _ => match self.text(i) {
                Some(text) => Puzzle::parse_line(&text),
                None => Err(ParseError::Null),
            },
        }
    }

    /// Record `i`'s givens, or why it has none (pencilmarks included): for
    /// answers and canonical forms.
    fn grid(&self, i: usize) -> Result<Grid, ParseError> {
        self.puzzle(i).and_then(|p| p.givens())
    }

    /// Record `i`'s text, for reading an answer (`None`: a null).
    fn text(&self, i: usize) -> Option<std::borrow::Cow<'_, [u8]>> {
        use std::borrow::Cow;
        match self {
            Puzzles::Ints { .. } => self
                .puzzle(i)
                .ok()
                .map(|p| Cow::Owned(p.to_line().into_bytes())),
            Puzzles::Texts(t) => t[i].map(Cow::Borrowed),
            Puzzles::Offsets {
                offsets,
                data,
                valid,
            } => {
                if valid.is_some_and(|v| !v[i]) {
                    return None;
                }
                data.get(offsets[i] as usize..offsets[i + 1] as usize)
                    .map(Cow::Borrowed)
            }
            Puzzles::Fixed { data, width } => {
                let row = &data[i * width..(i + 1) * width];
                let end = row.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
                Some(Cow::Borrowed(&row[..end]))
            }
        }
    }
}

/// What a spec tuple holds while a call runs: the borrows `Puzzles` reads.
enum Held<'py> {
    Ints(PyReadonlyArray2<'py, u8>, Dtype),
    Texts(Vec<Option<Text>>),
    Offsets(
        PyReadonlyArray1<'py, i64>,
        PyReadonlyArray1<'py, u8>,
        Option<PyReadonlyArray1<'py, bool>>,
    ),
    Fixed(PyReadonlyArray2<'py, u8>),
}

/// Reads a spec made by the Python package: `("ints", array, size,
/// signed)` (a C-contiguous uint8 view of (N, 81) integers of `size`
/// bytes), `("texts", list)`, `("offsets", offsets, data, valid)` or
/// `("fixed", array)` (an (N, width) uint8 view of byte strings); `what`
/// names the records in errors (puzzles, answers).
fn hold<'py>(spec: &Bound<'py, PyAny>, what: &str) -> PyResult<Held<'py>> {
    let spec = spec
        .cast::<PyTuple>()
        .map_err(|_| PyTypeError::new_err("internal: a puzzle spec is a tuple"))?;
    let kind: String = spec.get_item(0)?.extract()?;
    let c_contiguous = |a: &PyReadonlyArray2<'py, u8>| -> PyResult<()> {
        if a.is_c_contiguous() {
            Ok(())
        } else {
            Err(PyValueError::new_err(
                "internal: the array must be C-contiguous",
            ))
        }
    };
    Ok(match kind.as_str() {
        "ints" => {
            let a: PyReadonlyArray2<'py, u8> = spec.get_item(1)?.extract()?;
            c_contiguous(&a)?;
            let size: usize = spec.get_item(2)?.extract()?;
            let signed: bool = spec.get_item(3)?.extract()?;
            if ![1, 2, 4, 8].contains(&size) || a.shape()[1] != CELLS * size {
                return Err(PyValueError::new_err("internal: bad integer spec"));
            }
            Held::Ints(
                a,
                Dtype {
                    size,
                    signed,
                    big_endian: cfg!(target_endian = "big"),
                },
            )
        }
        "texts" => Held::Texts(texts(&spec.get_item(1)?, what)?),
        "offsets" => {
            let valid = spec.get_item(3)?;
            Held::Offsets(
                spec.get_item(1)?.extract()?,
                spec.get_item(2)?.extract()?,
                if valid.is_none() {
                    None
                } else {
                    Some(valid.extract()?)
                },
            )
        }
        "fixed" => {
            let a: PyReadonlyArray2<'py, u8> = spec.get_item(1)?.extract()?;
            c_contiguous(&a)?;
            Held::Fixed(a)
        }
        other => {
            return Err(PyValueError::new_err(format!(
                "internal: unknown spec {other:?}"
            )))
        }
    })
}

impl<'py> Held<'py> {
    fn puzzles(&self) -> PyResult<Puzzles<'_>> {
        Ok(match self {
            Held::Ints(a, dtype) => Puzzles::Ints {
                data: a.as_slice()?,
                dtype: *dtype,
            },
            Held::Texts(t) => {
                Puzzles::Texts(t.iter().map(|t| t.as_ref().map(Text::bytes)).collect())
            }
            Held::Offsets(o, d, v) => {
                let offsets = o.as_slice()?;
                let data = d.as_slice()?;
                let valid = match v {
                    Some(v) => Some(v.as_slice()?),
                    None => None,
                };
                let n = offsets.len().saturating_sub(1);
                let sorted = offsets.windows(2).all(|w| 0 <= w[0] && w[0] <= w[1]);
                if !sorted
                    || offsets.last().is_some_and(|&e| e as usize > data.len())
                    || valid.is_some_and(|v| v.len() != n)
                {
                    return Err(PyValueError::new_err(
                        "internal: inconsistent string buffers",
                    ));
                }
                Puzzles::Offsets {
                    offsets,
                    data,
                    valid,
                }
            }
            Held::Fixed(a) => Puzzles::Fixed {
                data: a.as_slice()?,
                width: a.shape()[1],
            },
        })
    }
}

fn solver_kind(name: &str) -> PyResult<SolverKind> {
    name.parse()
        .map_err(|e: String| PyValueError::new_err(format!("solver: {e}")))
}

// ---------------------------------------------------------------------
// Calls

/// Rows of 81 bytes, as solve's solutions come back.
const BYTE_ROWS: Dtype = Dtype {
    size: 1,
    signed: false,
    big_endian: false,
};

type SolveArrays<'py> = (
    Bound<'py, PyArray1<u8>>,
    Bound<'py, PyArray2<u8>>,
    Bound<'py, PyArray1<u32>>,
    Bound<'py, PyArray1<u64>>,
);

/// Solves every puzzle: status codes (indexes of `status_words()`), the
/// solutions as (N, 81) uint8 (0 rows where there is none), solutions
/// counted up to `limit`, and guesses.
#[pyfunction]
#[pyo3(signature = (spec, limit, solver, threads))]
fn solve<'py>(
    py: Python<'py>,
    spec: &Bound<'py, PyAny>,
    limit: u32,
    solver: &str,
    threads: usize,
) -> PyResult<SolveArrays<'py>> {
    if limit == 0 {
        return Err(PyValueError::new_err("limit: must be 1 or more"));
    }
    let kind = solver_kind(solver)?;
    let held = hold(spec, "puzzles")?;
    let puzzles = held.puzzles()?;
    let n = puzzles.len();
    let pool = pool(threads, tasks(n))?;
    let mut status = vec![0u8; n];
    let mut cells = vec![0u8; n * CELLS];
    let mut count = vec![0u32; n];
    let mut guesses = vec![0u64; n];
    let complete = run(py, Some(&pool), || {
        let stopped = AtomicBool::new(false);
        status
            .par_chunks_mut(TASK)
            .zip(cells.par_chunks_mut(TASK * CELLS))
            .zip(count.par_chunks_mut(TASK))
            .zip(guesses.par_chunks_mut(TASK))
            .enumerate()
            .for_each(|(k, (((st, ce), co), gu))| {
                if STOP.load(Ordering::Relaxed) {
                    stopped.store(true, Ordering::Relaxed);
                    return;
                }
                let mut solver = kind.build();
                solver.set_stop(Some(&STOP));
                for j in 0..st.len() {
                    let r = solve_puzzle(solver.as_mut(), &puzzles.puzzle(k * TASK + j), limit);
                    if solver.stopped() {
                        stopped.store(true, Ordering::Relaxed);
                        return;
                    }
                    st[j] = r.status.code();
                    co[j] = r.solutions;
                    gu[j] = r.guesses;
                    if let Some(s) = r.solution {
                        ce[j * CELLS..(j + 1) * CELLS].copy_from_slice(s.cells());
                    }
                }
            });
        !stopped.load(Ordering::Relaxed)
    })?;
    if !complete {
        return Err(stopped_error());
    }
    Ok((
        status.into_pyarray(py),
        Array2::from_shape_vec((n, CELLS), cells)
            .expect("n rows of 81")
            .into_pyarray(py),
        count.into_pyarray(py),
        guesses.into_pyarray(py),
    ))
}

/// The status words, in code order.
#[pyfunction]
fn status_words() -> Vec<&'static str> {
    Status::ALL.iter().map(|s| s.word()).collect()
}

/// Checks each answer against its puzzle: `ok` per record, and the reason
/// (the CLI's words) where it is wrong. `answers` is a spec like
/// `puzzles`, or `("result", status codes, counts, solutions)` from
/// `solve`. With `status` (a spec of status words, a null or empty one
/// claiming nothing) and `count` (a spec of solution counts as text, read
/// only with `status`), each record's claim is its status, count and
/// solution (the answer, empty or a 0 row where there is none), as the
/// command line reads a `solve` output's `status`, `solutions` and
/// `solution` columns.
#[pyfunction]
#[pyo3(signature = (spec, answers, unique, threads, status=None, count=None))]
#[allow(clippy::too_many_arguments)]
fn verify<'py>(
    py: Python<'py>,
    spec: &Bound<'py, PyAny>,
    answers: &Bound<'py, PyAny>,
    unique: bool,
    threads: usize,
    status: Option<&Bound<'py, PyAny>>,
    count: Option<&Bound<'py, PyAny>>,
) -> PyResult<VerifyArrays<'py>> {
    let held = hold(spec, "puzzles")?;
    let puzzles = held.puzzles()?;
    let n = puzzles.len();
    let answers_tuple = answers
        .cast::<PyTuple>()
        .map_err(|_| PyTypeError::new_err("internal: an answers spec is a tuple"))?;
    let kind: String = answers_tuple.get_item(0)?.extract()?;
    // A solve() result: its statuses, counts and solutions.
    let result: Option<(
        PyReadonlyArray1<u8>,
        PyReadonlyArray1<u32>,
        PyReadonlyArray2<u8>,
    )> = if kind == "result" {
        Some((
            answers_tuple.get_item(1)?.extract()?,
            answers_tuple.get_item(2)?.extract()?,
            answers_tuple.get_item(3)?.extract()?,
        ))
    } else {
        None
    };
    let held_answers = match result {
        Some(_) => None,
        None => Some(hold(answers, "answers")?),
    };
    let answer_puzzles = match &held_answers {
        Some(h) => Some(h.puzzles()?),
        None => None,
    };
    let result_slices = match &result {
        Some((s, c, cells)) => Some((s.as_slice()?, c.as_slice()?, cells.as_slice()?)),
        None => None,
    };
    let m = match (&answer_puzzles, &result_slices) {
        (Some(a), _) => a.len(),
        (None, Some((s, c, cells))) => {
            if c.len() != s.len() || cells.len() != s.len() * CELLS {
                return Err(PyValueError::new_err("answers: inconsistent result arrays"));
            }
            s.len()
        }
        (None, None) => unreachable!("one of the two"),
    };
    if m != n {
        return Err(PyValueError::new_err(format!(
            "answers: {m} answers for {n} puzzles; one answer per puzzle was expected"
        )));
    }
    // The statuses and counts beside the answers, one per answer.
    let beside = |spec: Option<&Bound<'py, PyAny>>, what: &str| -> PyResult<Option<Held<'py>>> {
        let Some(spec) = spec.filter(|s| !s.is_none()) else {
            return Ok(None);
        };
        if result.is_some() {
            return Err(PyValueError::new_err(format!(
                "{what}: a SolveResult carries its own statuses and counts"
            )));
        }
        Ok(Some(hold(spec, what)?))
    };
    let held_status = beside(status, "status")?;
    let held_count = match held_status {
        Some(_) => beside(count, "count")?,
        None => None,
    };
    let status_texts = match &held_status {
        Some(h) => Some(h.puzzles()?),
        None => None,
    };
    let count_texts = match &held_count {
        Some(h) => Some(h.puzzles()?),
        None => None,
    };
    for (what, texts) in [("status", &status_texts), ("count", &count_texts)] {
        if let Some(t) = texts.as_ref().filter(|t| t.len() != n) {
            return Err(PyValueError::new_err(format!(
                "{what}: {} values for {n} answers; one per answer was expected",
                t.len()
            )));
        }
    }
    let claim = |i: usize| -> Result<Claim, String> {
        if let (Some(status), Some(a)) = (&status_texts, &answer_puzzles) {
            return solve_output_claim(status, count_texts.as_ref(), a, i);
        }
        match (&answer_puzzles, &result_slices) {
            (Some(Puzzles::Ints { .. }), _) => {
                let a = answer_puzzles.as_ref().expect("some");
                match a.grid(i) {
                    Ok(g) if g.cells().iter().all(|&c| c == 0) => Err(
                        "the answer is a row of zeros: no solution, and no status to say why"
                            .into(),
                    ),
                    g => Ok(Claim {
                        solution: Some(g),
                        ..Claim::default()
                    }),
                }
            }
            (Some(a), _) => match a.text(i) {
                Some(text) => parse_answer(AnswerFormat::Line, &text).map_err(|e| e.to_string()),
                None => Err("the answer is missing (None)".into()),
            },
            (None, Some((s, c, cells))) => {
                let status = Status::from_code(s[i])
                    .ok_or_else(|| format!("status code {} is not one of solve's", s[i]))?;
                let row = &cells[i * CELLS..(i + 1) * CELLS];
                // Read as an npy row of bytes: a value above 9 is named.
                let solution = row.iter().any(|&c| c != 0).then(|| BYTE_ROWS.grid(row));
                Ok(Claim {
                    status: Some(status),
                    solutions: Some(c[i]),
                    solution,
                })
            }
            (None, None) => unreachable!(),
        }
    };
    let options = CheckOptions {
        unique,
        ..CheckOptions::default()
    };
    let pool = pool(threads, tasks(n))?;
    let mut ok = vec![false; n];
    let mut reasons: Vec<Option<String>> = vec![None; n];
    let complete = run(py, Some(&pool), || {
        let stopped = AtomicBool::new(false);
        ok.par_chunks_mut(TASK)
            .zip(reasons.par_chunks_mut(TASK))
            .enumerate()
            .for_each(|(k, (ok, why))| {
                let mut solver = FastSolver::new();
                solver.set_stop(Some(&STOP));
                for j in 0..ok.len() {
                    if STOP.load(Ordering::Relaxed) {
                        stopped.store(true, Ordering::Relaxed);
                        return;
                    }
                    let i = k * TASK + j;
                    let outcome = match claim(i) {
                        Ok(c) => check(&mut solver, &puzzles.puzzle(i), &c, options)
                            .map_err(|f| f.to_string()),
                        Err(e) => Err(e),
                    };
                    if solver.stopped() {
                        stopped.store(true, Ordering::Relaxed);
                        return;
                    }
                    match outcome {
                        Ok(()) => ok[j] = true,
                        Err(e) => why[j] = Some(e),
                    }
                }
            });
        !stopped.load(Ordering::Relaxed)
    })?;
    if !complete {
        return Err(stopped_error());
    }
    Ok((PyArray1::from_vec(py, ok), reasons))
}

/// Record `i`'s claim as a `solve` output states it: the status word in
/// `status`, the count in `count` (text, if any) and the solution in
/// `answers` (empty, or an integer row of 0s, where there is none), read
/// as the command line reads a CSV's status, solutions and solution
/// columns (quoted here, so any text stays in its field).
fn solve_output_claim(
    status: &Puzzles<'_>,
    count: Option<&Puzzles<'_>>,
    answers: &Puzzles<'_>,
    i: usize,
) -> Result<Claim, String> {
    let mut row = Vec::with_capacity(CELLS + 32);
    let mut field = |text: Option<&[u8]>, last: bool| {
        row.push(b'"');
        for &b in text.unwrap_or_default() {
            if b == b'"' {
                row.push(b'"');
            }
            row.push(b);
        }
        row.push(b'"');
        if !last {
            row.push(b',');
        }
    };
    let ints = matches!(answers, Puzzles::Ints { .. });
    field(status.text(i).as_deref(), false);
    field(count.and_then(|c| c.text(i)).as_deref(), false);
    field(if ints { None } else { answers.text(i) }.as_deref(), true);
    let columns = AnswerColumns {
        status: Some(0),
        count: Some(1),
        solution: 2,
    };
    let mut claim = parse_answer(AnswerFormat::Csv(columns), &row).map_err(|e| e.to_string())?;
    if ints {
        claim.solution = match answers.grid(i) {
            Ok(g) if g.cells().iter().all(|&c| c == 0) => None,
            g => Some(g),
        };
    }
    Ok(claim)
}

type VerifyArrays<'py> = (Bound<'py, PyArray1<bool>>, Vec<Option<String>>);

type RateArrays<'py> = (
    Bound<'py, PyArray1<u32>>,
    Bound<'py, PyArray1<u64>>,
    Bound<'py, PyArray1<u8>>,
    Bound<'py, PyArray1<u8>>,
);

/// Rates every puzzle: solutions (up to 2), guesses, and codes of the
/// inference and difficulty words (`rate_words()`).
#[pyfunction]
#[pyo3(signature = (spec, threads))]
fn rate<'py>(
    py: Python<'py>,
    spec: &Bound<'py, PyAny>,
    threads: usize,
) -> PyResult<RateArrays<'py>> {
    let held = hold(spec, "puzzles")?;
    let puzzles = held.puzzles()?;
    let n = puzzles.len();
    let pool = pool(threads, tasks(n))?;
    let (mut sols, mut guesses) = (vec![0u32; n], vec![0u64; n]);
    let (mut inference, mut difficulty) = (vec![0u8; n], vec![0u8; n]);
    // Codes past the inference and difficulty words: invalid, malformed.
    let invalid_inf = INFERENCES.len() as u8;
    let invalid_dif = Difficulty::ALL.len() as u8;
    let complete = run(py, Some(&pool), || {
        let stopped = AtomicBool::new(false);
        sols.par_chunks_mut(TASK)
            .zip(guesses.par_chunks_mut(TASK))
            .zip(inference.par_chunks_mut(TASK))
            .zip(difficulty.par_chunks_mut(TASK))
            .enumerate()
            .for_each(|(k, (((so, gu), inf), dif))| {
                let mut solver = FastSolver::new();
                solver.set_stop(Some(&STOP));
                for j in 0..so.len() {
                    if STOP.load(Ordering::Relaxed) {
                        stopped.store(true, Ordering::Relaxed);
                        return;
                    }
                    match puzzles.puzzle(k * TASK + j) {
                        Err(_) => (inf[j], dif[j]) = (invalid_inf + 1, invalid_dif + 1),
                        Ok(p) if p.validate().is_err() => {
                            (inf[j], dif[j]) = (invalid_inf, invalid_dif)
                        }
                        Ok(p) => {
                            let r = rate_one(&mut solver, &p);
                            if solver.stopped() {
                                stopped.store(true, Ordering::Relaxed);
                                return;
                            }
                            so[j] = r.solutions;
                            gu[j] = r.guesses;
                            inf[j] = INFERENCES
                                .iter()
                                .position(|&x| x == r.inference)
                                .expect("listed") as u8;
                            dif[j] = Difficulty::ALL
                                .iter()
                                .position(|&x| x == r.difficulty)
                                .expect("listed") as u8;
                        }
                    }
                }
            });
        !stopped.load(Ordering::Relaxed)
    })?;
    if !complete {
        return Err(stopped_error());
    }
    Ok((
        sols.into_pyarray(py),
        guesses.into_pyarray(py),
        inference.into_pyarray(py),
        difficulty.into_pyarray(py),
    ))
}

type CanonArrays<'py> = (
    Bound<'py, PyArray2<u8>>,
    Bound<'py, PyArray1<u64>>,
    Bound<'py, PyArray1<u8>>,
);

/// Each puzzle's canonical form (an (N, 81) array, 0 rows for records
/// without one), its automorphism count, and a status code: 0 ok,
/// 1 invalid, 2 malformed.
#[pyfunction]
#[pyo3(signature = (spec, threads))]
fn canon<'py>(
    py: Python<'py>,
    spec: &Bound<'py, PyAny>,
    threads: usize,
) -> PyResult<CanonArrays<'py>> {
    let held = hold(spec, "puzzles")?;
    let puzzles = held.puzzles()?;
    let n = puzzles.len();
    let pool = pool(threads, tasks(n))?;
    let mut forms = vec![0u8; n * CELLS];
    let (mut automorphisms, mut status) = (vec![0u64; n], vec![0u8; n]);
    let complete = run(py, Some(&pool), || {
        let stopped = AtomicBool::new(false);
        forms
            .par_chunks_mut(TASK * CELLS)
            .zip(automorphisms.par_chunks_mut(TASK))
            .zip(status.par_chunks_mut(TASK))
            .enumerate()
            .for_each(|(k, ((fo, au), st))| {
                let mut canonicalizer = Canonicalizer::new();
                for j in 0..au.len() {
                    if STOP.load(Ordering::Relaxed) {
                        stopped.store(true, Ordering::Relaxed);
                        return;
                    }
                    match puzzles.grid(k * TASK + j) {
                        Err(_) => st[j] = 2,
                        Ok(g) if g.validate().is_err() => st[j] = 1,
                        Ok(g) => {
                            let c = canonicalizer
                                .canonical(&g)
                                .expect("a valid grid repeats no digit in a line");
                            fo[j * CELLS..(j + 1) * CELLS].copy_from_slice(c.grid.cells());
                            au[j] = c.automorphisms;
                        }
                    }
                }
            });
        !stopped.load(Ordering::Relaxed)
    })?;
    if !complete {
        return Err(stopped_error());
    }
    Ok((
        Array2::from_shape_vec((n, CELLS), forms)
            .expect("n rows of 81")
            .into_pyarray(py),
        automorphisms.into_pyarray(py),
        status.into_pyarray(py),
    ))
}

const INFERENCES: [Inference; 3] = [
    Inference::Singles,
    Inference::LockedCandidates,
    Inference::Search,
];

/// The inference and difficulty words in code order, each followed by
/// `invalid` and `malformed` (what `batchdoku rate` writes for those).
#[pyfunction]
fn rate_words() -> (Vec<&'static str>, Vec<&'static str>) {
    let mut inf: Vec<&str> = INFERENCES.iter().map(|i| i.word()).collect();
    let mut dif: Vec<&str> = Difficulty::ALL.iter().map(|d| d.word()).collect();
    for words in [&mut inf, &mut dif] {
        words.extend(["invalid", "malformed"]);
    }
    (inf, dif)
}

/// Candidates rated per parallel round when filtering by difficulty
/// (Ctrl-C is looked for between rounds).
const ROUND: u64 = 1024;

/// The generator's options, checked.
fn generate_options(minimal: bool, min_clues: usize, symmetry: &str) -> PyResult<GenerateOptions> {
    let symmetry: Symmetry = symmetry
        .parse()
        .map_err(|e: String| PyValueError::new_err(format!("symmetry: {e}")))?;
    Ok(GenerateOptions {
        minimal,
        min_clues,
        symmetry,
    })
}

fn difficulty_named(word: &str) -> PyResult<Difficulty> {
    word.parse()
        .map_err(|e: String| PyValueError::new_err(format!("difficulty: {e}")))
}

/// Of candidates `start..end` of the run seeded with `seed`, the indexes
/// of those whose puzzles rate as `difficulty`, in order: a slice of the
/// scan `generate` makes with a difficulty, for `generate_df` to spread
/// over a cluster (it then makes the puzzles kept with `generate_at`).
#[pyfunction]
#[pyo3(signature = (seed, start, end, minimal, min_clues, symmetry, difficulty, threads))]
#[allow(clippy::too_many_arguments)]
fn generate_matches(
    py: Python<'_>,
    seed: u64,
    start: u64,
    end: u64,
    minimal: bool,
    min_clues: usize,
    symmetry: &str,
    difficulty: &str,
    threads: usize,
) -> PyResult<Vec<u64>> {
    let options = generate_options(minimal, min_clues, symmetry)?;
    let want = difficulty_named(difficulty)?;
    let pool = pool(threads, usize::MAX)?;
    let found = run(py, Some(&pool), || {
        let mut found = Vec::new();
        let mut next = start;
        while next < end {
            if STOP.load(Ordering::Relaxed) {
                return None;
            }
            let round_end = end.min(next.saturating_add(16 * ROUND));
            let kept = candidates_of_class(seed, next..round_end, options, want);
            found.extend(kept.into_iter().map(|(i, _)| i));
            next = round_end;
        }
        Some(found)
    })?;
    found.ok_or_else(stopped_error)
}

/// The puzzles and solutions of candidates `indexes` of the run seeded
/// with `seed` (each made alone: candidate `i` is line `i + 1` of
/// `batchdoku generate` without a difficulty).
#[pyfunction]
#[pyo3(signature = (seed, indexes, minimal, min_clues, symmetry, threads))]
fn generate_at(
    py: Python<'_>,
    seed: u64,
    indexes: Vec<u64>,
    minimal: bool,
    min_clues: usize,
    symmetry: &str,
    threads: usize,
) -> PyResult<(Vec<String>, Vec<String>)> {
    let options = generate_options(minimal, min_clues, symmetry)?;
    let pool = pool(threads, indexes.len())?;
    let made = run(py, Some(&pool), || {
        make_candidates(seed, indexes.par_iter().copied(), options)
    })?;
    made.map(|m| {
        m.into_iter()
            .map(|(p, s)| (p.to_line(), s.to_line()))
            .unzip()
    })
    .ok_or_else(stopped_error)
}

/// Candidates `indexes` of the run seeded with `seed`, each made alone
/// (puzzle and solution), in parallel and in order; None when Ctrl-C
/// stopped the run.
fn make_candidates(
    seed: u64,
    indexes: impl ParallelIterator<Item = u64>,
    options: GenerateOptions,
) -> Option<Vec<(Grid, Grid)>> {
    indexes
        .map(|i| {
            if STOP.load(Ordering::Relaxed) {
                return None;
            }
            let g = generate_one(seed, i, options);
            Some((g.puzzle, g.solution))
        })
        .collect()
}

/// Puzzles `start..start + n` of the run seeded with `seed`: exactly lines
/// `start + 1..` of `batchdoku generate -n N --seed SEED` with the same
/// options. With a difficulty, the CLI keeps candidates of that class in
/// order, so the candidates before `start` are made (and rated) too.
#[pyfunction]
#[pyo3(signature = (n, seed, start, minimal, min_clues, symmetry, difficulty, threads))]
#[allow(clippy::too_many_arguments)]
fn generate(
    py: Python<'_>,
    n: u64,
    seed: u64,
    start: u64,
    minimal: bool,
    min_clues: usize,
    symmetry: &str,
    difficulty: Option<&str>,
    threads: usize,
) -> PyResult<(Vec<String>, Vec<String>)> {
    let options = generate_options(minimal, min_clues, symmetry)?;
    let difficulty = match difficulty {
        Some(d) => Some(difficulty_named(d)?),
        None => None,
    };
    // Puzzles `start..=last`: the last index must be a u64 (a range that
    // wrapped past 2**64 would make fewer puzzles than asked, silently).
    let last = match n.checked_sub(1).map(|k| start.checked_add(k)) {
        None => return Ok((Vec::new(), Vec::new())),
        Some(Some(last)) => last,
        Some(None) => {
            return Err(PyValueError::new_err(format!(
                "start + n: puzzles {start} to {start} + {n} - 1 were asked for, past the last \
                 index, 2**64 - 1"
            )))
        }
    };
    let pool = pool(
        threads,
        match difficulty {
            None => usize::try_from(n).unwrap_or(usize::MAX),
            Some(_) => usize::MAX,
        },
    )?;
    let made = run(py, Some(&pool), || -> Result<Vec<(Grid, Grid)>, String> {
        match difficulty {
            None => make_candidates(seed, (start..=last).into_par_iter(), options)
                .ok_or_else(|| "stopped".into()),
            Some(want) => {
                // `start + n` candidates of the class are counted from 0,
                // a count that must fit a u64 too.
                let Some(wanted) = start.checked_add(n) else {
                    return Err(format!(
                        "start + n: {start} + {n} puzzles of difficulty {} cannot be counted \
                         (more than 2**64 - 1)",
                        want.word()
                    ));
                };
                let most = wanted.saturating_mul(TRIES_PER_PUZZLE);
                let mut kept: Vec<(Grid, Grid)> = Vec::new();
                let mut seen = 0u64; // kept candidates before `start` count too
                let mut next = 0u64;
                while seen < wanted && next < most {
                    if STOP.load(Ordering::Relaxed) {
                        return Err("stopped".into());
                    }
                    let end = next.saturating_add(ROUND).min(most);
                    for (_, g) in candidates_of_class(seed, next..end, options, want) {
                        if seen >= wanted {
                            break;
                        }
                        if seen >= start {
                            kept.push((g.puzzle, g.solution));
                        }
                        seen += 1;
                    }
                    next = end;
                }
                if seen < wanted {
                    return Err(format!(
                        "difficulty {}: found only {seen} of {wanted} puzzles in {next} candidates; \
                         relax the other options or ask for fewer",
                        want.word()
                    ));
                }
                Ok(kept)
            }
        }
    })?;
    let made = match made {
        Ok(m) => m,
        Err(e) if e == "stopped" => return Err(stopped_error()),
        Err(e) => return Err(PyValueError::new_err(e)),
    };
    Ok(made
        .into_iter()
        .map(|(p, s)| (p.to_line(), s.to_line()))
        .unzip())
}

type ReadArrays<'py> = (
    Bound<'py, PyArray2<u8>>,
    Bound<'py, PyArray1<i64>>,
    Vec<(usize, i64, String)>,
);

/// Reads every record of a file the CLI reads (memory-mapped; any form,
/// `input` as the CLI's `--input`): the puzzles as (N, 81) uint8, each
/// record's line number (row index for npy and Parquet), and the malformed
/// ones as (index, line, reason) with 0 rows in the array.
#[pyfunction]
#[pyo3(signature = (path, input, column, threads))]
fn read<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
    input: &str,
    column: Option<String>,
    threads: usize,
) -> PyResult<ReadArrays<'py>> {
    if !["auto", "line", "grid", "csv", "npy", "parquet"].contains(&input) {
        return Err(PyValueError::new_err(format!(
            "input: {input:?} is not one of auto, line, grid, csv, npy, parquet"
        )));
    }
    if path.as_os_str() == "-" {
        return Err(PyValueError::new_err(
            "read: give a file's path (standard input is not read)",
        ));
    }
    let column = match column {
        Some(c) => Some(
            c.parse()
                .map_err(|e: String| PyValueError::new_err(format!("column: {e}")))?,
        ),
        None => None,
    };
    let sources = open_sources(&[path]).map_err(|e| PyValueError::new_err(format!("{e:#}")))?;
    let pool = pool(threads, usize::MAX)?;
    let nthreads = pool.current_num_threads();
    let forced = forced_format(input);
    type Piece = (Vec<u8>, Vec<i64>, Vec<(usize, i64, String)>);
    let result = run(py, None, || -> Result<Vec<Piece>, String> {
        let jobs = batchdoku::engine::Jobs::new(&sources, forced, nthreads, true, 0)
            .with_column(column)
            .with_stop(&STOP);
        let mut pieces: Vec<Piece> = Vec::new();
        let r = run_ordered(
            &pool,
            jobs,
            nthreads * 4,
            |job: Job| -> Result<Piece, String> {
                let job = job.load(&sources).map_err(|e| format!("{e:#}"))?;
                let mut cells = Vec::with_capacity(job.data.len());
                let mut lines = Vec::new();
                let mut bad = Vec::new();
                for (k, rec) in records(&job.data, job.first_line, job.format).enumerate() {
                    lines.push(rec.line as i64);
                    match rec.givens() {
                        Ok(g) => cells.extend_from_slice(g.cells()),
                        Err(e) => {
                            cells.extend_from_slice(&[0; CELLS]);
                            bad.push((k, rec.line as i64, e.to_string()));
                        }
                    }
                }
                Ok((cells, lines, bad))
            },
            |piece| match piece {
                Ok(p) => {
                    pieces.push(p);
                    ControlFlow::Continue(())
                }
                Err(e) => ControlFlow::Break(batchdoku::engine::Halt::Read(anyhow::anyhow!(e))),
            },
        );
        match r {
            Ok(()) => Ok(pieces),
            Err(Stop::Source(h) | Stop::Sink(h)) => Err(match h {
                batchdoku::engine::Halt::Interrupted => "stopped".into(),
                batchdoku::engine::Halt::Read(e) => format!("{e:#}"),
                batchdoku::engine::Halt::Write(e) => e.to_string(),
            }),
        }
    })?;
    let pieces = match result {
        Ok(p) => p,
        Err(e) if e == "stopped" => return Err(stopped_error()),
        Err(e) => return Err(PyValueError::new_err(e)),
    };
    let mut cells = Vec::new();
    let mut lines = Vec::new();
    let mut bad = Vec::new();
    for (c, l, b) in pieces {
        let base = lines.len();
        bad.extend(b.into_iter().map(|(k, line, e)| (base + k, line, e)));
        cells.extend(c);
        lines.extend(l);
    }
    let n = lines.len();
    Ok((
        Array2::from_shape_vec((n, CELLS), cells)
            .expect("n rows of 81")
            .into_pyarray(py),
        lines.into_pyarray(py),
        bad,
    ))
}

// ---------------------------------------------------------------------
// The command line

/// Runs the `batchdoku` command line on `argv` (the program's name first)
/// in this process and returns its exit code: what the `batchdoku` command
/// installed with the package does (a usage error, `--help` and
/// `--version` end the process there, as clap does). It is the binary's
/// code (the library's `cmd` module), not a copy.
#[pyfunction]
fn run_cli(py: Python<'_>, argv: Vec<std::ffi::OsString>) -> u8 {
    use std::process::ExitCode;
    let code = py.detach(|| batchdoku::cmd::main(argv));
    let _ = std::io::Write::flush(&mut std::io::stdout());
    // An ExitCode does not tell its number; it compares equal to one made
    // from it.
    (0..=u8::MAX)
        .find(|&n| ExitCode::from(n) == code)
        .unwrap_or(1)
}

#[pymodule]
fn _batchdoku(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(solve, m)?)?;
    m.add_function(wrap_pyfunction!(verify, m)?)?;
    m.add_function(wrap_pyfunction!(rate, m)?)?;
    m.add_function(wrap_pyfunction!(canon, m)?)?;
    m.add_function(wrap_pyfunction!(generate, m)?)?;
    m.add_function(wrap_pyfunction!(read, m)?)?;
    m.add_function(wrap_pyfunction!(status_words, m)?)?;
    m.add_function(wrap_pyfunction!(rate_words, m)?)?;
    m.add_function(wrap_pyfunction!(run_cli, m)?)?;
    m.add_function(wrap_pyfunction!(generate_matches, m)?)?;
    m.add_function(wrap_pyfunction!(generate_at, m)?)?;
    m.add("TRIES_PER_PUZZLE", TRIES_PER_PUZZLE)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
