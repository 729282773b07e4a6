//! A set of puzzle classes for deduplication at dataset scale.
//!
//! In memory, each class costs one hash-table entry: the 64-bit hash of its
//! canonical form and the class number (16 bytes, plus a control byte and
//! the table's spare room). The forms themselves (packed into 41 bytes)
//! and a tag per class (where it was first seen) go to an unnamed temporary
//! file, mapped in segments, which the operating system can page out; a
//! form is read back only when a new puzzle's hash equals a stored one, so
//! the set is exact: two classes whose hashes collide are both kept.

use crate::puzzle::grid::{Grid, CELLS};
use memmap2::{MmapMut, MmapOptions};
use std::collections::hash_map::{Entry, HashMap};
use std::fs::File;
use std::hash::{BuildHasherDefault, Hasher};
use std::io;

/// A canonical form packed two cells a byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PackedForm([u8; PACKED]);

const PACKED: usize = CELLS.div_ceil(2);

impl PackedForm {
    pub fn new(grid: &Grid) -> PackedForm {
        let mut bytes = [0u8; PACKED];
        for (i, &v) in grid.cells().iter().enumerate() {
            bytes[i / 2] |= v << (4 * (i % 2));
        }
        PackedForm(bytes)
    }

    pub fn grid(&self) -> Grid {
        let mut cells = [0u8; CELLS];
        for (i, c) in cells.iter_mut().enumerate() {
            *c = (self.0[i / 2] >> (4 * (i % 2))) & 0xf;
        }
        Grid::from_cells(cells).expect("packed from a grid")
    }

    /// A 64-bit hash: the bytes read as little-endian words, each folded
    /// in with the finaliser of SplitMix64 (a multiply-xorshift mix whose
    /// every output bit depends on every input bit).
    pub fn hash(&self) -> u64 {
        let mut h = 0x243f_6a88_85a3_08d3u64;
        for chunk in self.0.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            h = mix(h ^ u64::from_le_bytes(word));
        }
        h
    }
}

fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The table's keys are hashes already: used as they are.
#[derive(Default)]
struct KeyIsHash(u64);

impl Hasher for KeyIsHash {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, _: &[u8]) {
        unreachable!("only u64 keys")
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// What [`ClassSet::insert`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seen {
    /// A new class; its tag is the one given.
    New,
    /// The class was there, first seen with this tag.
    Before(u64),
}

/// One stored class in the file: its packed form, then its tag.
const RECORD: usize = PACKED + 8;

/// Classes per mapped segment of the file (49 MiB a segment; a multiple of
/// the page size, so every segment starts on a page).
const SEGMENT_CLASSES: usize = 1 << 20;

/// Equivalence classes, each with a tag (see the module comment).
pub struct ClassSet {
    /// Hash -> the first class stored with it.
    by_hash: HashMap<u64, u64, BuildHasherDefault<KeyIsHash>>,
    /// Classes whose hash equals an earlier class's but whose form does
    /// not: (hash, class). Expected empty below billions of classes.
    collided: Vec<(u64, u64)>,
    file: File,
    segments: Vec<MmapMut>,
    segment_classes: usize,
    len: u64,
    /// Bytes of the file given real blocks so far (see [`ClassSet::store`]).
    allocated: u64,
}

/// The most bytes of the file given real blocks at a time (about 85,000
/// classes).
const ALLOCATION: u64 = 4 << 20;

impl ClassSet {
    /// An empty set, its forms in a new unnamed file in the temporary
    /// directory (`TMPDIR`).
    pub fn new() -> io::Result<ClassSet> {
        Self::with_segments(SEGMENT_CLASSES)
    }

    fn with_segments(segment_classes: usize) -> io::Result<ClassSet> {
        Ok(ClassSet {
            by_hash: HashMap::default(),
            collided: Vec::new(),
            file: tempfile::tempfile()?,
            segments: Vec::new(),
            segment_classes,
            len: 0,
            allocated: 0,
        })
    }

    /// Classes stored.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds the class of `form` (a canonical form) with `tag`, unless it is
    /// there: then says the tag it was stored with.
    pub fn insert(&mut self, form: &PackedForm, tag: u64) -> io::Result<Seen> {
        self.insert_hashed(form, form.hash(), tag)
    }

    /// The tag of `form`'s class, if stored.
    pub fn find(&self, form: &PackedForm) -> Option<u64> {
        self.find_hashed(form, form.hash())
    }

    fn find_hashed(&self, form: &PackedForm, hash: u64) -> Option<u64> {
        let &first = self.by_hash.get(&hash)?;
        let (stored, tag) = self.record(first);
        if stored == *form {
            return Some(tag);
        }
        self.collided
            .iter()
            .filter(|&&(h, _)| h == hash)
            .map(|&(_, class)| self.record(class))
            .find(|(stored, _)| stored == form)
            .map(|(_, tag)| tag)
    }

    fn insert_hashed(&mut self, form: &PackedForm, hash: u64, tag: u64) -> io::Result<Seen> {
        if let Some(tag) = self.find_hashed(form, hash) {
            return Ok(Seen::Before(tag));
        }
        let class = self.len;
        self.store(class, form, tag)?;
        self.len += 1;
        match self.by_hash.entry(hash) {
            Entry::Occupied(_) => self.collided.push((hash, class)),
            Entry::Vacant(v) => {
                v.insert(class);
            }
        }
        Ok(Seen::New)
    }

