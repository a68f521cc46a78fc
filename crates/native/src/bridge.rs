//! Completion bridge: run one future either on the runtime with a `done(result, error)`
//! callback (returning a cancellable `Pending`), or blocking on the calling thread.

use std::future::Future;

use futures::FutureExt;
use parking_lot::{Mutex, MutexGuard};
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

use aerospike::Key;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyWeakrefReference};
use tokio::runtime::{Handle, Runtime};
use tokio::task::AbortHandle;

use crate::errors::{self, ClientClosedError, ClientError};
use crate::local::LoopRuntime;
use crate::park::Tick;
use crate::spin::Spin;
use crate::values::from_key;

/// Why an operation failed (converted to a Python exception under the GIL).
pub enum Failure {
    /// An error from the aerospike crate, with the key involved when there is one.
    Native(aerospike::Error, Option<Box<Key>>),
    /// A ready Python exception.
    Py(PyErr),
}

impl Failure {
    /// Wrap a crate error about `key`.
    pub fn keyed(key: &Key) -> impl FnOnce(aerospike::Error) -> Failure + '_ {
        move |e| Failure::Native(e, Some(Box::new(key.clone())))
    }

    pub fn into_pyerr(self, py: Python<'_>) -> PyErr {
        match self {
            Failure::Native(e, key) => {
                let k = key
                    .and_then(|k| from_key(py, &k).ok())
                    .map(|t| t.into_any());
                errors::to_py(py, &e, k)
            }
            Failure::Py(e) => e,
        }
    }
}

impl From<aerospike::Error> for Failure {
    fn from(e: aerospike::Error) -> Self {
        Failure::Native(e, None)
    }
}

impl From<PyErr> for Failure {
    fn from(e: PyErr) -> Self {
        Failure::Py(e)
    }
}

/// Result of a native operation.
pub type OpResult<T> = Result<T, Failure>;

/// A native result that becomes a Python object under the GIL.
pub trait IntoPy: Send + 'static {
    /// Convert.
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>>;
}

impl IntoPy for () {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(py.None())
    }
}

impl IntoPy for bool {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(pyo3::types::PyBool::new(py, self)
            .to_owned()
            .into_any()
            .unbind())
    }
}

const RUNNING: u8 = 0;
const CANCELLED: u8 = 1;
const COMPLETED: u8 = 2;

/// How to stop an operation's task.
enum Abort {
    /// A task on the worker runtime.
    Task(AbortHandle),
    /// An operation on an event loop's runtime (dropped at its next tick, or when the
    /// completer is released).
    Local(futures::future::AbortHandle),
}

/// Shared by a `Pending` and its task: the race between completing and cancelling, and the
/// task's abort handle once it is spawned (a coalesced operation is spawned a little later).
struct OpState {
    state: AtomicU8,
    abort: OnceLock<Abort>,
}

impl OpState {
    fn new() -> Arc<Self> {
        Arc::new(OpState {
            state: AtomicU8::new(RUNNING),
            abort: OnceLock::new(),
        })
    }
}

impl OpState {
    /// Claim the right to deliver the outcome (false: cancelled first).
    fn complete(&self) -> bool {
        self.state
            .compare_exchange(RUNNING, COMPLETED, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }
}

/// Handle of an operation started with a `done` callback.
#[pyclass(frozen, module = "aerospike_fluent._native")]
pub struct Pending {
    op: Arc<OpState>,
}

#[pymethods]
impl Pending {
    /// Abort the native task; `done` is then never called. True if it was still running.
    fn cancel(&self) -> bool {
        let won = self
            .op
            .state
            .compare_exchange(RUNNING, CANCELLED, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok();
        if won {
            // Not spawned yet (coalesced): `Job::spawn` sees CANCELLED and aborts it.
            match self.op.abort.get() {
                Some(Abort::Task(a)) => a.abort(),
                Some(Abort::Local(a)) => a.abort(),
                None => {}
            }
        }
        won
    }

    fn __repr__(&self) -> &'static str {
        match self.op.state.load(Ordering::Acquire) {
            RUNNING => "<Pending running>",
            CANCELLED => "<Pending cancelled>",
            _ => "<Pending done>",
        }
    }
}

/// An operation ready to be spawned on the runtime.
struct Job {
    op: Arc<OpState>,
    task: Pin<Box<dyn Future<Output = ()> + Send>>,
}

impl Job {
    /// Queue the task on `completer` (coalesced with this loop iteration's), or spawn it.
    fn submit<F>(
        handle: &Handle,
        completer: Option<Bound<'_, Completer>>,
        op: Arc<OpState>,
        task: F,
    ) where
        F: Future<Output = ()> + Send + 'static,
    {
        let job = Job {
            op,
            task: Box::pin(task),
        };
        match completer {
            Some(c) => Completer::submit(&c, handle, job),
            None => job.spawn(handle),
        }
    }

