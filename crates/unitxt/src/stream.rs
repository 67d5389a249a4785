//! Streams of instances and multi-streams of named splits.
//!
//! A [`Stream`] is a lazy iterator of `Result<Instance>`: operators wrap it, so a recipe without
//! demos holds one instance at a time (memory flat in the dataset size). A [`MultiStream`] maps
//! split names (`train`, `validation`, `test`, ...) to streams, in insertion order, like Unitxt's
//! `MultiStream`.

use indexmap::IndexMap;
use serde::Deserialize;

use crate::error::{Error, Result};
use crate::value::Instance;

/// A lazy stream of instances. Errors travel inside the stream and stop its consumer.
pub type Stream = Box<dyn Iterator<Item = Result<Instance>> + Send>;

/// A lazy stream of items of any type (for example a split's instances already serialized as
/// JSON Lines by [`crate::recipe::prepare_map`]).
pub type StreamOf<T> = Box<dyn Iterator<Item = Result<T>> + Send>;

/// A deferred piece of an output stream, built when the output reaches it.
pub(crate) type Thunk = Box<dyn FnOnce() -> Stream + Send>;

/// Concatenates pieces, building each one only when the previous one is exhausted.
pub(crate) fn chain_lazy(parts: Vec<Thunk>) -> Stream {
    Box::new(parts.into_iter().flat_map(|t| t()))
}

/// A stream holding one error.
pub(crate) fn error_stream(e: Error) -> Stream {
    Box::new(std::iter::once(Err(e)))
}

/// Named streams (splits), in order; by default streams of instances.
pub struct MultiStream<T = Instance> {
    /// Each split's stream by split name, in the order the splits were made.
    pub streams: IndexMap<String, StreamOf<T>>,
}

impl<T> Default for MultiStream<T> {
    fn default() -> Self {
        MultiStream { streams: IndexMap::new() }
    }
}

impl MultiStream {
    /// An empty multi-stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// A multi-stream over in-memory lists of instances, one per split.
    pub fn from_lists(lists: IndexMap<String, Vec<Instance>>) -> Self {
        let streams = lists
            .into_iter()
            .map(|(k, v)| (k, Box::new(v.into_iter().map(Ok)) as Stream))
            .collect();
        MultiStream { streams }
    }
}

impl<T> MultiStream<T> {
    /// Split names, in order.
    pub fn names(&self) -> Vec<String> {
        self.streams.keys().cloned().collect()
    }

    /// Takes one split out, erroring (with the available names) if it does not exist.
    pub fn take(&mut self, name: &str) -> Result<StreamOf<T>> {
        let names = self.names();
        self.streams.shift_remove(name).ok_or_else(|| {
            Error::missing_split(name, names)
        })
    }

    /// Applies `f` to every stream, keeping names and order.
    pub fn map_streams<U>(self, mut f: impl FnMut(&str, StreamOf<T>) -> StreamOf<U>) -> MultiStream<U> {
        let streams = self.streams.into_iter().map(|(k, s)| {
            let s2 = f(&k, s);
            (k, s2)
        });
        MultiStream { streams: streams.collect() }
    }
}

/// Collects a stream into a vector, stopping at the first error.
pub fn collect(stream: Stream) -> Result<Vec<Instance>> {
    stream.collect()
}

/// Wraps a stream so that each error names the split and the 0-based index of the instance in
/// that stream (as it reached this point of the pipeline).
pub fn locate_errors<T: 'static>(split: &str, stream: StreamOf<T>) -> StreamOf<T> {
    let split = split.to_string();
    Box::new(stream.enumerate().map(move |(i, r)| {
        r.map_err(|e| e.at_instance(&split, i))
    }))
}

/// Wraps a finished split so that, when it ends without having yielded anything, it yields
/// one error instead: "stream 'SPLIT' is empty". Unitxt's last recipe step
/// (`FinalizeDataset`, an `InstanceOperatorValidator`) raises `EmptyStreamError` on an empty
/// stream, so a recipe whose requested split comes out empty (every instance went to the
/// demos pool, a filter removed them all) is refused rather than giving no rows.
pub fn non_empty<T: Send + 'static>(split: &str, stream: StreamOf<T>) -> StreamOf<T> {
    let split = split.to_string();
    let mut seen = false;
    let mut done = false;
    let mut stream = stream;
    Box::new(std::iter::from_fn(move || {
        if done {
            return None;
        }
        match stream.next() {
            Some(r) => {
                seen = true;
                Some(r)
            }
            None => {
                done = true;
                (!seen).then(|| {
                    Err(Error::invalid(format!(
                        "stream '{split}' is empty (Unitxt's EmptyStreamError)"
                    )))
                })
            }
        }
    }))
}

