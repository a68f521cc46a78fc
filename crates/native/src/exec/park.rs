//! Executors for blocking calls.
//!
//! [`block_on`] polls a future of the worker runtime on the calling thread (inside the
//! runtime's context, so I/O and timers register with its drivers) and parks the thread between
//! wake-ups. It arms no timer per call (a new timer that expires before the worker's next
//! deadline makes Tokio unpark the worker to re-arm its epoll timeout: one extra thread wake-up
//! per call); its periodic tick (Ctrl-C checks on the main thread) is `park_timeout`.
//!
//! [`drive`] runs a caller-driven runtime on the calling thread: it spins first as `exec/spin.rs`
//! allows, then sleeps in the runtime's own driver; its tick is a `tokio::time::timeout`, which
//! costs nothing extra there (no other thread owns that runtime's timers).

use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

use tokio::runtime::{Handle, Runtime};

use crate::exec::spin::{Spin, Waiting};

struct Signal {
    woken: AtomicBool,
    thread: Thread,
}

impl Wake for Signal {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if !self.woken.swap(true, Ordering::AcqRel) {
            self.thread.unpark();
        }
    }
}

/// A periodic check run while a call is pending: `(every, check)`.
pub type Tick<'a, E> = (Duration, &'a mut dyn FnMut() -> Result<(), E>);

/// Drive `fut` to completion on this thread. With `tick = Some((every, f))`, `f` runs every
/// `every` while the future is pending; an error from it ends the wait with that error.
pub fn block_on<F, T, E>(handle: &Handle, fut: F, mut tick: Option<Tick<'_, E>>) -> Result<T, E>
where
    F: Future<Output = Result<T, E>>,
{
    let _enter = handle.enter();
    let signal = Arc::new(Signal {
        woken: AtomicBool::new(false),
        thread: thread::current(),
    });
    let waker = Waker::from(signal.clone());
    let mut cx = Context::from_waker(&waker);
    let mut fut = pin!(fut);
    let mut last_tick = tick.as_ref().map(|_| Instant::now());
    loop {
        // on the deep stack: the reply is decoded on this (Python) thread
        if let Poll::Ready(out) = crate::safety::deep_stack::run(|| fut.as_mut().poll(&mut cx)) {
            return out;
        }
        // Spinning before parking was measured (20-60 us): slower on this 2-core machine,
        // the spinning thread takes the CPU the server and the runtime worker need.
        while !signal.woken.swap(false, Ordering::AcqRel) {
            match (&mut tick, &mut last_tick) {
                (Some((every, f)), Some(last)) => {
                    thread::park_timeout(*every);
                    if last.elapsed() >= *every {
                        f()?;
                        *last = Instant::now();
                    }
                }
                _ => thread::park(),
            }
        }
    }
}

/// Drive `fut` on a current-thread runtime from this thread: the calling thread runs the
/// runtime's I/O driver itself, so a reply wakes it directly. It first polls without sleeping
/// for as long as `spin` allows (see `exec/spin.rs`). `tick` as in [`block_on`].
pub fn drive<F, T, E>(rt: &Runtime, fut: F, tick: Option<Tick<'_, E>>, spin: &Spin) -> Result<T, E>
where
    F: Future<Output = Result<T, E>>,
{
    let _waiting = Waiting::new();
    // each poll on the deep stack: the reply is decoded on this (Python) thread
    let fut = crate::safety::deep_stack::Polled::new(fut);
    rt.block_on(async move {
        let mut fut = pin!(fut);
        if let Some(spinning) = spin.start() {
            let until = Instant::now() + spinning.budget();
            loop {
                if let Poll::Ready(out) = futures::poll!(fut.as_mut()) {
                    spinning.hit();
                    return out;
                }
                if Instant::now() >= until {
                    spinning.miss();
                    break;
                }
                // Back to the scheduler, which polls the I/O driver without blocking (or, while
                // another thread drives this shared runtime, lets that thread read the reply).
                tokio::task::yield_now().await;
            }
        }
        let Some((every, check)) = tick else {
            return fut.await;
        };
        loop {
            match tokio::time::timeout(every, fut.as_mut()).await {
                Ok(out) => return out,
                Err(_) => check()?,
            }
        }
    })
}
