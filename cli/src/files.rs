//! What every subcommand checks of a file before it reads it, and how it prints its results.
//!
//! - A file to be read must be a regular file (after symbolic links): a FIFO would block the
//!   open (or the first read) forever, a device such as `/dev/zero` reads as endless or empty
//!   bytes. Such a file is refused by its metadata, never opened.
//! - A profile (an `.xplane.pb`, a capture window) of 0 bytes is refused too: it is not a
//!   profile, and taken as an empty one it would make a merge look complete.
//! - Results go to stdout through [`out`]: a reader that went away (`| head`) ends the output
//!   quietly, and the command's status is what its work gave (`println!` would panic, status
//!   101).

use std::io::Write;
use std::path::Path;

/// What a file that is not a regular one is, for the refusal.
fn kind_of(t: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else {
        "not a regular file"
    }
}

/// `Ok(len)` for a regular file (symbolic links followed); else why it is not read, for a
/// line that names the file before it.
pub fn check_regular(path: &Path) -> Result<u64, String> {
    let m = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if m.is_file() {
        Ok(m.len())
    } else {
        Err(format!(
            "is {}, not a regular file: not read",
            kind_of(m.file_type())
        ))
    }
}

/// As [`check_regular`], the reason naming the file.
pub fn regular(path: &Path) -> Result<u64, String> {
    if let Err(e) = std::fs::metadata(path) {
        return Err(format!("cannot read {}: {e}", path.display()));
    }
    check_regular(path).map_err(|why| format!("{}: {why}", path.display()))
}

/// As [`regular`], for a profile: an empty file is refused as well.
pub fn profile(path: &Path) -> Result<u64, String> {
    match regular(path)? {
        0 => Err(format!(
            "{}: is empty (0 bytes): not a profile",
            path.display()
        )),
        n => Ok(n),
    }
}

/// Writes `line` and a newline to stdout. A closed pipe is the reader's choice to stop
/// reading: nothing more is said; any other failure gets one line on stderr.
pub fn out(line: std::fmt::Arguments<'_>) {
    let mut text = line.to_string();
    text.push('\n');
    out_text(&text);
}

/// Writes `text` as it is to stdout, as [`out`] does.
pub fn out_text(text: &str) {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => {
            let _ = writeln!(
                std::io::stderr(),
                "rocprof-xplane: cannot write the output: {e}"
            );
        }
    }
}

/// `println!` through [`out`].
#[macro_export]
macro_rules! out {
    ($($t:tt)*) => { $crate::files::out(format_args!($($t)*)) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_are_read_and_empty_profiles_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let empty = tmp.path().join("e.xplane.pb");
        std::fs::write(&empty, b"").unwrap();
        assert_eq!(regular(&empty), Ok(0));
        assert!(profile(&empty).unwrap_err().contains("is empty (0 bytes)"));
        let full = tmp.path().join("f.xplane.pb");
        std::fs::write(&full, b"x").unwrap();
        assert_eq!(profile(&full), Ok(1));
        let zero = tmp.path().join("z.xplane.pb");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        assert!(profile(&zero).unwrap_err().contains("a character device"));
        let fifo = tmp.path().join("p.xplane.pb");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo reads the NUL-terminated path we own.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert!(regular(&fifo).unwrap_err().contains("a FIFO"));
        assert!(regular(tmp.path()).unwrap_err().contains("a directory"));
        assert!(regular(&tmp.path().join("none")).is_err());
    }
}