    /// Spawn the task and publish its abort handle (a cancel that came first aborts it here).
    fn spawn(self, handle: &Handle) {
        let task = handle.spawn(self.task);
        let _ = self.op.abort.set(Abort::Task(task.abort_handle()));
        if self.op.state.load(Ordering::SeqCst) == CANCELLED {
            task.abort();
        }
    }
}

/// Spawn `fut` on the runtime. `done` is either a callable, called as `done(result, error)`
/// under the GIL on a runtime thread, or a `(Completer, future)` pair: the outcome is queued on
/// the completer without the GIL and the event loop settles the future in `drain()`; the
/// operation itself may be coalesced with the others started in the same loop iteration
/// (see `Completer::submit`).
pub fn start<F, T>(handle: &Handle, done: Py<PyAny>, fut: F) -> Pending
where
    F: Future<Output = OpResult<T>> + Send + 'static,
    T: IntoPy,
{
    let op = OpState::new();
    let st = op.clone();
    Python::attach(|py| {
        let (target, completer) = Target::of(py, done);
        let task = async move {
            if st.state.load(Ordering::Acquire) != RUNNING {
                return; // cancelled before it was spawned
            }
            let out = crate::guard::future(fut).await;
            if !st.complete() {
                return; // cancelled: done is never called
            }
            match target {
                Target::Callback(done) => {
                    with_python(|py| deliver(py, &done, out));
                }
                Target::Queue(c, fut) => c.push(Ready::new(fut, out)),
            }
        };
        Job::submit(handle, completer, op.clone(), task);
    });
    Pending { op }
}

enum Target {
    Callback(Py<PyAny>),
    Queue(Arc<Queue>, Py<PyAny>),
}

impl Target {
    fn of<'py>(py: Python<'py>, done: Py<PyAny>) -> (Target, Option<Bound<'py, Completer>>) {
        if let Ok(t) = done.bind(py).cast::<PyTuple>() {
            if t.len() == 2 {
                if let (Ok(c), Ok(f)) = (t.get_item(0), t.get_item(1)) {
                    if let Ok(c) = c.cast_into::<Completer>() {
                        let queue = c.get().queue.clone();
                        return (Target::Queue(queue, f.unbind()), Some(c));
                    }
                }
            }
        }
        (Target::Callback(done), None)
    }
}