    fn store(&mut self, class: u64, form: &PackedForm, tag: u64) -> io::Result<()> {
        let segment = class as usize / self.segment_classes;
        if segment == self.segments.len() {
            let bytes = (self.segment_classes * RECORD) as u64;
            self.file.set_len((segment as u64 + 1) * bytes)?;
            // SAFETY: the file is ours alone (created unnamed by
            // `tempfile`, so no other process can open it) and only grows,
            // so the mapped range stays backed by the file for the map's
            // life; the map is written only through `&mut self`.
            let map = unsafe {
                MmapOptions::new()
                    .offset(segment as u64 * bytes)
                    .len(bytes as usize)
                    .map_mut(&self.file)?
            };
            self.segments.push(map);
        }
        // A write through the map into a hole of the file that the disk
        // has no room for would end the process with SIGBUS: blocks are
        // taken first, so a full disk is an error here instead.
        let end = (class + 1) * RECORD as u64;
        if end > self.allocated {
            // Ahead by half what is held, between 64 KiB and ALLOCATION.
            let ahead = (self.allocated / 2).clamp(64 << 10, ALLOCATION);
            let mapped = self.segments.len() as u64 * (self.segment_classes * RECORD) as u64;
            let to = (end + ahead).min(mapped);
            allocate(&self.file, self.allocated, to - self.allocated)?;
            self.allocated = to;
        }
        let at = (class as usize % self.segment_classes) * RECORD;
        let record = &mut self.segments[segment][at..at + RECORD];
        record[..PACKED].copy_from_slice(&form.0);
        record[PACKED..].copy_from_slice(&tag.to_le_bytes());
        Ok(())
    }

    fn record(&self, class: u64) -> (PackedForm, u64) {
        let segment = class as usize / self.segment_classes;
        let at = (class as usize % self.segment_classes) * RECORD;
        let record = &self.segments[segment][at..at + RECORD];
        let form = PackedForm(record[..PACKED].try_into().expect("PACKED bytes"));
        let tag = u64::from_le_bytes(record[PACKED..].try_into().expect("8 bytes"));
        (form, tag)
    }
}

/// Gives `len` bytes of `file` from `offset` real blocks on the disk
/// (`posix_fallocate`, else zeros written where the file system cannot),
/// so that a full disk is an `ENOSPC` error now rather than a SIGBUS when
/// the map is written.
#[cfg(unix)]
fn allocate(file: &File, offset: u64, len: u64) -> io::Result<()> {
    use std::os::unix::fs::FileExt;
    use std::os::unix::io::AsRawFd;
    let (Ok(at), Ok(n)) = (libc::off_t::try_from(offset), libc::off_t::try_from(len)) else {
        return Err(io::Error::from(io::ErrorKind::InvalidInput));
    };
    // SAFETY: a plain system call on a descriptor this `File` owns; it
    // touches no memory of ours.
    match unsafe { libc::posix_fallocate(file.as_raw_fd(), at, n) } {
        0 => Ok(()),
        libc::EOPNOTSUPP | libc::EINVAL | libc::ENOSYS => {
            let zeros = vec![0u8; 1 << 20];
            let mut done = 0;
            while done < len {
                let n = (len - done).min(zeros.len() as u64) as usize;
                file.write_all_at(&zeros[..n], offset + done)?;
                done += n as u64;
            }
            Ok(())
        }
        e => Err(io::Error::from_raw_os_error(e)),
    }
}

#[cfg(not(unix))]
fn allocate(_: &File, _: u64, _: u64) -> io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(seed: u64) -> PackedForm {
        let mut cells = [0u8; CELLS];
        let mut x = seed;
        for c in cells.iter_mut() {
            x = mix(x);
            *c = (x % 10) as u8;
        }
        PackedForm::new(&Grid::from_cells(cells).unwrap())
    }

    #[test]
    fn packing_round_trips() {
        for seed in 0..100 {
            let f = form(seed);
            assert_eq!(PackedForm::new(&f.grid()), f);
        }
    }

    /// Across several mapped segments, and with every hash forced equal
    /// for some classes: each class is found with its own tag, and a
    /// collision never merges two classes.
    #[test]
    fn exact_across_segments_and_collisions() {
        let mut set = ClassSet::with_segments(7).unwrap();
        for seed in 0..100u64 {
            // Seeds 0-29 all share the hash 42.
            let hash = if seed < 30 { 42 } else { form(seed).hash() };
            assert_eq!(
                set.insert_hashed(&form(seed), hash, seed * 10).unwrap(),
                Seen::New
            );
        }
        assert_eq!(set.len(), 100);
        assert_eq!(set.segments.len(), 15);
        assert_eq!(set.collided.len(), 29);
        for seed in 0..100u64 {
            let hash = if seed < 30 { 42 } else { form(seed).hash() };
            assert_eq!(set.find_hashed(&form(seed), hash), Some(seed * 10));
            assert_eq!(
                set.insert_hashed(&form(seed), hash, 1).unwrap(),
                Seen::Before(seed * 10)
            );
        }
        assert_eq!(set.find_hashed(&form(1000), 42), None);
        assert_eq!(set.find(&form(1000)), None);
        assert_eq!(set.len(), 100);
    }
}
