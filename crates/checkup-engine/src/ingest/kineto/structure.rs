//! Where a JSON object or array ends, found 64 bytes at a time, as simdjson's first stage
//! finds a document's structure: a block's quotes, backslashes and brackets become bit masks
//! (SSE2 compares on x86-64, a byte loop elsewhere), escaped quotes are told apart by the
//! parity of the backslash run before them, strings by a prefix XOR of the quotes, and only
//! the brackets outside strings are walked one by one. A trace event is a few hundred bytes
//! of mostly strings: this replaces a byte-by-byte walk and a search per string.

/// Odd bit positions: the backslash-run parity trick's mask.
const ODD_BITS: u64 = 0xAAAA_AAAA_AAAA_AAAA;

/// One 64-byte block's bytes of interest, bit i for byte i.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct BlockMasks {
    quotes: u64,
    backslashes: u64,
    /// `{` and `[`.
    opens: u64,
    /// `}` and `]`.
    closes: u64,
}

/// What a block leaves to the next: inside a string or not, the next byte escaped or not,
/// and the bracket depth.
#[derive(Debug, Default, Clone, Copy)]
struct Carry {
    /// All ones when the block ended inside a string.
    in_string: u64,
    /// 1 when the next block's first byte is escaped by a backslash run ending this one.
    escaped: u64,
    depth: u64,
}

/// The offset of the bracket that closes the object or array opening at `buf[0]`, or None
/// when `buf` ends first (or does not start with a bracket).
pub(super) fn value_end(buf: &[u8]) -> Option<usize> {
    if !matches!(buf.first(), Some(b'{' | b'[')) {
        return None;
    }
    let mut carry = Carry::default();
    let mut blocks = buf.chunks_exact(64);
    let mut base = 0;
    for block in blocks.by_ref() {
        let block: &[u8; 64] = block.try_into().expect("64-byte chunk");
        if let Some(end) = close_in(masks(block), &mut carry) {
            return Some(base + end);
        }
        base += 64;
    }
    // The tail, padded with spaces (nothing structural).
    let tail = blocks.remainder();
    let mut padded = [b' '; 64];
    padded[..tail.len()].copy_from_slice(tail);
    close_in(masks(&padded), &mut carry).map(|end| base + end)
}

/// The offset in the block of the bracket that brings the depth back to 0, if any; the
/// carry updated for the next block otherwise.
fn close_in(m: BlockMasks, carry: &mut Carry) -> Option<usize> {
    let escaped = escaped_bytes(m.backslashes, &mut carry.escaped);
    let quotes = m.quotes & !escaped;
    let in_string = prefix_xor(quotes) ^ carry.in_string;
    carry.in_string = ((in_string as i64) >> 63) as u64;
    let opens = m.opens & !in_string & !escaped;
    let closes = m.closes & !in_string & !escaped;
    let mut brackets = opens | closes;
    while brackets != 0 {
        let bit = brackets & brackets.wrapping_neg();
        if opens & bit != 0 {
            carry.depth += 1;
        } else {
            // A stray close at depth 0 ends nothing: the full parse reports it.
            carry.depth = carry.depth.saturating_sub(1);
            if carry.depth == 0 {
                return Some(bit.trailing_zeros() as usize);
            }
        }
        brackets &= brackets - 1;
    }
    None
}

/// The bytes a backslash escapes: the one after each odd-length run of backslashes
/// (simdjson's subtraction trick, which carries runs across blocks in `next_escaped`).
fn escaped_bytes(backslashes: u64, next_escaped: &mut u64) -> u64 {
    if backslashes == 0 {
        return std::mem::take(next_escaped);
    }
    let potential = backslashes & !*next_escaped;
    let maybe_escaped = potential << 1;
    let code = ((maybe_escaped | ODD_BITS).wrapping_sub(potential)) ^ ODD_BITS;
    let escaped = code ^ (backslashes | *next_escaped);
    *next_escaped = (code & backslashes) >> 63;
    escaped
}

/// Bit i set when an odd number of bits at or below i are: inside a string, from its
/// opening quote up to its closing one.
fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