type Outcome = Box<dyn FnOnce(Python<'_>) -> PyResult<Py<PyAny>> + Send>;

/// A finished operation (or part of one): the future to settle, if any, and how to convert
/// its outcome.
pub struct Ready {
    fut: Option<Py<PyAny>>,
    out: Outcome,
}

impl Ready {
    fn new<T: IntoPy>(fut: Py<PyAny>, out: OpResult<T>) -> Self {
        Ready {
            fut: Some(fut),
            out: Box::new(move |py| {
                out.map_err(|f| f.into_pyerr(py))
                    .and_then(|v| v.into_py(py))
            }),
        }
    }
}

/// Settle each future with its outcome, on the loop thread (a cancelled one is skipped).
fn settle(py: Python<'_>, batch: Vec<Ready>) {
    for r in batch {
        let Some(fut) = r.fut else {
            // a part: its conversion keeps its own error for the final outcome
            let _ = crate::guard::sync("result conversion", || (r.out)(py));
            continue;
        };
        let fut = fut.bind(py);
        // No `done()` probe per future: settling a cancelled future fails, and only then
        // is it asked (cancellation is rare; one Python call per completion saved).
        let res = match crate::guard::sync("result conversion", || (r.out)(py)) {
            Ok(v) => fut.call_method1(intern!(py, "set_result"), (v,)),
            Err(e) => fut.call_method1(intern!(py, "set_exception"), (e.into_value(py),)),
        };
        if let Err(e) = res {
            let done = fut
                .call_method0(intern!(py, "done"))
                .and_then(|d| d.is_truthy())
                .unwrap_or(false);
            if !done {
                e.write_unraisable(py, Some(fut));
            }
        }
    }
}

/// The results of an operation delivered in parts, gathered on the loop thread.
pub trait Parts: Send + 'static {
    /// One part's native result.
    type Part: Send + 'static;
    /// Convert a part and add it (parts arrive in order).
    fn push(&mut self, py: Python<'_>, part: Self::Part) -> PyResult<()>;
    /// The whole result.
    fn finish(self, py: Python<'_>) -> PyResult<Py<PyAny>>;
}

/// A part's future (spawned on the worker runtime on its own).
pub type PartFuture<P> = Pin<Box<dyn Future<Output = OpResult<P>> + Send + 'static>>;

/// Aborts the tasks still running when dropped.
pub struct AbortAll(pub Vec<AbortHandle>);

impl Drop for AbortAll {
    fn drop(&mut self) {
        for task in &self.0 {
            task.abort();
        }
    }
}

/// Whether `done` is an asyncio completer pair, the one target that takes results in parts.
pub fn takes_parts(py: Python<'_>, done: &Py<PyAny>) -> bool {
    done.bind(py)
        .cast::<PyTuple>()
        .is_ok_and(|t| t.len() == 2 && t.get_item(0).is_ok_and(|c| c.is_instance_of::<Completer>()))
}

/// Start `parts` at once on the worker runtime; each finished part is queued on the loop's
/// completer and converted by `drain` into `acc` while the next parts are still parsed, and
/// the last one settles the future with `acc.finish()`. The first failure settles it with
/// that error and aborts the other parts; so does cancelling the returned `Pending`.
/// `done` must satisfy [`takes_parts`].
pub fn start_parts<A: Parts>(
    handle: &Handle,
    done: Py<PyAny>,
    parts: Vec<PartFuture<A::Part>>,
    acc: A,
) -> Pending {
    let op = OpState::new();
    let st = op.clone();
    let spawner = handle.clone();
    Python::attach(|py| {
        let (target, completer) = Target::of(py, done);
        let Target::Queue(queue, fut) = target else {
            unreachable!("start_parts needs a completer (checked with takes_parts)")
        };
        let acc: Arc<Mutex<PyResult<A>>> = Arc::new(Mutex::new(Ok(acc)));
        let task = async move {
            if st.state.load(Ordering::Acquire) != RUNNING {
                return;
            }
            let mut running = AbortAll(Vec::with_capacity(parts.len()));
            let mut tasks = Vec::with_capacity(parts.len());
            for part in parts {
                let task = spawner.spawn(crate::guard::future(part));
                running.0.push(task.abort_handle());
                tasks.push(task);
            }
            let last = tasks.len().saturating_sub(1);
            let mut fut = Some(fut);
            for (k, task) in tasks.into_iter().enumerate() {
                let part = match task.await {
                    Ok(Ok(part)) => part,
                    Ok(Err(f)) => return deliver_failure(&st, &queue, fut, f),
                    Err(e) => {
                        return deliver_failure(&st, &queue, fut, Failure::Py(join_error(&e)))
                    }
                };
                let fut = if k == last {
                    if !st.complete() {
                        return;
                    }
                    fut.take()
                } else {
                    None
                };
                queue.push(part_ready(fut, acc.clone(), part));
            }
        };
        Job::submit(handle, completer, op.clone(), task);
    });
    Pending { op }
}

/// A part's delivery: converted into `acc`; with `fut` (the last part), the whole outcome.
fn part_ready<A: Parts>(
    fut: Option<Py<PyAny>>,
    acc: Arc<Mutex<PyResult<A>>>,
    part: A::Part,
) -> Ready {
    let last = fut.is_some();
    Ready {
        fut,
        out: Box::new(move |py| {
            let mut slot = acc.lock();
            if let Ok(a) = slot.as_mut() {
                if let Err(e) = crate::guard::sync("result conversion", || a.push(py, part)) {
                    *slot = Err(e);
                }
            }
            if !last {
                return Ok(py.None());
            }
            let done = std::mem::replace(&mut *slot, Err(ClientError::new_err("already finished")));
            done.and_then(|a| a.finish(py))
        }),
    }
}

fn deliver_failure(st: &OpState, queue: &Queue, fut: Option<Py<PyAny>>, f: Failure) {
    if let Some(fut) = fut {
        if st.complete() {
            queue.push(Ready::new::<()>(fut, Err(f)));
        }
    }
}

/// Settle what a pass over the loop's runtime finished (a panic in it is reported, not
/// raised: the loop called us).
fn settle_from(py: Python<'_>, pass: impl FnOnce() -> Vec<Ready>) {
    match crate::guard::sync("the event loop's runtime", || Ok(pass())) {
        Ok(done) => settle(py, done),
        Err(e) => e.write_unraisable(py, None),
    }
}

/// An async operation that runs on its event loop's own runtime (see `local.rs`).
pub struct OnLoop<'py> {
    completer: Bound<'py, Completer>,
    fut: Py<PyAny>,
}

impl<'py> OnLoop<'py> {
    /// The loop of `done` (a `(Completer, future)` pair), if it may get a runtime and its
    /// runtime, once built, has room for one more operation.
    pub fn of(py: Python<'py>, done: &Py<PyAny>) -> Option<Self> {
        let t = done.bind(py).cast::<PyTuple>().ok()?;
        if t.len() != 2 {
            return None;
        }
        let completer = t.get_item(0).ok()?.cast_into::<Completer>().ok()?;
        let c = completer.get();
        if !c.local_allowed {
            return None;
        }
        match c.local.get() {
            Some(None) => return None,
            Some(Some(local)) if !local.usable() || local.in_flight() >= c.local_max => {
                return None
            }
            _ => {}
        }
        let fut = t.get_item(1).ok()?.unbind();
        Some(OnLoop { completer, fut })
    }

    /// Most operations in flight on the loop's runtime (more go to the worker runtime).
    pub fn capacity(&self) -> usize {
        self.completer.get().local_max
    }

    /// The loop's runtime, once built: at the loop's [`LOOP_RUNTIME_AFTER`]-th call (a loop
    /// making a few calls, `asyncio.run` per request, never pays for one).
    pub fn runtime(&self) -> Option<&Arc<LoopRuntime<Ready>>> {
        let c = self.completer.get();
        if let Some(local) = c.local() {
            return Some(local);
        }
        if c.local_calls.fetch_add(1, Ordering::Relaxed) + 1 < LOOP_RUNTIME_AFTER {
            return None;
        }
        Completer::build_local(&self.completer)
    }

    /// Run `task` on the loop's runtime (if built), with no one waiting for it.
    pub fn spawn(&self, task: impl Future<Output = ()> + Send + 'static) {
        if let Some(local) = self.completer.get().local() {
            local.queue(Box::pin(task.map(|()| None)));
            Completer::arm(&self.completer);
        }
    }

    /// Start `fut` on the loop's runtime now (it sends its request before this returns; a
    /// scheduled flush would cost the loop an iteration per sequential call). A lone operation
    /// on an otherwise idle loop may then poll for its reply as `spin` allows, and settle its
    /// future before this returns.
    pub fn start<F, T>(self, fut: F, spin: &Spin) -> Pending
    where
        F: Future<Output = OpResult<T>> + Send + 'static,
        T: IntoPy,
    {
        let op = OpState::new();
        let (abort, registration) = futures::future::AbortHandle::new_pair();
        let _ = op.abort.set(Abort::Local(abort));
        let st = op.clone();
        let OnLoop {
            completer,
            fut: target,
        } = self;
        let task = async move {
            if st.state.load(Ordering::Acquire) != RUNNING {
                return None;
            }
            let out = crate::guard::future(fut).await;
            st.complete().then(|| Ready::new(target, out))
        };
        let task = futures::future::Abortable::new(task, registration).map(|r| r.ok().flatten());
        let c = completer.get();
        if let Some(local) = c.local() {
            c.local_started.fetch_add(1, Ordering::Relaxed);
            let py = completer.py();
            settle_from(py, || match local.start(Box::pin(task)) {
                done if done.is_empty() => {
                    let done = c.poll_alone(py, local, spin);
                    if !done.is_empty() {
                        c.local_polled.fetch_add(1, Ordering::Relaxed);
                    }
                    done
                }
                done => done,
            });
            Completer::arm_tick(&completer, local);
        }
        Pending { op }
    }
}

struct Queue {
    ready: Mutex<Vec<Ready>>,
    /// A wake-up byte is in flight (or the loop is about to drain).
    woken: AtomicBool,
    tx: UnixStream,
    rx: UnixStream,
}

impl Queue {
    fn push(&self, r: Ready) {
        self.ready.lock().push(r);
        if !self.woken.swap(true, Ordering::SeqCst) {
            // one byte per wake-up; a full socket buffer still means "wake up"
            let _ = (&self.tx).write(&[1]);
        }
    }
}

/// Operations started in the current loop iteration, not spawned yet.
#[derive(Default)]
struct Submissions {
    /// A flush is scheduled (`loop.call_soon(flush)`) for the end of this iteration.
    armed: bool,
    jobs: Vec<Job>,
    handle: Option<Handle>,
}

/// Completion queue of one asyncio event loop: runtime threads queue outcomes without the GIL
/// and write one byte to a socket the loop watches (`loop.add_reader(fileno(), drain)`);
/// `drain()` settles every queued future in one go on the loop thread.
///
/// Submissions are coalesced too (with `schedule`, the loop's `call_soon`): the operations
/// started in one loop iteration are queued, and `flush` (scheduled by the first of them) hands
/// them to the runtime in one spawn. Spawning from the loop thread wakes the (usually parked)
/// Tokio worker with a system call each time (~10-25 µs of the loop thread on this 2-vCPU VM);
/// this makes it one wake-up per loop iteration instead of one per operation.
#[pyclass(frozen, weakref, module = "aerospike_fluent._native")]
pub struct Completer {
    queue: Arc<Queue>,
    schedule: Option<Py<PyAny>>,
    submissions: Mutex<Submissions>,
    /// The loop's own runtime (see `local.rs`), built at the loop's
    /// [`LOOP_RUNTIME_AFTER`]-th call; `None` inside when it could not be set up.
    local: OnceLock<Option<Arc<LoopRuntime<Ready>>>>,
    /// Whether the loop may get a runtime (asked for, and the loop gave `call_soon`,
    /// `call_later` and `add_reader`).
    local_allowed: bool,
    /// Calls offered to the loop's runtime before it was built.
    local_calls: AtomicUsize,
    /// Operations in flight on `local` beyond which new ones go to the worker runtime.
    local_max: usize,
    /// Operations started on `local` so far.
    local_started: AtomicU64,
    /// Operations on `local` answered while their call polled for the reply.
    local_polled: AtomicU64,
    /// The loop's `call_later`, for the periodic tick of `local`.
    call_later: Option<Py<PyAny>>,
    /// The loop's `add_reader`, to watch `local` once built.
    watch: Option<Py<PyAny>>,
    /// The loop's queue of callbacks ready to run (asyncio's `loop._ready`), when known: a
    /// lone operation polls for its reply only while it is empty.
    ready: Option<Py<PyAny>>,
    /// The next periodic tick: when it is due and a weak reference to its `TimerHandle` (the
    /// handle holds the loop, which must not be kept alive from here).
    timer: Mutex<Option<(Instant, Py<PyAny>)>>,
}

impl Completer {
    /// Poll the loop's runtime for the reply of its one operation in flight, with the GIL
    /// released, while `spin` allows and nothing else is ready to run on the loop; returns
    /// what finished (nothing when the budget ran out: the loop's watch takes over).
    fn poll_alone(&self, py: Python<'_>, local: &LoopRuntime<Ready>, spin: &Spin) -> Vec<Ready> {
        let idle = |ready: &Py<PyAny>| ready.bind(py).len().is_ok_and(|n| n == 0);
        if local.in_flight() != 1 || !self.ready.as_ref().is_some_and(idle) {
            return Vec::new();
        }
        let Some(spinning) = spin.start() else {
            return Vec::new();
        };
        py.detach(|| {
            let until = Instant::now() + spinning.budget();
            loop {
                let done = local.tick();
                if !done.is_empty() {
                    spinning.hit();
                    return done;
                }
                if Instant::now() >= until {
                    spinning.miss();
                    return done;
                }
            }
        })
    }

    /// The loop's runtime, if built.
    fn local(&self) -> Option<&Arc<LoopRuntime<Ready>>> {
        self.local.get().and_then(Option::as_ref)
    }

    /// Build the loop's runtime and have the loop watch it (once; `None` when that failed).
    fn build_local<'a>(slf: &'a Bound<'_, Self>) -> Option<&'a Arc<LoopRuntime<Ready>>> {
        let this = slf.get();
        if !this.local_allowed {
            return None;
        }
        let local = this.local.get_or_init(|| {
            let local = Arc::new(LoopRuntime::new()?);
            let watch = this.watch.as_ref()?;
            let py = slf.py();
            let watched = slf
                .getattr(intern!(py, "tick"))
                .and_then(|tick| watch.call1(py, (local.fileno(), tick)));
            match watched {
                Ok(_) => Some(local),
                Err(e) => {
                    e.write_unraisable(py, Some(slf.as_any()));
                    None
                }
            }
        });
        let local = local.as_ref()?;
        Self::arm_tick(slf, local);
        Some(local)
    }

    fn submissions(&self) -> MutexGuard<'_, Submissions> {
        self.submissions.lock()
    }

    /// Queue `job` for `flush` (scheduled by the first job of the iteration); without a
    /// scheduler, spawn it now.
    fn submit(slf: &Bound<'_, Completer>, handle: &Handle, job: Job) {
        if !Self::arm(slf) {
            return job.spawn(handle);
        }
        let mut s = slf.get().submissions();
        s.jobs.push(job);
        s.handle = Some(handle.clone());
    }

    /// Make sure a `flush` is scheduled for the end of this loop iteration; false when none
    /// can be (no scheduler, or the loop refused it).
    fn arm(slf: &Bound<'_, Completer>) -> bool {
        let this = slf.get();
        let Some(schedule) = &this.schedule else {
            return false;
        };
        if this.submissions().armed {
            return true;
        }
        // First of this iteration (the lock is not held while Python runs).
        let armed = slf
            .getattr(intern!(slf.py(), "flush"))
            .and_then(|flush| schedule.call1(slf.py(), (flush,)));
        match armed {
            Ok(_) => {
                this.submissions().armed = true;
                true
            }
            Err(e) => {
                e.write_unraisable(slf.py(), Some(slf.as_any()));
                false
            }
        }
    }

    fn take(&self) -> (Vec<Job>, Option<Handle>) {
        let mut s = self.submissions();
        s.armed = false;
        (std::mem::take(&mut s.jobs), s.handle.take())
    }
}

