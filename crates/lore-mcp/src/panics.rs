//! Panics, reported: the text a panic was raised with, and the hook that
//! logs every panic through the server's log (both transports install it;
//! a tool's panic is caught and answered as `internal` by the server).

/// The text a panic was raised with.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string())
}

/// Logs every panic once, with where it happened and a backtrace, through
/// the server's log (stderr, or the daemon's JSON log) instead of the
/// default hook's bare line. Idempotent.
pub fn log_panics() {
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            let location = info
                .location()
                .map(|l| format!("{}:{}", l.file(), l.line()))
                .unwrap_or_default();
            tracing::error!(
                panic = %panic_message(info.payload()),
                location = %location,
                backtrace = %std::backtrace::Backtrace::force_capture(),
                "panic"
            );
        }));
    });
}
