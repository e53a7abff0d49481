//! The clock exchange with the job's clock reference: a request and its reply over UDP, on the
//! port number of the reference's profiler service (`ROCPROF_XPLANE_SERVER`), NTP's way: this
//! host's wall clock when the request leaves and when the reply comes, the reference's wall
//! clock read in between (`clock::OffsetSample`). The reply also carries the reference's
//! origin, so that every rank counts from one instant.
//!
//! A request is as long as its reply, so the service answers no one with more bytes than it
//! was sent.

use std::net::{ToSocketAddrs, UdpSocket};
use std::time::Duration;

use crate::clock::{JobTimeSource, OffsetSample, Origin};

/// The first eight bytes of every message: the protocol and its version, and whether it is a
/// request (0) or a reply (1).
const MAGIC: [u8; 7] = *b"RPXCLK1";
/// Every message's length.
pub const LEN: usize = 40;

/// A request: the magic, the request's number.
pub fn request(seq: u64) -> [u8; LEN] {
    let mut b = [0u8; LEN];
    b[..7].copy_from_slice(&MAGIC);
    b[8..16].copy_from_slice(&seq.to_le_bytes());
    b
}

/// The reply to `req` (a request's bytes as received), with the reference's wall clock read now
/// and its origin; `None` for anything that is not a request.
pub fn reply(req: &[u8], wall_ns: u64, origin: Origin) -> Option<[u8; LEN]> {
    if req.len() != LEN || req[..7] != MAGIC || req[7] != 0 {
        return None;
    }
    let mut b = [0u8; LEN];
    b[..7].copy_from_slice(&MAGIC);
    b[7] = 1;
    b[8..16].copy_from_slice(&req[8..16]);
    b[16..24].copy_from_slice(&wall_ns.to_le_bytes());
    b[24..32].copy_from_slice(&origin.unix_ns.to_le_bytes());
    b[32] = origin.source.code();
    Some(b)
}

/// A reply's request number, the reference's wall clock, and its origin.
fn read_reply(b: &[u8]) -> Option<(u64, u64, Origin)> {
    if b.len() != LEN || b[..7] != MAGIC || b[7] != 1 {
        return None;
    }
    let u = |r: std::ops::Range<usize>| u64::from_le_bytes(b[r].try_into().unwrap_or_default());
    Some((
        u(8..16),
        u(16..24),
        Origin {
            unix_ns: u(24..32),
            source: JobTimeSource::from_code(b[32])?,
        },
    ))
}

/// What a round of exchanges gave: the samples, and the reference's origin.
pub struct Exchanged {
    pub samples: Vec<OffsetSample>,
    pub origin: Option<Origin>,
}

/// Up to `tries` exchanges with `addr`, each waiting at most `wait` for its reply; `wall`
/// reads this host's wall clock. `Err` when none came back.
pub fn exchange(
    addr: &str,
    tries: usize,
    wait: Duration,
    wall: &dyn Fn() -> u64,
) -> Result<Exchanged, String> {
    let to = addr
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {addr}: {e}"))?
        .next()
        .ok_or_else(|| format!("{addr} resolves to no address"))?;
    let local = if to.is_ipv4() { "0.0.0.0:0" } else { "[::]:0" };
    let sock = UdpSocket::bind(local).map_err(|e| format!("cannot open a socket: {e}"))?;
    sock.connect(to)
        .map_err(|e| format!("cannot reach {addr}: {e}"))?;
    sock.set_read_timeout(Some(wait))
        .map_err(|e| format!("cannot set a timeout: {e}"))?;
    let mut out = Exchanged {
        samples: Vec::new(),
        origin: None,
    };
    let mut last_error = String::from("no reply");
    let mut buf = [0u8; 64];
    for seq in 0..tries as u64 {
        let sent_ns = wall();
        if let Err(e) = sock.send(&request(seq)) {
            last_error = e.to_string();
            continue;
        }
        // Replies to earlier requests that came late are passed over.
        loop {
            match sock.recv(&mut buf) {
                Ok(n) => {
                    let received_ns = wall();
                    match read_reply(&buf[..n]) {
                        Some((s, reference_ns, origin)) if s == seq => {
                            out.samples.push(OffsetSample {
                                sent_ns,
                                reference_ns,
                                received_ns,
                            });
                            out.origin = Some(origin);
                            break;
                        }
                        _ => continue,
                    }
                }
                Err(e) => {
                    last_error = e.to_string();
                    break;
                }
            }
        }
    }
    if out.samples.is_empty() {
        return Err(format!("{addr} did not answer ({last_error})"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_answers_its_request_only() {
        let origin = Origin {
            unix_ns: 1_700_000_000_000_000_000,
            source: JobTimeSource::Given,
        };
        let r = reply(&request(7), 42, origin).unwrap();
        assert_eq!(r.len(), request(7).len(), "no more bytes back than sent");
        assert_eq!(read_reply(&r), Some((7, 42, origin)));
        assert_eq!(reply(&r, 42, origin), None, "a reply is no request");
        assert_eq!(reply(b"GET / HTTP/1.1", 42, origin), None);
        assert_eq!(read_reply(&request(7)), None);
    }

    /// Against a responder on the loopback that answers with a clock 50 ms ahead: the estimate
    /// is within its stated error of that.
    #[test]
    fn an_exchange_estimates_the_offset_within_its_error() {
        let server = UdpSocket::bind("127.0.0.1:0").unwrap();
        let addr = server.local_addr().unwrap().to_string();
        let origin = Origin {
            unix_ns: 1_700_000_000_000_000_000,
            source: JobTimeSource::OwnStart,
        };
        let wall = crate::sdk::functions::walltime_ns;
        std::thread::spawn(move || {
            let mut buf = [0u8; 64];
            for _ in 0..8 {
                let (n, from) = server.recv_from(&mut buf).unwrap();
                let r = reply(&buf[..n], wall() + 50_000_000, origin).unwrap();
                server.send_to(&r, from).unwrap();
            }
        });
        let got = exchange(&addr, 8, Duration::from_secs(2), &wall).unwrap();
        assert_eq!(got.samples.len(), 8);
        assert_eq!(got.origin, Some(origin));
        let e = crate::clock::OffsetEstimate::from_samples(&got.samples).unwrap();
        // This host is 50 ms behind the reference.
        assert!(
            (e.offset_ns + 50_000_000).unsigned_abs() <= e.error_ns + 1_000,
            "{e:?}"
        );
    }

    #[test]
    fn no_reference_is_an_error_not_a_hang() {
        // A port with nothing behind it: each try waits 20 ms.
        let free = UdpSocket::bind("127.0.0.1:0").unwrap();
        let addr = free.local_addr().unwrap().to_string();
        drop(free);
        let began = std::time::Instant::now();
        let wall = crate::sdk::functions::walltime_ns;
        let e = exchange(&addr, 3, Duration::from_millis(20), &wall)
            .err()
            .unwrap();
        assert!(e.contains("did not answer"), "{e}");
        assert!(began.elapsed() < Duration::from_secs(2));
    }
}
