//! Compressed inputs: gzip, zstd (a pzstd skippable frame first included)
//! and bzip2, told by their first bytes and read through their decoders.

use std::io::{self, Read};

/// The compressions an input file may come in, told by its first bytes.
#[derive(Clone, Copy)]
pub(crate) enum Codec {
    Gzip,
    Zstd,
    Bzip2,
}

impl Codec {
    /// The codec whose magic number a file opens with (gzip `1f 8b`, zstd
    /// `28 b5 2f fd` or a skippable frame's `5? 2a 4d 18`, as pzstd writes
    /// first, bzip2 `BZh` and its block size, `1` to `9`), if any. No text
    /// record opens with `BZh` (a puzzle line starts with a cell) or with
    /// a control character as its fourth byte.
    pub(crate) fn of(magic: &[u8; 4]) -> Option<Codec> {
        match magic {
            [0x1f, 0x8b, ..] => Some(Codec::Gzip),
            [0x28, 0xb5, 0x2f, 0xfd] | [0x50..=0x5f, 0x2a, 0x4d, 0x18] => Some(Codec::Zstd),
            [b'B', b'Z', b'h', b'1'..=b'9'] => Some(Codec::Bzip2),
            _ => None,
        }
    }

    /// `file` decompressed. Every member of a gzip file (`cat a.gz b.gz`,
    /// bgzip), every frame of a zstd file and every stream of a bzip2 file
    /// (`pbzip2`, `cat a.bz2 b.bz2`) is read.
    pub(crate) fn reader(
        self,
        file: impl Read + Send + 'static,
    ) -> io::Result<Box<dyn Read + Send>> {
        let file = io::BufReader::with_capacity(1 << 16, file);
        Ok(match self {
            Codec::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(file)),
            Codec::Zstd => Box::new(zstd::stream::read::Decoder::with_buffer(file)?),
            Codec::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(file)),
        })
    }
}

/// `stream`, decompressed if its first four bytes are a codec's magic
/// number, else as it is (the bytes looked at are read again).
pub(crate) fn decompressed(mut stream: Box<dyn Read + Send>) -> io::Result<Box<dyn Read + Send>> {
    let mut magic = [0u8; 4];
    let mut held = 0;
    while held < magic.len() {
        match stream.read(&mut magic[held..]) {
            Ok(0) => break,
            Ok(n) => held += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let whole = io::Cursor::new(magic[..held].to_vec()).chain(stream);
    match Codec::of(&magic).filter(|_| held == magic.len()) {
        Some(codec) => codec.reader(whole),
        None => Ok(Box::new(whole)),
    }
}
