//! The byte layout of saved trees: a header, length-prefixed little-endian
//! arrays, and a checksum over everything before it.
//!
//! Every count is checked against the bytes that remain before anything is
//! allocated, so a truncated file or a forged huge length is an error, not
//! an allocation. The checksum catches accidental damage (a flipped bit, a
//! torn write); the structural and geometric checks in `saved::tree` make
//! even a forged file an error or a tree that answers as built.

use crate::math::Real;
use crate::saved::LoadError;

/// The first eight bytes of every saved file.
pub(crate) const MAGIC: [u8; 8] = *b"BOXTREE\0";

/// Appends values to a growing file.
#[derive(Default)]
pub(crate) struct Writer {
    pub(crate) bytes: Vec<u8>,
}

impl Writer {
    pub(crate) fn u32(&mut self, v: u32) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }

    pub(crate) fn u64(&mut self, v: u64) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }

    /// A section: its length in items, then the items' words.
    pub(crate) fn words<T>(&mut self, items: &[T], words: impl Fn(&T, &mut Vec<u32>)) {
        self.u64(items.len() as u64);
        let mut scratch = Vec::with_capacity(64);
        for item in items {
            scratch.clear();
            words(item, &mut scratch);
            for w in &scratch {
                self.bytes.extend_from_slice(&w.to_le_bytes());
            }
        }
    }

    /// Closes the file with the checksum of all bytes so far.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        let sum = checksum(&self.bytes);
        self.u64(sum);
        self.bytes
    }
}

/// Reads values from a whole file, never past its end.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    /// Checks the magic and the version (not the checksum: see
    /// [`verified`]); the reader then stands after the version.
    pub(crate) fn open(bytes: &'a [u8], version: u32) -> Result<Self, LoadError> {
        if bytes.len() < MAGIC.len() || bytes[..MAGIC.len()] != MAGIC {
            return Err(LoadError::NotSaved);
        }
        if bytes.len() < MAGIC.len() + 4 + 8 {
            return Err(LoadError::Truncated { section: "header" });
        }
        let mut reader = Reader {
            bytes,
            at: MAGIC.len(),
        };
        let found = reader.u32("header")?;
        if found != version {
            return Err(LoadError::Version {
                found,
                supported: version,
            });
        }
        reader.bytes = &bytes[..bytes.len() - 8];
        Ok(reader)
    }

    fn take(&mut self, len: usize, section: &'static str) -> Result<&'a [u8], LoadError> {
        let end = self
            .at
            .checked_add(len)
            .filter(|&end| end <= self.bytes.len())
            .ok_or(LoadError::Truncated { section })?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    pub(crate) fn u32(&mut self, section: &'static str) -> Result<u32, LoadError> {
        let b = self.take(4, section)?;
        Ok(u32::from_le_bytes(b.try_into().expect("four bytes")))
    }

    /// A bare count (of nested sections), checked against the bytes left
    /// as one word per item at least.
    pub(crate) fn count(&mut self, section: &'static str) -> Result<usize, LoadError> {
        let b = self.take(8, section)?;
        let count = u64::from_le_bytes(b.try_into().expect("eight bytes"));
        usize::try_from(count)
            .ok()
            .filter(|&c| c <= (self.bytes.len() - self.at) / 4)
            .ok_or(LoadError::Truncated { section })
    }

    /// A section of `words_per_item` words per item: its item count and
    /// its words. The count is checked against the remaining bytes first.
    pub(crate) fn words(
        &mut self,
        words_per_item: usize,
        section: &'static str,
    ) -> Result<(usize, Words<'a>), LoadError> {
        let b = self.take(8, section)?;
        let count = u64::from_le_bytes(b.try_into().expect("eight bytes"));
        let count = usize::try_from(count).map_err(|_| LoadError::Truncated { section })?;
        let len = count
            .checked_mul(words_per_item * 4)
            .ok_or(LoadError::Truncated { section })?;
        Ok((count, Words(self.take(len, section)?)))
    }

    /// Fails unless every byte before the checksum was read.
    pub(crate) fn end(&self) -> Result<(), LoadError> {
        if self.at == self.bytes.len() {
            Ok(())
        } else {
            Err(LoadError::Corrupt {
                section: "end",
                index: self.at,
                reason: "bytes after the last section",
            })
        }
    }
}

/// The words of one section.
pub(crate) struct Words<'a>(&'a [u8]);

impl<'a> Words<'a> {
    /// The section's bytes.
    pub(crate) fn bytes(&self) -> &'a [u8] {
        self.0
    }

    /// The section as words: borrowed where the bytes are 4-aligned on a
    /// little-endian machine (a file read into a `Vec<u8>` usually is),
    /// decoded into a copy otherwise.
    pub(crate) fn decoded(&self) -> std::borrow::Cow<'a, [u32]> {
        #[cfg(target_endian = "little")]
        if let Ok(words) = bytemuck::try_cast_slice::<u8, u32>(self.0) {
            return std::borrow::Cow::Borrowed(words);
        }
        std::borrow::Cow::Owned(
            self.0
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
        )
    }
}

