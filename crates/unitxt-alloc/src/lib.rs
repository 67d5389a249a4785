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
    unsafe { mi::mi_option_set(PURGE_DELAY, millis as _) }
}

/// Whether the block at `p` was allocated by the calling thread: mimalloc gives every thread a
/// heap of its own, and this asks whether that heap holds the block (a lookup of the block's
/// page, `mi_heap_contains_block`). A pipeline that hands buffers back for reuse can give each
/// buffer to the thread that allocated it, whose core last wrote its cache lines.
///
/// # Safety
/// `p` must point into a live block allocated by [`MiMalloc`] (the process's global
/// allocator): mimalloc reads the header of the memory segment that holds `p`.
pub unsafe fn allocated_here(p: *const u8) -> bool {
    mi::mi_heap_contains_block(mi::mi_heap_get_default(), p as *const c_void)
}

/// Faults in, on a new thread named `unitxt-prefault`, the `bytes` of address space that start
/// at the 2 MiB boundary below a small block the calling thread allocates: the memory its
/// mimalloc heap grows into next (a thread's heap fills its memory segment upwards from the
/// first pages). Each page is faulted in as if written (`madvise(MADV_POPULATE_WRITE)`,
/// Linux 5.14 and later) and keeps its contents, so mimalloc's blocks, used or free, are
/// untouched; what the heap later writes there no longer waits for the kernel.
///
/// Why: on a VM whose host backs guest memory lazily and takes freed memory back (a Firecracker
/// VM with the balloon's free page reporting, where this was measured), the first write to a
/// 2 MiB page that the host has taken back stalls the writing CPU for about 4.7 ms against
/// about 90 µs otherwise. A `prepare` of SST-2 train writes 6 such pages on its reading thread,
/// 3 of them after start-up (Parquet page buffers, instances in flight), and each stall there
/// also idles the helper thread. Faulting them in early on a thread that is otherwise idle took
/// such a cold run (3 s after the last) from a median of 102 ms to 89 ms in one series of ten
/// alternating runs, and from 107 ms to 103 ms in a colder one (where the I/O floor went from
/// 53 ms to 47 ms); back-to-back runs, whose pages are still backed, did not change.
///
/// Returns the thread's handle (it may be dropped: the thread ends on its own), or `None` when
/// `bytes` is 0, when the thread could not start, or on a system other than Linux. Failures
/// of the system call (an older kernel, a range partly unmapped) are ignored: they only leave
/// pages to be faulted in when first written, as without this call. The memory faulted in
/// counts in the process's resident set even if the heap never uses it.
pub fn prefault_heap_in_background(bytes: usize) -> Option<std::thread::JoinHandle<()>> {
    if bytes == 0 || !cfg!(target_os = "linux") {
        return None;
    }
    let probe = Box::new(0u64);
    let start = (&*probe as *const u64 as usize) & !(HUGE_PAGE - 1);
    drop(probe);
    std::thread::Builder::new()
        .name("unitxt-prefault".into())
        .spawn(move || {
            let _ = populate(start, bytes);
        })
        .ok()
}

/// The size of a transparent huge page on x86-64 and most Linux systems, and the alignment
/// [`prefault_heap_in_background`] starts at.
const HUGE_PAGE: usize = 2 << 20;

/// Faults in `[start, start + len)` as if written, keeping its contents
/// (`madvise(MADV_POPULATE_WRITE)`); `start` must be page-aligned. An error for a range that
/// is not all mapped writable, or from a kernel without the flag.
#[cfg(target_os = "linux")]
fn populate(start: usize, len: usize) -> std::io::Result<()> {
    // SAFETY: `MADV_POPULATE_WRITE` only faults pages in (as a write would, breaking
    // copy-on-write) and never changes their contents, so it cannot affect memory that other
    // threads are using; an unmapped or read-only range makes it fail, with nothing changed.
    let r = unsafe { libc::madvise(start as *mut c_void, len, libc::MADV_POPULATE_WRITE) };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn populate(_start: usize, _len: usize) -> std::io::Result<()> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

/// `mi_option_purge_delay` of mimalloc v2's `mimalloc.h`, which `libmimalloc-sys` does not
/// name: the option between `eager_commit_delay` (14) and `use_numa_nodes` (16).
const PURGE_DELAY: mi::mi_option_t = mi::mi_option_eager_commit_delay + 1;

/// mimalloc as a [`GlobalAlloc`]; use with `#[global_allocator]`.
pub struct MiMalloc;

// SAFETY: every entry point forwards to the mimalloc function of the same contract; plain
// `mi_malloc` / `mi_zalloc` / `mi_realloc` are used only when `layout.align() <= WORD`, an
// alignment that all mimalloc blocks have. Memory from either family is freed by `mi_free`.
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

    /// A block allocated on this thread is this thread's; one allocated on another thread is
    /// not, here, and is there.
    #[test]
    fn blocks_belong_to_the_thread_that_allocated_them() {
        let a = MiMalloc;
        let l = Layout::from_size_align(1024, 8).unwrap();
        unsafe {
            let here = a.alloc(l);
            assert!(allocated_here(here));
            let there = std::thread::spawn(move || {
                let p = MiMalloc.alloc(l) as usize;
                assert!(allocated_here(p as *const u8));
                p
            })
            .join()
            .unwrap() as *mut u8;
            assert!(!allocated_here(there));
            a.dealloc(there, l);
            a.dealloc(here, l);
        }
    }

    /// Faulting in memory the heap is using keeps every byte: large and small blocks written
    /// before, on this thread and another, read back the same afterwards.
    #[cfg(target_os = "linux")]
    #[test]
    fn populating_keeps_the_contents_of_the_heap() {
        let big: Vec<u8> = (0..(6usize << 20)).map(|i| (i % 251) as u8).collect();
        let small: Vec<Box<[u8; 40]>> = (0..10_000u32).map(|i| Box::new([(i % 256) as u8; 40])).collect();
        // The 4 KiB pages that hold `big` (this test's allocator need not be mimalloc).
        let start = (big.as_ptr() as usize) & !4095;
        let end = (big.as_ptr() as usize + big.len() + 4095) & !4095;
        populate(start, end - start).expect("the heap is mapped writable");
        let handle = prefault_heap_in_background(8 << 20).expect("a thread on Linux");
        handle.join().unwrap();
        assert!(big.iter().enumerate().all(|(i, &b)| b == (i % 251) as u8));
        assert!(small.iter().enumerate().all(|(i, b)| b.iter().all(|&x| x == (i % 256) as u8)));
    }

    /// An unmapped range is an error (nothing else happens), and nothing is started for 0 bytes.
    #[cfg(target_os = "linux")]
    #[test]
    fn populating_an_unmapped_range_fails_and_zero_bytes_start_nothing() {
        assert!(populate(4096, 4096).is_err());
        assert!(prefault_heap_in_background(0).is_none());
    }

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