/// Spawn every job from one task on the runtime (spawns from a worker thread wake nobody).
fn spawn_all(jobs: Vec<Job>, handle: Option<Handle>) {
    let Some(handle) = handle else { return };
    match jobs.len() {
        0 => {}
        1 => jobs.into_iter().for_each(|j| j.spawn(&handle)),
        _ => {
            let h = handle.clone();
            handle.spawn(async move {
                for j in jobs {
                    j.spawn(&h);
                }
            });
        }
    }
}

impl Drop for Completer {
    fn drop(&mut self) {
        // A flush that never ran (loop closed first): the operations still go out.
        let (jobs, handle) = self.take();
        spawn_all(jobs, handle);
    }
}

#[pymethods]
impl Completer {
    /// `schedule`: the loop's `call_soon`, to coalesce the operations started in one
    /// iteration; without it every operation is spawned on its own. `loop_runtime`: give a
    /// busy loop its own runtime, built at its eighth call and watched with `watch` (the
    /// loop's `add_reader`) calling `tick()`; `loop_ops`: at most this many operations in
    /// flight on it (more go to the worker); `ready`: the loop's queue of ready callbacks
    /// (asyncio's `loop._ready`), without which no operation polls for its reply.
    #[new]
    #[pyo3(signature = (schedule=None, call_later=None, watch=None, loop_runtime=false, loop_ops=None, ready=None))]
    fn new(
        schedule: Option<Py<PyAny>>,
        call_later: Option<Py<PyAny>>,
        watch: Option<Py<PyAny>>,
        loop_runtime: bool,
        loop_ops: Option<usize>,
        ready: Option<Py<PyAny>>,
    ) -> PyResult<Self> {
        let (tx, rx) = UnixStream::pair()
            .map_err(|e| ClientError::new_err(format!("cannot create a wake-up socket: {e}")))?;
        for sock in [&tx, &rx] {
            sock.set_nonblocking(true)
                .map_err(|e| ClientError::new_err(format!("wake-up socket: {e}")))?;
        }
        Ok(Completer {
            queue: Arc::new(Queue {
                ready: Mutex::new(Vec::new()),
                woken: AtomicBool::new(false),
                tx,
                rx,
            }),
            local: OnceLock::new(),
            local_allowed: loop_runtime
                && schedule.is_some()
                && call_later.is_some()
                && watch.is_some(),
            local_calls: AtomicUsize::new(0),
            watch,
            ready,
            local_max: loop_ops.unwrap_or(DEFAULT_LOOP_OPS),
            local_started: AtomicU64::new(0),
            local_polled: AtomicU64::new(0),
            call_later,
            timer: Mutex::new(None),
            schedule,
            submissions: Mutex::new(Submissions::default()),
        })
    }

