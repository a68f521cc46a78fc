//! A Tokio runtime driven by an asyncio event loop's own thread.
//!
//! The worker runtime costs an async operation two thread wake-ups on top of the reply's: the
//! loop wakes the worker to send, and the worker wakes the loop to deliver. Here each event
//! loop gets a current-thread runtime (with its own crate clients, see `client/routes.rs`) whose I/O
//! the loop thread drives itself: the runtime's epoll descriptor is watched by the loop
//! (`loop.add_reader`), and `tick` polls it without blocking, runs the operations that can
//! progress and hands back the finished ones. A reply then wakes only the loop thread.
//!
//! Tokio does not expose its epoll descriptor; it is found in `/proc/self/fd` as the one epoll
//! instance that building the runtime created (checked against the eventfd registered in it).
//! Where that cannot be established (not Linux, `/proc` missing, a concurrent epoll creation),
//! there is no loop runtime and every operation uses the worker runtime as before.

use std::collections::HashSet;
use std::fs;
use std::future::Future;
/// A descriptor number, as `/proc` lists it.
type RawFd = i32;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use futures::stream::{FuturesUnordered, StreamExt};
use parking_lot::{Mutex, MutexGuard};
use tokio::runtime::{Builder, Handle, Runtime};

/// A queued operation: its outcome, or `None` when it was cancelled.
pub type Op<R> = Pin<Box<dyn Future<Output = Option<R>> + Send>>;

/// What a client's calls on this runtime use, made by the first one.
pub type ClientCell = Arc<std::sync::OnceLock<crate::exec::runtime_client::RuntimeClient>>;

/// Set when an operation can progress; polled by the loop, never wakes a thread.
#[derive(Default)]
struct Flag(AtomicBool);

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.store(true, Ordering::Release);
    }
}

/// Whether the runtime's epoll descriptor can be found and watched (Linux; the portable build,
/// `--cfg aerospike_fluent_portable`, goes without, as other systems do).
pub const LINUX_EPOLL: bool = cfg!(all(target_os = "linux", not(aerospike_fluent_portable)));

/// Serialises runtime creation, so that the new epoll instance is ours.
static BUILDING: Mutex<()> = Mutex::new(());

/// How long a build waits for another thread's (a child forked during a build inherits the lock
/// held forever: its loops then go without a runtime of their own instead of hanging).
const BUILDING_WAIT: std::time::Duration = std::time::Duration::from_millis(200);

/// One owner's connections on a loop runtime, and how many calls the owner has made here.
struct LoopClient {
    owner: u64,
    cell: ClientCell,
    calls: usize,
}

/// The runtime of one event loop, and the operations in flight on it.
pub struct LoopRuntime<R> {
    rt: Option<Runtime>,
    /// The fork generation it was built in (a forked child must not touch it: its epoll
    /// instance is shared with the parent).
    generation: u64,
    /// Set by `release` (its loop is closed): no more operations.
    released: AtomicBool,
    epoll: RawFd,
    flag: Arc<Flag>,
    ops: Mutex<FuturesUnordered<Op<R>>>,
    queued: Mutex<Vec<Op<R>>>,
    /// Wire pools bound to this runtime, by owner (a native `Client`'s id). They live and die
    /// with the runtime: its sockets are registered with this runtime's driver.
    clients: Mutex<Vec<LoopClient>>,
}

impl<R> LoopRuntime<R> {
    /// Build a runtime for the calling loop thread; `None` where its epoll cannot be found.
    pub fn new() -> Option<Self> {
        if !LINUX_EPOLL {
            return None;
        }
        if Handle::try_current().is_ok() {
            return None; // block_on would panic on a thread inside another runtime
        }
        let _serial = BUILDING.try_lock_for(BUILDING_WAIT)?;
        let (polls, events) = (anon_fds("eventpoll")?, anon_fds("eventfd")?);
        let rt = Builder::new_current_thread().enable_all().build().ok()?;
        let Some(epoll) = created_epoll(&polls, &events) else {
            rt.shutdown_background();
            return None;
        };
        Some(LoopRuntime {
            rt: Some(rt),
            generation: crate::exec::runtime::generation(),
            released: AtomicBool::new(false),
            epoll,
            flag: Arc::default(),
            ops: Mutex::new(FuturesUnordered::new()),
            queued: Mutex::new(Vec::new()),
            clients: Mutex::new(Vec::new()),
        })
    }

