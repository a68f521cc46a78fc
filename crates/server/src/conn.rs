//! Accept loop and per-connection request loop.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

use crate::Shared;

/// Accepts connections until `stop` fires; each connection runs in its own task.
pub(crate) async fn accept_loop(
    listener: TcpListener,
    shared: Arc<Shared>,
    mut stop: oneshot::Receiver<()>,
) {
    loop {
        if shared.faults.accept_paused() {
            tokio::select! {
                _ = &mut stop => return,
                _ = tokio::time::sleep(Duration::from_millis(10)) => continue,
            }
        }
        tokio::select! {
            _ = &mut stop => return,
            accepted = listener.accept() => {
                if let Ok((stream, _)) = accepted {
                    let _ = stream.set_nodelay(true);
                    tokio::spawn(serve(stream, shared.clone()));
                }
            }
        }
    }
}

/// Keeps the open-connections gauge right even when the task is cancelled.
struct OpenGuard(Arc<Shared>);

impl Drop for OpenGuard {
    fn drop(&mut self) {
        self.0
            .stats
            .connections_open
            .fetch_sub(1, Ordering::Relaxed);
    }
}

async fn serve(mut stream: TcpStream, shared: Arc<Shared>) {
    shared
        .stats
        .connections_open
        .fetch_add(1, Ordering::Relaxed);
    shared
        .stats
        .connections_total
        .fetch_add(1, Ordering::Relaxed);
    let _guard = OpenGuard(shared.clone());
    let mut header = [0u8; 8];
    while stream.read_exact(&mut header).await.is_ok() {
        // Placeholder until the protocol layer lands: reject everything by closing.
        let _ = stream.shutdown().await;
        return;
    }
}
