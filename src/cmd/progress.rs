//! The progress bar on stderr: records done, rate and (for mapped inputs,
//! whose size is known) percent and ETA from the bytes consumed.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle, TermLike};
use std::io::{self, IsTerminal, Write};
use std::time::Instant;

/// Standard error as a terminal whether or not it is one, for
/// `--progress always` into a log: each redraw is a carriage return and the
/// new line, without cursor movement.
#[derive(Debug)]
struct PlainStderr;

impl TermLike for PlainStderr {
    fn width(&self) -> u16 {
        100
    }
    fn move_cursor_up(&self, _: usize) -> io::Result<()> {
        Ok(())
    }
    fn move_cursor_down(&self, _: usize) -> io::Result<()> {
        Ok(())
    }
    fn move_cursor_right(&self, _: usize) -> io::Result<()> {
        Ok(())
    }
    fn move_cursor_left(&self, _: usize) -> io::Result<()> {
        Ok(())
    }
    fn write_line(&self, s: &str) -> io::Result<()> {
        writeln!(io::stderr(), "{s}")
    }
    fn write_str(&self, s: &str) -> io::Result<()> {
        write!(io::stderr(), "{s}")
    }
    fn clear_line(&self) -> io::Result<()> {
        write!(io::stderr(), "\r")
    }
    fn flush(&self) -> io::Result<()> {
        io::stderr().flush()
    }
}

pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// `mode` is auto (only when stderr is a terminal), always or never;
    /// `total_bytes` 0 means unknown (standard input): a spinner instead.
    pub fn new(mode: &str, quiet: bool, total_bytes: u64) -> Progress {
        let terminal = io::stderr().is_terminal();
        let show = !quiet
            && match mode {
                "always" => true,
                "never" => false,
                _ => terminal,
            };
        if !show {
            return Progress { bar: None };
        }
        let target = || {
            if terminal {
                ProgressDrawTarget::stderr()
            } else {
                ProgressDrawTarget::term_like(Box::new(PlainStderr))
            }
        };
        let bar = if total_bytes > 0 {
            let b = ProgressBar::with_draw_target(Some(total_bytes), target());
            b.set_style(
                ProgressStyle::with_template(
                    "{bar:30} {percent:>3}% {msg} [{elapsed_precise}, ETA {eta}]",
                )
                .expect("valid template"),
            );
            b
        } else {
            let b = ProgressBar::with_draw_target(None, target());
            b.set_style(
                ProgressStyle::with_template("{spinner} {msg} [{elapsed_precise}]")
                    .expect("valid template"),
            );
            b
        };
        Progress { bar: Some(bar) }
    }

    /// A bar counting items (e.g. puzzles generated) towards `total`.
    pub fn counter(mode: &str, quiet: bool, total: u64) -> Progress {
        let p = Progress::new(mode, quiet, total.max(1));
        if let Some(b) = &p.bar {
            b.set_style(
                ProgressStyle::with_template(
                    "{bar:30} {pos}/{len} {msg} [{elapsed_precise}, ETA {eta}]",
                )
                .expect("valid template"),
            );
        }
        p
    }

    /// Sets the count done, for a bar made by [`Progress::counter`].
    pub fn set_done(&self, done: u64, started: Instant) {
        if let Some(b) = &self.bar {
            b.set_position(done);
            let rate = done as f64 / started.elapsed().as_secs_f64().max(1e-9);
            b.set_message(format!("{rate:.0}/s"));
        }
    }

    /// Records `bytes` more input done, `records` in all so far.
    pub fn advance(&self, bytes: u64, records: u64, started: Instant) {
        if let Some(b) = &self.bar {
            b.inc(bytes);
            let rate = records as f64 / started.elapsed().as_secs_f64().max(1e-9);
            b.set_message(format!("{records} records, {rate:.0}/s"));
        }
    }

    /// Prints a line above the bar (or plainly when there is none).
    pub fn println(&self, line: &str) {
        match &self.bar {
            Some(b) => b.println(line),
            None => eprintln!("{line}"),
        }
    }

    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}
