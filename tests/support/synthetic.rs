//! A synthetic `Trace` for the XPlane writer's tests: two MI300X-like GPUs, with what it holds
//! kept alongside for assertions.

use std::collections::BTreeMap;
use std::sync::Arc;

use rocprof_xplane::model::{
    Annotation, CopyDirection, Counters, Device, DeviceEvent, DeviceEventKind, DeviceLine,
    HostEvent, HostEventKind, HostThread, Id, KernelCode, KernelInfo, LaunchShape, MemcpyInfo,
    Ordinal16, Table, Trace, WrittenCalls,
};

pub const START_BOOT_NS: u64 = 5_000_000_000_000;
pub const START_WALL_NS: u64 = 1_780_000_000_000_000_000;

/// What the synthetic trace holds, for assertions.
#[derive(Debug, Default)]
pub struct Expected {
    /// kernel name → (GPU ordinal, dispatch count).
    pub kernels: BTreeMap<String, (u32, usize)>,
    /// memcpy event name → count.
    pub memcpys: BTreeMap<String, usize>,
    /// correlation id → number of device events it produced.
    pub dispatches_per_correlation: BTreeMap<u64, usize>,
    /// The graph launch's correlation id (many dispatches).
    pub graph_correlation_id: u64,
    pub host_api_calls: usize,
    pub markers: usize,
}

/// What a launch runs: a kernel's shape (put in the trace's table by the builder) or a copy.
enum Work {
    Kernel(LaunchShape),
    Copy(DeviceEventKind),
}

fn kernel(name: &str, grid: u32) -> Work {
    Work::Kernel(LaunchShape {
        code: Arc::new(KernelCode {
            name: Arc::from(name),
            kernel_id: 7,
            vgpr_count: 64,
            agpr_count: 0,
            sgpr_count: 32,
            symbol_scratch_bytes: 0,
            static_shared_bytes: 4096,
        }),
        grid: [grid, 1, 1],
        block: [256, 1, 1],
        dynamic_shared_bytes: 1024,
        private_segment_bytes: 0,
        queue: 0,
        pipe_id: None,
    })
}

fn device(ordinal: u32) -> Device {
    Device {
        ordinal,
        agent_handle: 0x1000 + u64::from(ordinal),
        name: "gfx942".into(),
        product_name: "AMD Instinct MI300X".into(),
        vendor_name: "AMD".into(),
        compute_units: 304,
        simd_per_cu: 4,
        wave_front_size: 64,
        max_waves_per_cu: 32,
        clock_rate_khz: 2_100_000,
        memory_bytes: 206_141_652_992,
        memory_bandwidth_bytes_per_s: 5_300_000_000_000,
        gfx_target_version: 90402,
        lines: Vec::new(),
    }
}

struct Builder {
    trace: Trace,
    expected: Expected,
    next_corr: u64,
    /// Per thread: next free host time (ns after start).
    clock: BTreeMap<u64, u64>,
    annotation: Option<Id<Annotation>>,
}

impl Builder {
    fn line(&mut self, dev: u32, line: i64) -> &mut DeviceLine {
        let d = &mut self.trace.devices[dev as usize];
        if !d.lines.iter().any(|l| l.id == line) {
            d.lines.push(DeviceLine {
                id: line,
                name: String::new(),
                events: Vec::new(),
            });
        }
        d.lines.iter_mut().find(|l| l.id == line).unwrap()
    }

    fn thread(&mut self, tid: u64) -> &mut HostThread {
        if !self.trace.host_threads.iter().any(|t| t.tid == tid) {
            self.trace.host_threads.push(HostThread {
                tid,
                name: if tid == 1001 {
                    "python3".into()
                } else {
                    String::new()
                },
                events: Vec::new(),
            });
        }
        self.trace
            .host_threads
            .iter_mut()
            .find(|t| t.tid == tid)
            .unwrap()
    }