    /// The descriptor that becomes readable when the runtime has I/O or a wake-up to process.
    pub fn fileno(&self) -> RawFd {
        self.epoll
    }

    /// What `owner`'s calls on this runtime use, and the number of calls `owner` has made
    /// here, this one included (1: the entry was just created).
    pub fn client_for(&self, owner: u64) -> (ClientCell, usize) {
        let mut clients = self.clients.lock();
        if let Some(c) = clients.iter_mut().find(|c| c.owner == owner) {
            c.calls += 1;
            return (c.cell.clone(), c.calls);
        }
        let cell = ClientCell::default();
        clients.push(LoopClient {
            owner,
            cell: cell.clone(),
            calls: 1,
        });
        (cell, 1)
    }

    /// Remove and return what `owner`'s calls on this runtime use.
    pub fn take_client(&self, owner: u64) -> Option<ClientCell> {
        let mut clients = self.clients.lock();
        let at = clients.iter().position(|c| c.owner == owner)?;
        Some(clients.swap_remove(at).cell)
    }

    /// Drive the runtime until `fut` completes, blocking this thread.
    pub fn block_on<F: Future>(&self, fut: F) -> Option<F::Output> {
        self.rt.as_ref().map(|rt| rt.block_on(fut))
    }

    /// Whether it can take operations (not released, not inherited over `fork()`).
    pub fn usable(&self) -> bool {
        !self.released.load(Ordering::Acquire)
            && self.generation == crate::exec::runtime::generation()
    }

    /// Drop every operation and connection (its loop is closed and will never tick again;
    /// what they hold, the loop's futures included, would otherwise live forever).
    pub fn release(&self) {
        self.released.store(true, Ordering::Release);
        if self.generation == crate::exec::runtime::generation() {
            self.ops.lock().clear();
            self.queued.lock().clear();
            self.clients.lock().clear();
        }
    }

    /// Spawn a task on the runtime (it runs at the loop's next tick).
    pub fn spawn(&self, task: impl Future<Output = ()> + Send + 'static) {
        if let Some(rt) = &self.rt {
            rt.spawn(task);
        }
    }

    /// Operations queued or in flight.
    pub fn in_flight(&self) -> usize {
        self.ops.lock().len() + self.queued.lock().len()
    }

    /// Queue an operation; it is first polled by the next `tick`.
    pub fn queue(&self, op: Op<R>) {
        self.queued.lock().push(op);
    }

    /// Start `op` now, with the queued operations (see [`Self::start_queued`]).
    pub fn start(&self, op: Op<R>) -> Vec<R> {
        self.queue(op);
        self.start_queued()
    }

    /// Start the queued operations: poll each once (it sends its request) inside the
    /// runtime's context, without polling the driver; returns those that already finished.
    pub fn start_queued(&self) -> Vec<R> {
        let Some(rt) = &self.rt else {
            return Vec::new();
        };
        let mut ops = self.ops_with_queued();
        let _context = rt.enter();
        let mut done = Vec::new();
        crate::safety::deep_stack::run(|| self.poll_ops(&mut ops, &mut done));
        done
    }

    /// Poll the runtime without blocking: process ready I/O and timers, run what can
    /// progress; returns the outcomes of the operations that finished. Readiness that comes
    /// later stays in the epoll instance, which the loop watches.
    pub fn tick(&self) -> Vec<R> {
        let Some(rt) = &self.rt else {
            return Vec::new();
        };
        let mut ops = self.ops_with_queued();
        let mut done = Vec::new();
        // on the deep stack: replies are decoded here, on the loop's (Python) thread
        crate::safety::deep_stack::run(|| {
            rt.block_on(async {
                self.poll_ops(&mut ops, &mut done);
                // block_on runs the runtime's own tasks, then polls epoll with no timeout
                tokio::task::yield_now().await;
                if self.flag.0.load(Ordering::Acquire) {
                    self.poll_ops(&mut ops, &mut done);
                }
            });
        });
        done
    }

