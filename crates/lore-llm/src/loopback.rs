//! A model provider on loopback for this crate's tests: answers each
//! request with the next scripted (status, extra header, body), and keeps
//! the request bodies it received.

use std::io::{BufRead, BufReader, Read, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// The provider's URL (`http://127.0.0.1:<port>/v1`) and how many
/// requests it received.
pub fn provider(answers: Vec<(u16, &'static str, String)>) -> (String, Arc<AtomicUsize>) {
    let (url, count, _) = recording(answers);
    (url, count)
}

/// [`provider`], with the request bodies received.
pub fn recording(
    answers: Vec<(u16, &'static str, String)>,
) -> (String, Arc<AtomicUsize>, Arc<Mutex<Vec<String>>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let count = Arc::new(AtomicUsize::new(0));
    let bodies = Arc::new(Mutex::new(Vec::new()));
    let (seen, kept) = (Arc::clone(&count), Arc::clone(&bodies));
    std::thread::spawn(move || {
        for (status, header, body) in answers {
            let Ok((stream, _)) = listener.accept() else {
                return;
            };
            let mut reader = BufReader::new(stream);
            let mut length = 0;
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap();
                }
                if line == "\r\n" {
                    break;
                }
            }
            let mut request = vec![0; length];
            reader.read_exact(&mut request).unwrap();
            kept.lock()
                .unwrap()
                .push(String::from_utf8_lossy(&request).to_string());
            seen.fetch_add(1, Ordering::SeqCst);
            let mut stream = reader.into_inner();
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n{header}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (url, count, bodies)
}
