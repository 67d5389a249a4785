//! Streams of instances and multi-streams of named splits.
//!
//! A [`Stream`] is a lazy iterator of `Result<Instance>`: operators wrap it, so a recipe without
//! demos holds one instance at a time (memory flat in the dataset size). A [`MultiStream`] maps
//! split names (`train`, `validation`, `test`, ...) to streams, in insertion order, like Unitxt's
//! `MultiStream`.

use indexmap::IndexMap;

use crate::error::{Error, Result};
use crate::value::Instance;

/// A lazy stream of instances. Errors travel inside the stream and stop its consumer.
pub type Stream = Box<dyn Iterator<Item = Result<Instance>> + Send>;

/// A lazy stream of items of any type (for example a split's instances already serialized as
/// JSON Lines by [`crate::recipe::prepare_map`]).
pub type StreamOf<T> = Box<dyn Iterator<Item = Result<T>> + Send>;

/// Named streams (splits), in order; by default streams of instances.
pub struct MultiStream<T = Instance> {
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
            Error::not_found(format!("split {name:?} does not exist; available splits: {names:?}"))
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
        r.map_err(|e| {
            if e.context.iter().any(|c| c.starts_with("split ")) {
                e
            } else {
                e.context(format!("split {split:?}, instance {i}"))
            }
        })
    }))
}

/// Instances in one chunk of [`par_map_with`].
const PAR_CHUNK: usize = 64;
/// Chunks of [`par_map_with`] taken from upstream and not yet given out, per thread.
const PAR_WINDOW_PER_THREAD: usize = 3;

/// [`par_map_with`] for instance-to-instance maps: the result is again a [`Stream`].
pub fn par_map<F>(stream: Stream, f: F) -> Stream
where
    F: Fn(usize, Instance) -> Result<Instance> + Send + Sync + 'static,
{
    par_map_with(stream, f)
}

/// The upstream of a [`par_map_with`], pulled under its lock one chunk at a time.
struct Upstream {
    items: std::iter::Enumerate<Stream>,
    /// No more chunks: upstream ended, failed or panicked.
    done: bool,
}

/// The chunks of a [`par_map_with`] between the threads that take them and the consumer.
struct Board<T> {
    /// Finished chunks by number (chunks are numbered in upstream order as they are taken).
    finished: std::collections::HashMap<usize, Vec<Result<T>>>,
    /// The number of the next chunk to give out.
    want: usize,
    /// The number the next chunk taken from upstream gets.
    taken: usize,
    /// Set once upstream is done: every chunk has been taken.
    all_taken: bool,
    /// Jobs spawned on the thread pool and not yet finished.
    jobs: usize,
    /// The consumer is gone: jobs that have not started yet take nothing.
    stopped: bool,
}

struct Shared<T, F> {
    upstream: std::sync::Mutex<Upstream>,
    board: std::sync::Mutex<Board<T>>,
    /// Signalled when a chunk finishes or a job ends.
    changed: std::sync::Condvar,
    f: F,
}

/// Locks `m`, also when a panic elsewhere poisoned it (every critical section here leaves its
/// data consistent: panics in user code are caught inside them).
fn lock<X>(m: &std::sync::Mutex<X>) -> std::sync::MutexGuard<'_, X> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn panic_error() -> Error {
    Error::invalid("a worker thread panicked while processing instances")
}

