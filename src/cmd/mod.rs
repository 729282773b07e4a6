//! One module per subcommand.

pub mod bench;
pub mod generate;
pub mod inputs;
pub mod output;
pub mod progress;
pub mod rate;
pub mod solve;
pub mod verify;

/// The rayon pool for `-j N`; 0 means one thread per core.
pub fn thread_pool(threads: usize) -> anyhow::Result<rayon::ThreadPool> {
    let threads = if threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        threads
    };
    Ok(rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?)
}