/// Instances in one job of [`par_map`].
const PAR_CHUNK: usize = 64;
/// Jobs of [`par_map`] in flight, per worker thread.
const PAR_WINDOW_PER_THREAD: usize = 3;

/// The error [`par_map_with`] gives in place of a map that panicked (on a worker thread or on
/// the calling thread): a bug, reported instead of aborting the process.
const PANIC_MESSAGE: &str = "processing instances panicked (a bug in unitxt-rs; please report it)";

/// Runs `f`; a panic in it (a bug) becomes an error with [`PANIC_MESSAGE`] instead of
/// unwinding further. For per-instance work that does not go through [`par_map_with`] (a
/// filter's predicate) and for engine calls at an API boundary (the Python bindings).
pub fn catch_panic<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|_| Err(Error::invalid(PANIC_MESSAGE)))
}

/// [`par_map_with`] maps up to this many instances on the calling thread, for at most
/// [`PAR_INLINE_TIME`], before it hands chunks to the pool: a recipe that yields a few hundred
/// instances (the usual evaluation subset) never starts the pool's threads, whose start and
/// per-thread allocator heaps cost about as much (1-2 ms measured on a 2-core VM) as they save
/// there. The output does not depend on where the switch happens.
const PAR_INLINE_FIRST: usize = 512;

/// See [`PAR_INLINE_FIRST`]; past this much time spent in the map on the calling thread (not
/// counting upstream work), the pool takes over.
const PAR_INLINE_TIME: std::time::Duration = std::time::Duration::from_millis(4);

/// When the stream says how many instances it has at most (a recipe's `max_test_instances`,
/// say), the pool takes over only if the instances left would take at least this long on the
/// calling thread, at the pace so far. Two cores map about 1.4 times as fast as one on the VM
/// this was measured on, so the helpers save about 0.3 of the work left, against their start
/// (1-2 ms): below a few milliseconds left they cost more than they save.
const PAR_MIN_WORK_LEFT: std::time::Duration = std::time::Duration::from_millis(6);

/// Whether the helpers should take over after `done` instances mapped in `busy` on the calling
/// thread, when the stream has at most `bound` instances (`None`: unknown, then always).
fn helpers_pay(busy: std::time::Duration, done: usize, bound: Option<usize>) -> bool {
    match bound {
        None => true,
        Some(b) => {
            let left = b.saturating_sub(done) as u128;
            // The work left at the pace so far: busy / done per instance.
            done > 0 && busy.as_nanos() * left >= PAR_MIN_WORK_LEFT.as_nanos() * done as u128
        }
    }
}

/// What a worker of [`par_map_with`] sends back for one chunk: the results, and the chunk's
/// input instances, to be dropped on the reading thread that built them.
type ChunkDone<T> = (Vec<Result<T>>, Vec<(usize, Instance)>);

/// A chunk of [`par_map_with`] on its way, in output order: a helper's job, a chunk the
/// reading thread mapped itself, or an upstream error that follows the chunks before it.
enum InFlight<T> {
    Job(std::sync::mpsc::Receiver<ChunkDone<T>>),
    Done(Vec<Result<T>>),
    Failed(Error),
}

/// The helper pool of [`par_map_with`] for a given number of threads: `threads - 1` workers,
/// since the reading thread maps chunks too. Built once per size and kept for the process;
/// `None` when its threads cannot be started (the map then stays on the reading thread).
fn helper_pool(threads: usize) -> Option<std::sync::Arc<rayon::ThreadPool>> {
    type Pools = Vec<(usize, std::sync::Arc<rayon::ThreadPool>)>;
    static POOLS: std::sync::Mutex<Pools> = std::sync::Mutex::new(Vec::new());
    let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, p)) = pools.iter().find(|(n, _)| *n == threads) {
        return Some(p.clone());
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads - 1)
        .thread_name(|i| format!("unitxt-map-{i}"))
        .build()
        .ok()
        .map(std::sync::Arc::new)?;
    pools.push((threads, pool.clone()));
    Some(pool)
}

