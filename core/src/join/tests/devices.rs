//! Kernels and copies: each on its plane and line, named, counted when something is missing.

use super::*;
use crate::join::join;
use crate::model::trace::CopyDirection;

#[test]
fn graph_launch_keeps_every_dispatch() {
    let mut c = base();
    c.api.push(api(GRAPH, 10, 100, 200, 7));
    for i in 0..5u64 {
        c.kernels
            .push(kernel(10, 300 + i * 100, 350 + i * 100, 1, 100 + i, q()));
    }
    let t = join(c);
    let ks = kernels_of(&t);
    assert_eq!(ks.len(), 5);
    assert!(ks.iter().all(|k| k.correlation_id == 10));
    let dispatches: Vec<u64> = ks
        .iter()
        .map(|k| match &k.kind {
            DeviceEventKind::Kernel(i) => i.dispatch_id,
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(dispatches, vec![100, 101, 102, 103, 104]);
    let host = &t.host_threads[0].events[0];
    assert_eq!(t.name(host), "hipGraphLaunch");
    assert_eq!(t.launched(host).0, 5);
    assert_eq!(host.device.get(), Some(0));
    assert_eq!(t.counters.activities_without_api, 0);
    assert_eq!(t.counters.launches_without_activity, 0);
}

/// Numbered graph work (external ids tagged by the tool): each dispatch and copy names its
/// node, each launch its executable graph and its count, each node and each (graph, count)
/// stored once however often the graph is launched; a direct launch names neither.
#[test]
fn numbered_graph_work_names_its_node_and_its_launch_its_graph() {
    use crate::model::graph::GraphNode;
    let node = |n| GraphNode::new(3, n).unwrap();
    let mut c = base();
    // Launches 10 and 12 ran nodes 0 and 1, launch 11 those and a copy node 2.
    for (corr, start) in [(10, 100), (11, 1_000), (12, 2_000)] {
        c.api.push(api(GRAPH, corr, start, start + 50, 7));
        for n in 0..2u32 {
            let at = start + 100 + u64::from(n) * 100;
            c.kernels.push(KernelRecord {
                external_id: node(n).tagged_word(),
                ..kernel(corr, at, at + 50, 1, corr * 10 + u64::from(n), q())
            });
        }
    }
    c.copies.push(CopyRecord {
        external_id: node(2).tagged_word(),
        ..copy(11, 4, GPU0, GPU0)
    });
    c.api.push(api(LAUNCH, 13, 3_000, 3_050, 7));
    c.kernels.push(kernel(13, 3_100, 3_150, 1, 999, q()));
    let t = join(c);
    let events: Vec<&DeviceEvent> = t
        .devices
        .iter()
        .flat_map(|d| &d.lines)
        .flat_map(|l| &l.events)
        .collect();
    let mut nodes: Vec<(u64, Option<GraphNode>)> = events
        .iter()
        .map(|e| (e.correlation_id, t.graph_node(e)))
        .collect();
    nodes.sort_by_key(|&(corr, n)| (corr, n.map(GraphNode::node)));
    let want = [
        (10, Some(node(0))),
        (10, Some(node(1))),
        (11, Some(node(0))),
        (11, Some(node(1))),
        (11, Some(node(2))),
        (12, Some(node(0))),
        (12, Some(node(1))),
        (13, None),
    ];
    assert_eq!(nodes, want);
    assert_eq!(t.graph_nodes.len(), 3, "one entry per node");
    let exec = node(0).exec();
    let launched: Vec<(u64, (u32, _))> = t.host_threads[0]
        .events
        .iter()
        .map(|e| (e.correlation_id, t.launched(e)))
        .collect();
    assert_eq!(
        launched,
        [
            (10, (2, Some(exec))),
            (11, (3, Some(exec))),
            (12, (2, Some(exec))),
            (13, (1, None)),
        ]
    );
    assert_eq!(t.graph_launches.len(), 2, "one entry per graph and count");
}

#[test]
fn orphans_both_ways_are_kept_and_counted() {
    let mut c = base();
    // API with no activity (launch) and one that is not a launch (sync).
    c.api.push(api(LAUNCH, 1, 10, 20, 7));
    c.api.push(api(SYNC, 2, 30, 40, 7));
    // Activity whose API record never arrived, and one with no correlation id at all.
    c.kernels.push(kernel(99, 50, 60, 1, 1, q()));
    c.kernels.push(kernel(0, 70, 80, 1, 2, q()));
    let t = join(c);
    assert_eq!(kernels_of(&t).len(), 2);
    assert_eq!(t.counters.activities_without_api, 2);
    assert_eq!(t.counters.launches_without_activity, 1);
    assert_eq!(t.host_threads[0].events.len(), 2);
}

#[test]
fn unknown_kernel_named_by_id_and_counted() {
    let mut c = base();
    c.api.push(api(LAUNCH, 1, 10, 20, 7));
    c.kernels.push(kernel(1, 30, 40, 777, 1, q()));
    let t = join(c);
    let ks = kernels_of(&t);
    match &ks[0].kind {
        DeviceEventKind::Kernel(i) => {
            assert_eq!(&*t.shape(i).unwrap().code.name, "<unknown kernel 777>")
        }
        _ => panic!(),
    }
    assert_eq!(t.counters.kernels_without_symbol, 1);
}

#[test]
fn kernel_details_from_symbol_and_dispatch() {
    let mut c = base();
    c.api.push(api(LAUNCH, 1, 10, 20, 7));
    c.kernels.push(kernel(1, 30, 40, 1, 1, q()));
    let t = join(c);
    let DeviceEventKind::Kernel(i) = &kernels_of(&t)[0].kind else {
        panic!()
    };
    let shape = t.shape(i).unwrap();
    assert_eq!(&*shape.code.name, "gemm(float*)");
    assert_eq!(shape.grid, [4, 1, 1]);
    assert_eq!(shape.block, [256, 1, 1]);
    assert_eq!(shape.code.vgpr_count, 72);
    assert_eq!(shape.code.sgpr_count, 32);
    assert_eq!(shape.code.static_shared_bytes, 1024);
    assert_eq!(shape.dynamic_shared_bytes, 3072);
    assert_eq!(shape.private_segment_bytes, 16);
}

#[test]
fn gpu_ordinal_from_agent_and_dense_queue_lines() {
    let mut c = base();
    c.api.push(api(LAUNCH, 1, 10, 20, 7));
    let mut k1 = kernel(1, 500, 600, 1, 1, 0xffff_0000);
    k1.agent = GPU1;
    c.kernels.push(k1);
    // Two queues on GPU0; the one with the later first activity has the smaller handle.
    c.kernels.push(kernel(1, 100, 200, 1, 2, 0xbbbb));
    c.kernels.push(kernel(1, 50, 90, 1, 3, 0xcccc));
    c.kernels.push(kernel(1, 300, 400, 1, 4, 0xbbbb));
    let t = join(c);
    assert_eq!(t.devices.len(), 2);
    assert_eq!(t.devices[0].agent_handle, GPU0);
    assert_eq!(t.devices[1].agent_handle, GPU1);
    assert_eq!(t.devices[0].clock_rate_khz, 2_100_000);
    let l = &t.devices[0].lines;
    assert_eq!(l.len(), 2);
    assert_eq!((l[0].id, l[0].events.len()), (0, 1));
    assert_eq!(
        l[0].events[0].start_ns, 50,
        "queue with the earliest activity first"
    );
    assert_eq!((l[1].id, l[1].events.len()), (1, 2));
    assert_eq!(t.devices[1].lines[0].id, 0);
}

#[test]
fn memcpy_direction_and_devices() {
    let mut c = base();
    c.api.push(api(MEMCPY, 3, 10, 20, 7));
    c.copies.push(CopyRecord {
        end_ns: 40,
        bytes: 4096,
        ..copy(3, 2, GPU1, CPU)
    });
    c.copies.push(CopyRecord {
        start_ns: 50,
        end_ns: 60,
        bytes: 8,
        ..copy(0, 4, GPU0, GPU1)
    });
    let t = join(c);
    let l1 = &t.devices[1].lines;
    assert_eq!(l1.len(), 1);
    assert_eq!(l1[0].id, 0);
    let DeviceEventKind::Memcpy(m) = &l1[0].events[0].kind else {
        panic!()
    };
    assert_eq!(m.direction, CopyDirection::HostToDevice);
    assert_eq!((m.src_device, m.dst_device, m.bytes), (None, Some(1), 4096));
    let DeviceEventKind::Memcpy(m) = &t.devices[0].lines[0].events[0].kind else {
        panic!()
    };
    assert_eq!(m.direction, CopyDirection::DeviceToDevice);
    assert_eq!((m.src_device, m.dst_device), (Some(1), Some(0)));
    assert_eq!(t.counters.activities_without_api, 1);
    assert_eq!(t.host_threads[0].events[0].device.get(), Some(1));
}

#[test]
fn copies_go_to_the_device_they_were_issued_to() {
    use crate::model::events::CallFact;
    let mut c = base();
    // Peer copy 0 → 1 issued on a GPU 0 stream; host-to-host copy issued on GPU 1; a copy
    // whose call was not seen (GPU end: destination); a fact with an unknown device.
    c.copies.push(copy(1, 4, GPU1, GPU0));
    c.copies.push(copy(2, 1, CPU, CPU));
    c.copies.push(copy(3, 2, GPU1, CPU));
    c.copies.push(copy(4, 2, GPU1, CPU));
    c.calls = vec![
        CallFact {
            correlation_id: 1,
            stream: 0xa,
            device: 0,
            stream_seq: 0,
        },
        CallFact {
            correlation_id: 2,
            stream: 0,
            device: 1,
            stream_seq: 0,
        },
        CallFact {
            correlation_id: 4,
            stream: 0xb,
            device: -1,
            stream_seq: 0,
        },
    ]
    .into();
    let t = join(c);
    let on = |d: usize| -> Vec<u64> {
        t.devices[d]
            .lines
            .iter()
            .flat_map(|l| l.events.iter())
            .map(|e| e.correlation_id)
            .collect()
    };
    assert_eq!(on(0), vec![1]);
    // Line order: the null stream, the stream from before the tool, unattributed copies.
    assert_eq!(on(1), vec![2, 4, 3]);
}

#[test]
fn hip_device_numbers_are_mapped_to_planes_not_taken_as_planes() {
    // HIP_VISIBLE_DEVICES=1: HIP's device 0 is the runtime's second GPU (plane 1). Its
    // kernel, a host-to-device copy into it and a host-to-host copy, all issued on HIP
    // device 0, belong on plane 1; plane 0 (a GPU HIP never used) stays empty.
    use crate::model::events::CallFact;
    let mut c = base();
    c.kernels.push(KernelRecord {
        agent: GPU1,
        ..kernel(1, 10, 20, 1, 1, q())
    });
    c.copies.push(copy(2, 2, GPU1, CPU));
    c.copies.push(copy(3, 1, CPU, CPU));
    c.calls = (1..=3)
        .map(|corr| CallFact {
            correlation_id: corr,
            stream: 0,
            device: 0,
            stream_seq: 0,
        })
        .collect();
    let t = join(c.clone());
    let on = |t: &Trace, d: usize| -> Vec<u64> {
        t.devices[d]
            .lines
            .iter()
            .flat_map(|l| l.events.iter())
            .map(|e| e.correlation_id)
            .collect()
    };
    assert_eq!(on(&t, 0), Vec::<u64>::new());
    assert_eq!(on(&t, 1), vec![1, 2, 3]);

    // No kernel to learn the numbering from: a HIP index that contradicts the copy's own
    // GPU end is not trusted; one that cannot (no GPU end) still is.
    c.kernels.clear();
    let t = join(c);
    assert_eq!(on(&t, 1), vec![2]);
    assert_eq!(on(&t, 0), vec![3]);
}

#[test]
fn unknown_agent_gets_its_own_plane() {
    let mut c = base();
    let mut k = kernel(0, 1, 2, 1, 1, q());
    k.agent = 0x5555;
    c.kernels.push(k);
    let t = join(c);
    assert_eq!(t.devices.len(), 3);
    assert_eq!(t.devices[2].agent_handle, 0x5555);
    assert_eq!(t.devices[2].lines[0].events.len(), 1);
    assert_eq!(t.warnings.len(), 1);
}

#[test]
fn kernel_on_a_cpu_agent_is_kept_not_a_panic() {
    let mut c = base();
    let mut k = kernel(0, 1, 2, 1, 1, q());
    k.agent = CPU;
    c.kernels.push(k);
    c.copies.push(CopyRecord {
        start_ns: 5,
        end_ns: 6,
        ..copy(0, 2, GPU0, CPU)
    });
    let t = join(c);
    assert_eq!(t.devices.len(), 3);
    assert_eq!(t.devices[2].agent_handle, CPU);
    assert!(t.warnings[0].contains("not a GPU"), "{:?}", t.warnings);
    // The copy's host end is still not a device.
    let DeviceEventKind::Memcpy(m) = &t.devices[0].lines[0].events[0].kind else {
        panic!()
    };
    assert_eq!((m.src_device, m.dst_device), (None, Some(0)));
}

#[test]
fn zero_or_reversed_timestamps_are_counted_not_placed_at_boot() {
    let mut c = base();
    c.start_boottime_ns = 1000;
    c.stop_boottime_ns = 2000;
    c.api.push(api(LAUNCH, 1, 1100, 1150, 7));
    c.kernels.push(kernel(1, 1200, 1300, 1, 1, q()));
    c.kernels.push(kernel(1, 0, 1400, 1, 2, q())); // never started: cannot be placed
    c.kernels.push(kernel(1, 1500, 1450, 1, 3, q())); // end before start
    let t = join(c);
    assert_eq!(t.counters.bad_timestamp_records, 2);
    assert_eq!(
        t.start_boottime_ns, 1000,
        "a zero start must not drag the origin to 0"
    );
    let spans: Vec<(u64, u64)> = t.devices[0]
        .lines
        .iter()
        .flat_map(|l| l.events.iter().map(|e| (e.start_ns, e.end_ns)))
        .collect();
    assert_eq!(spans, vec![(1200, 1300), (1500, 1500)]);
}

#[test]
fn output_is_deterministic_whatever_the_input_order() {
    let mut a = base();
    for i in 0..50u64 {
        a.api
            .push(api(LAUNCH, i + 1, i * 10, i * 10 + 5, 7 + i % 3));
        a.kernels.push(kernel(
            i + 1,
            1000 + i * 7,
            1003 + i * 7,
            1 + i % 2,
            i,
            0x100 + i % 4,
        ));
    }
    let mut b = a.clone();
    b.api = b.api.iter().collect::<Vec<_>>().into_iter().rev().collect();
    let mut shuffled: Vec<_> = b.kernels.iter().collect();
    shuffled.reverse();
    shuffled.rotate_left(17);
    b.kernels = shuffled.into();
    let (ta, tb) = (join(a), join(b));
    assert_eq!(format!("{ta:?}"), format!("{tb:?}"));
    assert_eq!(
        ta.host_threads.iter().map(|t| t.tid).collect::<Vec<_>>(),
        vec![7, 8, 9]
    );
}
