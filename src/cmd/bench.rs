//! `batchdoku bench`: compare solver variants on datasets.

use super::run_args::RunArgs;
use crate::read::{detect, records};
use crate::solver::FastSolver;
use crate::tasks::bench::{check_pass, compare, timed_passes, CheckPass};
use crate::{Puzzle, SolverKind};
use anyhow::{bail, Context};
use rayon::ThreadPool;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Measure solver variants on puzzle files.
///
/// Per file and solver: a checking pass solves every puzzle once, verifies
/// each answer and counts guesses; the variants must agree on every
/// puzzle's solution count. Then warm-up passes, then timed passes over the
/// whole file until --min-time. With no FILES, the sample in datasets/.
/// Files hold a puzzle per line: 81 cells, or 729 pencilmark characters.
#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  batchdoku bench                              (the shipped sample)
  batchdoku bench --solvers fast --threads 1 --limit 2 hardest.txt
  batchdoku bench --format json set1.txt set2.txt > run.json

Exit codes: 0 done, 1 a wrong answer, a disagreement between solvers or an
I/O error, 2 usage error.")]
pub struct Args {
    /// Puzzle files (default: datasets/sample.txt).
    pub files: Vec<PathBuf>,
    /// Comma-separated solver variants: fast, mrv, backtrack.
    #[arg(long, default_value = "fast,mrv", value_delimiter = ',', value_parser = parse_solver)]
    pub solvers: Vec<SolverKind>,
    /// Count solutions up to N (2, as published benchmarks use: solve and
    /// prove uniqueness).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..))]
    pub limit: u32,
    /// Minimum seconds of timed passes per file and solver.
    #[arg(long, default_value_t = 3.0, value_name = "SECS")]
    pub min_time: f64,
    /// Seconds of untimed passes before timing.
    #[arg(long, default_value_t = 0.5, value_name = "SECS")]
    pub warmup: f64,
    /// Seconds the backtracking reference may spend checking one file; it
    /// is then measured on the puzzles it got through.
    #[arg(long, default_value_t = 10.0, value_name = "SECS")]
    pub backtrack_cap: f64,
    /// The same cap for the mrv reference (none by default; it takes
    /// minutes on the full 17-clue list).
    #[arg(long, value_name = "SECS")]
    pub mrv_cap: Option<f64>,
    /// Output: table (markdown, with a header describing the machine), csv
    /// or json.
    #[arg(long, default_value = "table", value_parser = ["table", "csv", "json"])]
    pub format: String,
    /// Also draw puzzles/s per file and solver as an SVG bar chart (log scale).
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Measure nothing: re-render rows saved earlier with --format json (one
    /// array, or several files' arrays) as a table, csv, json or plot.
    #[arg(long, value_name = "ROWS.json", conflicts_with = "files")]
    pub from_json: Vec<PathBuf>,
    /// (-j: threads of the timed passes, 1 unless given; --progress: a bar
    /// counting the files and solvers measured; --stats: the rows and the
    /// run's time as JSON.)
    #[command(flatten)]
    pub run: RunArgs,
}

fn parse_solver(s: &str) -> Result<SolverKind, String> {
    s.parse()
}

/// One measured file and solver.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Row {
    pub dataset: String,
    pub solver: String,
    pub threads: u32,
    pub limit: u32,
    /// Puzzles solved in the timed passes.
    pub puzzles: u64,
    pub seconds: f64,
    pub puzzles_per_sec: f64,
    pub usec_per_puzzle: f64,
    pub no_guess_pct: f64,
    pub guesses_per_puzzle: f64,
    /// Puzzles of the file measured (fewer than the file when capped).
    pub set_size: usize,
    /// True when a time cap cut the set.
    pub capped: bool,
}

fn load(path: &Path) -> anyhow::Result<Vec<Puzzle>> {
    let data = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let d = detect(&data, None);
    let mut puzzles = Vec::new();
    for r in records(&data[d.start..], d.first_line, d.format) {
        match r.puzzle {
            Ok(g) => puzzles.push(g),
            Err(e) => bail!("{}:{}: {e}", path.display(), r.line),
        }
    }
    Ok(puzzles)
}

/// The CPU model, from /proc/cpuinfo where there is one.
fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string())
}

/// The target features this binary was compiled for.
fn target_features() -> String {
    let mut f = Vec::new();
    macro_rules! feature {
        ($($name:tt),*) => {$(
            if cfg!(target_feature = $name) {
                f.push($name);
            }
        )*};
    }
    feature!(
        "sse2", "sse4.1", "sse4.2", "popcnt", "avx", "avx2", "bmi1", "bmi2", "avx512f", "neon"
    );
    if f.is_empty() {
        "none beyond the target's baseline".to_string()
    } else {
        f.join(" ")
    }
}

