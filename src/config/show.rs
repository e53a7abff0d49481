//! A value as a line shows it: quoted, escaped, and cut when long, so that no value can make
//! a line long, break it or colour the terminal.

use std::ffi::OsStr;
use std::fmt::Write as _;
use std::os::unix::ffi::OsStrExt;

/// The most characters of a value a message shows; a longer value is cut there, with an
/// ellipsis and its full length in bytes.
pub const SHOWN_CHARS: usize = 80;

/// A value as a message shows it: quoted, with control characters, other non-printing
/// characters and bytes that are not UTF-8 escaped (`\n`, `\u{1b}`, `\xe9`), so it never breaks
/// or colours a stderr line; a value longer than [`SHOWN_CHARS`] is cut, `"abc…" (100000 bytes)`.
pub fn shown(v: &OsStr) -> String {
    let bytes = v.as_bytes();
    let mut out = String::with_capacity(SHOWN_CHARS + 24);
    out.push('"');
    let mut width = 0;
    let mut cut = false;
    let mut push = |piece: &str, out: &mut String| {
        let n = piece.chars().count();
        if width + n > SHOWN_CHARS {
            cut = true;
            return false;
        }
        width += n;
        out.push_str(piece);
        true
    };
    'chunks: for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            let mut piece = String::new();
            match c {
                '"' => piece.push_str("\\\""),
                '\\' => piece.push_str("\\\\"),
                // `escape_debug` leaves printable characters as they are and escapes the rest
                // (controls, line and paragraph separators, format characters such as U+202E).
                c if c == '\'' || c == ' ' || c.escape_debug().len() == 1 => piece.push(c),
                c => piece.extend(c.escape_debug()),
            }
            if !push(&piece, &mut out) {
                break 'chunks;
            }
        }
        for b in chunk.invalid() {
            if !push(&format!("\\x{b:02x}"), &mut out) {
                break 'chunks;
            }
        }
    }
    if cut {
        out.push('…');
    }
    out.push('"');
    if cut {
        let _ = write!(out, " ({} bytes)", bytes.len());
    }
    out
}

/// [`shown`] for text.
pub fn shown_str(v: &str) -> String {
    shown(OsStr::new(v))
}
