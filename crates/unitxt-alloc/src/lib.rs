//! The global allocator of the `unitxt-rs` binary and the Python extension: mimalloc (version
//! 2), through the `mimalloc` crate's [`MiMalloc`]. Preparing instances allocates many small
//! strings and maps; with the system allocator a no-demos recipe spent about a third of its
//! time in `malloc` and `free`.
//!
//! [`set_purge_delay`] sets the one mimalloc option the binaries change, which the `mimalloc`
//! crate has no setter for.

pub use mimalloc::MiMalloc;

use libmimalloc_sys as mi;

/// Sets mimalloc's purge delay (how long freed memory stays committed before it is returned
/// to the OS) to `millis`; mimalloc's default is 10 ms. For a short-lived process that churns
/// memory across threads (the CLI's pipeline: instances built on the reading thread are freed
/// on the workers and lines the other way round), a longer delay avoids returning pages only
/// to fault them in, zeroed, again. Peak RSS is the same, since freed memory is reused either
/// way.
pub fn set_purge_delay(millis: i64) {
    // SAFETY: `mi_option_set` only stores the value; mimalloc reads options when it purges.
    // Why unsafe: it is a C function of `libmimalloc-sys`, and the safe `mimalloc` crate has
    // no way to set options. (With two threads on SST-2 train, a delay of 1 s instead of the
    // default took 250 minor page faults instead of 620.)
    unsafe { mi::mi_option_set(PURGE_DELAY, millis as _) }
}

/// `mi_option_purge_delay` of mimalloc v2's `mimalloc.h`, which `libmimalloc-sys` does not
/// name: the option between `eager_commit_delay` (14) and `use_numa_nodes` (16).
const PURGE_DELAY: mi::mi_option_t = mi::mi_option_eager_commit_delay + 1;

#[cfg(test)]
mod tests {
    use super::*;
    use std::alloc::{GlobalAlloc, Layout};

    #[test]
    fn purge_delay_is_the_option_set() {
        assert_eq!(PURGE_DELAY, mi::mi_option_use_numa_nodes - 1);
        set_purge_delay(1234);
        assert_eq!(unsafe { mi::mi_option_get(PURGE_DELAY) }, 1234);
    }

    #[test]
    fn blocks_have_the_alignment_asked_for() {
        let a = MiMalloc;
        for align in [1, 2, 4, 8, 16, 32, 64, 4096] {
            for size in [1, 7, 8, 24, 40, 100, 1000, 70_000] {
                let l = Layout::from_size_align(size, align).unwrap();
                unsafe {
                    let p = a.alloc(l);
                    assert!(!p.is_null());
                    assert_eq!(p as usize % align, 0, "size {size}, align {align}");
                    p.write_bytes(7, size);
                    let q = a.realloc(p, l, size * 3);
                    assert_eq!(q as usize % align, 0, "realloc: size {size}, align {align}");
                    assert!((0..size).all(|k| *q.add(k) == 7), "realloc keeps the bytes");
                    a.dealloc(q, Layout::from_size_align(size * 3, align).unwrap());
                    let z = a.alloc_zeroed(l);
                    assert_eq!(z as usize % align, 0);
                    assert!((0..size).all(|k| *z.add(k) == 0), "zeroed: size {size}, align {align}");
                    a.dealloc(z, l);
                }
            }
        }
    }
}
