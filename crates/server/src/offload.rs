//! Requests that may run long (batches, UDFs, writes of many bins) run on a blocking thread,
//! so the runtime thread keeps serving every other connection meanwhile. Their replies come
//! back through a small channel in frames of bounded size: a batch of 60 rows of an 8 MB
//! record never holds more than a couple of frames at once.

use std::sync::Arc;

use tokio::sync::{mpsc, Semaphore};

use crate::conn::FrameSink;
use crate::security::Grants;
use crate::stats::Kind;
use crate::wire::*;
use crate::{batch, dispatch, query, Shared};

/// Writes with more ops than this are offloaded.
const MANY_OPS: usize = 256;
/// Offloaded requests running at once in the process (each may hold a Lua state's memory);
/// more wait their turn without blocking anything else.
static RUNNING: Semaphore = Semaphore::const_new(4);
/// Reply frames in flight between the worker and the connection.
const FRAMES_IN_FLIGHT: usize = 2;

/// Whether `msg` should run off the runtime thread: batches, UDFs, writes of many ops,
/// background jobs and aggregations (plain scans and queries stream from the runtime thread).
pub fn wanted(msg: &Msg<'_>) -> bool {
    if dispatch::is_stream(msg) {
        return query::is_long(msg);
    }
    msg.fields.get(field::BATCH_INDEX).is_some()
        || msg.fields.get(field::UDF_PACKAGE).is_some()
        || msg.ops.len() > MANY_OPS
}

/// Runs the request `body` (an AS_MSG that [`wanted`] chose) on a blocking thread and sends its
/// reply frames to `sink`. False when the connection must close.
pub async fn serve(
    shared: &Arc<Shared>,
    body: &[u8],
    sink: &mut FrameSink<'_>,
    grants: Grants,
) -> bool {
    let Ok(_turn) = RUNNING.acquire().await else {
        return false;
    };
    let (tx, mut rx) = mpsc::channel::<Vec<u8>>(FRAMES_IN_FLIGHT);
    let body = body.to_vec();
    let shared = shared.clone();
    let job = tokio::task::spawn_blocking(move || {
        let Ok(msg) = Msg::parse(&body) else { return };
        let mut out = Vec::new();
        if dispatch::is_stream(&msg) {
            dispatch::count_stream(&msg, &shared);
            query::handle_long(&msg, &shared, &mut out, &mut |frames| {
                tx.blocking_send(std::mem::take(frames)).is_ok()
            });
        } else if msg.fields.get(field::BATCH_INDEX).is_some() {
            shared.stats.count(Kind::Batch);
            batch::handle_chunked(&msg, &shared, &grants, &mut out, &mut |frames| {
                tx.blocking_send(std::mem::take(frames)).is_ok()
            });
        } else {
            dispatch::single(&msg, &shared, &mut out, &grants);
        }
        if !out.is_empty() {
            let _ = tx.blocking_send(out);
        }
    });
    while let Some(mut frames) = rx.recv().await {
        if !sink.send(&mut frames).await {
            // Dropping the receiver stops the worker at its next frame.
            return false;
        }
    }
    job.await.is_ok()
}
