//! Ctrl-C and SIGTERM as one cancellation token, so the HTTP server and
//! every MCP session stop together.

use tokio_util::sync::CancellationToken;

/// Fires once on Ctrl-C or SIGTERM.
pub struct ShutdownSignal(CancellationToken);

impl ShutdownSignal {
    pub fn new() -> ShutdownSignal {
        let token = CancellationToken::new();
        let trigger = token.clone();
        tokio::spawn(async move {
            wait_for_signal().await;
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

async fn wait_for_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