impl<T, F> Shared<T, F>
where
    F: Fn(usize, Instance) -> Result<T>,
{
    /// Takes the next chunk from upstream and maps it on the calling thread: its number and
    /// results (an upstream error, or a panic, ends the chunk and upstream). `None` when
    /// upstream is done.
    fn take_and_map(&self) -> Option<(usize, Vec<Result<T>>)> {
        let (id, batch, failure) = {
            let mut up = lock(&self.upstream);
            if up.done {
                return None;
            }
            let mut batch: Vec<(usize, Instance)> = Vec::with_capacity(PAR_CHUNK);
            let pulled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                while batch.len() < PAR_CHUNK {
                    match up.items.next() {
                        Some((i, Ok(inst))) => batch.push((i, inst)),
                        Some((_, Err(e))) => return Some(e),
                        None => return None,
                    }
                }
                None
            }));
            let failure = match pulled {
                Ok(e) => e,
                Err(_) => Some(panic_error()),
            };
            if batch.len() < PAR_CHUNK {
                up.done = true;
            }
            // Numbered and recorded while upstream is still locked, so numbers follow upstream
            // order and the consumer never sees a chunk as taken before it is.
            let mut b = lock(&self.board);
            let id = (!batch.is_empty() || failure.is_some()).then(|| {
                b.taken += 1;
                b.taken - 1
            });
            b.all_taken = up.done;
            drop(b);
            (id?, batch, failure)
        };
        let mapped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            batch.into_iter().map(|(i, inst)| (self.f)(i, inst)).collect::<Vec<_>>()
        }));
        let mut out = mapped.unwrap_or_else(|_| vec![Err(panic_error())]);
        out.extend(failure.map(Err));
        Some((id, out))
    }

    /// A job on the thread pool: takes and maps chunks while there is room ahead of the
    /// consumer (`window` chunks), then ends; the consumer starts it again as it gives
    /// chunks out.
    fn run_job(&self, window: usize) {
        loop {
            {
                let b = lock(&self.board);
                if b.stopped || b.all_taken || b.taken - b.want >= window {
                    break;
                }
            }
            let chunk = self.take_and_map();
            self.finish(chunk, false);
        }
        self.finish(None, true);
    }

    fn finish(&self, chunk: Option<(usize, Vec<Result<T>>)>, job: bool) {
        let mut b = lock(&self.board);
        if let Some((id, out)) = chunk {
            b.finished.insert(id, out);
        }
        if job {
            b.jobs -= 1;
        }
        drop(b);
        self.changed.notify_all();
    }
}

/// Maps `f` over a stream on rayon's thread pool, in order. Every thread, the consumer's
/// included, takes a chunk of 64 instances from upstream (under a lock, so upstream runs on one
/// thread at a time and in order), maps it, and leaves the results on a board; the consumer
/// gives them out in upstream order. An instance is thus built, processed and dropped on one
/// thread, and the consumer works instead of waiting. The consumer keeps up to one job per
/// other pool thread going and at most three chunks per thread taken ahead, so memory holds
/// those chunks. The output (and the first error, after the instances that precede it) is
/// exactly what a sequential `map` gives. `f` gets the instance's 0-based position in this
/// stream. With one thread (`RAYON_NUM_THREADS=1`) this is a plain sequential map. A panic in
/// `f` or upstream becomes an error.
pub fn par_map_with<T, F>(stream: Stream, f: F) -> Box<dyn Iterator<Item = Result<T>> + Send>
where
    T: Send + 'static,
    F: Fn(usize, Instance) -> Result<T> + Send + Sync + 'static,
{
    let threads = rayon::current_num_threads();
    if threads <= 1 {
        return Box::new(stream.enumerate().map(move |(i, r)| r.and_then(|inst| f(i, inst))));
    }
    let shared = std::sync::Arc::new(Shared {
        upstream: std::sync::Mutex::new(Upstream { items: stream.enumerate(), done: false }),
        board: std::sync::Mutex::new(Board {
            finished: std::collections::HashMap::new(),
            want: 0,
            taken: 0,
            all_taken: false,
            jobs: 0,
            stopped: false,
        }),
        changed: std::sync::Condvar::new(),
        f,
    });
    Box::new(ParMap { shared, ready: std::collections::VecDeque::new(), stopped: false, threads })
}