    /// The file descriptor to watch for readability.
    fn fileno(&self) -> i32 {
        self.queue.rx.as_raw_fd()
    }

    /// Hand the operations queued since the last flush to the runtime (one spawn), and start
    /// those queued on the loop's own runtime.
    fn flush(slf: &Bound<'_, Self>) {
        let this = slf.get();
        let (jobs, handle) = this.take();
        spawn_all(jobs, handle);
        if let Some(local) = this.local() {
            settle_from(slf.py(), || local.start_queued());
            Self::arm_tick(slf, local);
        }
    }

    /// Settle every queued future (skipping cancelled ones); call on the loop thread.
    fn drain(&self, py: Python<'_>) {
        let q = &self.queue;
        let mut buf = [0u8; 64];
        while matches!((&q.rx).read(&mut buf), Ok(n) if n > 0) {}
        q.woken.store(false, Ordering::SeqCst);
        settle(py, std::mem::take(&mut *q.ready.lock()));
    }

    /// The descriptor of the loop's own runtime (None: not built, every operation runs on
    /// the worker runtime).
    fn runtime_fileno(&self) -> Option<i32> {
        self.local().map(|l| l.fileno())
    }

    /// Drive the loop's runtime without blocking and settle what finished; the loop calls
    /// this when `runtime_fileno()` is readable, `periodic` on its timer.
    fn tick(&self, py: Python<'_>) {
        if let Some(local) = self.local() {
            settle_from(py, || local.tick());
        }
    }

