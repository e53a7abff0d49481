//! The service's door: which connections get in, so that a port open to clients can never take
//! from the program what it needs (descriptors, CPU), whatever arrives on it.
//!
//! - At most [`MAX_CONNECTIONS`] connections are served at once; one more is accepted and
//!   closed at once (refused).
//! - The last descriptors of the process's table are the program's: a connection accepted as
//!   one of the last [`fd_reserve`] numbers below `RLIMIT_NOFILE` is closed at once, and
//!   accepting pauses (`accept` hands out the lowest free number, so such a number means the
//!   table is that full).
//! - An error of `accept` (`EMFILE`, `ENFILE`, `ENOBUFS`, …) pauses accepting, longer after
//!   each one in a row ([`Backoff`]): the connection waiting in the queue keeps the listener
//!   readable, and retrying at once would spin a core.
//! - A connection that sends nothing within [`FIRST_BYTES`] is closed (an idle socket must not
//!   hold one of the few places).
//!
//! The accept loop hands admitted connections to tonic through a channel; tonic's own loop
//! would retry a failed `accept` at once, forever.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};
use tonic::transport::server::{Connected, TcpConnectInfo};

use crate::log_warn;

/// Connections served at once: a capture client holds one; a few people capturing, monitoring
/// and taking snapshots at once stay far below.
pub const MAX_CONNECTIONS: usize = 32;

/// How long a new connection may stay silent before it is closed (a gRPC client sends its
/// preface at once).
pub const FIRST_BYTES: Duration = Duration::from_secs(5);

/// Refusals for lack of room are paced to at most [`FULL_BURST`] per [`FULL_PAUSE`] (1,000 a
/// second): a queue of 2,000 idle connections empties in about two seconds, so a real client
/// behind them gets in, and a client reconnecting in a loop cannot make the thread spin.
const FULL_BURST: u32 = 10;
const FULL_PAUSE: Duration = Duration::from_millis(10);

/// The descriptors below `RLIMIT_NOFILE` the service leaves to the program: an eighth of the
/// table, at least 32 and at most 512 (1024 → 128).
pub fn fd_reserve(limit: u64) -> u64 {
    (limit / 8).clamp(32, 512)
}

/// Whether descriptor number `fd` lies in the program's reserve of a table of `limit`.
pub fn in_reserve(fd: u64, limit: u64) -> bool {
    fd.saturating_add(fd_reserve(limit)) >= limit
}

/// A growing pause: doubled after each failure in a row, up to `max`; back to the start after
/// a success.
#[derive(Debug, Clone)]
pub struct Backoff {
    first: Duration,
    max: Duration,
    next: Duration,
}

impl Backoff {
    pub fn new(first: Duration, max: Duration) -> Backoff {
        Backoff {
            first,
            max,
            next: first,
        }
    }

    /// The pause after one more failure in a row.
    pub fn fail(&mut self) -> Duration {
        let d = self.next;
        self.next = (self.next * 2).min(self.max);
        d
    }

    pub fn reset(&mut self) {
        self.next = self.first;
    }
}

/// What the door did, for the log at the end and for tests.
#[derive(Debug, Default)]
pub struct DoorCounts {
    pub admitted: AtomicU64,
    /// Refused: [`MAX_CONNECTIONS`] were being served.
    pub refused_full: AtomicU64,
    /// Refused: the descriptor table was nearly full.
    pub refused_fds: AtomicU64,
    /// `accept` failed.
    pub accept_errors: AtomicU64,
}

impl DoorCounts {
    /// One line when anything was refused (`None` otherwise).
    pub fn describe(&self) -> Option<String> {
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let (full, fds, errors) = (
            get(&self.refused_full),
            get(&self.refused_fds),
            get(&self.accept_errors),
        );
        (full + fds + errors > 0).then(|| {
            format!(
                "profiler service: {} connections served; refused {full} beyond {MAX_CONNECTIONS} at once and {fds} while the descriptor table was nearly full; {errors} failed accepts",
                get(&self.admitted)
            )
        })
    }
}

/// Accepts on `listener` until the receiver is gone, admitting connections by the rules above.
pub async fn admit(
    listener: TcpListener,
    tx: mpsc::Sender<io::Result<Guest>>,
    counts: Arc<DoorCounts>,
) {
    let places = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let mut backoff = Backoff::new(Duration::from_millis(10), Duration::from_secs(1));
    let mut warned = false;
    let mut refused_in_a_row = 0u32;
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            () = tx.closed() => return,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) => {
                counts.accept_errors.fetch_add(1, Ordering::Relaxed);
                if !std::mem::replace(&mut warned, true) {
                    log_warn!("profiler service: cannot accept a connection ({e}); pausing, then trying again less often");
                }
                tokio::time::sleep(backoff.fail()).await;
                continue;
            }
        };
        use std::os::fd::AsRawFd;
        let fd = u64::try_from(stream.as_raw_fd()).unwrap_or(0);
        if in_reserve(fd, crate::sdk::os::open_files_limit()) {
            counts.refused_fds.fetch_add(1, Ordering::Relaxed);
            drop(stream);
            if !std::mem::replace(&mut warned, true) {
                log_warn!("profiler service: the process's descriptor table is nearly full; refusing connections to leave the rest to the program");
            }
            tokio::time::sleep(backoff.fail()).await;
            continue;
        }
        let Ok(place) = Arc::clone(&places).try_acquire_owned() else {
            counts.refused_full.fetch_add(1, Ordering::Relaxed);
            drop(stream);
            refused_in_a_row += 1;
            if refused_in_a_row % FULL_BURST == 0 {
                tokio::time::sleep(FULL_PAUSE).await;
            }
            continue;
        };
        refused_in_a_row = 0;
        backoff.reset();
        counts.admitted.fetch_add(1, Ordering::Relaxed);
        let _ = stream.set_nodelay(true);
        if tx.send(Ok(Guest::new(stream, place))).await.is_err() {
            return;
        }
    }
}