/// True when `bytes` (a whole file) ends in the checksum of the rest.
pub(crate) fn checksum_matches(bytes: &[u8]) -> bool {
    bytes.len() >= 8 && {
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        checksum(body) == u64::from_le_bytes(sum.try_into().expect("eight bytes"))
    }
}

/// Damage first: a structural error found before the checksum was
/// compared is reported as [`LoadError::Checksum`] when the sum differs
/// (a flipped count reads as a damaged file, not as a short one).
pub(crate) fn damage_first<T>(bytes: &[u8], result: Result<T, LoadError>) -> Result<T, LoadError> {
    match result {
        Err(e) if !matches!(e, LoadError::Checksum) && !checksum_matches(bytes) => {
            Err(LoadError::Checksum)
        }
        other => other,
    }
}

/// `decode()`, if `bytes` (a whole file) carries a matching checksum.
pub(crate) fn verified<T: Send>(
    bytes: &[u8],
    decode: impl FnOnce() -> Result<T, LoadError> + Send,
) -> Result<T, LoadError> {
    verified_pair(bytes, decode, || Ok(())).map(|(t, ())| t)
}

/// Both decodings, if `bytes` (a whole file) carries a matching checksum.
/// With the `parallel` feature each half of the checksum runs beside one
/// of them on two of rayon's threads (all four read memory; on two cores
/// this nearly halves a large load), and the decoded values are dropped
/// when the sums differ; without it the checksum comes first.
pub(crate) fn verified_pair<A: Send, B: Send>(
    bytes: &[u8],
    a: impl FnOnce() -> Result<A, LoadError> + Send,
    b: impl FnOnce() -> Result<B, LoadError> + Send,
) -> Result<(A, B), LoadError> {
    if bytes.len() < 8 {
        return Err(LoadError::NotSaved);
    }
    let (body, sum) = bytes.split_at(bytes.len() - 8);
    let stored = u64::from_le_bytes(sum.try_into().expect("eight bytes"));
    let (first, second) = halves(body);
    let check = |(h1, h2): (u64, u64)| {
        if fold(h1, h2, body.len()) == stored {
            Ok(())
        } else {
            Err(LoadError::Checksum)
        }
    };
    #[cfg(feature = "parallel")]
    {
        let ((h1, a), (h2, b)) = rayon::join(
            || rayon::join(|| lanes_hash(first), a),
            || rayon::join(|| lanes_hash(second), b),
        );
        check((h1, h2))?;
        Ok((a?, b?))
    }
    #[cfg(not(feature = "parallel"))]
    {
        check((lanes_hash(first), lanes_hash(second)))?;
        Ok((a()?, b()?))
    }
}

/// The float stored in a word.
#[inline(always)]
pub(crate) fn real(word: u32) -> Real {
    Real::from_bits(word)
}

/// A 64-bit checksum of `bytes`: each half (split on a 64-byte boundary,
/// so two threads can sum them) through eight independent multiply–rotate
/// lanes over 8-byte words (in the manner of xxHash's accumulators), then
/// both folded with the length. It runs at memory speed. Not
/// cryptographic: it detects damage, not forgery (the structural checks
/// handle forgery).
#[must_use]
pub(crate) fn checksum(bytes: &[u8]) -> u64 {
    let (first, second) = halves(bytes);
    fold(lanes_hash(first), lanes_hash(second), bytes.len())
}

const PRIME: [u64; 4] = [
    0x9E37_79B1_85EB_CA87,
    0xC2B2_AE3D_27D4_EB4F,
    0x1656_67B1_9E37_79F9,
    0x85EB_CA77_C2B2_AE63,
];

fn halves(bytes: &[u8]) -> (&[u8], &[u8]) {
    bytes.split_at(bytes.len() / 2 / 64 * 64)
}

fn fold(first: u64, second: u64, len: usize) -> u64 {
    let h = (len as u64 ^ first.wrapping_mul(PRIME[2]))
        .rotate_left(29)
        .wrapping_mul(PRIME[0]);
    let h = (h ^ second.wrapping_mul(PRIME[3]))
        .rotate_left(23)
        .wrapping_mul(PRIME[1]);
    h ^ (h >> 31)
}

fn lanes_hash(bytes: &[u8]) -> u64 {
    const LANES: usize = 8;
    let mut lanes: [u64; LANES] = std::array::from_fn(|k| PRIME[k % 4].rotate_left(k as u32));
    let mut blocks = bytes.chunks_exact(8 * LANES);
    for block in &mut blocks {
        for (k, lane) in lanes.iter_mut().enumerate() {
            let word = u64::from_le_bytes(block[8 * k..8 * k + 8].try_into().expect("eight bytes"));
            *lane = (*lane ^ word).wrapping_mul(PRIME[k % 4]).rotate_left(31);
        }
    }
    let mut h = bytes.len() as u64;
    for (k, lane) in lanes.iter().enumerate() {
        h = (h ^ lane.wrapping_mul(PRIME[(k + 1) % 4]))
            .rotate_left(27)
            .wrapping_mul(PRIME[0]);
    }
    for &b in blocks.remainder() {
        h = (h ^ u64::from(b)).wrapping_mul(PRIME[1]).rotate_left(11);
    }
    h ^ (h >> 29)
}