    /// The loop is closed: drop what it still holds (operations in flight on its runtime,
    /// that runtime's crate clients, undelivered outcomes), which keep the loop alive.
    fn release(&self) {
        if let Some(local) = self.local() {
            local.release();
        }
        self.queue.ready.lock().clear();
    }

    /// Operations started on the loop's own runtime so far.
    #[getter]
    fn loop_ops_started(&self) -> u64 {
        self.local_started.load(Ordering::Relaxed)
    }

    /// Operations on the loop's own runtime answered while their call polled for the reply.
    #[getter]
    fn loop_ops_polled(&self) -> u64 {
        self.local_polled.load(Ordering::Relaxed)
    }

    /// The periodic tick: timers (timeouts, the connect's waits) and cluster tending only
    /// progress while the runtime is driven.
    fn periodic(slf: &Bound<'_, Self>) {
        let this = slf.get();
        this.timer.lock().take();
        this.tick(slf.py());
        if let Some(local) = this.local() {
            Self::arm_tick(slf, local);
        }
    }
}

impl Completer {
    /// Make sure a periodic tick is due within the delay the runtime's state calls for.
    fn arm_tick(slf: &Bound<'_, Self>, local: &LoopRuntime<Ready>) {
        let this = slf.get();
        let Some(call_later) = &this.call_later else {
            return;
        };
        let delay = if local.connecting() {
            CONNECTING_TICK
        } else if local.in_flight() > 0 {
            BUSY_TICK
        } else {
            IDLE_TICK
        };
        let due = Instant::now() + delay;
        let stale = {
            let mut timer = this.timer.lock();
            if timer.as_ref().is_some_and(|(at, _)| *at <= due) {
                return;
            }
            timer.take()
        };
        let py = slf.py();
        if let Some(handle) = stale.and_then(|(_, h)| h.call0(py).ok()) {
            if !handle.is_none(py) {
                let _ = handle.call_method0(py, intern!(py, "cancel"));
            }
        }
        let scheduled = slf
            .getattr(intern!(py, "periodic"))
            .and_then(|f| call_later.call1(py, (delay.as_secs_f64(), f)))
            .and_then(|h| Ok(PyWeakrefReference::new(h.bind(py))?.into_any().unbind()));
        match scheduled {
            Ok(handle) => *this.timer.lock() = Some((due, handle)),
            Err(e) => e.write_unraisable(py, Some(slf.as_any())),
        }
    }
}

