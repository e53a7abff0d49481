//! `/device:GPU:<n>`: the device's capabilities as plane stats, and a line per line of the
//! joined trace's device (a stream) with its kernels and copies, and the anchors of the arrows
//! that start or end there.

use crate::fastmap::HashMap;
use crate::model::{AnchorPlace, Device, DeviceEventKind, Trace};

use super::cache::{EventCache, UNKNOWN_SHAPE};
use super::line_names::{device_line_name, LineTypes};
use super::{anchor_only_lines, duration_ps, AnchorEvent, AnchorFeed, Timebase};
use crate::xplane::builder::{BuiltPlane, Hot, PlaneBuilder, StatBytes, StatIds, StatValue};
use crate::xplane::run_ids::{finish_plane, new_plane, RunIds};
use crate::xplane::spill::SpillPolicy;
use crate::xplane::stats as s;

pub(super) fn device_plane(
    trace: &Trace,
    d: &Device,
    base: &Timebase,
    anchors: &HashMap<AnchorPlace, Vec<AnchorEvent>>,
    spill: Option<&SpillPolicy>,
    run: Option<&RunIds>,
) -> BuiltPlane {
    let mut plane = new_plane(
        run,
        i64::from(d.ordinal),
        format!("{}{}", s::GPU_PLANE_PREFIX, d.ordinal),
    );
    plane.spill_lines(spill.cloned());
    add_device_caps(&mut plane, d);
    add_device_id_and_peak(&mut plane, d);
    let mut lines: Vec<_> = d.lines.iter().collect();
    lines.sort_by_key(|l| l.id);
    let mut cache = EventCache::new(trace);
    let mut ids = StatIds::default();
    let mut stats = StatBytes::new();
    for l in lines {
        let mut line = base.line(l.id, String::new());
        let mut feed = AnchorFeed::new(anchors.get(&AnchorPlace::Device {
            ordinal: d.ordinal,
            line: l.id,
        }));
        line.expect_events(l.events.len() + feed.count());
        let mut types = LineTypes::default();
        for (i, e) in l.events.iter().enumerate() {
            if let Some(ahead) = l.events.get(i + super::ANNOTATION_PREFETCH_AHEAD) {
                cache.prefetch_annotation(ahead.annotation);
            }
            stats.clear();
            types.add(&e.kind);
            if e.correlation_id != 0 {
                let id = if trace.written_calls.contains(e.correlation_id) {
                    ids.hot(&mut plane, Hot::CorrelationId)
                } else {
                    ids.hot(&mut plane, Hot::OrphanCorrelationId)
                };
                stats.u64(id, e.correlation_id);
            }
            let id = match &e.kind {
                DeviceEventKind::Kernel(info) => {
                    let id = match cache.kernel(&mut plane, &mut ids, info.shape, d) {
                        Some((shape_stats, id)) => {
                            stats.extend(shape_stats);
                            id
                        }
                        None => plane.event_metadata_id(UNKNOWN_SHAPE),
                    };
                    let counted = (!trace.kernel_counters.is_empty())
                        .then(|| trace.kernel_counters.get(&info.dispatch_id))
                        .flatten();
                    if let Some(kc) = counted {
                        let duration = e.end_ns.saturating_sub(e.start_ns);
                        super::pmc::kernel_counter_stats(
                            &mut plane, &mut ids, kc, duration, &mut stats,
                        );
                    }
                    id
                }
                DeviceEventKind::Memcpy(m) => {
                    cache.memcpy_stats(&mut plane, m, &mut stats);
                    cache.copy_name_id(&mut plane, m.direction)
                }
            };
            if let Some(g) = trace.graph_node(e) {
                stats.u64(ids.hot(&mut plane, Hot::GraphExecId), g.exec_id());
                stats.u64(ids.hot(&mut plane, Hot::GraphNodeId), u64::from(g.node()));
                // xprof reads a graph node's graph by this name; `cuda_graph_exec_id` on a
                // device event would say it is a whole graph's run, which rocprofiler never
                // reports (it reports each node).
                stats.u64(ids.hot(&mut plane, Hot::CudaGraphId), g.exec_id());
            }
            cache.annotation_stats(&mut plane, &mut ids, e.annotation, &mut stats);
            let start = base.offset_ps(e.start_ns);
            feed.before(&mut plane, &mut ids, &mut line, start, |t| {
                base.offset_ps(t)
            });
            line.add_event(id, start, duration_ps(e.start_ns, e.end_ns), &stats);
        }
        feed.finish(&mut plane, &mut ids, &mut line, |t| base.offset_ps(t));
        line.set_name(device_line_name(l, &types));
        plane.add_line(line.finish());
    }
    if let Some(line) = super::pmc::counter_line(trace, d, base, &mut plane, &mut ids) {
        plane.add_line(line);
    }
    // Anchors on a stream with no work in this window.
    anchor_only_lines(&mut plane, &mut ids, base, anchors, |place| match *place {
        AnchorPlace::Device { ordinal, line }
            if ordinal == d.ordinal && d.lines.iter().all(|l| l.id != line) =>
        {
            Some((line, format!("Stream #{line}")))
        }
        _ => None,
    });
    finish_plane(run, plane)
}