fn profile() -> &'static str {
    if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let files = if args.files.is_empty() {
        vec![PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("datasets/sample.txt")]
    } else {
        args.files.clone()
    };
    if args.solvers.is_empty() {
        bail!("no solver to measure");
    }
    let started = Instant::now();
    // The timed passes run on one thread unless -j says otherwise: the
    // figures people compare are per thread.
    let pool = super::thread_pool(args.run.threads.unwrap_or(1))?;
    let rows = if args.from_json.is_empty() {
        measure(&args, &files, &pool)?
    } else {
        let mut rows = Vec::new();
        for path in &args.from_json {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            let saved: Vec<Row> = serde_json::from_str(&text)
                .with_context(|| format!("{} is not a saved bench run", path.display()))?;
            rows.extend(saved);
        }
        rows
    };
    match args.format.as_str() {
        "json" => super::print_stdout(&(serde_json::to_string_pretty(&rows)? + "\n"))?,
        "csv" => super::print_stdout(&csv(&rows))?,
        _ => {
            let header = if args.from_json.is_empty() {
                format!(
                    "CPU: {}; threads: {}; build: {}; target features: {}; fast solver version: {:?}; limit {}; min time {} s",
                    cpu_model(),
                    pool.current_num_threads(),
                    profile(),
                    target_features(),
                    FastSolver::new().isa(),
                    args.limit,
                    args.min_time
                )
            } else {
                let names: Vec<String> = args
                    .from_json
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect();
                format!("Saved runs: {}", names.join(", "))
            };
            super::print_stdout(&table(&rows, &header))?;
        }
    }
    if let Some(path) = &args.plot {
        std::fs::write(path, plot(&rows))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    args.run.write_stats(&serde_json::json!({
        "rows": rows,
        "seconds": started.elapsed().as_secs_f64(),
        "threads": pool.current_num_threads(),
    }))?;
    Ok(ExitCode::SUCCESS)
}

/// Checks and times every requested solver on every file.
fn measure(args: &Args, files: &[PathBuf], pool: &ThreadPool) -> anyhow::Result<Vec<Row>> {
    let progress = args
        .run
        .progress_counter((files.len() * args.solvers.len()) as u64);
    let started = Instant::now();
    let mut rows = Vec::new();
    for file in files {
        let puzzles = load(file)?;
        let name = file.file_name().map_or_else(
            || file.display().to_string(),
            |n| n.to_string_lossy().to_string(),
        );
        let mut passes: Vec<(SolverKind, CheckPass)> = Vec::new();
        for &kind in &args.solvers {
            let cap = match kind {
                SolverKind::Backtrack => Some(args.backtrack_cap),
                SolverKind::Mrv => args.mrv_cap,
                SolverKind::Fast => None,
            }
            .map(Duration::from_secs_f64);
            let pass = check_pass(kind, &puzzles, args.limit, cap).map_err(|e| {
                anyhow::anyhow!("{}: {e} (line form: {})", file.display(), puzzles[e.index])
            })?;
            for (other, earlier) in &passes {
                if let Err(d) = compare(*other, earlier, kind, &pass) {
                    bail!("{}: {d}: {}", file.display(), puzzles[d.index]);
                }
            }
            let set = &puzzles[..pass.counts.len()];
            if args.warmup > 0.0 {
                timed_passes(
                    kind,
                    set,
                    args.limit,
                    pool,
                    Duration::from_secs_f64(args.warmup),
                );
            }
            let (solved, seconds) = timed_passes(
                kind,
                set,
                args.limit,
                pool,
                Duration::from_secs_f64(args.min_time),
            );
            let n = set.len().max(1) as f64;
            rows.push(Row {
                dataset: name.clone(),
                solver: kind.name().to_string(),
                threads: pool.current_num_threads() as u32,
                limit: args.limit,
                puzzles: solved,
                seconds,
                puzzles_per_sec: solved as f64 / seconds.max(1e-9),
                usec_per_puzzle: seconds * 1e6 / (solved.max(1) as f64),
                no_guess_pct: 100.0 * pass.no_guess as f64 / n,
                guesses_per_puzzle: pass.guesses as f64 / n,
                set_size: set.len(),
                capped: pass.capped,
            });
            passes.push((kind, pass));
            progress.set_done(rows.len() as u64, started);
        }
    }
    progress.finish();
    Ok(rows)
}

