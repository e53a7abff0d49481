//! The names of device lines: `Stream #<id>(<kinds>)`, the kinds of work the line holds in a
//! fixed order, and the name of a line merged from the pieces of several profiles.

use crate::model::{CopyDirection, DeviceEventKind, DeviceLine};
use crate::xplane::stats as s;

/// `<name>(<types>)` like XLA's and CUPTI's `Stream #<id>(<types>)`; the model's name (or
/// `Stream #<id>`) comes first. Kernels are listed as CUPTI's `Compute` because xprof's
/// derived-timeline code puts lines whose name contains "Compute" first.
pub(super) fn device_line_name(l: &DeviceLine, types: &LineTypes) -> String {
    let base = if l.name.is_empty() {
        format!("Stream #{}", l.id)
    } else {
        l.name.clone()
    };
    let present: Vec<&str> = types.names().collect();
    if present.is_empty() {
        base
    } else {
        format!("{base}({})", present.join(","))
    }
}

/// A device line's name from the names its pieces had in profiles cut from one run
/// (`xplane::merge`): `Stream #1(Compute)` and `Stream #1(MemcpyDToH)` make
/// `Stream #1(Compute,MemcpyDToH)`, the kinds in the order [`device_line_name`] lists them
/// (any it does not know after them); a name without kinds is kept as it is.
pub fn merged_line_name(names: &[&str]) -> String {
    let split = |n: &str| -> Option<(String, Vec<String>)> {
        let open = n.rfind('(').filter(|_| n.ends_with(')'))?;
        let kinds = n[open + 1..n.len() - 1]
            .split(',')
            .map(str::to_string)
            .collect();
        Some((n[..open].to_string(), kinds))
    };
    // (A piece with no kinds, a line holding only an arrow's anchor, takes the others'.)
    let Some((base, _)) = names.iter().find_map(|n| split(n)) else {
        return names.first().map_or(String::new(), |n| n.to_string());
    };
    let mut kinds: Vec<String> = Vec::new();
    for n in names {
        match split(n) {
            Some((b, ks)) if b == base => {
                for k in ks {
                    if !kinds.contains(&k) {
                        kinds.push(k);
                    }
                }
            }
            _ => {}
        }
    }
    let known: Vec<&str> = std::iter::once(COMPUTE)
        .chain(COPY_ORDER.iter().map(|d| s::memcpy_event_name(*d)))
        .collect();
    let place = |k: &String| known.iter().position(|n| n == k).unwrap_or(known.len());
    kinds.sort_by_key(place);
    format!("{base}({})", kinds.join(","))
}

/// The kinds of work a device line's name lists, in this order: compute, then the copies by
/// direction, each under its event name (`stats::memcpy_event_name`).
const COMPUTE: &str = "Compute";

pub(super) const COPY_ORDER: [CopyDirection; 5] = [
    CopyDirection::HostToDevice,
    CopyDirection::DeviceToHost,
    CopyDirection::DeviceToDevice,
    CopyDirection::HostToHost,
    CopyDirection::Unknown,
];

/// Where `direction` stands in `COPY_ORDER` (which lists every direction).
#[inline]
pub(super) fn copy_order(direction: CopyDirection) -> usize {
    COPY_ORDER
        .iter()
        .position(|&d| d == direction)
        .unwrap_or(COPY_ORDER.len() - 1)
}

/// Which kinds a line holds (compute, then `COPY_ORDER`), noted as its events are written (a
/// separate pass over a million-event line costs a cache miss per event).
#[derive(Default)]
pub(super) struct LineTypes([bool; 1 + COPY_ORDER.len()]);

impl LineTypes {
    #[inline]
    pub(super) fn add(&mut self, kind: &DeviceEventKind) {
        let at = match kind {
            DeviceEventKind::Kernel(_) => 0,
            DeviceEventKind::Memcpy(m) => copy_order(m.direction) + 1,
        };
        self.0[at] = true;
    }

    /// The names of the kinds held, in order.
    fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        std::iter::once(COMPUTE)
            .chain(COPY_ORDER.iter().map(|d| s::memcpy_event_name(*d)))
            .zip(self.0)
            .filter(|(_, seen)| *seen)
            .map(|(name, _)| name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A merged device line lists every kind its pieces held, in the writer's order; other
    /// names are kept as the first piece had them.
    #[test]
    fn merged_line_names_list_every_kind_in_order() {
        assert_eq!(
            merged_line_name(&[
                "Stream #1(MemcpyDToH)",
                "Stream #1(Compute,MemcpyDToD)",
                "Stream #1(Compute)"
            ]),
            "Stream #1(Compute,MemcpyDToH,MemcpyDToD)"
        );
        assert_eq!(merged_line_name(&["Host Threads/7", "x"]), "Host Threads/7");
        assert_eq!(
            merged_line_name(&["Stream #0(Weird)", "Stream #0(Compute)"]),
            "Stream #0(Compute,Weird)"
        );
        assert_eq!(merged_line_name(&[]), "");
    }
}
