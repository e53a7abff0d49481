//! Built-in plans for the simulator's own tests (`rocprof-sim --builtin NAME`). They exercise
//! the runtime independently of the scenario compiler; numbers are made up but plausible.

use crate::plan::*;

pub const NAMES: &[&str] = &["basic", "stress", "mi250x", "empty"];

/// The scenario compiler's presets are the one copy of the GPU numbers.
fn preset(name: &str) -> GpuSpec {
    crate::scenario::presets::spec(name).expect("built-in preset")
}

pub fn mi300x() -> GpuSpec {
    preset("mi300x")
}

/// One GCD of an MI250X (one agent).
pub fn mi250x_gcd() -> GpuSpec {
    preset("mi250x")
}

/// Small helper for writing plans by hand.
pub struct Builder {
    pub plan: Plan,
    now: Vec<u64>,
    gpu_clock: u64,
}

impl Builder {
    pub fn new(gpus: Vec<GpuSpec>, threads: usize) -> Builder {
        Builder {
            plan: Plan {
                gpus,
                threads: (0..threads)
                    .map(|i| ThreadPlan {
                        name: format!("t{i}"),
                        ops: Vec::new(),
                        real_delay_ms: 0,
                    })
                    .collect(),
                ..Default::default()
            },
            now: vec![1_000; threads],
            gpu_clock: 0,
        }
    }

    pub fn code_object(&mut self, gpu: u32, thread: u32, kernels: &[&str]) -> u32 {
        let co = self.plan.code_objects.len() as u32;
        self.plan.code_objects.push(CodeObjectSpec {
            uri: format!("file:///sim/app.hsaco#offset={}&size=65536", co * 65536),
            gpu,
            load_thread: thread,
            unload_at_ns: None,
        });
        for k in kernels {
            self.plan.kernels.push(KernelSymbol {
                symbol_name: format!("{k}.kd"),
                code_object: co,
                sgpr_count: 32,
                arch_vgpr_count: 64,
                accum_vgpr_count: 0,
                group_segment_size: 1024,
                private_segment_size: 0,
                kernarg_segment_size: 64,
                work: Default::default(),
            });
        }
        co
    }

    pub fn stream(&mut self, gpu: u32, name: &str) -> u64 {
        let handle = 0x5eed_0000 + (self.plan.streams.len() as u64 + 1) * 0x100;
        self.plan.streams.push(StreamSpec {
            handle,
            gpu,
            name: name.into(),
        });
        handle
    }

    pub fn op(&mut self, t: usize, dur: u64, call: HostCall) {
        let start = self.now[t];
        self.now[t] += dur + 500;
        self.plan.threads[t].ops.push(HostOp {
            start_ns: start,
            end_ns: start + dur,
            call,
            barrier: None,
        });
    }

    fn kernel_activity(&mut self, t: usize, gpu: u32, kernel: u32, stream: u64) -> Activity {
        let start = self.gpu_clock.max(self.now[t] + 2_000);
        self.gpu_clock = start + 10_000;
        Activity::Kernel {
            gpu,
            queue: (stream % 4) as u32,
            kernel,
            grid_items: [256 * 64, 1, 1],
            block: [256, 1, 1],
            group_segment_size: 1024,
            private_segment_size: 0,
            stream,
            start_ns: start,
            end_ns: start + 8_000,
        }
    }

    pub fn launch(&mut self, t: usize, gpu: u32, kernel: u32, stream: u64) {
        let act = self.kernel_activity(t, gpu, kernel, stream);
        let args = HipArgs::Launch {
            kernel,
            grid_blocks: [64, 1, 1],
            block: [256, 1, 1],
            dynamic_shared: 0,
            stream,
        };
        self.op(
            t,
            3_000,
            HostCall::Hip {
                api: "hipLaunchKernel".into(),
                args,
                activities: vec![act],
            },
        );
    }

    pub fn graph_launch(&mut self, t: usize, gpu: u32, kernels: &[u32], stream: u64) {
        let acts: Vec<Activity> = kernels
            .iter()
            .map(|k| self.kernel_activity(t, gpu, *k, stream))
            .collect();
        let args = HipArgs::GraphLaunch {
            graph_exec: 0x6a00_0001,
            stream,
        };
        self.op(
            t,
            5_000,
            HostCall::Hip {
                api: "hipGraphLaunch".into(),
                args,
                activities: acts,
            },
        );
    }

