//! A small single-threaded async semaphore: background summary calls run at most N at once, so
//! a burst of finished tasks never floods the host or the model's rate limit.
//!
//! Written here rather than taken from a crate: the worker is single-threaded wasm, the
//! executor-agnostic crates that fit (`async-lock`, `tokio::sync`) pull in atomics and
//! dependencies for a counter and a wait list.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

/// At most `max` holders of a [`Permit`] at once.
#[derive(Clone)]
pub struct Limiter {
    inner: Rc<RefCell<Inner>>,
}

struct Inner {
    max: usize,
    running: usize,
    peak: usize,
    waiting: Vec<Waker>,
}

/// Held while a limited call runs; dropping it lets the next one start.
pub struct Permit {
    inner: Rc<RefCell<Inner>>,
}

impl Limiter {
    /// A limiter letting `max` (at least 1) run at once.
    pub fn new(max: usize) -> Self {
        Self {
            inner: Rc::new(RefCell::new(Inner {
                max: max.max(1),
                running: 0,
                peak: 0,
                waiting: Vec::new(),
            })),
        }
    }

    /// Waits for a free slot.
    pub fn acquire(&self) -> impl Future<Output = Permit> + use<> {
        Acquire { inner: self.inner.clone() }
    }

    /// How many permits are held now.
    pub fn running(&self) -> usize {
        self.inner.borrow().running
    }

    /// The most permits ever held at once (for tests and diagnostics).
    pub fn peak(&self) -> usize {
        self.inner.borrow().peak
    }
}

struct Acquire {
    inner: Rc<RefCell<Inner>>,
}

impl Future for Acquire {
    type Output = Permit;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Permit> {
        let mut inner = self.inner.borrow_mut();
        if inner.running < inner.max {
            inner.running += 1;
            inner.peak = inner.peak.max(inner.running);
            return Poll::Ready(Permit { inner: self.inner.clone() });
        }
        inner.waiting.push(cx.waker().clone());
        Poll::Pending
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        let waiting = {
            let mut inner = self.inner.borrow_mut();
            inner.running -= 1;
            std::mem::take(&mut inner.waiting)
        };
        // Every waiter polls again; the ones that lose the race re-register.
        for waker in waiting {
            waker.wake();
        }
    }
}
