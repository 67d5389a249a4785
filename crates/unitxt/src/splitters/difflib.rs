//! Python's `difflib.SequenceMatcher.ratio` and `difflib.get_close_matches`, over characters,
//! as CPython 3.11 computes them (including the "autojunk" heuristic: in a second sequence of
//! 200 or more items, items that occur more than 1% of the time are ignored as junk).

use std::collections::HashMap;

struct Matcher<'a> {
    a: &'a [char],
    b: &'a [char],
    b2j: HashMap<char, Vec<usize>>,
}

impl<'a> Matcher<'a> {
    fn new(a: &'a [char], b: &'a [char]) -> Self {
        let mut b2j: HashMap<char, Vec<usize>> = HashMap::new();
        for (i, c) in b.iter().enumerate() {
            b2j.entry(*c).or_default().push(i);
        }
        let n = b.len();
        if n >= 200 {
            let ntest = n / 100 + 1;
            b2j.retain(|_, idx| idx.len() <= ntest);
        }
        Matcher { a, b, b2j }
    }

    /// CPython's `find_longest_match` without junk predicates (only popular items).
    fn longest(&self, alo: usize, ahi: usize, blo: usize, bhi: usize) -> (usize, usize, usize) {
        let (mut besti, mut bestj, mut bestsize) = (alo, blo, 0usize);
        let mut j2len: HashMap<usize, usize> = HashMap::new();
        for i in alo..ahi {
            let mut newj2len: HashMap<usize, usize> = HashMap::new();
            if let Some(js) = self.b2j.get(&self.a[i]) {
                for &j in js {
                    if j < blo {
                        continue;
                    }
                    if j >= bhi {
                        break;
                    }
                    let k = j.checked_sub(1).and_then(|jj| j2len.get(&jj)).copied().unwrap_or(0) + 1;
                    newj2len.insert(j, k);
                    if k > bestsize {
                        besti = i + 1 - k;
                        bestj = j + 1 - k;
                        bestsize = k;
                    }
                }
            }
            j2len = newj2len;
        }
        // Extend with equal items that are "popular" (not in b2j), as CPython does for junk.
        let isbjunk = |c: &char| !self.b2j.contains_key(c);
        while besti > alo && bestj > blo && !isbjunk(&self.b[bestj - 1]) && self.a[besti - 1] == self.b[bestj - 1] {
            besti -= 1;
            bestj -= 1;
            bestsize += 1;
        }
        while besti + bestsize < ahi && bestj + bestsize < bhi && !isbjunk(&self.b[bestj + bestsize]) && self.a[besti + bestsize] == self.b[bestj + bestsize] {
            bestsize += 1;
        }
        while besti > alo && bestj > blo && isbjunk(&self.b[bestj - 1]) && self.a[besti - 1] == self.b[bestj - 1] {
            besti -= 1;
            bestj -= 1;
            bestsize += 1;
        }
        while besti + bestsize < ahi && bestj + bestsize < bhi && isbjunk(&self.b[bestj + bestsize]) && self.a[besti + bestsize] == self.b[bestj + bestsize] {
            bestsize += 1;
        }
        (besti, bestj, bestsize)
    }

    fn matches(&self) -> usize {
        let mut queue = vec![(0, self.a.len(), 0, self.b.len())];
        let mut total = 0;
        while let Some((alo, ahi, blo, bhi)) = queue.pop() {
            let (i, j, k) = self.longest(alo, ahi, blo, bhi);
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
}

/// `SequenceMatcher(None, a, b).ratio()`: 2·M / (len(a) + len(b)), 1.0 for two empty strings.
pub fn ratio(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let total = a.len() + b.len();
    if total == 0 {
        return 1.0;
    }
    2.0 * Matcher::new(&a, &b).matches() as f64 / total as f64
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

