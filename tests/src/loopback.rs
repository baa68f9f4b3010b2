//! A loopback HTTP server that records each request and answers from a
//! script, for the `xcsh agent` tests of request shapes and of hostile
//! servers: enough HTTP/1.1 for one POST per connection (each answer
//! closes it). A [`RawScript`] writes the answer itself: slowly, without
//! end, cut short.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::Value;

/// One request as the server read it.
#[derive(Clone, Debug)]
pub struct Seen {
    /// The request line's path.
    pub path: String,
    /// Header names (lowercase) and values.
    pub headers: Vec<(String, String)>,
    /// The body, parsed as JSON.
    pub body: Value,
}

impl Seen {
    /// The value of header `name` (lowercase).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

/// An answer: status, content type and body.
pub type Answer = (u16, &'static str, String);

/// Chooses the answer to one request.
pub type Script = Box<dyn FnOnce(&Seen) -> Answer + Send>;

/// Answers one request by writing to its connection (then closed).
pub type RawScript = Box<dyn FnOnce(&Seen, TcpStream) + Send>;

/// The longest a raw script waits on a client (so no server thread
/// outlives a test by much).
pub const HOLD_AT_MOST: Duration = Duration::from_secs(120);

/// The server; answers the requests it is given, in order, then stops.
#[derive(Debug)]
pub struct Loopback {
    /// `http://127.0.0.1:{port}`.
    pub url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    thread: Option<JoinHandle<()>>,
}

impl Loopback {
    /// Serves one connection per answer of `answers`, in order; each
    /// answer is chosen after seeing the request.
    pub fn serve(answers: Vec<Script>) -> Self {
        Self::serve_raw(
            answers
                .into_iter()
                .map(|answer| -> RawScript {
                    Box::new(move |request, stream| {
                        let (status, content_type, body) = answer(request);
                        write_answer(stream, status, content_type, &body);
                    })
                })
                .collect(),
        )
    }

    /// Serves one connection per script of `answers`, in order; each
    /// writes its answer itself once the request is read (and recorded).
    pub fn serve_raw(answers: Vec<RawScript>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&seen);
        let thread = std::thread::spawn(move || {
            for answer in answers {
                let Ok((stream, _)) = listener.accept() else {
                    return;
                };
                let request = read_request(&stream);
                kept.lock().unwrap().push(request.clone());
                answer(&request, stream);
            }
        });
        Self {
            url,
            seen,
            thread: Some(thread),
        }
    }

    /// The requests seen so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

impl Drop for Loopback {
    fn drop(&mut self) {
        // A thread still waiting for a request the test never sent is left
        // to end with the process; one that finished is joined.
        if let Some(thread) = self.thread.take()
            && thread.is_finished()
        {
            let _ = thread.join();
        }
    }
}

fn read_request(stream: &TcpStream) -> Seen {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    let path = line
        .split_whitespace()
        .nth(1)
        .unwrap_or_default()
        .to_owned();
    let mut headers = Vec::new();
    loop {
        line.clear();
        reader.read_line(&mut line).unwrap();
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.push((name.trim().to_lowercase(), value.trim().to_owned()));
        }
    }
    let length: usize = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .map_or(0, |(_, value)| value.parse().unwrap());
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    Seen {
        path,
        headers,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    }
}

fn write_answer(mut stream: TcpStream, status: u16, content_type: &str, body: &str) {
    let head = format!(
        "HTTP/1.1 {status} X\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body.as_bytes());
}

/// Server-sent events: `event: {type}` and `data: {json}` for each.
pub fn events(events: &[Value]) -> String {
    events
        .iter()
        .map(|event| {
            format!(
                "event: {}\ndata: {event}\n\n",
                event["type"].as_str().unwrap()
            )
        })
        .collect()
}

/// Writes a status line and headers for a body of `length` bytes, or a
/// body that ends when the connection closes (`None`).
pub fn write_head(stream: &mut TcpStream, status: u16, content_type: &str, length: Option<usize>) {
    let length = length.map_or(String::new(), |length| {
        format!("content-length: {length}\r\n")
    });
    let head = format!(
        "HTTP/1.1 {status} X\r\ncontent-type: {content_type}\r\n{length}connection: close\r\n\r\n"
    );
    let _ = stream.write_all(head.as_bytes());
}

/// Keeps the connection open, reading nothing more, until the client
/// closes it (or [`HOLD_AT_MOST`] passes).
pub fn hold(mut stream: TcpStream) {
    let started = Instant::now();
    let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
    let mut buffer = [0; 1024];
    while started.elapsed() < HOLD_AT_MOST {
        match stream.read(&mut buffer) {
            Ok(0) => return,
            Ok(_) => {}
            Err(error)
                if matches!(
                    error.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return,
        }
    }
}

/// Writes `piece` again and again, every `every`, until the client closes
/// the connection (or [`HOLD_AT_MOST`] passes).
pub fn repeat(mut stream: TcpStream, piece: &[u8], every: Duration) {
    let started = Instant::now();
    while started.elapsed() < HOLD_AT_MOST {
        if stream.write_all(piece).is_err() {
            return;
        }
        if !every.is_zero() {
            std::thread::sleep(every);
        }
    }
}