/// Plane stats xprof's `GetDeviceCaps` and `SetRunEnvironment` read, with the value types of
/// real XLA ROCm files (int64 except the two uint64 memory figures; strings inline).
fn add_device_caps(plane: &mut PlaneBuilder, d: &Device) {
    plane.add_plane_stat(s::DEVICE_VENDOR, StatValue::Str(s::VENDOR_AMD));
    if !d.name.is_empty() {
        plane.add_plane_stat(s::GPU_DEVICE_NAME, StatValue::Str(&d.name));
    }
    plane.add_plane_stat(
        s::CLOCK_RATE,
        StatValue::I64(i64::try_from(d.clock_rate_khz).unwrap_or(i64::MAX)),
    );
    plane.add_plane_stat(s::CORE_COUNT, StatValue::I64(i64::from(d.compute_units)));
    // Unknown is left out rather than written as 0, which would read as a measured figure
    // (xprof itself takes an absent stat as 0; see docs/xplane-output.md).
    if d.memory_bandwidth_bytes_per_s > 0 {
        plane.add_plane_stat(
            s::MEMORY_BANDWIDTH,
            StatValue::U64(d.memory_bandwidth_bytes_per_s),
        );
    }
    plane.add_plane_stat(s::MEMORY_SIZE, StatValue::U64(d.memory_bytes));
    let (major, minor) = compute_capability(d.gfx_target_version);
    plane.add_plane_stat(s::COMPUTE_CAP_MAJOR, StatValue::I64(major));
    plane.add_plane_stat(s::COMPUTE_CAP_MINOR, StatValue::I64(minor));
    if !d.product_name.is_empty() {
        plane.add_plane_stat(s::PRODUCT_NAME, StatValue::Str(&d.product_name));
    }
}

/// `device_id` (the GPU ordinal: xprof's perf_counters numbers a GPU plane's rows by it and
/// skips a plane without it) and, where the architecture's rate is published,
/// `peak_teraflops_per_second` (the dense 16-bit matrix peak xprof's roofline draws).
fn add_device_id_and_peak(plane: &mut PlaneBuilder, d: &Device) {
    plane.add_plane_stat(s::DEVICE_ID, StatValue::I64(i64::from(d.ordinal)));
    let peak = crate::hip::arch::peak_teraflops(
        d.gfx_target_version,
        &d.name,
        d.compute_units,
        d.clock_rate_khz,
    );
    if let Some(t) = peak {
        plane.add_plane_stat(s::PEAK_TERAFLOPS_PER_SECOND, StatValue::F64(t));
    }
}