/// [`par_map_with`] for instance-to-instance maps: the result is again a [`Stream`].
pub fn par_map<F>(stream: Stream, f: F) -> Stream
where
    F: Fn(usize, Instance) -> Result<Instance> + Send + Sync + 'static,
{
    par_map_with(stream, f)
}

/// Maps `f` over a stream on several threads, in order, as a pipeline. The reading thread
/// pulls chunks of 64 instances from `stream`; it hands chunks to a helper pool of `n - 1`
/// threads (`n` being rayon's thread count: `RAYON_NUM_THREADS`, else the number of cores),
/// keeping up to three chunks per helper queued, and whenever the oldest chunk is not back
/// yet it maps the next chunk itself instead of waiting. So `n` threads map, and the reading
/// thread's share adapts to what upstream work (loading, splitting) and the consumer (e.g. the
/// writer), which also run on it, leave it. Results come out in the input order: the output
/// (and the first error, after the instances that precede it) is exactly what a sequential
/// `map` gives. Memory holds the chunks in flight (at most three per thread). `f` gets the
/// instance's 0-based position in this stream. The first 512 instances (or as many as 4 ms of
/// mapping takes) are mapped on the reading thread before any helper starts, and with one
/// thread (`RAYON_NUM_THREADS=1`) all of them: a plain sequential map. Threads are left
/// where the operating system schedules them (no CPU pinning). A map that panics becomes an
/// error ("processing instances panicked") in place of its instance, on whichever thread it
/// ran.
///
/// Memory is freed on the thread that allocated it: a helper maps a copy of each instance
/// (made on the helper) and hands the chunk's input instances back, and the reading thread
/// drops them. Freeing another thread's blocks goes through mimalloc's cross-thread free lists
/// and collection, shared between the threads; on SST-2 train with two threads that cost about
/// a fifth of the CPU time, against a few percent for the copies. Chunks the reading thread
/// maps itself need no copy.
pub fn par_map_with<T, F>(stream: Stream, f: F) -> Box<dyn Iterator<Item = Result<T>> + Send>
where
    T: Send + 'static,
    F: Fn(usize, Instance) -> Result<T> + Send + Sync + 'static,
{
    let f = std::sync::Arc::new(f);
    // At most this many instances, when the stream knows (a `take` upstream).
    let bound = stream.size_hint().1;
    let mut upstream = stream.enumerate();
    // The first instances are mapped on the reading thread; the helpers (whose first use
    // starts their threads) only take over past them: how many, and the time their map took.
    let mut inline_done = 0;
    let mut inline_busy = std::time::Duration::ZERO;
    // One thread: every instance is mapped on the calling thread.
    let mut sequential = false;
    let mut helpers: Option<std::sync::Arc<rayon::ThreadPool>> = None;
    // Chunks in flight at most, and helper jobs among them at most.
    let mut window = 0;
    let mut jobs_max = 0;
    let mut jobs = 0;
    let mut upstream_done = false;
    let mut stopped = false;
    let mut in_flight: std::collections::VecDeque<InFlight<T>> = std::collections::VecDeque::new();
    let mut ready: std::collections::VecDeque<Result<T>> = std::collections::VecDeque::new();
    let step = move || loop {
        if let Some(next) = ready.pop_front() {
            if next.is_err() {
                // Stop after the first error, as a sequential map consumed by `collect` would.
                ready.clear();
                in_flight.clear();
                stopped = true;
            }
            return Some(next);
        }
        if stopped {
            return None;
        }
        // Past PAR_INLINE_FIRST instances or PAR_INLINE_TIME of mapping, the helpers pay for
        // their start.
        let inline = helpers.is_none() && inline_done < PAR_INLINE_FIRST && inline_busy < PAR_INLINE_TIME;
        if sequential || inline {
            return match upstream.next() {
                None => {
                    stopped = true;
                    None
                }
                Some((i, r)) => {
                    // Timed only while the helpers may still take over.
                    let start = (!sequential).then(std::time::Instant::now);
                    let out = map_here(&*f, i, r);
                    if let Some(start) = start {
                        inline_busy += start.elapsed();
                        inline_done += 1;
                    }
                    stopped = out.is_err();
                    Some(out)
                }
            };
        }
        let Some(pool) = &helpers else {
            // Unless the stream's bound says that too little is left for them to pay: the rest
            // then stays on this thread.
            let threads = pool_threads();
            let pays = threads > 1 && helpers_pay(inline_busy, inline_done, bound);
            match pays.then(|| helper_pool(threads)).flatten() {
                Some(p) => {
                    jobs_max = PAR_WINDOW_PER_THREAD * (threads - 1);
                    window = PAR_WINDOW_PER_THREAD * threads;
                    helpers = Some(p);
                }
                None => sequential = true,
            }
            continue;
        };
        // Keep the helpers supplied.
        while !upstream_done && jobs < jobs_max && in_flight.len() < window {
            let (batch, upstream_error) = next_chunk(&mut upstream, &mut upstream_done);
            if !batch.is_empty() {
                let (tx, rx) = std::sync::mpsc::sync_channel(1);
                let f = f.clone();
                pool.spawn(move || {
                    // A panic would abort the process inside rayon: `map_here` makes it the
                    // instance's error, as on the reading thread.
                    let out: Vec<Result<T>> = batch.iter().map(|(i, inst)| map_here(&*f, *i, Ok(inst.clone()))).collect();
                    let _ = tx.send((out, batch));
                });
                in_flight.push_back(InFlight::Job(rx));
                jobs += 1;
            }
            if let Some(e) = upstream_error {
                in_flight.push_back(InFlight::Failed(e));
            }
        }
        match in_flight.pop_front() {
            None => return None,
            Some(InFlight::Done(out)) => ready.extend(out),
            Some(InFlight::Failed(e)) => ready.push_back(Err(e)),
            Some(InFlight::Job(rx)) => {
                let done = match rx.try_recv() {
                    Ok(done) => Ok(done),
                    Err(std::sync::mpsc::TryRecvError::Disconnected) => Err(()),
                    Err(std::sync::mpsc::TryRecvError::Empty) if !upstream_done && in_flight.len() + 1 < window => {
                        // The oldest chunk is not back: map the next one here meanwhile.
                        in_flight.push_front(InFlight::Job(rx));
                        let (batch, upstream_error) = next_chunk(&mut upstream, &mut upstream_done);
                        if !batch.is_empty() {
                            let out = batch.into_iter().map(|(i, inst)| map_here(&*f, i, Ok(inst))).collect();
                            in_flight.push_back(InFlight::Done(out));
                        }
                        if let Some(e) = upstream_error {
                            in_flight.push_back(InFlight::Failed(e));
                        }
                        continue;
                    }
                    Err(std::sync::mpsc::TryRecvError::Empty) => rx.recv().map_err(|_| ()),
                };
                jobs -= 1;
                match done {
                    Ok((out, inputs)) => {
                        drop(inputs);
                        ready.extend(out)
                    }
                    Err(()) => ready.push_back(Err(Error::invalid(PANIC_MESSAGE))),
                }
            }
        }
    };
    Box::new(std::iter::from_fn(step))
}

