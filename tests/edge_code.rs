//! The callback edges the runtime calls on every HIP call keep their fast paths in few
//! instructions, checked on the tool `.so` itself with binutils' `objdump` (release builds
//! only: a debug build inlines nothing):
//!
//! * a trampoline or request calls nothing but the C runtime's thread-local address look-up,
//!   once on any path, its out-of-line rest (taken only when its fast path declines) and, for a
//!   launch's ENTER, the launch's fact ([`ENTER`]) and, when that declines, the slot read again
//!   for the rest ([`SLOT_AGAIN`]); for a roctx callback at the phase its operation acts at, the
//!   marker path ([`MARKER`]); for a HIP call whose record the callbacks build, its start and
//!   its record ([`API_START`], [`API_RECORD`]); a fast path left behind a call (an outlined
//!   `LocalKey::with`, a closure not inlined) passes its captures through memory;
//! * a trampoline or request reaches its rest by a jump: no landing pad kept for it on the fast
//!   path (nor, in a trampoline, a frame or a copy of the record);
//! * the ENTER's work is a leaf given the thread's slot: it saves the registers it uses on its
//!   own path, and looks up no thread-local;
//! * the paths a self-timed run takes (`ROCPROF_XPLANE_LOG=debug`) read the time-stamp counter
//!   in line: no call, direct or through the GOT, to a clock ([`CLOCKS`]), each of which costs
//!   about as much as the fast path it would time.

mod support;

use std::collections::HashMap;
use std::process::Command;

const CALLBACKS: &str = "rocprof_xplane::sdk::callbacks::";
/// A launch's ENTER, out of line from the general trampolines.
const ENTER: &str = "rocprof_xplane::recorder::Recorder::on_work_enter_unguarded";
/// The thread's slot read again, out of line, after a declined ENTER: the trampoline keeps no
/// slot through the ENTER's call.
const SLOT_AGAIN: &str = "rocprof_xplane::capture::local::slot_again";
/// A HIP call's start stamped at its ENTER, and its record built at its EXIT, out of line from
/// the general trampolines (`ROCPROF_XPLANE_HIP_API_RECORDS=callbacks`): each reads the SDK's
/// clock through a pointer.
const API_START: &str = "rocprof_xplane::sdk::callbacks::api_record::api_start_unguarded";
const API_RECORD: &str = "rocprof_xplane::sdk::callbacks::api_record::api_record_unguarded";
/// A roctx callback at the phase its operation acts at, out of line from its trampoline.
const MARKER: &str = "rocprof_xplane::sdk::callbacks::marker_callback";
/// The C runtime's look-up of a thread-local's address in a shared library.
const TLS_LOOKUP: &str = "__tls_get_addr";

/// An edge: its name, the functions it may call, the rest it must jump to (if any), and the
/// thread-local look-ups it may make (call sites: the roctx trampoline has one on each of its
/// two paths).
struct Edge {
    name: &'static str,
    calls: &'static [&'static str],
    jumps_to: Option<&'static str>,
    tls: usize,
}

const EDGES: &[Edge] = &[
    Edge {
        name: "rocprof_xplane::sdk::callbacks::tracing_callback_v0",
        calls: &[ENTER, SLOT_AGAIN, API_START, API_RECORD],
        jumps_to: Some("rest_v0"),
        tls: 1,
    },
    Edge {
        name: "rocprof_xplane::sdk::callbacks::tracing_callback_v1",
        calls: &[ENTER, SLOT_AGAIN, API_START, API_RECORD],
        jumps_to: Some("rest_v1"),
        tls: 1,
    },
    Edge {
        name: "rocprof_xplane::sdk::callbacks::hip_stream_callback_v1",
        calls: &[],
        jumps_to: Some("rest_v1"),
        tls: 1,
    },
    Edge {
        name: "rocprof_xplane::sdk::callbacks::marker_callback_v1",
        calls: &[MARKER],
        jumps_to: Some("rest_v1"),
        tls: 2,
    },
    Edge {
        name: "rocprof_xplane::sdk::callbacks::external_id_request",
        calls: &[],
        jumps_to: Some("external_id_request_rest"),
        tls: 1,
    },
    Edge {
        name: ENTER,
        calls: &[],
        jumps_to: None,
        tls: 0,
    },
];