/// The consumer's side of [`par_map_with`].
struct ParMap<T, F> {
    shared: std::sync::Arc<Shared<T, F>>,
    /// The results of the chunk being given out.
    ready: std::collections::VecDeque<Result<T>>,
    stopped: bool,
    threads: usize,
}

impl<T, F> Iterator for ParMap<T, F>
where
    T: Send + 'static,
    F: Fn(usize, Instance) -> Result<T> + Send + Sync + 'static,
{
    type Item = Result<T>;

    fn next(&mut self) -> Option<Result<T>> {
        loop {
            if let Some(next) = self.ready.pop_front() {
                if next.is_err() {
                    // Stop after the first error, as a sequential map consumed by `collect` would.
                    self.ready.clear();
                    self.stop();
                }
                return Some(next);
            }
            if self.stopped {
                return None;
            }
            let sh = &self.shared;
            let mut b = lock(&sh.board);
            let want = b.want;
            if let Some(out) = b.finished.remove(&want) {
                b.want += 1;
                drop(b);
                self.ready.extend(out);
                continue;
            }
            if b.all_taken && b.taken == want {
                drop(b);
                self.stop();
                return None;
            }
            let window = PAR_WINDOW_PER_THREAD * self.threads;
            let ahead = |b: &Board<T>| b.taken - b.want + b.jobs;
            while !b.all_taken && b.jobs < self.threads - 1 && ahead(&b) < window {
                b.jobs += 1;
                let sh = sh.clone();
                rayon::spawn(move || sh.run_job(window));
            }
            // Take a chunk here when the wanted one is not taken yet (never wait for a job that
            // may not have started) or there is room ahead; otherwise the wanted chunk is with a
            // running job: wait for it.
            if !b.all_taken && (b.taken == want || ahead(&b) < window) {
                drop(b);
                let chunk = sh.take_and_map();
                sh.finish(chunk, false);
                continue;
            }
            let _b = sh.changed.wait(b).unwrap_or_else(|p| p.into_inner());
        }
    }
}

impl<T, F> ParMap<T, F> {
    fn stop(&mut self) {
        self.stopped = true;
        let mut b = lock(&self.shared.board);
        b.stopped = true;
        b.finished.clear();
    }
}

impl<T, F> Drop for ParMap<T, F> {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    fn inst(i: usize) -> Instance {
        json!({ "i": i }).as_object().unwrap().clone()
    }

    /// `n` instances; an error in place of instance `fail_at`, if given.
    fn upstream(n: usize, fail_at: Option<usize>) -> Stream {
        Box::new((0..n).map(move |i| if Some(i) == fail_at { Err(Error::invalid(format!("upstream {i}"))) } else { Ok(inst(i)) }))
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
            for n in [0, 1, 63, 64, 65, 1000] {
                let got = in_pool(threads, || texts(par_map_with(upstream(n, None), work(None, None))));
                assert_eq!(got, sequential(n, None, None), "threads {threads}, n {n}");
            }
        }
    }

    #[test]
    fn par_map_stops_at_the_first_error_after_what_precedes_it() {
        for threads in [1, 2, 4] {
            for (up, map) in [(Some(0), None), (Some(130), None), (None, Some(5)), (None, Some(700)), (Some(300), Some(299)), (Some(299), Some(300))] {
                let got = in_pool(threads, || texts(par_map_with(upstream(1000, up), work(map, None))));
                assert_eq!(got, sequential(1000, up, map), "threads {threads}, upstream error {up:?}, map error {map:?}");
            }
        }
    }

    #[test]
    fn par_map_turns_a_panic_into_an_error() {
        for threads in [2, 4] {
            let got = in_pool(threads, || texts(par_map_with(upstream(1000, None), work(None, Some(500)))));
            // The chunk that panicked (instances 448..511) gives one error in its place.
            assert_eq!(got.len(), 449, "threads {threads}");
            assert_eq!(got[..448], sequential(448, None, None)[..]);
            assert_eq!(got[448], "error: a worker thread panicked while processing instances");
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
