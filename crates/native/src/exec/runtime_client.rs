//! [`RuntimeClient`]: what a call running on one runtime uses.

use std::sync::Arc;

use tokio::runtime::Handle;

use crate::conn;
use crate::errors::{join_error, Failure, OpResult};

/// What a call running on one runtime uses: the client's crate client, and the connections
/// the wire path keeps on that runtime (`conn::pool`).
#[derive(Clone)]
pub struct RuntimeClient {
    /// The worker runtime's crate client: read its node list anywhere, but run its calls with
    /// [`Self::on_crate`].
    pub crate_client: aerospike::Client,
    pub wire: Arc<conn::Pool>,
    /// The worker runtime, when this is another runtime's.
    pub(crate) worker: Option<Handle>,
}

/// A task on the worker runtime, aborted when the call awaiting it is dropped.
struct Hop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for Hop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl RuntimeClient {
    /// Run `call`, a crate call, where the crate's sockets live: here on the worker runtime,
    /// else spawned there (one thread wake-up each way). `call` is boxed at once: the crate's
    /// futures are kilobytes, and held inline they would be part of every call that can fall
    /// back to the crate, moved with it each time it is moved (before it is ever polled).
    pub fn on_crate<F, T>(&self, call: F) -> impl std::future::Future<Output = OpResult<T>>
    where
        F: std::future::Future<Output = T> + Send + 'static,
        T: Send + 'static,
    {
        let call = Box::pin(call);
        let worker = self.worker.clone();
        async move {
            match worker {
                None => Ok(call.await),
                Some(worker) => {
                    let mut hop = Hop(worker.spawn(crate::safety::guard::future(async move {
                        Ok::<T, Failure>(call.await)
                    })));
                    match (&mut hop.0).await {
                        Ok(out) => out,
                        Err(e) => Err(Failure::Py(join_error(&e))),
                    }
                }
            }
        }
    }

    /// Close the wire path's connections (and, on the worker, the crate client's).
    pub async fn close(&self) {
        self.wire.close();
        if self.worker.is_none() {
            let _ = self.crate_client.close().await;
        }
    }
}