fn masks(block: &[u8; 64]) -> BlockMasks {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: SSE2 is part of the x86-64 baseline; every x86-64 CPU has it.
        unsafe { masks_sse2(block) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        masks_bytes(block)
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn masks_sse2(block: &[u8; 64]) -> BlockMasks {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8, _mm_set_epi64x,
    };
    let mut m = BlockMasks {
        quotes: 0,
        backslashes: 0,
        opens: 0,
        closes: 0,
    };
    for (i, lane) in block.chunks_exact(16).enumerate() {
        let bytes = u128::from_le_bytes(lane.try_into().expect("16-byte lane"));
        let v = _mm_set_epi64x((bytes >> 64) as i64, bytes as i64);
        let eq = |x, c: u8| _mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(c as i8))) as u16;
        // `[` and `{`, `]` and `}` differ only in bit 0x20.
        let folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
        let shift = 16 * i;
        m.quotes |= u64::from(eq(v, b'"')) << shift;
        m.backslashes |= u64::from(eq(v, b'\\')) << shift;
        m.opens |= u64::from(eq(folded, b'{')) << shift;
        m.closes |= u64::from(eq(folded, b'}')) << shift;
    }
    m
}

#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn masks_bytes(block: &[u8; 64]) -> BlockMasks {
    let mut m = BlockMasks {
        quotes: 0,
        backslashes: 0,
        opens: 0,
        closes: 0,
    };
    for (i, b) in block.iter().enumerate() {
        let bit = 1u64 << i;
        match b {
            b'"' => m.quotes |= bit,
            b'\\' => m.backslashes |= bit,
            b'{' | b'[' => m.opens |= bit,
            b'}' | b']' => m.closes |= bit,
            _ => {}
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain walk the block scanner replaces: the reference it must agree with. A
    /// backslash escapes the next byte wherever it is (JSON has none outside strings; the
    /// full parse rejects a document that does).
    fn value_end_bytewise(buf: &[u8]) -> Option<usize> {
        if !matches!(buf.first(), Some(b'{' | b'[')) {
            return None;
        }
        let (mut depth, mut in_string, mut escaped) = (0u64, false, false);
        for (i, b) in buf.iter().enumerate() {
            if escaped {
                escaped = false;
                continue;
            }
            if *b == b'\\' {
                escaped = true;
                continue;
            }
            if in_string {
                if *b == b'"' {
                    in_string = false;
                }
                continue;
            }
            match b {
                b'"' => in_string = true,
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return Some(i);
                    }
                }
                _ => {}
            }
        }
        None
    }

    #[test]
    fn an_event_ends_at_its_own_brace_whatever_its_strings_hold() {
        let event =
            br#"{"ph":"X","name":"x \"quoted\" [} \\","args":{"a":[1,{"b":"}"}]}}, {"next":1}"#;
        let end = value_end(event).unwrap();
        assert_eq!(&event[end - 1..=end], b"}}");
        assert_eq!(Some(end), value_end_bytewise(event));
        // Cut before its end: no end.
        assert_eq!(value_end(&event[..end]), None);
        assert_eq!(value_end(b"\"not an object\""), None);
    }

    #[test]
    fn backslash_runs_across_block_edges_escape_by_their_parity() {
        // A string whose backslash runs of every length end at every offset around the
        // 64-byte edges, followed by the object's close.
        for run in 1..6 {
            for pad in 0..140 {
                let mut s = b"{\"k\":\"".to_vec();
                s.extend(std::iter::repeat_n(b'a', pad));
                s.extend(std::iter::repeat_n(b'\\', run));
                // An odd run escapes the quote: the string goes on to the second one.
                s.extend_from_slice(b"\"}x\"}");
                assert_eq!(
                    value_end(&s),
                    value_end_bytewise(&s),
                    "run {run}, pad {pad}"
                );
            }
        }
    }

    #[test]
    fn agrees_with_the_byte_walk_on_ten_thousand_random_documents() {
        // A small xorshift: documents of brackets, quotes, backslashes and letters, so every
        // mix of strings, escapes and nesting comes up, at every length around the blocks.
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let alphabet = b"{}[]\"\\ab,: ";
        for _ in 0..10_000 {
            let len = (next() % 300) as usize;
            let mut doc = vec![if next() % 2 == 0 { b'{' } else { b'[' }];
            doc.extend((0..len).map(|_| alphabet[(next() % alphabet.len() as u64) as usize]));
            assert_eq!(
                value_end(&doc),
                value_end_bytewise(&doc),
                "{}",
                String::from_utf8_lossy(&doc)
            );
        }
    }

    #[test]
    fn the_byte_masks_match_the_simd_ones() {
        let block: [u8; 64] = std::array::from_fn(|i| b"{}[]\"\\ab"[i % 8]);
        assert_eq!(masks(&block), masks_bytes(&block));
    }
}