    pub fn memcpy_htod(&mut self, t: usize, gpu: u32, bytes: u64, stream: u64) {
        let start = self.gpu_clock.max(self.now[t] + 1_000);
        self.gpu_clock = start + 20_000;
        let act = Activity::Copy {
            direction: CopyDirection::HostToDevice,
            src_gpu: None,
            dst_gpu: Some(gpu),
            bytes,
            stream,
            start_ns: start,
            end_ns: start + 15_000,
        };
        let args = HipArgs::Memcpy {
            dst: 0x7f00_dead_0000,
            src: 0x5600_beef_0000,
            bytes,
            kind: 1,
            stream: Some(stream),
        };
        self.op(
            t,
            4_000,
            HostCall::Hip {
                api: "hipMemcpyAsync".into(),
                args,
                activities: vec![act],
            },
        );
    }

    pub fn hip(&mut self, t: usize, api: &str, args: HipArgs) {
        self.op(
            t,
            1_000,
            HostCall::Hip {
                api: api.into(),
                args,
                activities: vec![],
            },
        );
    }

    pub fn marker(&mut self, t: usize, m: MarkerOp) {
        self.op(t, 200, HostCall::Marker(m));
    }

    pub fn build(self) -> Plan {
        self.plan
    }
}

/// Two threads on one MI300X: code-object load, stream creation, roctx ranges, launches, a
/// copy, a 5-kernel graph launch, external correlation ids, synchronisation.
pub fn basic() -> Plan {
    let mut b = Builder::new(vec![mi300x()], 2);
    let co = b.code_object(0, 0, &["_Z6matmulPfS_S_i", "_Z4reluPfi", "_Z7softmaxPfi"]);
    let _ = co;
    b.op(0, 2_000, HostCall::CodeObjectLoad(0));
    let s = b.stream(0, "compute");
    b.hip(
        0,
        "hipStreamCreate",
        HipArgs::StreamCreate {
            stream: s,
            flags: 0,
        },
    );
    b.op(0, 100, HostCall::ExternalPush(4242));
    b.marker(0, MarkerOp::Push("forward".into()));
    b.memcpy_htod(0, 0, 1 << 20, s);
    b.launch(0, 0, 0, s);
    b.launch(0, 0, 1, s);
    b.marker(0, MarkerOp::Mark("checkpoint".into()));
    b.graph_launch(0, 0, &[0, 1, 2, 1, 0], s);
    b.marker(0, MarkerOp::Pop);
    b.op(0, 100, HostCall::ExternalPop);
    b.hip(
        0,
        "hipStreamSynchronize",
        HipArgs::StreamSynchronize { stream: s },
    );
    b.launch(1, 0, 2, 0);
    b.marker(
        1,
        MarkerOp::Start {
            message: "bg".into(),
            key: 1,
        },
    );
    b.launch(1, 0, 0, 0);
    b.marker(1, MarkerOp::Stop { key: 1 });
    b.hip(1, "hipDeviceSynchronize", HipArgs::None);
    b.build()
}

/// Many launches from two threads (pressure on small buffers).
pub fn stress(launches_per_thread: usize) -> Plan {
    let mut b = Builder::new(vec![mi300x()], 2);
    b.code_object(0, 0, &["_Z4axpyPfS_f", "_Z4scalPff"]);
    for i in 0..launches_per_thread {
        b.launch(0, 0, (i % 2) as u32, 0);
        b.launch(1, 0, ((i + 1) % 2) as u32, 0);
    }
    b.build()
}

/// Two MI250X GCDs, one launch each.
pub fn mi250x() -> Plan {
    let mut b = Builder::new(vec![mi250x_gcd(), mi250x_gcd()], 1);
    b.code_object(0, 0, &["_Z3fooPf"]);
    b.code_object(1, 0, &["_Z3fooPf"]);
    b.launch(0, 0, 0, 0);
    b.hip(0, "hipSetDevice", HipArgs::SetDevice { device: 1 });
    b.launch(0, 1, 1, 0);
    b.build()
}

/// `name[:N[:DELAY_US]]`: N = stress launches per thread, DELAY_US = per-delivery delay
/// (a slow consumer) for any plan.
pub fn plan(spec: &str) -> Option<Plan> {
    let mut parts = spec.split(':');
    let name = parts.next()?;
    let n: usize = match parts.next() {
        Some(v) => v.parse().ok()?,
        None => 500,
    };
    let delay: u64 = match parts.next() {
        Some(v) => v.parse().ok()?,
        None => 0,
    };
    let mut plan = match name {
        "basic" => basic(),
        "stress" => stress(n),
        "mi250x" => mi250x(),
        "empty" => Builder::new(vec![mi300x()], 1).build(),
        _ => return None,
    };
    plan.delivery.delivery_delay_us = delay;
    Some(plan)
}
