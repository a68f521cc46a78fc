//! Room on the stack for the crate's decoding of deeply nested values.
//!
//! The `aerospike` crate decodes lists and maps recursively: about 460 bytes of stack per level
//! (measured: `unpack_value` + `unpack_list` frames, deps at opt-level 2). A level takes one byte
//! on the wire and a server sends records of at most 8 MiB, so the deepest value it can send
//! needs about 4 GiB of stack. Every thread that polls the crate's futures has that much
//! reserved (pages are committed only as they are touched):
//!
//! - Tokio worker threads, through their stack size (`exec/runtime.rs`);
//! - Python threads (an event loop running its loop runtime, a caller blocked in a call): each
//!   poll of a call's future runs on a stack kept per thread ([`run`], [`Polled`]).
//!
//! Right after the crate answers, `convert/depth.rs` refuses (and takes apart without recursion) any
//! value nested deeper than the client reads, so nothing after that recurses deeply.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use corosensei::stack::DefaultStack;

/// Stack reserved for polling the crate: 8 MiB records x ~460 bytes per level, rounded up.
pub const DEEP_STACK_BYTES: usize = 4 << 30;

/// Sizes tried in turn when the system refuses the full reservation.
const FALLBACK_BYTES: [usize; 4] = [DEEP_STACK_BYTES, 1 << 30, 256 << 20, 64 << 20];

enum Spare {
    Unmade,
    Ready(DefaultStack),
    /// In use by a poll further up this thread's stack (nested polls run where they are).
    Busy,
    /// The system refused every size: polls run on the thread's own stack.
    Unavailable,
}

thread_local! {
    static SPARE: RefCell<Spare> = const { RefCell::new(Spare::Unmade) };
    /// Set when a poll met a value nested too deeply: its stack pages go back to the system.
    static RELEASE: Cell<bool> = const { Cell::new(false) };
}

/// The largest of the sizes the system grants a thread's stack (probed once, by spawning one).
pub fn thread_stack_size() -> usize {
    static SIZE: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *SIZE.get_or_init(|| {
        FALLBACK_BYTES
            .into_iter()
            .find(|&size| {
                std::thread::Builder::new()
                    .stack_size(size)
                    .spawn(|| ())
                    .is_ok_and(|t| t.join().is_ok())
            })
            .unwrap_or(2 << 20)
    })
}

fn make() -> Option<DefaultStack> {
    FALLBACK_BYTES
        .iter()
        .find_map(|&size| DefaultStack::new(size).ok())
}

fn lease() -> Option<DefaultStack> {
    SPARE
        .try_with(|slot| {
            let mut slot = slot.borrow_mut();
            match std::mem::replace(&mut *slot, Spare::Busy) {
                Spare::Ready(stack) => Some(stack),
                Spare::Unmade => {
                    let stack = make();
                    if stack.is_none() {
                        *slot = Spare::Unavailable;
                    }
                    stack
                }
                Spare::Busy => None,
                Spare::Unavailable => {
                    *slot = Spare::Unavailable;
                    None
                }
            }
        })
        .ok()
        .flatten()
}

/// The leased stack, given back when the poll ends (panics included).
struct Lease(Option<DefaultStack>);

impl Drop for Lease {
    fn drop(&mut self) {
        let released = RELEASE.try_with(|r| r.replace(false)).unwrap_or(false);
        let back = match self.0.take() {
            Some(stack) if !released => Spare::Ready(stack),
            _ => Spare::Unmade,
        };
        let _ = SPARE.try_with(|slot| *slot.borrow_mut() = back);
    }
}

/// Run `f` on this thread's deep stack (directly when already on it, or none could be made).
pub fn run<R>(f: impl FnOnce() -> R) -> R {
    let Some(stack) = lease() else {
        return f();
    };
    let mut lease = Lease(Some(stack));
    match lease.0.as_mut() {
        Some(stack) => corosensei::on_stack(stack, f),
        None => f(),
    }
}

/// Ask for the current deep stack to be unmapped once its poll ends (a deep value touched it).
pub fn release_after_use() {
    let _ = RELEASE.try_with(|r| r.set(true));
}

/// A future whose every poll runs on the deep stack.
pub struct Polled<F>(Pin<Box<F>>);

impl<F: Future> Polled<F> {
    pub fn new(fut: F) -> Self {
        Polled(Box::pin(fut))
    }
}

impl<F: Future> Future for Polled<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let fut = self.0.as_mut();
        run(|| fut.poll(cx))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth(n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        let pad = std::hint::black_box([0u8; 512]);
        1 + depth(n - 1) + usize::from(pad[n % 512])
    }

    #[test]
    fn recursion_past_a_small_thread_stack_runs_on_the_deep_stack() {
        // 64 MiB of frames on a thread with 1 MiB of stack
        let got = std::thread::Builder::new()
            .stack_size(1 << 20)
            .spawn(|| run(|| depth(100_000)))
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(got, 100_000);
    }

    #[test]
    fn nested_runs_reuse_the_stack_they_are_on() {
        assert_eq!(run(|| run(|| depth(10))), 10);
    }

    #[test]
    fn a_released_stack_is_made_again() {
        run(release_after_use);
        assert!(SPARE.with(|s| matches!(*s.borrow(), Spare::Unmade)));
        assert_eq!(run(|| depth(3)), 3);
        assert!(SPARE.with(|s| matches!(*s.borrow(), Spare::Ready(_))));
    }
}