/// A loop gets its own runtime at its eighth call on it (all clients together).
pub const LOOP_RUNTIME_AFTER: usize = 8;
/// Default `loop_ops`: operations in flight on a loop's own runtime before new ones go to the
/// worker runtime.
pub const DEFAULT_LOOP_OPS: usize = 16;
/// Periodic tick of a loop runtime while a crate client connects on it (it waits 1 ms between
/// its first tend cycles).
const CONNECTING_TICK: Duration = Duration::from_millis(1);
/// Periodic tick of a loop runtime with operations in flight (timeout granularity).
const BUSY_TICK: Duration = Duration::from_millis(10);
/// Periodic tick of an idle loop runtime (cluster tend, connection upkeep).
const IDLE_TICK: Duration = Duration::from_millis(100);

/// Set by the `atexit` hook: the interpreter is about to finalize.
static EXITING: AtomicBool = AtomicBool::new(false);
/// Native (non-Python) threads currently inside `Python::attach`.
static IN_PYTHON: AtomicUsize = AtomicUsize::new(0);
/// How long the `atexit` hook waits for native threads to leave Python.
const EXIT_DRAIN: Duration = Duration::from_secs(5);

/// Run `f` under the GIL from a native thread, unless the interpreter is exiting.
///
/// A native thread that asks for the GIL after finalization started is terminated by CPython
/// with `pthread_exit`, and the unwinding drop of the GIL guard aborts the process
/// ("PyGILState_Release: thread state must be current"). So: announce the attach first, then
/// check the flag; the `atexit` hook sets the flag, then waits (GIL released) until no native
/// thread is inside Python. Work skipped here has nobody left to receive it.
pub fn with_python<R>(f: impl FnOnce(Python<'_>) -> R) -> Option<R> {
    IN_PYTHON.fetch_add(1, Ordering::SeqCst);
    let out = if EXITING.load(Ordering::SeqCst) {
        None
    } else {
        Some(Python::attach(f))
    };
    IN_PYTHON.fetch_sub(1, Ordering::SeqCst);
    out
}

/// Whether the `atexit` hook has run.
pub fn exiting() -> bool {
    EXITING.load(Ordering::SeqCst)
}

/// `atexit` hook: stop native threads from entering Python and wait (GIL released) for the
/// ones inside it to leave, so that none is there when the interpreter finalizes.
#[pyfunction]
fn _before_exit(py: Python<'_>) {
    EXITING.store(true, Ordering::SeqCst);
    py.detach(|| {
        let deadline = Instant::now() + EXIT_DRAIN;
        while IN_PYTHON.load(Ordering::SeqCst) > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
    });
}

fn deliver<T: IntoPy>(py: Python<'_>, done: &Py<PyAny>, out: OpResult<T>) {
    let args = match crate::guard::sync("result conversion", || {
        out.map_err(|f| f.into_pyerr(py))
            .and_then(|v| v.into_py(py))
    }) {
        Ok(v) => (v, py.None()),
        Err(e) => (py.None(), e.into_value(py).into_any()),
    };
    if let Err(e) = done.call1(py, args) {
        e.write_unraisable(py, Some(done.bind(py)));
    }
}

struct Probes {
    running_loop: Py<PyAny>,
    sniffio_local: Option<Py<PyAny>>,
    /// `sys.modules`: trio can only be running once imported.
    modules: Py<PyDict>,
    main_thread: Option<ThreadId>,
}

static PROBES: PyOnceLock<Probes> = PyOnceLock::new();

fn probes(py: Python<'_>) -> PyResult<&Probes> {
    PROBES.get_or_try_init(py, || {
        let threading = py.import("threading")?;
        let is_main = threading
            .call_method0("current_thread")?
            .is(&threading.call_method0("main_thread")?);
        Ok(Probes {
            running_loop: py.import("asyncio")?.getattr("_get_running_loop")?.unbind(),
            sniffio_local: py
                .import("sniffio")
                .and_then(|m| m.getattr("thread_local"))
                .ok()
                .map(Bound::unbind),
            modules: py.import("sys")?.getattr("modules")?.cast_into()?.unbind(),
            main_thread: is_main.then(|| std::thread::current().id()),
        })
    })
}

/// Record the main thread (call at import, which normally runs on it) and register the
/// `atexit` hook.
pub fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    probes(py)?;
    let hook = wrap_pyfunction!(_before_exit, m)?;
    py.import("atexit")?.call_method1("register", (hook,))?;
    Ok(())
}

