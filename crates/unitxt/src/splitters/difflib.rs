//! Python's `difflib.SequenceMatcher.ratio` and `difflib.get_close_matches`, over characters,
//! as CPython 3.11 computes them (including the "autojunk" heuristic for long sequences).

use std::collections::HashMap;
use std::hash::Hash;

/// The number of matched elements between `a` and `b`, as `SequenceMatcher(None, a, b)` counts
/// them: longest matching blocks found recursively (`get_matching_blocks`), where elements of
/// `b` that are "popular" (in a `b` of 200 or more, occurring more than 1% of the time) do not
/// start a match but may extend one (there is no junk without an `isjunk` function).
pub fn matching_count<T: Eq + Hash>(a: &[T], b: &[T]) -> usize {
    let mut b2j: HashMap<&T, Vec<usize>> = HashMap::new();
    for (j, x) in b.iter().enumerate() {
        b2j.entry(x).or_default().push(j);
    }
    if b.len() >= 200 {
        let limit = b.len() / 100 + 1;
        b2j.retain(|_, idx| idx.len() <= limit);
    }
    let longest = |alo: usize, ahi: usize, blo: usize, bhi: usize| -> (usize, usize, usize) {
        let (mut bi, mut bj, mut size) = (alo, blo, 0usize);
        let mut j2len: HashMap<usize, usize> = HashMap::new();
        for (i, x) in a.iter().enumerate().take(ahi).skip(alo) {
            let mut next: HashMap<usize, usize> = HashMap::new();
            if let Some(js) = b2j.get(x) {
                for &j in js {
                    if j < blo {
                        continue;
                    }
                    if j >= bhi {
                        break;
                    }
                    let k = j.checked_sub(1).and_then(|p| j2len.get(&p)).copied().unwrap_or(0) + 1;
                    next.insert(j, k);
                    if k > size {
                        bi = i + 1 - k;
                        bj = j + 1 - k;
                        size = k;
                    }
                }
            }
            j2len = next;
        }
        while bi > alo && bj > blo && a[bi - 1] == b[bj - 1] {
            bi -= 1;
            bj -= 1;
            size += 1;
        }
        while bi + size < ahi && bj + size < bhi && a[bi + size] == b[bj + size] {
            size += 1;
        }
        (bi, bj, size)
    };
    let mut total = 0;
    let mut queue = vec![(0, a.len(), 0, b.len())];
    while let Some((alo, ahi, blo, bhi)) = queue.pop() {
        let (i, j, k) = longest(alo, ahi, blo, bhi);
        if k > 0 {
            total += k;
            if alo < i && blo < j {
                queue.push((alo, i, blo, j));
            }
            if i + k < ahi && j + k < bhi {
                queue.push((i + k, ahi, j + k, bhi));
            }
        }
    }
    total
}

/// `SequenceMatcher(None, a, b).ratio()` of two sequences: 2·M / (len(a) + len(b)), 1.0 when
/// both are empty.
pub fn ratio_seq<T: Eq + Hash>(a: &[T], b: &[T]) -> f64 {
    let total = a.len() + b.len();
    if total == 0 {
        return 1.0;
    }
    2.0 * matching_count(a, b) as f64 / total as f64
}

/// `SequenceMatcher(None, a, b).ratio()` of two strings, over characters.
pub fn ratio(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    ratio_seq(&a, &b)
}

/// `difflib.get_close_matches(word, possibilities, n, cutoff)`: the `n` possibilities most
/// similar to `word`, best first (ties broken by the larger string, as Python's tuple order).
pub fn get_close_matches(word: &str, possibilities: &[String], n: usize, cutoff: f64) -> Vec<String> {
    let mut scored: Vec<(f64, &String)> = possibilities
        .iter()
        .map(|x| (ratio(x, word), x))
        .filter(|(r, _)| *r >= cutoff)
        .collect();
    scored.sort_by(|x, y| y.0.partial_cmp(&x.0).unwrap_or(std::cmp::Ordering::Equal).then_with(|| y.1.cmp(x.1)));
    scored.into_iter().take(n).map(|(_, s)| s.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_match_python() {
        // Expected values from CPython 3.11: difflib.SequenceMatcher(None, a, b).ratio()
        assert_eq!(ratio("abcd", "bcde"), 0.75);
        assert_eq!(ratio("", ""), 1.0);
        assert!((ratio("the movie was great", "a great movie") - 0.4375).abs() < 1e-12);
        let words: Vec<String> = ["ape", "apple", "peach", "puppy"].iter().map(|s| s.to_string()).collect();
        // difflib.get_close_matches('appel', ['ape','apple','peach','puppy'], n=3, cutoff=0)
        assert_eq!(get_close_matches("appel", &words, 3, 0.0), vec!["apple", "ape", "puppy"]);
    }
}