    /// The operations in flight, the queued ones moved in.
    fn ops_with_queued(&self) -> MutexGuard<'_, FuturesUnordered<Op<R>>> {
        let mut ops = self.ops.lock();
        ops.extend(self.queued.lock().drain(..));
        ops
    }

    /// Poll every operation that was woken (all of them the first time); collect outcomes.
    fn poll_ops(&self, ops: &mut FuturesUnordered<Op<R>>, done: &mut Vec<R>) {
        self.flag.0.store(false, Ordering::Release);
        let waker = Waker::from(self.flag.clone());
        let mut cx = Context::from_waker(&waker);
        while let Poll::Ready(Some(out)) = ops.poll_next_unpin(&mut cx) {
            done.extend(out);
        }
    }
}

impl<R> Drop for LoopRuntime<R> {
    fn drop(&mut self) {
        if self.generation != crate::exec::runtime::generation() {
            // In a forked child: dropping the sockets would deregister them from the epoll
            // instance the parent still uses.
            std::mem::forget(self.rt.take());
            std::mem::forget(std::mem::take(self.ops.get_mut()));
            std::mem::forget(std::mem::take(self.queued.get_mut()));
            std::mem::forget(std::mem::take(self.clients.get_mut()));
            return;
        }
        self.ops.get_mut().clear();
        self.queued.get_mut().clear();
        self.clients.get_mut().clear();
        if let Some(rt) = self.rt.take() {
            rt.shutdown_background();
        }
    }
}

/// Descriptors of this process that are anonymous inodes of `kind`; `None` without `/proc`.
fn anon_fds(kind: &str) -> Option<HashSet<RawFd>> {
    let target = format!("anon_inode:[{kind}]");
    let mut out = HashSet::new();
    for entry in fs::read_dir("/proc/self/fd").ok()?.flatten() {
        let Some(fd) = entry.file_name().to_str().and_then(|s| s.parse().ok()) else {
            continue;
        };
        if fs::read_link(entry.path()).is_ok_and(|l| l.as_os_str() == target.as_str()) {
            out.insert(fd);
        }
    }
    Some(out)
}

/// The epoll instance created since `polls` and `events` were listed: mio keeps it open
/// twice (the poller and a registry clone), so several new descriptors may name it; they must
/// all watch the same descriptors, one of them a new eventfd (the runtime's waker).
fn created_epoll(polls: &HashSet<RawFd>, events: &HashSet<RawFd>) -> Option<RawFd> {
    let new_events: HashSet<RawFd> = anon_fds("eventfd")?.difference(events).copied().collect();
    let mut found: Option<(RawFd, Vec<RawFd>)> = None;
    for fd in anon_fds("eventpoll")?.difference(polls).copied() {
        let watched = watched_fds(fd)?;
        if !watched.iter().any(|w| new_events.contains(w)) {
            return None; // someone else's epoll appeared meanwhile
        }
        match &found {
            Some((_, w)) if *w != watched => return None,
            Some((first, _)) if *first < fd => {}
            _ => found = Some((fd, watched)),
        }
    }
    found.map(|(fd, _)| fd)
}

/// The descriptors epoll instance `epoll` watches (its `/proc` fdinfo `tfd:` lines).
fn watched_fds(epoll: RawFd) -> Option<Vec<RawFd>> {
    let info = fs::read_to_string(format!("/proc/self/fdinfo/{epoll}")).ok()?;
    let mut fds: Vec<RawFd> = info
        .lines()
        .filter_map(|l| l.strip_prefix("tfd:"))
        .filter_map(|rest| rest.split_whitespace().next()?.parse().ok())
        .collect();
    fds.sort_unstable();
    Some(fds)
}
