//! Memory-mapped input files that survive being cut short while mapped.
//!
//! Reading a page of a mapping that lies past the end of its file raises
//! SIGBUS, which kills the process with no message: a file truncated by
//! another program while we read it would lose the whole run. With
//! [`install_fault_guard`] in place, such a fault on a page of a
//! [`MappedFile`] is caught: the page is replaced by a page of zeros, the
//! file is marked as changed, and the read goes on. [`MappedFile::check`]
//! then reports the change, so a caller that checks before trusting what it
//! read (the writer does, before each chunk) stops with an error naming the
//! file instead of dying or writing records made from zeros. Faults
//! anywhere else keep their default action.

use std::fs::File;
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Mappings watched at once (inputs are mapped one at a time; `verify`
/// holds two).
const SLOTS: usize = 64;

/// Each slot: the mapped address range `[START, END)`, 0/0 when free, and
/// whether a fault was caught in it.
static START: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
static END: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
static FAULTED: [AtomicBool; SLOTS] = [const { AtomicBool::new(false) }; SLOTS];
static PAGE: AtomicUsize = AtomicUsize::new(4096);
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// Installs the SIGBUS handler that turns a fault on a watched mapping into
/// a page of zeros and a mark on the file (see the module). Idempotent;
/// does nothing off Unix.
pub fn install_fault_guard() {
    #[cfg(unix)]
    if !INSTALLED.swap(true, Ordering::SeqCst) {
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        if page > 0 {
            PAGE.store(page as usize, Ordering::SeqCst);
        }
        // SAFETY: `on_sigbus` has the three-argument signature SA_SIGINFO
        // asks for, and the zeroed sigaction with an empty mask is valid.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_sigbus as *const () as usize;
            action.sa_flags = libc::SA_SIGINFO;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
        }
    }
}

#[cfg(unix)]
extern "C" fn on_sigbus(_signal: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo for SA_SIGINFO handlers.
    let addr = unsafe { (*info).si_addr() } as usize;
    let page = PAGE.load(Ordering::SeqCst);
    for slot in 0..SLOTS {
        let (start, end) = (
            START[slot].load(Ordering::SeqCst),
            END[slot].load(Ordering::SeqCst),
        );
        if start <= addr && addr < end {
            // SAFETY: the page lies inside a mapping we own and only read;
            // MAP_FIXED replaces just that page with anonymous zeros, which
            // the mapping's own munmap later removes with the rest. mmap is
            // a plain system call, safe to make in a signal handler.
            let zeros = unsafe {
                libc::mmap(
                    (addr & !(page - 1)) as *mut libc::c_void,
                    page,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                )
            };
            if zeros != libc::MAP_FAILED {
                FAULTED[slot].store(true, Ordering::SeqCst);
                return;
            }
        }
    }
    // Not ours (or the page could not be replaced): restore the default
    // action; the faulting read runs again and the process dies as it
    // would have without us.
    // SAFETY: signal() with SIG_DFL is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGBUS, libc::SIG_DFL);
    }
}

/// A read-only mapping of a whole regular file, watched for truncation.
#[derive(Debug)]
pub struct MappedFile {
    file: File,
    /// `None` for an empty file (which cannot be mapped).
    map: Option<memmap2::Mmap>,
    slot: Option<usize>,
}

/// The file changed size while mapped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the file changed while it was read (it was {was} bytes, it is {now} bytes)")]
pub struct Changed {
    pub was: u64,
    pub now: u64,
}

impl MappedFile {
    /// Maps `file` (a regular file) read-only.
    pub fn new(file: File) -> io::Result<MappedFile> {
        let len = file.metadata()?.len();
        if len == 0 {
            return Ok(MappedFile {
                file,
                map: None,
                slot: None,
            });
        }
        // SAFETY: the map is only read, never written through. If another
        // process truncates the file while we run, reading the lost pages
        // faults (SIGBUS); the fault guard, when installed, replaces those
        // pages with zeros and `check` reports the change, so no byte read
        // from the map is trusted without a `check` after it.
        let map = unsafe { memmap2::Mmap::map(&file)? };
        let slot = watch(map.as_ptr() as usize, map.len());
        Ok(MappedFile {
            file,
            map: Some(map),
            slot,
        })
    }

    /// Opens and maps the file at `path`.
    pub fn open(path: &Path) -> io::Result<MappedFile> {
        MappedFile::new(File::open(path)?)
    }

    /// The mapped bytes (empty for an empty file).
    pub fn bytes(&self) -> &[u8] {
        self.map.as_deref().unwrap_or(&[])
    }

    /// Asks the kernel to read ahead sequentially.
    pub fn advise_sequential(&self) {
        #[cfg(unix)]
        if let Some(m) = &self.map {
            let _ = m.advise(memmap2::Advice::Sequential);
        }
    }

    /// Ok while every byte read so far was the file's: no fault was caught
    /// on the mapping and the file is still as long as when it was mapped.
    pub fn check(&self) -> Result<(), Changed> {
        let was = self.bytes().len() as u64;
        let faulted = self.slot.is_some_and(|s| FAULTED[s].load(Ordering::SeqCst));
        let now = self.file.metadata().map_or(0, |m| m.len());
        if faulted || now < was {
            return Err(Changed { was, now });
        }
        Ok(())
    }
}

impl Drop for MappedFile {
    fn drop(&mut self) {
        // Unwatch before the map (a field) is unmapped after this.
        if let Some(s) = self.slot {
            START[s].store(0, Ordering::SeqCst);
            END[s].store(0, Ordering::SeqCst);
            FAULTED[s].store(false, Ordering::SeqCst);
        }
    }
}

/// Claims a free slot for the range; `None` when all are taken (the
/// mapping then works unguarded, as any mapped reader does).
fn watch(start: usize, len: usize) -> Option<usize> {
    for slot in 0..SLOTS {
        if END[slot]
            .compare_exchange(0, usize::MAX, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            FAULTED[slot].store(false, Ordering::SeqCst);
            START[slot].store(start, Ordering::SeqCst);
            END[slot].store(start + len, Ordering::SeqCst);
            return Some(slot);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_truncated_mapping_reads_zeros_and_reports_the_change() {
        install_fault_guard();
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(&vec![b'7'; 5 * 4096]).unwrap();
        f.flush().unwrap();
        let mapped = MappedFile::open(f.path()).unwrap();
        assert_eq!(mapped.check(), Ok(()));
        assert_eq!(mapped.bytes()[3 * 4096], b'7');
        f.as_file().set_len(100).unwrap();
        // Page 4 now lies past the end of the file: reading it faults, and
        // the guard gives zeros instead of killing the test.
        let byte = std::hint::black_box(&mapped.bytes()[4 * 4096 + 10]);
        assert_eq!(*byte, 0);
        assert_eq!(
            mapped.check(),
            Err(Changed {
                was: 5 * 4096,
                now: 100
            })
        );
    }

    #[test]
    fn a_shorter_file_is_reported_even_without_a_fault() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(b"0123456789").unwrap();
        f.flush().unwrap();
        let mapped = MappedFile::open(f.path()).unwrap();
        f.as_file().set_len(4).unwrap();
        assert_eq!(mapped.check(), Err(Changed { was: 10, now: 4 }));
        let empty = tempfile::NamedTempFile::new().unwrap();
        let m = MappedFile::open(empty.path()).unwrap();
        assert!(m.bytes().is_empty());
        assert_eq!(m.check(), Ok(()));
    }
}
