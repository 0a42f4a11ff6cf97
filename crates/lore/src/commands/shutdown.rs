//! Ctrl-C and SIGTERM as one cancellation token, so the HTTP server and
//! every MCP session stop together.

use std::future::Future;

use tokio_util::sync::CancellationToken;

/// Fires once on Ctrl-C or SIGTERM.
pub struct ShutdownSignal(CancellationToken);

impl ShutdownSignal {
    /// Takes over Ctrl-C and SIGTERM from now on (the handlers are in
    /// place when this returns, so a signal sent after a server announced
    /// itself is never the default one that kills it unannounced). Call
    /// within a Tokio runtime.
    pub fn new() -> ShutdownSignal {
        let token = CancellationToken::new();
        let trigger = token.clone();
        let signalled = signals();
        tokio::spawn(async move {
            signalled.await;
            trigger.cancel();
        });
        ShutdownSignal(token)
    }

    /// The token a stop request cancels too (`POST /shutdown`).
    pub fn token(&self) -> CancellationToken {
        self.0.clone()
    }

    pub async fn wait(self) {
        self.0.cancelled().await;
    }
}

/// Registers the handlers now; the future ends on the first signal.
#[cfg(unix)]
fn signals() -> impl Future<Output = ()> + Send + 'static {
    use tokio::signal::unix::{SignalKind, signal};
    let interrupt = signal(SignalKind::interrupt());
    let terminate = signal(SignalKind::terminate());
    async move {
        match (interrupt, terminate) {
            (Ok(mut interrupt), Ok(mut terminate)) => {
                tokio::select! {
                    _ = interrupt.recv() => {}
                    _ = terminate.recv() => {}
                }
            }
            (Ok(mut interrupt), Err(_)) => {
                interrupt.recv().await;
            }
            (Err(_), Ok(mut terminate)) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = terminate.recv() => {}
                }
            }
            (Err(_), Err(_)) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
}

/// Ctrl-C alone where there are no Unix signals.
#[cfg(not(unix))]
fn signals() -> impl Future<Output = ()> + Send + 'static {
    async {
        let _ = tokio::signal::ctrl_c().await;
    }
}