/// Maps one instance on the calling thread; a panic becomes the instance's error.
fn map_here<T>(f: &(impl Fn(usize, Instance) -> Result<T> + ?Sized), i: usize, r: Result<Instance>) -> Result<T> {
    r.and_then(|inst| {
        catch_panic(|| f(i, inst))
    })
}

/// The next chunk of up to [`PAR_CHUNK`] instances from `upstream`, and the upstream error that
/// ended it early, if any; sets `done` when upstream has nothing more after it.
fn next_chunk(
    upstream: &mut impl Iterator<Item = (usize, Result<Instance>)>,
    done: &mut bool,
) -> (Vec<(usize, Instance)>, Option<Error>) {
    let mut batch = Vec::with_capacity(PAR_CHUNK);
    let mut upstream_error = None;
    while batch.len() < PAR_CHUNK {
        match upstream.next() {
            Some((i, Ok(inst))) => batch.push((i, inst)),
            Some((_, Err(e))) => {
                upstream_error = Some(e);
                break;
            }
            None => break,
        }
    }
    if batch.len() < PAR_CHUNK {
        *done = true;
    }
    (batch, upstream_error)
}

/// The number of threads [`par_map`] would use: inside a rayon pool, that pool's size;
/// elsewhere what rayon's global pool would have (`RAYON_NUM_THREADS` when it is a positive
/// number, else the cores available), computed without starting that pool. Asking rayon
/// (`rayon::current_num_threads`) starts its global pool's threads, which [`par_map`] never
/// uses, and each new thread's allocator heap faults in a fresh huge page (about 6% of a
/// 200-instance SQuAD recipe's wall time).
fn pool_threads() -> usize {
    if rayon::current_thread_index().is_some() {
        return rayon::current_num_threads();
    }
    let cores = || std::thread::available_parallelism().map_or(1, |n| n.get());
    global_pool_threads(std::env::var("RAYON_NUM_THREADS").ok().as_deref(), cores)
}

