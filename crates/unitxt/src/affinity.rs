//! CPU pinning for the threads of a parallel map ([`crate::stream::par_map_with`]).
//!
//! On the 2-vCPU VM the benchmarks run on, the guest scheduler often keeps a freshly woken
//! helper thread on the CPU of the thread that woke it, so for milliseconds at a time the two
//! threads of a map take turns on one CPU while the other idles. Pinning the reading thread to
//! the CPU it is on and each helper to a different one keeps them apart: SST-2 train prepared
//! on two threads took 0.0587 s against 0.0625 s before (medians of eight alternating rounds of
//! ten runs, 2026-11-26). The reading thread gets its own CPU set back when the map ends (the
//! [`Pinned`] guard), so a caller, such as a Python program, is not left pinned.
//!
//! Pinning happens only on Linux, only when the calling thread may run on at least as many
//! CPUs as the map has threads, and not when the environment variable `UNITXT_RS_PIN_THREADS`
//! is `0`. It changes where threads run, never what they compute.

/// The environment variable that turns pinning off when set to `0`.
pub const PIN_ENV: &str = "UNITXT_RS_PIN_THREADS";

/// Whether [`PIN_ENV`] allows pinning (unset, or anything but `0`).
fn enabled() -> bool {
    std::env::var_os(PIN_ENV).is_none_or(|v| v != "0")
}

/// Restores a thread's CPU set when dropped; made by [`spread`].
pub struct Pinned {
    #[cfg(target_os = "linux")]
    tid: libc::pid_t,
    #[cfg(target_os = "linux")]
    saved: libc::cpu_set_t,
}

impl Drop for Pinned {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        // SAFETY: `saved` is a CPU set read by `sched_getaffinity` for thread `tid`; setting
        // it back only changes where that thread may run (a thread that has exited gives an
        // error, which is ignored).
        unsafe {
            libc::sched_setaffinity(self.tid, std::mem::size_of::<libc::cpu_set_t>(), &self.saved);
        }
    }
}

/// Pins the calling thread (the reading thread of a map with `threads` threads in all) to the
/// CPU it runs on, and each thread of `pool` (its `threads - 1` helpers) to another CPU of the
/// calling thread's set, one each, in the set's order. Returns the guard that gives the calling
/// thread its set back; `None`, with nothing changed, when pinning is off or not possible (see
/// the module docs), or when a system call fails.
pub fn spread(pool: &rayon::ThreadPool, threads: usize) -> Option<Pinned> {
    if !enabled() || threads < 2 {
        return None;
    }
    imp::spread(pool, threads)
}

#[cfg(target_os = "linux")]
mod imp {
    use super::Pinned;

    const SET_SIZE: usize = std::mem::size_of::<libc::cpu_set_t>();

    /// The CPUs of a set, in increasing order.
    fn cpus(set: &libc::cpu_set_t) -> Vec<usize> {
        // SAFETY: `CPU_ISSET` reads bit `i` of the set, for `i` below its capacity.
        (0..libc::CPU_SETSIZE as usize).filter(|&i| unsafe { libc::CPU_ISSET(i, set) }).collect()
    }

    /// Pins thread `tid` (0: the calling thread) to `cpu` alone; false when the call fails.
    fn pin(tid: libc::pid_t, cpu: usize) -> bool {
        // SAFETY: a zeroed `cpu_set_t` is the empty set; `CPU_SET` sets one bit below the
        // set's capacity (`cpu` comes from a set read by `sched_getaffinity`).
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu, &mut set);
            libc::sched_setaffinity(tid, SET_SIZE, &set) == 0
        }
    }

    pub(super) fn spread(pool: &rayon::ThreadPool, threads: usize) -> Option<Pinned> {
        // SAFETY: `gettid` has no preconditions; `sched_getaffinity` writes at most `SET_SIZE`
        // bytes into `saved`, a zeroed (empty) set.
        let (tid, saved) = unsafe {
            let mut saved: libc::cpu_set_t = std::mem::zeroed();
            let tid = libc::gettid();
            if libc::sched_getaffinity(tid, SET_SIZE, &mut saved) != 0 {
                return None;
            }
            (tid, saved)
        };
        let allowed = cpus(&saved);
        if allowed.len() < threads {
            return None;
        }
        // SAFETY: `sched_getcpu` has no preconditions; it returns -1 on failure.
        let here = usize::try_from(unsafe { libc::sched_getcpu() }).ok().filter(|c| allowed.contains(c)).unwrap_or(allowed[0]);
        let others: Vec<usize> = allowed.into_iter().filter(|&c| c != here).collect();
        if !pin(tid, here) {
            return None;
        }
        let guard = Pinned { tid, saved };
        pool.broadcast(|ctx| pin(0, others[ctx.index() % others.len()]));
        Some(guard)
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use super::Pinned;

    pub(super) fn spread(_pool: &rayon::ThreadPool, _threads: usize) -> Option<Pinned> {
        None
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn affinity_of_this_thread() -> Vec<usize> {
        // SAFETY: as in `imp::spread`.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            assert_eq!(libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set), 0);
            (0..libc::CPU_SETSIZE as usize).filter(|&i| libc::CPU_ISSET(i, &set)).collect()
        }
    }

    #[test]
    fn spread_pins_reader_and_helpers_apart_and_the_guard_restores_the_reader() {
        let before = affinity_of_this_thread();
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        if before.len() < 2 {
            // One CPU: nothing to spread, and nothing changes.
            assert!(spread(&pool, 2).is_none());
            assert_eq!(affinity_of_this_thread(), before);
            return;
        }
        let guard = spread(&pool, 2).expect("two CPUs allowed");
        let reader = affinity_of_this_thread();
        assert_eq!(reader.len(), 1);
        let helper = pool.install(affinity_of_this_thread);
        assert_eq!(helper.len(), 1);
        assert_ne!(reader, helper);
        assert!(before.contains(&reader[0]) && before.contains(&helper[0]));
        drop(guard);
        assert_eq!(affinity_of_this_thread(), before);
        // More threads than CPUs: no pinning.
        assert!(spread(&pool, before.len() + 1).is_none());
        assert_eq!(affinity_of_this_thread(), before);
    }
}
