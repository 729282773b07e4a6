//! What a worker does with a job of `solve`: load it, solve its chunk into
//! an output buffer (and, for a Parquet output, a record batch), and hand
//! it on as a [`Done`] for the writer to take in input order.

use super::files::chunk_schema;
use super::Args;
use crate::cmd::INTERRUPTED;
use crate::engine::pipeline::BufferPool;
use crate::engine::solve::{solve_chunk, ChunkJob, ChunkReport};
use crate::engine::{InputGuard, Job, Source};
use crate::read::parquet::TableError;
use crate::read::{Chunk, InputFormat};
use crate::write::parquet::results_batch;
use crate::write::{kept_names, KeepColumns, OutputFormat};
use crate::SolverKind;
use arrow_array::RecordBatch;
use std::sync::Arc;

/// A solved chunk.
pub(super) struct Done {
    pub(super) out: Vec<u8>,
    pub(super) report: ChunkReport,
    pub(super) file: usize,
    pub(super) first_line: u64,
    pub(super) line_known: bool,
    pub(super) input_bytes: usize,
    pub(super) guard: InputGuard,
    /// With --keep-columns: what was kept and the input's header.
    pub(super) kept: Option<(KeepColumns, Arc<Vec<String>>)>,
    /// With --format parquet: the chunk's results as a record batch.
    pub(super) table: Option<Result<RecordBatch, TableError>>,
}

/// The options every job of a run is solved with.
pub(super) struct Work<'a> {
    sources: &'a [Source],
    several: bool,
    solver: SolverKind,
    limit: u32,
    format: OutputFormat,
    keep_columns: bool,
}

impl<'a> Work<'a> {
    pub(super) fn new(args: &Args, sources: &'a [Source]) -> Work<'a> {
        Work {
            sources,
            several: sources.len() > 1,
            solver: args.solver,
            limit: args.limit,
            format: args.format,
            keep_columns: args.keep_columns,
        }
    }

    /// Loads `job` and solves its records into a buffer from `buffers`.
    pub(super) fn solve(&self, job: Job, buffers: &BufferPool) -> anyhow::Result<Done> {
        let (several, format) = (self.several, self.format);
        let job = job.load(self.sources)?;
        let chunk = Chunk {
            data: &job.data,
            first_line: job.first_line,
            format: job.format,
        };
        let mut out = buffers.take(job.data.len() + job.data.len() / 2 + 256);
        let keep = match (self.keep_columns, job.format, &job.header) {
            (true, InputFormat::Csv(layout), Some(header)) => Some(KeepColumns {
                puzzle: layout.column,
                count: header.len(),
            }),
            _ => None,
        };
        let spec = ChunkJob {
            limit: self.limit,
            format,
            file: several.then(|| self.sources[job.file].name()),
            keep,
        };
        let mut solver = self.solver.build();
        solver.set_stop(Some(&INTERRUPTED));
        let report = solve_chunk(solver.as_mut(), &chunk, spec, &INTERRUPTED, &mut out);
        let table = (format == OutputFormat::Parquet).then(|| {
            let kept = keep.zip(job.header.as_deref().map(|h| &h[..]));
            let schema = chunk_schema(several, kept, job.others.as_ref());
            results_batch(
                &out,
                several.then(|| self.sources[job.file].name()),
                kept.map_or(0, |(k, h)| kept_names(h, k).len()),
                job.others.as_ref(),
                &schema,
            )
        });
        Ok(Done {
            out,
            report,
            file: job.file,
            first_line: job.first_line,
            line_known: job.line_known,
            input_bytes: job.progress_bytes,
            guard: job.data.guard(),
            kept: keep.zip(job.header.clone()),
            table,
        })
    }
}