/// The size rayon gives its global pool: `RAYON_NUM_THREADS` (`env`) when it is a positive
/// integer, else `cores()`.
fn global_pool_threads(env: Option<&str>, cores: impl FnOnce() -> usize) -> usize {
    match env.and_then(|s| s.trim().parse::<usize>().ok()) {
        Some(n) if n > 0 => n,
        _ => cores(),
    }
}

/// Which splits an operator applies to (Unitxt's `apply_to_streams` and
/// `dont_apply_to_streams`); both absent means every split.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct StreamScope {
    /// `apply_to_streams`: only these splits are processed (absent: every split).
    #[serde(default)]
    pub apply_to_streams: Option<Vec<String>>,
    /// `dont_apply_to_streams`: these splits are passed through unchanged (absent: none).
    #[serde(default)]
    pub dont_apply_to_streams: Option<Vec<String>>,
}

impl StreamScope {
    /// Whether split `name` is processed.
    pub fn applies(&self, name: &str) -> bool {
        self.apply_to_streams.as_ref().is_none_or(|v| v.iter().any(|s| s == name))
            && self.dont_apply_to_streams.as_ref().is_none_or(|v| !v.iter().any(|s| s == name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    #[test]
    fn global_pool_size_follows_rayon_num_threads_else_the_cores() {
        assert_eq!(global_pool_threads(Some("3"), || 8), 3);
        assert_eq!(global_pool_threads(Some(" 1 "), || 8), 1);
        assert_eq!(global_pool_threads(Some("0"), || 8), 8);
        assert_eq!(global_pool_threads(Some("many"), || 8), 8);
        assert_eq!(global_pool_threads(None, || 2), 2);
    }

    #[test]
    fn helpers_start_only_for_enough_work_left() {
        let ms = std::time::Duration::from_millis;
        // Unknown length: always.
        assert!(helpers_pay(ms(4), 100, None));
        // 100 instances in 4 ms, 200 left at most: 8 ms left, enough.
        assert!(helpers_pay(ms(4), 100, Some(300)));
        // 100 left: 4 ms, not enough; 150 left: exactly 6 ms, enough.
        assert!(!helpers_pay(ms(4), 100, Some(200)));
        assert!(helpers_pay(ms(4), 100, Some(250)));
        // Nothing left, or nothing mapped yet.
        assert!(!helpers_pay(ms(4), 300, Some(300)));
        assert!(!helpers_pay(ms(4), 0, Some(300)));
    }

    fn inst(i: usize) -> Instance {
        json!({ "i": i }).as_object().unwrap().clone()
    }

    /// `n` instances; an error in place of instance `fail_at`, if given. No length hint (as a
    /// loader's stream): the helpers start after the first 512 whatever the work per instance
    /// (with a hint, light work stays on the reading thread, see [`helpers_pay`]).
    fn upstream(n: usize, fail_at: Option<usize>) -> Stream {
        let mut it = (0..n).map(move |i| if Some(i) == fail_at { Err(Error::invalid(format!("upstream {i}"))) } else { Ok(inst(i)) });
        Box::new(std::iter::from_fn(move || it.next()))
    }

    /// Maps `i -> i * 10 + position`, busy for a pseudo-random while so that chunks finish out of
    /// order; fails at value `fail_at` and panics at `panic_at`.
    fn work(fail_at: Option<usize>, panic_at: Option<usize>) -> impl Fn(usize, Instance) -> Result<usize> + Send + Sync + 'static {
        move |pos, inst| {
            let v = inst["i"].as_u64().unwrap() as usize;
            let mut x = (v as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            for _ in 0..(x % 5000) {
                x = std::hint::black_box(x.rotate_left(7) ^ 0x55);
            }
            if Some(v) == panic_at {
                panic!("boom at {v}");
            }
            if Some(v) == fail_at {
                return Err(Error::invalid(format!("map {v}")));
            }
            Ok(v * 10 + pos)
        }
    }

    /// What a sequential map gives, as text: values, then the first error's message.
    fn sequential(n: usize, up_fail: Option<usize>, map_fail: Option<usize>) -> Vec<String> {
        let mut out = Vec::new();
        for i in 0..n {
            if Some(i) == up_fail {
                out.push(format!("error: upstream {i}"));
                return out;
            }
            if Some(i) == map_fail {
                out.push(format!("error: map {i}"));
                return out;
            }
            out.push((i * 10 + i).to_string());
        }
        out
    }

    /// The items as text, up to the first error (where a consumer stops; with one thread the
    /// plain sequential map would go on).
    fn texts(it: impl Iterator<Item = Result<usize>>) -> Vec<String> {
        let mut out = Vec::new();
        for r in it {
            match r {
                Ok(v) => out.push(v.to_string()),
                Err(e) => {
                    out.push(format!("error: {}", e.message));
                    break;
                }
            }
        }
        out
    }

    fn in_pool<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
        rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(f)
    }

    #[test]
    fn par_map_gives_the_sequential_results_in_order() {
        for threads in [1, 2, 4] {
            // Up to PAR_INLINE_FIRST (512) on the calling thread, then chunks of 64 in the pool.
            for n in [0, 1, 63, 64, 65, 511, 512, 513, 575, 576, 577, 1000, 3000] {
                let got = in_pool(threads, || texts(par_map_with(upstream(n, None), work(None, None))));
                assert_eq!(got, sequential(n, None, None), "threads {threads}, n {n}");
            }
        }
    }

    #[test]
    fn par_map_stops_at_the_first_error_after_what_precedes_it() {
        for threads in [1, 2, 4] {
            for (up, map) in [
                (Some(0), None),
                (Some(130), None),
                (None, Some(5)),
                (None, Some(700)),
                (Some(300), Some(299)),
                (Some(299), Some(300)),
                (Some(512), None),
                (None, Some(512)),
                (Some(1300), None),
                (None, Some(1300)),
                (Some(1301), Some(1300)),
                (Some(1300), Some(1301)),
            ] {
                let got = in_pool(threads, || texts(par_map_with(upstream(2000, up), work(map, None))));
                assert_eq!(got, sequential(2000, up, map), "threads {threads}, upstream error {up:?}, map error {map:?}");
            }
        }
    }

    #[test]
    fn par_map_turns_a_panic_into_an_error() {
        // The instance that panics, wherever it is mapped, gives one error in its place, after
        // everything before it.
        for (threads, at) in [(1, 100), (1, 1100), (2, 100), (2, 1100), (4, 1100)] {
            let got = in_pool(threads, || texts(par_map_with(upstream(2000, None), work(None, Some(at)))));
            let err = got.len() - 1;
            assert_eq!(err, at, "threads {threads}, panic at {at}");
            assert_eq!(got[..err], sequential(err, None, None)[..], "threads {threads}, panic at {at}");
            assert_eq!(got[err], format!("error: {PANIC_MESSAGE}"));
        }
    }

    #[test]
    fn par_map_can_be_dropped_early_and_nested() {
        for threads in [2, 3] {
            let got = in_pool(threads, || texts(par_map_with(upstream(100_000, None), work(None, None)).take(200)));
            assert_eq!(got, sequential(200, None, None));
            // A parallel map whose upstream is itself a parallel map (a demos split, then
            // verbalization), consumed from inside the pool.
            let got = in_pool(threads, || {
                let inner = par_map(upstream(1000, None), |_, mut inst| {
                    let v = inst["i"].as_u64().unwrap();
                    inst.insert("i".into(), json!(v + 1));
                    Ok(inst)
                });
                texts(par_map_with(inner, work(None, None)))
            });
            let expected: Vec<String> = (0..1000).map(|i| ((i + 1) * 10 + i).to_string()).collect();
            assert_eq!(got, expected, "threads {threads}");
        }
    }
}