//! Byte-level mutations shared by every target: bit and byte flips,
//! interesting integers, splices with another input, truncation and
//! extension, block copies and deletions, length-field lies and tokens
//! from the target's dictionary.
//!
//! Mutations never fail and never grow an input past [`MAX_INPUT`]; an
//! empty input only grows. Which mutation runs, and where, comes from the
//! RNG passed in, so a seed replays the same mutations.

use rand::rngs::StdRng;
use rand::Rng;

/// The largest input a mutation produces.
pub const MAX_INPUT: usize = 64 << 10;

/// Integers that sit on boundaries: length prefixes, sizes, signs.
const INTERESTING: [u64; 16] = [
    0,
    1,
    0x7f,
    0x80,
    0xfb,
    0xfc,
    0xfd,
    0xfe,
    0xff,
    0x100,
    0x7fff,
    0xffff,
    0xff_ffff,
    0x7fff_ffff,
    0xffff_ffff,
    u64::MAX,
];

/// Applies one to `max_rounds` random mutations to `input`; `others` are
/// splice partners (may be empty), `dictionary` the target's tokens.
pub fn mutate(
    input: &mut Vec<u8>,
    rng: &mut StdRng,
    others: &[Vec<u8>],
    dictionary: &[&[u8]],
    max_rounds: usize,
) {
    let rounds = rng.random_range(1..=max_rounds.max(1));
    for _ in 0..rounds {
        mutate_once(input, rng, others, dictionary);
    }
    input.truncate(MAX_INPUT);
}

fn mutate_once(input: &mut Vec<u8>, rng: &mut StdRng, others: &[Vec<u8>], dictionary: &[&[u8]]) {
    if input.is_empty() {
        let n = rng.random_range(1..=16);
        input.extend((0..n).map(|_| rng.random::<u8>()));
        return;
    }
    let len = input.len();
    match rng.random_range(0..12) {
        // A flipped bit.
        0 => {
            let i = rng.random_range(0..len);
            input[i] ^= 1 << rng.random_range(0..8);
        }
        // A random byte.
        1 => {
            let i = rng.random_range(0..len);
            input[i] = rng.random();
        }
        // An interesting integer, 1, 2, 4 or 8 bytes, either byte order:
        // the length-field lie.
        2 => {
            let width = [1usize, 2, 3, 4, 8][rng.random_range(0..5)];
            let v = INTERESTING[rng.random_range(0..INTERESTING.len())];
            let v = if rng.random_bool(0.3) {
                v.wrapping_add(rng.random_range(0..3)).wrapping_sub(1)
            } else {
                v
            };
            let bytes = if rng.random_bool(0.8) {
                v.to_le_bytes()
            } else {
                v.to_be_bytes()
            };
            let bytes = if rng.random_bool(0.8) {
                &bytes[..width]
            } else {
                &bytes[8 - width..]
            };
            let at = rng.random_range(0..len);
            overwrite(input, at, bytes);
        }
        // Truncation.
        3 => {
            let keep = rng.random_range(0..len);
            input.truncate(keep);
        }
        // Random bytes appended or inserted.
        4 => {
            let n = rng.random_range(1..=32);
            let at = rng.random_range(0..=len);
            let bytes: Vec<u8> = (0..n).map(|_| rng.random()).collect();
            input.splice(at..at, bytes);
        }
        // A block deleted.
        5 => {
            let at = rng.random_range(0..len);
            let n = rng.random_range(1..=(len - at).min(64));
            input.drain(at..at + n);
        }
        // A block duplicated elsewhere.
        6 => {
            let at = rng.random_range(0..len);
            let n = rng.random_range(1..=(len - at).min(64));
            let block = input[at..at + n].to_vec();
            let to = rng.random_range(0..=len);
            input.splice(to..to, block);
        }
        // A splice: our head, another input's tail.
        7 | 8 if !others.is_empty() => {
            let other = &others[rng.random_range(0..others.len())];
            let head = rng.random_range(0..=len);
            let tail = rng.random_range(0..=other.len());
            input.truncate(head);
            input.extend_from_slice(&other[tail..]);
        }
        // A dictionary token, inserted or overwriting.
        9 | 10 if !dictionary.is_empty() => {
            let token = dictionary[rng.random_range(0..dictionary.len())];
            let at = rng.random_range(0..=len);
            if rng.random_bool(0.5) {
                input.splice(at..at, token.iter().copied());
            } else {
                overwrite(input, at.min(len - 1), token);
            }
        }
        // Arithmetic on one byte.
        _ => {
            let i = rng.random_range(0..len);
            let delta = rng.random_range(1..=16u8);
            input[i] = if rng.random_bool(0.5) {
                input[i].wrapping_add(delta)
            } else {
                input[i].wrapping_sub(delta)
            };
        }
    }
}

/// Writes `bytes` at `at`, growing the input when they run past its end.
fn overwrite(input: &mut Vec<u8>, at: usize, bytes: &[u8]) {
    for (k, &b) in bytes.iter().enumerate() {
        match input.get_mut(at + k) {
            Some(slot) => *slot = b,
            None => input.push(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn mutations_replay_from_the_seed_and_change_the_input() {
        let seed_input = b"SELECT 1 FROM t WHERE a = 2".to_vec();
        let dict: [&[u8]; 2] = [b"NULL", b"\xff\xff\xff"];
        let run = |seed| {
            let mut rng = StdRng::seed_from_u64(seed);
            let mut out = Vec::new();
            for _ in 0..50 {
                let mut x = seed_input.clone();
                mutate(&mut x, &mut rng, &[b"other".to_vec()], &dict, 4);
                out.push(x);
            }
            out
        };
        let a = run(7);
        assert_eq!(a, run(7));
        assert_ne!(a, run(8));
        assert!(a.iter().filter(|x| **x != seed_input).count() > 40);
        assert!(a.iter().all(|x| x.len() <= MAX_INPUT));
    }

    #[test]
    fn an_empty_input_grows() {
        let mut rng = StdRng::seed_from_u64(1);
        let mut x = Vec::new();
        mutate(&mut x, &mut rng, &[], &[], 1);
        assert!(!x.is_empty());
    }
}