    /// One API call on `tid` producing `work` (device, line, kind, duration) in order.
    fn launch(&mut self, tid: u64, api: &str, work: Vec<(u32, i64, Work, u64)>) -> u64 {
        self.next_corr += 1;
        let corr = self.next_corr;
        let t = *self.clock.entry(tid).or_insert(10_000);
        let (host_start, host_end) = (START_BOOT_NS + t, START_BOOT_NS + t + 4_000);
        self.clock.insert(tid, t + 6_000);
        let mut gpu_t = host_end + 2_000;
        let n = work.len();
        let target = work.first().and_then(|w| u16::try_from(w.0).ok());
        for (dev, line, work, dur) in work {
            let kind = match work {
                Work::Kernel(shape) => {
                    let e = self
                        .expected
                        .kernels
                        .entry(shape.code.name.to_string())
                        .or_insert((dev, 0));
                    e.1 += 1;
                    DeviceEventKind::Kernel(KernelInfo {
                        dispatch_id: 0,
                        shape: self.trace.shapes.push(shape),
                    })
                }
                Work::Copy(kind) => kind,
            };
            match &kind {
                DeviceEventKind::Kernel(_) => {}
                DeviceEventKind::Memcpy(m) => {
                    *self
                        .expected
                        .memcpys
                        .entry(rocprof_xplane::xplane::stats::memcpy_event_name(m.direction).into())
                        .or_default() += 1
                }
            }
            let annotation = self.annotation;
            // Lines are handed over in any order: the writer must sort them.
            self.line(dev, line).events.insert(
                0,
                DeviceEvent {
                    start_ns: gpu_t,
                    end_ns: gpu_t + dur,
                    correlation_id: corr,
                    kind,
                    annotation,
                    graph: None,
                },
            );
            gpu_t += dur + 500;
        }
        *self
            .expected
            .dispatches_per_correlation
            .entry(corr)
            .or_default() += n;
        self.expected.host_api_calls += 1;
        let annotation = self.annotation;
        let name = self.trace.names.push(Arc::from(api));
        self.thread(tid).events.push(HostEvent {
            name,
            start_ns: host_start,
            end_ns: host_end,
            correlation_id: corr,
            kind: HostEventKind::HipApi,
            annotation,
            device: target.into(),
            launched: rocprof_xplane::model::Launched::count(n as u32),
        });
        corr
    }
}

/// Two MI300X-like GPUs; plain launches, a graph launch with many dispatches on one correlation
/// id, copies in all directions, roctx ranges with scope ids, a call without device work, and
/// some anomaly counters.
pub fn synthetic_trace() -> (Trace, Expected) {
    let mut b = Builder {
        trace: Trace {
            hostname: "synthhost".into(),
            pid: 4242,
            sdk_version: "1.0.0".into(),
            start_boottime_ns: START_BOOT_NS,
            stop_boottime_ns: START_BOOT_NS + 2_000_000,
            start_walltime_ns: START_WALL_NS,
            stop_walltime_ns: START_WALL_NS + 2_000_000,
            devices: vec![device(0), device(1)],
            ..Default::default()
        },
        expected: Expected::default(),
        next_corr: 100,
        clock: BTreeMap::new(),
        annotation: None,
    };
    // roctx context: train_step (scope 11) > layer#k=v# (scope 12).
    let ann = b.trace.annotations.push(Annotation {
        stack: vec![
            Arc::from("train_step"),
            Arc::from("layer1#hlo_module=jit_step,program_id=3#"),
        ]
        .into(),
        scope_range_id: 12,
        external_ids: vec![77, 78],
    });
    b.trace.scope_tree = vec![(12, 11)];
    for _ in 0..3 {
        b.launch(
            1001,
            "hipLaunchKernel",
            vec![(0, 0, kernel("gemm_kernel", 128), 40_000)],
        );
    }
    b.annotation = Some(ann);
    for _ in 0..2 {
        b.launch(
            1001,
            "hipLaunchKernel",
            vec![(0, 0, kernel("elementwise_add", 64), 10_000)],
        );
    }
    b.annotation = None;
    let graph: Vec<_> = (0..8)
        .map(|i| {
            let name = if i % 2 == 0 {
                "graph_node_a"
            } else {
                "graph_node_b"
            };
            (0, 1, kernel(name, 32 + i), 5_000)
        })
        .collect();
    b.expected.graph_correlation_id = b.launch(1001, "hipGraphLaunch", graph);
    for _ in 0..4 {
        b.launch(
            1002,
            "hipLaunchKernel",
            vec![(1, 0, kernel("reduce_sum", 16), 20_000)],
        );
    }
    let copy = |direction, src, dst| {
        Work::Copy(DeviceEventKind::Memcpy(Box::new(MemcpyInfo {
            direction,
            bytes: 1 << 20,
            src_device: src,
            dst_device: dst,
            kinds: None,
        })))
    };
    b.launch(
        1002,
        "hipMemcpyAsync",
        vec![(
            1,
            1,
            copy(CopyDirection::HostToDevice, None, Some(1)),
            30_000,
        )],
    );
    b.launch(
        1002,
        "hipMemcpyAsync",
        vec![(
            1,
            1,
            copy(CopyDirection::DeviceToHost, Some(1), None),
            30_000,
        )],
    );
    b.launch(
        1001,
        "hipMemcpyPeerAsync",
        vec![(
            0,
            2,
            copy(CopyDirection::DeviceToDevice, Some(0), Some(1)),
            15_000,
        )],
    );
    // A roctx range around the first launches and an instantaneous mark.
    let [train_step, checkpoint, set_device] =
        ["train_step", "checkpoint", "hipSetDevice"].map(|n| b.trace.names.push(Arc::from(n)));
    let t = b.thread(1001);
    t.events.push(HostEvent {
        name: train_step,
        start_ns: START_BOOT_NS + 9_000,
        end_ns: START_BOOT_NS + 60_000,
        correlation_id: 0,
        kind: HostEventKind::MarkerRange(Default::default()),
        annotation: None,
        device: Ordinal16::NONE,
        launched: rocprof_xplane::model::Launched::count(0),
    });
    t.events.push(HostEvent {
        name: checkpoint,
        start_ns: START_BOOT_NS + 30_000,
        end_ns: START_BOOT_NS + 30_000,
        correlation_id: 0,
        kind: HostEventKind::Marker,
        annotation: None,
        device: Ordinal16::NONE,
        launched: rocprof_xplane::model::Launched::count(0),
    });
    // A call that caused no device work: it must not start a launch arrow.
    t.events.push(HostEvent {
        name: set_device,
        start_ns: START_BOOT_NS + 1_000,
        end_ns: START_BOOT_NS + 2_000,
        correlation_id: 99,
        kind: HostEventKind::HipApi,
        annotation: None,
        device: Some(0).into(),
        launched: rocprof_xplane::model::Launched::count(0),
    });
    b.expected.markers = 2;
    b.expected.host_api_calls += 1;
    b.trace.counters = Counters {
        api_records: b.expected.host_api_calls as u64,
        kernel_records: b.expected.kernels.values().map(|k| k.1 as u64).sum(),
        memcpy_records: 3,
        marker_records: 2,
        runtime_dropped: 12,
        ..Default::default()
    };
    b.trace.warnings.push("synthetic warning".into());
    b.trace.written_calls = WrittenCalls::of_host(&b.trace.host_threads, Vec::new());
    (b.trace, b.expected)
}

