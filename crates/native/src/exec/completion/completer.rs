//! The completion queue of one event loop (`Completer`): outcomes queued by runtime threads,
//! submissions coalesced per loop iteration, and the loop's own runtime with its periodic tick.

use std::io::{Read, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use parking_lot::{Mutex, MutexGuard};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::PyWeakrefReference;
use tokio::runtime::Handle;

use super::on_loop::DEFAULT_LOOP_OPS;
use super::outcome::{settle, settle_from, Ready};
use super::pending::{spawn_all, Job};
use super::wake;
use crate::errors::ClientError;
use crate::exec::loop_runtime::LoopRuntime;
use crate::exec::spin::Spin;

pub(super) struct Queue {
    pub(super) ready: Mutex<Vec<Ready>>,
    /// A wake-up byte is in flight (or the loop is about to drain).
    pub(super) woken: AtomicBool,
    pub(super) tx: wake::Stream,
    pub(super) rx: wake::Stream,
}

impl Queue {
    pub(super) fn push(&self, r: Ready) {
        self.ready.lock().push(r);
        if !self.woken.swap(true, Ordering::SeqCst) {
            // one byte per wake-up; a full socket buffer still means "wake up"
            let _ = (&self.tx).write(&[1]);
        }
    }
}

/// Operations started in the current loop iteration, not spawned yet.
#[derive(Default)]
pub(super) struct Submissions {
    /// A flush is scheduled (`loop.call_soon(flush)`) for the end of this iteration.
    pub(super) armed: bool,
    pub(super) jobs: Vec<Job>,
    pub(super) handle: Option<Handle>,
}

/// Completion queue of one event loop (asyncio, or a trio run): runtime threads queue outcomes without the GIL
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
    pub(super) queue: Arc<Queue>,
    pub(super) schedule: Option<Py<PyAny>>,
    pub(super) submissions: Mutex<Submissions>,
    /// The loop's own runtime (see `exec/loop_runtime.rs`), built at the loop's
    /// [`LOOP_RUNTIME_AFTER`]-th call; `None` inside when it could not be set up.
    pub(super) local: OnceLock<Option<Arc<LoopRuntime<Ready>>>>,
    /// Whether the loop may get a runtime (asked for, and the loop gave `call_soon`,
    /// `call_later` and `add_reader`).
    pub(super) local_allowed: bool,
    /// Calls offered to the loop's runtime before it was built.
    pub(super) local_calls: AtomicUsize,
    /// Operations in flight on `local` beyond which new ones go to the worker runtime.
    pub(super) local_max: usize,
    /// Operations started on `local` so far.
    pub(super) local_started: AtomicU64,
    /// Operations on `local` answered while their call polled for the reply.
    pub(super) local_polled: AtomicU64,
    /// The loop's `call_later`, for the periodic tick of `local`.
    pub(super) call_later: Option<Py<PyAny>>,
    /// The loop's `add_reader`, to watch `local` once built.
    pub(super) watch: Option<Py<PyAny>>,
    /// The loop's queue of callbacks ready to run (asyncio's `loop._ready`), when known: a
    /// lone operation polls for its reply only while it is empty.
    pub(super) ready: Option<Py<PyAny>>,
    /// The next periodic tick: when it is due and a weak reference to its `TimerHandle` (the
    /// handle holds the loop, which must not be kept alive from here).
    pub(super) timer: Mutex<Option<(Instant, Py<PyAny>)>>,
}

impl Completer {
    /// Poll the loop's runtime for the reply of its one operation in flight, with the GIL
    /// released, while `spin` allows and nothing else is ready to run on the loop; returns
    /// what finished (nothing when the budget ran out: the loop's watch takes over).
    pub(super) fn poll_alone(
        &self,
        py: Python<'_>,
        local: &LoopRuntime<Ready>,
        spin: &Spin,
    ) -> Vec<Ready> {
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
    pub(super) fn local(&self) -> Option<&Arc<LoopRuntime<Ready>>> {
        self.local.get().and_then(Option::as_ref)
    }

    /// Build the loop's runtime and have the loop watch it (once; `None` when that failed).
    pub(super) fn build_local<'a>(slf: &'a Bound<'_, Self>) -> Option<&'a Arc<LoopRuntime<Ready>>> {
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

    pub(super) fn submissions(&self) -> MutexGuard<'_, Submissions> {
        self.submissions.lock()
    }

    /// Queue `job` for `flush` (scheduled by the first job of the iteration); without a
    /// scheduler, spawn it now.
    pub(super) fn submit(slf: &Bound<'_, Completer>, handle: &Handle, job: Job) {
        if !Self::arm(slf) {
            return job.spawn(handle);
        }
        let mut s = slf.get().submissions();
        s.jobs.push(job);
        s.handle = Some(handle.clone());
    }

    /// Make sure a `flush` is scheduled for the end of this loop iteration; false when none
    /// can be (no scheduler, or the loop refused it).
    pub(super) fn arm(slf: &Bound<'_, Completer>) -> bool {
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

    pub(super) fn take(&self) -> (Vec<Job>, Option<Handle>) {
        let mut s = self.submissions();
        s.armed = false;
        (std::mem::take(&mut s.jobs), s.handle.take())
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
        let (tx, rx) = wake::pair()
            .map_err(|e| ClientError::new_err(format!("cannot create a wake-up socket: {e}")))?;
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
    fn fileno(&self) -> i64 {
        wake::fileno(&self.queue.rx)
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
    pub(super) fn arm_tick(slf: &Bound<'_, Self>, local: &LoopRuntime<Ready>) {
        let this = slf.get();
        let Some(call_later) = &this.call_later else {
            return;
        };
        let delay = if local.in_flight() > 0 {
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

/// Periodic tick of a loop runtime with operations in flight (timeout granularity).
const BUSY_TICK: Duration = Duration::from_millis(10);
/// Periodic tick of an idle loop runtime (cluster tend, connection upkeep).
const IDLE_TICK: Duration = Duration::from_millis(100);