/// An admitted connection: holds its place until tonic drops it, and is cut when it sends
/// nothing within [`FIRST_BYTES`].
pub struct Guest {
    stream: TcpStream,
    _place: OwnedSemaphorePermit,
    /// Until the first byte arrives: the deadline.
    silent: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl Guest {
    fn new(stream: TcpStream, place: OwnedSemaphorePermit) -> Guest {
        Guest {
            stream,
            _place: place,
            silent: Some(Box::pin(tokio::time::sleep(FIRST_BYTES))),
        }
    }
}

impl Connected for Guest {
    type ConnectInfo = TcpConnectInfo;

    fn connect_info(&self) -> TcpConnectInfo {
        self.stream.connect_info()
    }
}

impl AsyncRead for Guest {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let this = &mut *self;
        match Pin::new(&mut this.stream).poll_read(cx, buf) {
            Poll::Ready(r) => {
                if buf.filled().len() > before {
                    this.silent = None;
                }
                Poll::Ready(r)
            }
            Poll::Pending => match this.silent.as_mut().map(|s| s.as_mut().poll(cx)) {
                Some(Poll::Ready(())) => Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "no request within the first seconds",
                ))),
                _ => Poll::Pending,
            },
        }
    }
}

impl AsyncWrite for Guest {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reserve_is_an_eighth_of_the_table_within_bounds() {
        assert_eq!(fd_reserve(1024), 128);
        assert_eq!(fd_reserve(64), 32);
        assert_eq!(fd_reserve(1 << 20), 512);
        assert!(!in_reserve(895, 1024));
        assert!(in_reserve(896, 1024));
        assert!(in_reserve(1023, 1024));
        assert!(!in_reserve(10, u64::MAX));
    }

    #[test]
    fn the_pause_grows_to_its_bound_and_starts_again_after_a_success() {
        let mut b = Backoff::new(Duration::from_millis(10), Duration::from_millis(50));
        let seen: Vec<u128> = (0..5).map(|_| b.fail().as_millis()).collect();
        assert_eq!(seen, [10, 20, 40, 50, 50]);
        b.reset();
        assert_eq!(b.fail(), Duration::from_millis(10));
    }

    /// The door on a real loopback listener: the places fill, one more is refused (closed at
    /// once: the client reads EOF), and a silent connection is cut after its first seconds,
    /// giving its place back.
    #[test]
    fn connections_beyond_the_cap_are_closed_and_silent_ones_cut() {
        use std::io::Read;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = std_listener.local_addr().unwrap();
        std_listener.set_nonblocking(true).unwrap();
        let counts = Arc::new(DoorCounts::default());
        let (tx, mut rx) = mpsc::channel(1);
        let c = Arc::clone(&counts);
        let served = std::thread::spawn(move || {
            rt.block_on(async move {
                let listener = TcpListener::from_std(std_listener).unwrap();
                tokio::spawn(admit(listener, tx, c));
                let mut guests = Vec::new();
                while guests.len() < MAX_CONNECTIONS {
                    guests.push(rx.recv().await.unwrap().unwrap());
                }
                // The first guest stays silent: reading from it fails after FIRST_BYTES.
                let mut first = guests.remove(0);
                let t0 = tokio::time::Instant::now();
                let mut b = [0u8; 8];
                let e = tokio::io::AsyncReadExt::read(&mut first, &mut b)
                    .await
                    .unwrap_err();
                assert_eq!(e.kind(), io::ErrorKind::TimedOut);
                assert!(t0.elapsed() >= FIRST_BYTES - Duration::from_millis(100));
                drop(first);
                // Its place is free again: the next connection is admitted.
                let next = rx.recv().await.unwrap().unwrap();
                drop((guests, next));
            })
        });
        let mut clients: Vec<std::net::TcpStream> = (0..MAX_CONNECTIONS)
            .map(|_| std::net::TcpStream::connect(addr).unwrap())
            .collect();
        // One more while all places are taken: closed by the door.
        let mut extra = std::net::TcpStream::connect(addr).unwrap();
        extra
            .set_read_timeout(Some(Duration::from_secs(4)))
            .unwrap();
        let mut b = [0u8; 1];
        assert_eq!(
            extra.read(&mut b).expect("closed, not silent"),
            0,
            "refused: EOF"
        );
        assert_eq!(counts.refused_full.load(Ordering::Relaxed), 1);
        // After the silent one was cut, this one takes its place.
        std::thread::sleep(FIRST_BYTES + Duration::from_millis(500));
        clients.push(std::net::TcpStream::connect(addr).unwrap());
        served.join().unwrap();
        assert_eq!(
            counts.admitted.load(Ordering::Relaxed),
            MAX_CONNECTIONS as u64 + 1
        );
        assert!(counts.describe().unwrap().contains("refused 1 beyond 32"));
    }
}
