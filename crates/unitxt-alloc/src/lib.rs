//! The global allocator of the `unitxt-rs` binary and the Python extension: mimalloc (version
//! 2). Preparing instances allocates many small strings and maps; with the system allocator a
//! no-demos recipe spent about a third of its time in `malloc` and `free`.
//!
//! The `mimalloc` crate's allocator calls `mi_malloc_aligned` for every allocation. Almost all
//! of ours ask for at most word alignment (strings, vectors of values, map entries), which
//! every mimalloc block has, so [`MiMalloc`] calls plain `mi_malloc` / `mi_realloc` /
//! `mi_zalloc` for those and the aligned entry points only for larger alignments. On SST-2
//! train that saved about 20 instructions per allocation, of about 60 allocations per
//! instance at the time (about 32 since short strings are kept inline in values).

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys as mi;

/// mimalloc's size classes are multiples of the word size, so every block is word-aligned.
const WORD: usize = std::mem::size_of::<usize>();

/// Sets mimalloc's purge delay (how long freed memory stays committed before it is returned
/// to the OS) to `millis`; mimalloc's default is 10 ms. For a short-lived process that churns
/// memory across threads (the CLI's pipeline: instances built on the reading thread are freed
/// on the workers and lines the other way round), a longer delay avoids returning pages only
/// to fault them in, zeroed, again: on SST-2 train with two threads, 620 minor page faults
/// instead of 250. Peak RSS is the same, since freed memory is reused either way.
pub fn set_purge_delay(millis: i64) {
    // SAFETY: `mi_option_set` only stores the value; mimalloc reads options when it purges.
    // Why unsafe: it is a C function of `libmimalloc-sys`, and the safe `mimalloc` crate has
    // no way to set options.
    unsafe { mi::mi_option_set(PURGE_DELAY, millis as _) }
}

/// `mi_option_purge_delay` of mimalloc v2's `mimalloc.h`, which `libmimalloc-sys` does not
/// name: the option between `eager_commit_delay` (14) and `use_numa_nodes` (16).
const PURGE_DELAY: mi::mi_option_t = mi::mi_option_eager_commit_delay + 1;

/// mimalloc as a [`GlobalAlloc`]; use with `#[global_allocator]`.
pub struct MiMalloc;

// SAFETY: every entry point forwards to the mimalloc function of the same contract; plain
// `mi_malloc` / `mi_zalloc` / `mi_realloc` are used only when `layout.align() <= WORD`, an
// alignment that all mimalloc blocks have. Memory from either family is freed by `mi_free`.
// Why not the `mimalloc` crate's `MiMalloc` (which needs no unsafe here): it calls the aligned
// entry points for every allocation, about 20 instructions more each (see the module docs).
unsafe impl GlobalAlloc for MiMalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= WORD {
            mi::mi_malloc(layout.size()) as *mut u8
        } else {
            mi::mi_malloc_aligned(layout.size(), layout.align()) as *mut u8
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= WORD {
            mi::mi_zalloc(layout.size()) as *mut u8
        } else {
            mi::mi_zalloc_aligned(layout.size(), layout.align()) as *mut u8
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        mi::mi_free(ptr as *mut c_void)
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if layout.align() <= WORD {
            mi::mi_realloc(ptr as *mut c_void, new_size) as *mut u8
        } else {
            mi::mi_realloc_aligned(ptr as *mut c_void, new_size, layout.align()) as *mut u8
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