/// `gfx_target_version` = major*10000 + minor*100 + stepping, e.g. 90402 → (9, 4).
pub fn compute_capability(gfx_target_version: u32) -> (i64, i64) {
    let v = i64::from(gfx_target_version);
    ((v / 10000) % 100, (v / 100) % 100)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xplane::proto::x_stat;
    use crate::xplane::space::build_xspace;
    use crate::xplane::space::testing::gpu_plane;

    /// Plane-level stat names → values of the single device plane written for `device`.
    fn device_plane_stats(device: Device) -> HashMap<String, Option<x_stat::Value>> {
        let trace = Trace {
            devices: vec![device],
            ..Default::default()
        };
        let space = build_xspace(&trace);
        let plane = gpu_plane(&space);
        plane
            .stats
            .iter()
            .map(|st| {
                (
                    plane.stat_metadata[&st.metadata_id].name.clone(),
                    st.value.clone(),
                )
            })
            .collect()
    }

    #[test]
    fn memory_bandwidth_is_written_when_known_and_omitted_when_not() {
        let known = device_plane_stats(Device {
            name: "gfx942".into(),
            memory_bandwidth_bytes_per_s: 5_300_000_000_000,
            memory_bytes: 1 << 30,
            ..Default::default()
        });
        assert_eq!(
            known.get(s::MEMORY_BANDWIDTH),
            Some(&Some(x_stat::Value::Uint64Value(5_300_000_000_000)))
        );

        let unknown = device_plane_stats(Device {
            name: "gfx1100".into(),
            memory_bandwidth_bytes_per_s: 0,
            memory_bytes: 1 << 30,
            ..Default::default()
        });
        assert!(!unknown.contains_key(s::MEMORY_BANDWIDTH), "{unknown:?}");
        // The other capabilities are still there.
        assert!(unknown.contains_key(s::MEMORY_SIZE));
        assert!(unknown.contains_key(s::CORE_COUNT));
    }

    /// A device event's id is its call's (`correlation_id`) where the trace says that call is
    /// written, on its host plane or by an earlier window (`Trace::written_calls`), whatever
    /// its host threads hold; else `orphan_correlation_id`; an event of no call has neither.
    #[test]
    fn an_event_s_id_is_its_call_s_where_the_trace_says_that_call_is_written() {
        use crate::model::corrmap::IdSet;
        use crate::model::{KernelInfo, LaunchShape, Table, WrittenCalls};
        use crate::xplane::space::testing::{events_in_turn, one_line};
        let mut shapes = Table::default();
        let shape = shapes.push(LaunchShape::default());
        let mut events = events_in_turn(4, |k| {
            DeviceEventKind::Kernel(KernelInfo {
                dispatch_id: k as u64,
                shape,
            })
        });
        for (e, id) in events.iter_mut().zip([1, 2, 3, 0]) {
            e.correlation_id = id;
        }
        let mut here = IdSet::for_range(Some((1, 1)), 1);
        here.insert(1);
        let trace = Trace {
            devices: vec![one_line(events)],
            shapes,
            written_calls: WrittenCalls::new(here, vec![2]),
            ..Default::default()
        };
        let space = build_xspace(&trace);
        let plane = gpu_plane(&space);
        let ids: Vec<Vec<(&str, u64)>> = plane.lines[0]
            .events
            .iter()
            .map(|e| {
                e.stats
                    .iter()
                    .filter_map(|st| {
                        let name = plane.stat_metadata[&st.metadata_id].name.as_str();
                        match st.value {
                            Some(x_stat::Value::Uint64Value(v))
                                if name.ends_with("correlation_id") =>
                            {
                                Some((name, v))
                            }
                            _ => None,
                        }
                    })
                    .collect()
            })
            .collect();
        assert_eq!(
            ids,
            [
                vec![(s::CORRELATION_ID, 1)],
                vec![(s::CORRELATION_ID, 2)],
                vec![(s::ORPHAN_CORRELATION_ID, 3)],
                vec![],
            ]
        );
    }

    /// Every GPU plane names its ordinal; an architecture with a published matrix rate gets
    /// its peak (MI300X: 2048 FLOPs per CU per clock × 304 CUs × 2.1 GHz), one without gets
    /// none.
    #[test]
    fn gpu_planes_carry_their_ordinal_and_a_peak_only_where_it_is_published() {
        let mi300x = device_plane_stats(Device {
            ordinal: 3,
            name: "gfx942".into(),
            gfx_target_version: 90402,
            compute_units: 304,
            clock_rate_khz: 2_100_000,
            ..Default::default()
        });
        assert_eq!(
            mi300x.get(s::DEVICE_ID),
            Some(&Some(x_stat::Value::Int64Value(3)))
        );
        match mi300x.get(s::PEAK_TERAFLOPS_PER_SECOND) {
            Some(Some(x_stat::Value::DoubleValue(t))) => {
                assert!((t - 1307.4432).abs() < 1e-9, "{t}")
            }
            other => panic!("peak: {other:?}"),
        }
        let rdna = device_plane_stats(Device {
            name: "gfx1100".into(),
            gfx_target_version: 110000,
            compute_units: 96,
            clock_rate_khz: 2_500_000,
            ..Default::default()
        });
        assert_eq!(
            rdna.get(s::DEVICE_ID),
            Some(&Some(x_stat::Value::Int64Value(0)))
        );
        assert!(!rdna.contains_key(s::PEAK_TERAFLOPS_PER_SECOND), "{rdna:?}");
    }
}