fn csv(rows: &[Row]) -> String {
    let mut s = String::from(
        "dataset,solver,threads,limit,puzzles,seconds,puzzles_per_sec,usec_per_puzzle,no_guess_pct,guesses_per_puzzle\n",
    );
    for r in rows {
        let _ = writeln!(
            s,
            "{},{},{},{},{},{:.3},{:.1},{:.3},{:.1},{:.2}",
            r.dataset,
            r.solver,
            r.threads,
            r.limit,
            r.puzzles,
            r.seconds,
            r.puzzles_per_sec,
            r.usec_per_puzzle,
            r.no_guess_pct,
            r.guesses_per_puzzle
        );
    }
    s
}

/// Thousands separators, as published tables print rates.
fn grouped(x: f64) -> String {
    let whole = x.round() as u64;
    let digits = whole.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn table(rows: &[Row], header: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{header}");
    let mut last = "";
    for r in rows {
        if r.dataset != last {
            let _ = writeln!(
                s,
                "\n### {} ({} puzzles)\n\n|solver|puzzles/sec|usec/puzzle|%no_guess|guesses/puzzle|\n|---|---:|---:|---:|---:|",
                r.dataset,
                grouped(r.set_size as f64)
            );
            last = &r.dataset;
        }
        let note = if r.capped {
            format!(" (first {} puzzles: time cap)", r.set_size)
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            "|{}{note}|{}|{:.2}|{:.1}%|{:.2}|",
            r.solver,
            grouped(r.puzzles_per_sec),
            r.usec_per_puzzle,
            r.no_guess_pct,
            r.guesses_per_puzzle
        );
    }
    s
}

/// A horizontal bar chart, one group of bars per file, log scale.
fn plot(rows: &[Row]) -> String {
    let title = match rows.first() {
        Some(r) => format!(
            "puzzles per second, {} thread{}, limit {} (log scale)",
            r.threads,
            if r.threads == 1 { "" } else { "s" },
            r.limit
        ),
        None => "puzzles per second (log scale)".to_string(),
    };
    const COLORS: [&str; 3] = ["#1b9e77", "#d95f02", "#7570b3"];
    let mut solvers: Vec<&str> = Vec::new();
    let mut datasets: Vec<&str> = Vec::new();
    for r in rows {
        if !solvers.contains(&r.solver.as_str()) {
            solvers.push(&r.solver);
        }
        if !datasets.contains(&r.dataset.as_str()) {
            datasets.push(&r.dataset);
        }
    }
    let max = rows.iter().map(|r| r.puzzles_per_sec).fold(10.0, f64::max);
    let decades = max.log10().ceil().max(1.0) as i32;
    let (left, width, bar, gap) = (230.0, 560.0, 16.0, 14.0);
    let group = bar * solvers.len() as f64 + gap;
    let height = 60.0 + group * datasets.len() as f64 + 40.0;
    let x = |v: f64| left + width * (v.max(1.0).log10() / decades as f64);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{height}" font-family="sans-serif" font-size="12">"#,
        left + width + 110.0
    );
    let _ = writeln!(
        s,
        r#"<text x="{left}" y="20" font-size="14">{title}</text>"#
    );
    for d in 0..=decades {
        let xv = x(10f64.powi(d));
        let _ = writeln!(
            s,
            r##"<line x1="{xv}" y1="40" x2="{xv}" y2="{}" stroke="#ccc"/><text x="{xv}" y="{}" text-anchor="middle">1e{d}</text>"##,
            height - 30.0,
            height - 15.0
        );
    }
    for (i, ds) in datasets.iter().enumerate() {
        let top = 50.0 + group * i as f64;
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="end">{ds}</text>"#,
            left - 8.0,
            top + bar * solvers.len() as f64 / 2.0 + 4.0
        );
        for (j, sv) in solvers.iter().enumerate() {
            if let Some(r) = rows.iter().find(|r| r.dataset == *ds && r.solver == *sv) {
                let y = top + bar * j as f64;
                let w = x(r.puzzles_per_sec) - left;
                let _ = writeln!(
                    s,
                    r#"<rect x="{left}" y="{y}" width="{w:.1}" height="{}" fill="{}"><title>{sv}: {} puzzles/s</title></rect><text x="{:.1}" y="{}" font-size="10">{sv} {}</text>"#,
                    bar - 2.0,
                    COLORS[j % COLORS.len()],
                    grouped(r.puzzles_per_sec),
                    left + w + 4.0,
                    y + bar - 5.0,
                    grouped(r.puzzles_per_sec)
                );
            }
        }
    }
    s.push_str("</svg>\n");
    s
}