/// The timed paths: every callback and request of a self-timed run goes through one of these.
const TIMED: &[&str] = &[
    "rocprof_xplane::sdk::callbacks::callback_rest",
    "rocprof_xplane::sdk::callbacks::external_id_request_rest",
    "rocprof_xplane::sdk::callbacks::buffer_callback",
];

/// Clock reads the timed paths must not call (names as `objdump -C` prints them).
const CLOCKS: &[&str] = &["<std::time::Instant>::now", "clock_gettime"];

/// A call or jump through a pointer (the GOT), which names no function.
const INDIRECT: &str = "(indirect)";

/// The lines of `function`'s body in `disassembly`: from its header to the blank line after it.
fn body<'a>(disassembly: &'a str, function: &str) -> Option<impl Iterator<Item = &'a str>> {
    let header = format!("<{function}>:");
    let start = disassembly.lines().position(|l| l.ends_with(&header))?;
    Some(
        disassembly
            .lines()
            .skip(start + 1)
            .take_while(|l| !l.trim().is_empty()),
    )
}

/// The branches out of `function`'s body in `disassembly`: (`call` or `jmp`, target name).
fn branches_out(disassembly: &str, function: &str) -> Option<Vec<(&'static str, String)>> {
    let mut out = Vec::new();
    for line in body(disassembly, function)? {
        let kind = if line.contains("call ") {
            "call"
        } else if line.contains("jmp ") {
            "jmp"
        } else {
            continue;
        };
        if line.contains('*') {
            out.push((kind, INDIRECT.to_string()));
            continue;
        }
        // `addr <name>`: the name runs to the line's last `>` (it may hold `<T>`).
        let Some(target) = line
            .split_once(" <")
            .and_then(|(_, t)| t.rsplit_once('>'))
            .map(|(t, _)| t)
        else {
            continue;
        };
        if !target.starts_with(&format!("{function}+")) {
            out.push((kind, target.trim_end_matches("@plt").to_string()));
        }
    }
    Some(out)
}