/// A trace of `n` launches, each a host call and a kernel on one stream, all under one roctx
/// annotation and of one kernel: what repeats is interned once, so the events' cost is theirs.
pub fn launches(n: u64) -> Trace {
    let mut annotations = Table::default();
    let annotation = annotations.push(Annotation {
        stack: vec![
            Arc::from("train_step"),
            Arc::from("fusion.3#hlo_op=fusion.3#"),
        ]
        .into(),
        scope_range_id: 4,
        external_ids: vec![11],
    });
    let mut shapes = Table::default();
    let shape = shapes.push(LaunchShape {
        code: Arc::new(KernelCode {
            name: Arc::from("gemm_kernel"),
            vgpr_count: 64,
            sgpr_count: 32,
            ..Default::default()
        }),
        grid: [64, 1, 1],
        block: [256, 1, 1],
        queue: 3,
        ..Default::default()
    });
    let mut names = Table::default();
    let launch = names.push(Arc::from("hipLaunchKernel"));
    let kernels = (1..=n)
        .map(|i| DeviceEvent {
            start_ns: 1_000 + i * 100,
            end_ns: 1_000 + i * 100 + 90,
            correlation_id: i,
            kind: DeviceEventKind::Kernel(KernelInfo {
                dispatch_id: i,
                shape,
            }),
            annotation: Some(annotation),
            graph: None,
        })
        .collect();
    let calls = (1..=n)
        .map(|i| HostEvent {
            name: launch,
            start_ns: 900 + i * 100,
            end_ns: 950 + i * 100,
            correlation_id: i,
            kind: HostEventKind::HipApi,
            annotation: Some(annotation),
            device: Some(0).into(),
            launched: rocprof_xplane::model::Launched::count(1),
        })
        .collect();
    let host_threads = vec![HostThread {
        tid: 7,
        name: String::new(),
        events: calls,
    }];
    Trace {
        written_calls: WrittenCalls::of_host(&host_threads, Vec::new()),
        start_boottime_ns: 500,
        stop_boottime_ns: 1_000 + (n + 1) * 100,
        devices: vec![Device {
            name: "gfx942".into(),
            compute_units: 304,
            simd_per_cu: 4,
            wave_front_size: 64,
            max_waves_per_cu: 32,
            gfx_target_version: 90402,
            lines: vec![DeviceLine {
                id: 0,
                name: "Stream #0".into(),
                events: kernels,
            }],
            ..Default::default()
        }],
        host_threads,
        names,
        annotations,
        shapes,
        ..Default::default()
    }
}
