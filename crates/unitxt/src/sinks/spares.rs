//! [`Spares`]: buffers that a sink has written out, kept for the worker threads to fill again.
//!
//! A worker fills a buffer (a JSON Lines line, an Arrow row) and the reading thread writes it.
//! Freeing it there would take mimalloc's cross-thread free path, so the writer hands it back
//! instead. Each thread takes spares into a stash of its own, [`Spares::REFILL`] at a time: one
//! lock per chunk of instances rather than per instance, because the lock's cache line moves
//! between the cores each time another thread takes it.

use std::cell::RefCell;
use std::sync::Mutex;

/// A pool of spare buffers shared by all threads, holding at most `max` of them.
pub struct Spares<T> {
    shared: Mutex<Vec<T>>,
    max: usize,
}

impl<T> Spares<T> {
    /// A thread takes this many spares from the shared pool at once.
    pub const REFILL: usize = 64;

    /// An empty pool that keeps at most `max` spares.
    pub const fn new(max: usize) -> Self {
        Spares { shared: Mutex::new(Vec::new()), max }
    }

    /// A spare buffer, as it was handed back (the caller empties it), or `None` when there is
    /// none. `stash` is the calling thread's own (a `thread_local!`): it is refilled from the
    /// shared pool with up to [`Spares::REFILL`] spares when empty.
    pub fn take(&self, stash: &RefCell<Vec<T>>) -> Option<T> {
        let mut stash = stash.borrow_mut();
        if stash.is_empty() {
            let mut shared = self.shared.lock().unwrap_or_else(|e| e.into_inner());
            let keep = shared.len().saturating_sub(Self::REFILL);
            stash.extend(shared.drain(keep..));
        }
        stash.pop()
    }

    /// How many spares the shared pool holds (not counting the threads' stashes).
    pub fn len(&self) -> usize {
        self.shared.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Whether the shared pool holds no spares.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops the spares of the shared pool (the threads' stashes keep theirs).
    pub fn clear(&self) {
        self.shared.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }

    /// Hands `items` back, each one that `keep` accepts (it may empty the buffer too), until
    /// the pool holds `max`; the others are dropped.
    pub fn give_back(&self, items: impl IntoIterator<Item = T>, mut keep: impl FnMut(&mut T) -> bool) {
        let mut shared = self.shared.lock().unwrap_or_else(|e| e.into_inner());
        for mut item in items {
            if shared.len() >= self.max {
                break;
            }
            if keep(&mut item) {
                shared.push(item);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_takes_spares_in_refills_newest_first() {
        let pool: Spares<usize> = Spares::new(100);
        pool.give_back(0..80, |i| *i % 2 == 0);
        let stash = RefCell::new(Vec::new());
        // 40 even numbers kept; the first refill takes all 40 (fewer than REFILL), newest last.
        assert_eq!(pool.take(&stash), Some(78));
        assert_eq!(stash.borrow().len(), 39);
        let rest: Vec<usize> = std::iter::from_fn(|| pool.take(&stash)).collect();
        assert_eq!(rest.len(), 39);
        assert_eq!(rest.first(), Some(&76));
        assert_eq!(pool.take(&stash), None);
    }

    #[test]
    fn a_refill_takes_at_most_refill_spares_and_the_pool_stops_at_max() {
        let pool: Spares<usize> = Spares::new(100);
        pool.give_back(0..150, |_| true);
        assert_eq!(pool.len(), 100);
        let stash = RefCell::new(Vec::new());
        assert_eq!(pool.take(&stash), Some(99));
        assert_eq!(stash.borrow().len(), Spares::<usize>::REFILL - 1);
        assert_eq!(pool.len(), 100 - Spares::<usize>::REFILL);
        pool.clear();
        assert!(pool.is_empty());
    }
}