/// `objdump ARGS` on the tool library: its output.
fn objdump(args: &[&str]) -> String {
    let so = support::paths::tool_library();
    let out = Command::new("objdump")
        .args(args)
        .arg(&so)
        .output()
        .unwrap_or_else(|e| panic!("cannot run objdump (binutils): {e}"));
    assert!(out.status.success(), "objdump failed on {}", so.display());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// What each GOT slot of the library holds, by the slot's address: a function of the library
/// (a relative relocation, named by `functions`) or an imported symbol.
fn got_slots(relocations: &str, functions: &HashMap<u64, &str>) -> HashMap<u64, String> {
    let mut slots = HashMap::new();
    for line in relocations.lines() {
        let mut fields = line.split_whitespace();
        let (Some(slot), Some(kind), Some(value)) = (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let Ok(slot) = u64::from_str_radix(slot, 16) else {
            continue;
        };
        let target = match kind {
            "R_X86_64_RELATIVE" => value
                .strip_prefix("*ABS*+0x")
                .and_then(|a| u64::from_str_radix(a, 16).ok())
                .and_then(|a| functions.get(&a))
                .map(|f| f.to_string()),
            "R_X86_64_GLOB_DAT" | "R_X86_64_JUMP_SLOT" => {
                Some(value.split('@').next().unwrap_or(value).to_string())
            }
            _ => None,
        };
        if let Some(target) = target {
            slots.insert(slot, target);
        }
    }
    slots
}

/// The functions of `disassembly` by start address.
fn functions_by_address(disassembly: &str) -> HashMap<u64, &str> {
    disassembly
        .lines()
        .filter_map(|l| {
            let (address, rest) = l.split_once(" <")?;
            let name = rest.strip_suffix(">:")?;
            Some((u64::from_str_radix(address, 16).ok()?, name))
        })
        .collect()
}

/// The targets of `function`'s calls and jumps through the GOT, named by `slots`.
fn calls_through_got(
    disassembly: &str,
    function: &str,
    slots: &HashMap<u64, String>,
) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for line in body(disassembly, function)? {
        // `call *0x…(%rip)        # 54c068 <_DYNAMIC+0xc48>`: the slot's address after `#`.
        if !(line.contains("call ") || line.contains("jmp ")) || !line.contains("(%rip)") {
            continue;
        }
        let Some(slot) = line
            .split_once("# ")
            .and_then(|(_, t)| t.split_whitespace().next())
            .and_then(|a| u64::from_str_radix(a, 16).ok())
        else {
            continue;
        };
        out.push(
            slots
                .get(&slot)
                .cloned()
                .unwrap_or_else(|| format!("{slot:#x}")),
        );
    }
    Some(out)
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a debug build inlines nothing: ci/test.sh runs it with --release"
)]
#[cfg_attr(
    not(target_arch = "x86_64"),
    ignore = "elsewhere the timed paths read the monotonic clock"
)]
fn the_timed_paths_call_no_clock() {
    let disassembly = objdump(&["-d", "--no-show-raw-insn", "-C"]);
    let relocations = objdump(&["-R", "-C"]);
    let functions = functions_by_address(&disassembly);
    let slots = got_slots(&relocations, &functions);
    for name in TIMED {
        let direct = branches_out(&disassembly, name)
            .unwrap_or_else(|| panic!("{name} not found in the tool library"));
        let through_got = calls_through_got(&disassembly, name, &slots).unwrap_or_default();
        let targets: Vec<&str> = direct
            .iter()
            .map(|(_, t)| t.as_str())
            .chain(through_got.iter().map(String::as_str))
            .collect();
        for clock in CLOCKS {
            assert!(
                !targets.contains(clock),
                "{name} calls {clock}: {targets:?}"
            );
        }
    }
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a debug build inlines nothing: ci/test.sh runs it with --release"
)]
fn the_edges_fast_paths_stay_short() {
    let so = support::paths::tool_library();
    let disassembly = objdump(&["-d", "--no-show-raw-insn", "-C"]);
    for edge in EDGES {
        let name = edge.name;
        let out = branches_out(&disassembly, name)
            .unwrap_or_else(|| panic!("{name} not found in {}", so.display()));
        let tls = out.iter().filter(|(_, t)| t == TLS_LOOKUP).count();
        assert!(
            tls <= edge.tls,
            "{name} looks up thread-locals {tls} times (at most {}): {out:?}",
            edge.tls
        );
        let indirect = out.iter().filter(|(_, t)| t == INDIRECT).count();
        assert!(
            indirect <= 1,
            "{name} makes {indirect} calls through pointers: {out:?}"
        );
        for (kind, target) in &out {
            let rest = edge.jumps_to.map(|r| format!("{CALLBACKS}{r}"));
            let ok = match *kind {
                _ if target == TLS_LOOKUP || target == INDIRECT => true,
                // Its rest, or a call it may make taken as a tail call.
                "jmp" => {
                    rest.as_deref() == Some(target.as_str())
                        || edge.calls.contains(&target.as_str())
                }
                _ => edge.calls.contains(&target.as_str()),
            };
            assert!(
                ok,
                "{name}: {kind} {target} is not one of its fast path's branches out: {out:?}"
            );
        }
        if let Some(rest) = edge.jumps_to {
            assert!(
                out.iter()
                    .any(|(k, t)| *k == "jmp" && *t == format!("{CALLBACKS}{rest}")),
                "{name} does not jump to {rest}: {out:?}"
            );
        }
    }
}

/// Callee-saved registers the ENTER may save: its chunk pushes read the last chunk where the
/// chunked vector keeps it (a field of its own, not through its list of chunks) and compare
/// its length with its capacity alone, and the launch fact's repeat is compared with the copy
/// of the last entry the packed store keeps, which leaves it this few registers to save beyond
/// the caller-saved ones.
const ENTER_SAVES: usize = 3;

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a debug build inlines nothing: ci/test.sh runs it with --release"
)]
#[cfg_attr(
    not(target_arch = "x86_64"),
    ignore = "counts x86-64 pushes of callee-saved registers"
)]
fn the_enter_saves_few_registers() {
    let disassembly = objdump(&["-d", "--no-show-raw-insn", "-C"]);
    let saves: Vec<&str> = body(&disassembly, ENTER)
        .unwrap_or_else(|| panic!("{ENTER} not found in the tool library"))
        .filter(|l| l.contains("\tpush "))
        .collect();
    assert!(
        saves.len() <= ENTER_SAVES,
        "{ENTER} saves {} registers (at most {ENTER_SAVES}): {saves:?}",
        saves.len()
    );
}
