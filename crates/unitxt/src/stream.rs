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

/// Instances in one job of [`par_map`].
const PAR_CHUNK: usize = 64;
/// Jobs of [`par_map`] in flight, per worker thread.
const PAR_WINDOW_PER_THREAD: usize = 3;

/// A chunk of [`par_map_with`] on its way: a worker's result, or an upstream error that follows
/// the chunks before it.
enum InFlight<T> {
    Job(std::sync::mpsc::Receiver<Vec<Result<T>>>),
    Failed(Error),
}

/// [`par_map_with`] for instance-to-instance maps: the result is again a [`Stream`].
pub fn par_map<F>(stream: Stream, f: F) -> Stream
where
    F: Fn(usize, Instance) -> Result<Instance> + Send + Sync + 'static,
{
    par_map_with(stream, f)
}

/// Maps `f` over a stream on rayon's thread pool, in order, as a pipeline: the reading thread
/// pulls chunks of 64 instances from `stream` and hands each to a worker, keeping up to three
/// chunks per worker thread in flight, and gives out the results in the input order. The
/// output (and the first error, after the instances that precede it) is exactly what a
/// sequential `map` gives, while the upstream stages and the consumer (e.g. the writer) run on
/// the reading thread at the same time as the workers. Memory holds the chunks in flight. `f`
/// gets the instance's 0-based position in this stream. With one thread
/// (`RAYON_NUM_THREADS=1`) this is a plain sequential map. A panicking worker becomes an error.
pub fn par_map_with<T, F>(stream: Stream, f: F) -> Box<dyn Iterator<Item = Result<T>> + Send>
where
    T: Send + 'static,
    F: Fn(usize, Instance) -> Result<T> + Send + Sync + 'static,
{
    let threads = rayon::current_num_threads();
    if threads <= 1 {
        return Box::new(stream.enumerate().map(move |(i, r)| r.and_then(|inst| f(i, inst))));
    }
    let f = std::sync::Arc::new(f);
    let window = PAR_WINDOW_PER_THREAD * threads;
    let mut upstream = stream.enumerate();
    let mut upstream_done = false;
    let mut stopped = false;
    let mut in_flight: std::collections::VecDeque<InFlight<T>> = std::collections::VecDeque::new();
    let mut ready: std::collections::VecDeque<Result<T>> = std::collections::VecDeque::new();
    Box::new(std::iter::from_fn(move || loop {
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
        while !upstream_done && in_flight.len() < window {
            let mut batch: Vec<(usize, Instance)> = Vec::with_capacity(PAR_CHUNK);
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
                upstream_done = true;
            }
            if !batch.is_empty() {
                let (tx, rx) = std::sync::mpsc::sync_channel(1);
                let f = f.clone();
                rayon::spawn(move || {
                    let out: Vec<Result<T>> = batch.into_iter().map(|(i, inst)| f(i, inst)).collect();
                    let _ = tx.send(out);
                });
                in_flight.push_back(InFlight::Job(rx));
            }
            if let Some(e) = upstream_error {
                in_flight.push_back(InFlight::Failed(e));
            }
        }
        match in_flight.pop_front() {
            None => return None,
            Some(InFlight::Job(rx)) => match rx.recv() {
                Ok(out) => ready.extend(out),
                Err(_) => ready.push_back(Err(Error::invalid("a worker thread panicked while processing instances"))),
            },
            Some(InFlight::Failed(e)) => ready.push_back(Err(e)),
        }
    }))
}
