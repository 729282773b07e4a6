//! Criterion benches: each solver variant on samples of each kind of puzzle,
//! canonical forms, and the line parser. Uses ../shared/datasets when present, the project's
//! own datasets/sample.txt otherwise.

use batchdoku::read::{records, InputFormat};
use batchdoku::{Grid, SolverKind};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use std::path::{Path, PathBuf};

/// How many puzzles of each file a bench iterates over.
const SAMPLE: usize = 500;

fn load(path: &Path, n: usize) -> Vec<Grid> {
    let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    records(&data, 1, InputFormat::Line)
        .filter_map(|r| r.givens().ok())
        .take(n)
        .collect()
}

/// (name, puzzles) for each available dataset.
fn datasets() -> Vec<(String, Vec<Grid>)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let shared = root.join("../shared/datasets");
    let mut sets = Vec::new();
    for name in [
        "easy_100k",
        "minimal_100k",
        "17_clue",
        "magictour_top1465",
        "forum_hardest_1905_11plus",
    ] {
        let path = shared.join(format!("{name}.txt"));
        if path.is_file() {
            sets.push((name.to_string(), load(&path, SAMPLE)));
        }
    }
    if sets.is_empty() {
        sets.push((
            "sample".to_string(),
            load(&root.join("datasets/sample.txt"), SAMPLE),
        ));
    }
    sets
}

fn solvers(c: &mut Criterion) {
    for (name, puzzles) in datasets() {
        let mut group = c.benchmark_group(format!("solve/{name}"));
        group.throughput(Throughput::Elements(puzzles.len() as u64));
        for kind in SolverKind::ALL {
            // The reference backtracker takes seconds on one hard puzzle:
            // it runs on the easy and sample sets only.
            if kind == SolverKind::Backtrack && !matches!(name.as_str(), "easy_100k" | "sample") {
                continue;
            }
            let mut solver = kind.build();
            group.bench_function(kind.name(), |b| {
                b.iter(|| {
                    for p in &puzzles {
                        black_box(solver.solve(black_box(p), 2));
                    }
                })
            });
        }
        group.finish();
    }
}

/// Canonical forms (`canon`), and the class set `dedup` fills, on each
/// kind of puzzle and on solved grids (their solutions).
fn canonical_forms(c: &mut Criterion) {
    use batchdoku::tasks::canon::Canonicalizer;
    use batchdoku::tasks::classes::{ClassSet, PackedForm};
    for (name, puzzles) in datasets() {
        let mut group = c.benchmark_group(format!("canon/{name}"));
        group.throughput(Throughput::Elements(puzzles.len() as u64));
        let mut canon = Canonicalizer::new();
        group.bench_function("puzzles", |b| {
            b.iter(|| {
                for p in &puzzles {
                    black_box(canon.canonical(black_box(p)));
                }
            })
        });
        let mut solver = SolverKind::Fast.build();
        let grids: Vec<Grid> = puzzles
            .iter()
            .filter_map(|p| solver.solve(p, 1).solution)
            .collect();
        group.bench_function("solved_grids", |b| {
            b.iter(|| {
                for g in &grids {
                    black_box(canon.canonical(black_box(g)));
                }
            })
        });
        let forms: Vec<PackedForm> = puzzles
            .iter()
            .map(|p| PackedForm::new(&canon.canonical(p).unwrap().grid))
            .collect();
        group.bench_function("class_set_insert_twice", |b| {
            b.iter(|| {
                let mut set = ClassSet::new().unwrap();
                for (i, f) in forms.iter().chain(&forms).enumerate() {
                    black_box(set.insert(f, i as u64).unwrap());
                }
            })
        });
        group.finish();
    }
}

fn parser(c: &mut Criterion) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let data = std::fs::read(root.join("datasets/sample.txt")).unwrap();
    let count = records(&data, 1, InputFormat::Line).count();
    let mut group = c.benchmark_group("parse");
    group.throughput(Throughput::Elements(count as u64));
    group.bench_function("sample_lines", |b| {
        b.iter(|| {
            records(black_box(&data), 1, InputFormat::Line)
                .filter(|r| r.puzzle.is_ok())
                .count()
        })
    });
    group.finish();
}

/// The unit of work of `solve`: one chunk of line records parsed, solved and
/// written to an output buffer.
fn chunk_pipeline(c: &mut Criterion) {
    use batchdoku::engine::solve::{solve_chunk, ChunkJob};
    use batchdoku::read::Chunk;
    use batchdoku::write::OutputFormat;
    use std::sync::atomic::AtomicBool;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let shared = root.join("../shared/datasets/easy_100k.txt");
    let path = if shared.is_file() {
        shared
    } else {
        root.join("datasets/sample.txt")
    };
    let data = std::fs::read(&path).unwrap();
    // About one chunk's worth, as `solve` hands a worker.
    let end = data[..data.len().min(256 << 10)]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(data.len(), |p| p + 1);
    let chunk = Chunk {
        data: &data[..end],
        first_line: 1,
        format: InputFormat::Line,
    };
    let count = records(chunk.data, 1, InputFormat::Line).count();
    let cancel = AtomicBool::new(false);
    let mut group = c.benchmark_group("chunk_pipeline");
    group.throughput(Throughput::Elements(count as u64));
    for (name, format) in [("line", OutputFormat::Line), ("csv", OutputFormat::Csv)] {
        let mut solver = SolverKind::Fast.build();
        let mut out = Vec::with_capacity(end * 3);
        group.bench_function(name, |b| {
            b.iter(|| {
                out.clear();
                let job = ChunkJob {
                    limit: 1,
                    format,
                    file: None,
                    keep: None,
                };
                solve_chunk(solver.as_mut(), &chunk, job, &cancel, &mut out)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, solvers, canonical_forms, parser, chunk_pipeline);
criterion_main!(benches);