fn refuse_in_event_loop(py: Python<'_>, p: &Probes) -> PyResult<()> {
    if Handle::try_current().is_ok() {
        return Err(ClientError::new_err(
            "blocking call on a Tokio runtime thread; use the async API",
        ));
    }
    let asyncio = !p.running_loop.call0(py)?.is_none(py);
    let other = match &p.sniffio_local {
        Some(l) if p.modules.bind(py).contains(intern!(py, "trio"))? => {
            !l.bind(py).getattr("name")?.is_none()
        }
        _ => false,
    };
    if asyncio || other {
        return Err(ClientError::new_err(
            "blocking call from inside a running event loop; await the async API instead",
        ));
    }
    Ok(())
}

/// How often a blocking call on the main thread checks for signals (Ctrl-C).
const SIGNAL_CHECK: Duration = Duration::from_millis(100);

/// Which runtime a blocking call runs on (see `runtime.rs`).
#[derive(Clone, Copy)]
pub enum Driver<'a> {
    /// Polled on the calling thread; its I/O is driven by the worker runtime.
    Worker(&'a Handle),
    /// The calling thread runs the caller-driven runtime (and its I/O) itself, busy-polling
    /// first as the client's `Spin` allows.
    Caller(&'a Runtime, &'a Spin),
}

impl Driver<'_> {
    fn run<F, T>(self, fut: F, tick: Option<Tick<'_, Failure>>) -> OpResult<T>
    where
        F: Future<Output = OpResult<T>>,
    {
        match self {
            Driver::Worker(handle) => crate::park::block_on(handle, fut, tick),
            Driver::Caller(rt, spin) => crate::park::drive(rt, fut, tick, spin),
        }
    }
}

/// Run `fut` on the calling thread with the GIL released and convert its result; Ctrl-C is
/// honoured every 100 ms on the main thread.
pub fn block<F, T>(py: Python<'_>, driver: Driver<'_>, fut: F) -> PyResult<Py<PyAny>>
where
    F: Future<Output = OpResult<T>> + Send,
    T: IntoPy,
{
    let out = wait(py, driver, fut);
    crate::guard::sync("result conversion", || {
        out.map_err(|f| f.into_pyerr(py))?.into_py(py)
    })
}

/// [`block`] without the conversion: the outcome as the future gave it.
pub fn wait<F, T>(py: Python<'_>, driver: Driver<'_>, fut: F) -> OpResult<T>
where
    F: Future<Output = OpResult<T>> + Send,
    T: Send,
{
    let p = probes(py).map_err(Failure::Py)?;
    refuse_in_event_loop(py, p).map_err(Failure::Py)?;
    let on_main = p.main_thread == Some(std::thread::current().id());
    let fut = crate::guard::future(fut);
    if on_main {
        py.detach(|| {
            let mut check = || Python::attach(|py| py.check_signals()).map_err(Failure::Py);
            driver.run(fut, Some((SIGNAL_CHECK, &mut check)))
        })
    } else {
        py.detach(|| {
            let out = driver.run(fut, None);
            if exiting() {
                // Only daemon threads run after the atexit hooks started; re-taking the GIL
                // once finalization begins would kill this thread mid-unwind. Park instead:
                // the process is ending.
                loop {
                    std::thread::park();
                }
            }
            out
        })
    }
}

/// Error for a spawned part of an operation that ended without a result.
pub fn join_error(e: &tokio::task::JoinError) -> PyErr {
    ClientError::new_err(format!("an operation task ended without a result: {e}"))
}

/// Error for a client used after `close()` (or created before `fork()`).
pub fn closed(msg: &str) -> PyErr {
    ClientClosedError::new_err(msg.to_owned())
}
