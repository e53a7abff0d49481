//! Placeholder HLO modules: what xprof's op tools need to place kernels labelled by XLA's
//! TraceMe texts (`XlaModule:#hlo_module=<m>,program_id=<p>#` around `Thunk:#hlo_op=<op>#`)
//! when the file carries no HLO of XLA's own.
//!
//! op_profile, hlo_stats, framework_op_stats' device side and roofline_model look each kernel's
//! `hlo_op` up in the HLO proto of its `program_id`; a kernel whose program has none counts as
//! IDLE. xprof finds a program's proto in the plane `/host:metadata`: an event metadata whose
//! id is the program id, named by the module, with the bytes stat `Hlo Proto` holding a
//! serialized `xla.HloProto`. Ours holds one entry computation with one `custom-call`
//! instruction per op seen (`custom_call_target` [`TARGET`]; its text in op_profile is
//! `%<op> = () custom-call(), custom_call_target="roctx"`), whose framework op name
//! (`OpMetadata.op_name`, what kernel_stats and framework_op_stats name the kernel by) is the
//! op's own, and a root tuple of them: nothing about the op is claimed beyond its name.
//!
//! The messages below are the few fields of XLA's `xla/service/hlo.proto` and
//! `xla/xla_data.proto` that this writes, with XLA's field numbers (openxla/xla).

use std::collections::{BTreeMap, BTreeSet};

use prost::Message;

use super::level::{parse_level, LevelForm};
use crate::model::Trace;

/// `custom_call_target` of every placeholder instruction: where the op's name came from.
pub const TARGET: &str = "roctx";

/// The plane xprof reads HLO protos from.
pub const METADATA_PLANE: &str = "/host:metadata";

/// The event-metadata stat holding a program's serialized `HloProto`.
pub const HLO_PROTO: &str = "Hlo Proto";

/// `xla.PrimitiveType.TUPLE`.
const TUPLE: i32 = 13;

/// The computation's id and the root's: any ids unique within the module do.
const ENTRY_ID: i64 = 1;

#[derive(Clone, PartialEq, Message)]
struct ShapeProto {
    #[prost(int32, tag = "2")]
    element_type: i32,
    #[prost(message, repeated, tag = "4")]
    tuple_shapes: Vec<ShapeProto>,
}

#[derive(Clone, PartialEq, Message)]
struct ProgramShapeProto {
    #[prost(message, optional, tag = "2")]
    result: Option<ShapeProto>,
}

#[derive(Clone, PartialEq, Message)]
struct OpMetadata {
    #[prost(string, tag = "2")]
    op_name: String,
}

#[derive(Clone, PartialEq, Message)]
struct HloInstructionProto {
    #[prost(string, tag = "1")]
    name: String,
    #[prost(string, tag = "2")]
    opcode: String,
    #[prost(message, optional, tag = "3")]
    shape: Option<ShapeProto>,
    #[prost(message, optional, tag = "7")]
    metadata: Option<OpMetadata>,
    #[prost(string, tag = "28")]
    custom_call_target: String,
    #[prost(int64, tag = "35")]
    id: i64,
    #[prost(int64, repeated, tag = "36")]
    operand_ids: Vec<i64>,
}

#[derive(Clone, PartialEq, Message)]
struct HloComputationProto {
    #[prost(string, tag = "1")]
    name: String,
    #[prost(message, repeated, tag = "2")]
    instructions: Vec<HloInstructionProto>,
    #[prost(message, optional, tag = "4")]
    program_shape: Option<ProgramShapeProto>,
    #[prost(int64, tag = "5")]
    id: i64,
    #[prost(int64, tag = "6")]
    root_id: i64,
}

#[derive(Clone, PartialEq, Message)]
struct HloModuleProto {
    #[prost(string, tag = "1")]
    name: String,
    #[prost(string, tag = "2")]
    entry_computation_name: String,
    #[prost(message, repeated, tag = "3")]
    computations: Vec<HloComputationProto>,
    #[prost(message, optional, tag = "4")]
    host_program_shape: Option<ProgramShapeProto>,
    #[prost(int64, tag = "5")]
    id: i64,
    #[prost(int64, tag = "6")]
    entry_computation_id: i64,
}

#[derive(Clone, PartialEq, Message)]
struct HloProto {
    #[prost(message, optional, tag = "1")]
    hlo_module: Option<HloModuleProto>,
}

/// One program the run's labels name: its module and the ops seen in it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Program {
    pub module: String,
    pub ops: BTreeSet<String>,
}

/// The programs named by the labels of the run's device work, by program id: every
/// annotation whose levels give an integer `program_id` (with its `hlo_module`) and an
/// `hlo_op`, innermost level first as the kernels' stats take them. A program named by two
/// modules keeps the first name met.
pub fn programs(trace: &Trace) -> BTreeMap<i64, Program> {
    if !any_traceme_label(trace) {
        return BTreeMap::new();
    }
    // Each annotation once (a kernel's, in the order met), each label list once: ranges
    // pushed under the same labels share one list.
    let mut met = vec![false; trace.annotations.len()];
    let mut lists = crate::fastmap::HashSet::default();
    // The lists met last in front of the set (`RecentLists`).
    let mut recent = RecentLists::default();
    let mut out: BTreeMap<i64, Program> = BTreeMap::new();
    let annotations = trace
        .devices
        .iter()
        .flat_map(|d| &d.lines)
        .flat_map(|l| &l.events)
        .filter_map(|e| e.annotation);
    for id in annotations {
        match met.get_mut(id.index()) {
            Some(m) if !*m => *m = true,
            _ => continue,
        }
        let Some(a) = trace.annotations.get(id) else {
            continue;
        };
        if recent.met_last(&a.stack) || !lists.insert(RecentLists::key(&a.stack)) {
            continue;
        }
        if let Some((program_id, module, op)) = labelled_op(&a.stack) {
            out.entry(program_id)
                .or_insert_with(|| Program {
                    module: module.to_owned(),
                    ops: BTreeSet::new(),
                })
                .ops
                .insert(op.to_owned());
        }
    }
    out
}

/// Whether any annotation of the run has a label of TraceMe form (`name#k=v#`: it ends in `#`),
/// the only form that names an op ([`labelled_op`]). Most runs have none, and are then known to
/// name no program from the annotations (each label list once, as [`programs`] meets them),
/// without a walk over every device event.
fn any_traceme_label(trace: &Trace) -> bool {
    let mut recent = RecentLists::default();
    trace
        .annotations
        .iter()
        .any(|a| !recent.met_last(&a.stack) && a.stack.iter().any(|label| label.ends_with('#')))
}

/// The label lists met last, by address, in front of a set of every list met: the
/// annotations of a line come from the few threads that launch onto it, each keeping one list
/// while its labels stay the same, so most are the list met a few annotations before (a
/// compare, not a probe).
struct RecentLists([usize; RECENT_LISTS]);

impl Default for RecentLists {
    fn default() -> Self {
        Self([0; RECENT_LISTS])
    }
}

impl RecentLists {
    /// A list's key: its address (lists are shared, not copied).
    fn key(stack: &std::sync::Arc<[std::sync::Arc<str>]>) -> usize {
        std::sync::Arc::as_ptr(stack).cast::<u8>() as usize
    }

    /// Whether `stack` is the list met last in its slot; it is the slot's list from now on.
    fn met_last(&mut self, stack: &std::sync::Arc<[std::sync::Arc<str>]>) -> bool {
        let key = Self::key(stack);
        let slot = &mut self.0[crate::xplane::builder::fibonacci_slot(key as u64, RECENT_BITS)];
        let met = *slot == key;
        *slot = key;
        met
    }
}

/// Slots of [`programs`]' lists met last (a power of two: more than the threads a run
/// commonly has).
const RECENT_BITS: u32 = 8;
const RECENT_LISTS: usize = 1 << RECENT_BITS;

/// `(program_id, hlo_module, hlo_op)` of a label stack, each from its innermost TraceMe level
/// (as the stats `xplane::annotation` writes): `None` unless all three are there and the
/// program id is an integer.
fn labelled_op(stack: &[std::sync::Arc<str>]) -> Option<(i64, &str, &str)> {
    let (mut program, mut module, mut op) = (None, None, None);
    for label in stack.iter().rev() {
        // Only a text ending in `#` can be a TraceMe level: the others (PyTorch's long field
        // lists among them) are not parsed.
        if !label.ends_with('#') {
            continue;
        }
        let level = parse_level(label);
        if level.form != LevelForm::TraceMe {
            continue;
        }
        for (k, v) in level.fields {
            match k {
                "program_id" if program.is_none() => program = Some(v),
                "hlo_module" if module.is_none() => module = Some(v),
                "hlo_op" if op.is_none() => op = Some(v),
                _ => {}
            }
        }
        // Innermost wins: the levels outside can change nothing.
        if program.is_some() && module.is_some() && op.is_some() {
            break;
        }
    }
    Some((program?.parse().ok()?, module?, op?))
}

/// The serialized `HloProto` of a placeholder module `module` (program `program_id`) holding
/// `ops`.
pub fn placeholder_module<'a>(
    module: &str,
    program_id: i64,
    ops: impl IntoIterator<Item = &'a str>,
) -> Vec<u8> {
    let tuple = || ShapeProto {
        element_type: TUPLE,
        tuple_shapes: Vec::new(),
    };
    let mut instructions: Vec<HloInstructionProto> = ops
        .into_iter()
        .zip(1..)
        .map(|(op, id)| HloInstructionProto {
            name: op.to_owned(),
            opcode: "custom-call".into(),
            shape: Some(tuple()),
            metadata: Some(OpMetadata {
                op_name: op.to_owned(),
            }),
            custom_call_target: TARGET.into(),
            id,
            operand_ids: Vec::new(),
        })
        .collect();
    let root_id = instructions.len() as i64 + 1;
    let root_shape = ShapeProto {
        element_type: TUPLE,
        tuple_shapes: instructions.iter().map(|_| tuple()).collect(),
    };
    let operand_ids = instructions.iter().map(|i| i.id).collect();
    instructions.push(HloInstructionProto {
        name: "tuple".into(),
        opcode: "tuple".into(),
        shape: Some(root_shape.clone()),
        metadata: None,
        custom_call_target: String::new(),
        id: root_id,
        operand_ids,
    });
    let program_shape = ProgramShapeProto {
        result: Some(root_shape),
    };
    HloProto {
        hlo_module: Some(HloModuleProto {
            name: module.to_owned(),
            entry_computation_name: "main".into(),
            computations: vec![HloComputationProto {
                name: "main".into(),
                instructions,
                program_shape: Some(program_shape.clone()),
                id: ENTRY_ID,
                root_id,
            }],
            host_program_shape: Some(program_shape),
            id: program_id,
            entry_computation_id: ENTRY_ID,
        }),
    }
    .encode_to_vec()
}

/// The ops of a placeholder module written by [`placeholder_module`]: `None` for any other
/// HLO proto (XLA's own, or bytes that are not one), which a merge must keep as it is.
pub fn placeholder_ops(bytes: &[u8]) -> Option<(String, Vec<String>)> {
    let m = HloProto::decode(bytes).ok()?.hlo_module?;
    let [entry] = m.computations.as_slice() else {
        return None;
    };
    let (root, ops) = entry.instructions.split_last()?;
    if root.opcode != "tuple"
        || !ops
            .iter()
            .all(|i| i.opcode == "custom-call" && i.custom_call_target == TARGET)
    {
        return None;
    }
    Some((m.name, ops.iter().map(|i| i.name.clone()).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn stack(levels: &[&str]) -> Vec<Arc<str>> {
        levels.iter().map(|s| Arc::from(*s)).collect()
    }

    /// More label lists than the slots of lists met last, their annotations interleaved so
    /// that lists take turns in the slots and each comes back after others took its slot:
    /// every list's op is found, and an annotation no kernel names is not read.
    #[test]
    fn every_kernel_s_list_gives_its_op_whatever_the_slots_hold() {
        use crate::model::{Annotation, Device, DeviceEvent, DeviceEventKind, DeviceLine};
        use crate::model::{KernelInfo, Table};
        let n = RECENT_LISTS * 3 + 5;
        let lists: Vec<Arc<[Arc<str>]>> = (0..n)
            .map(|i| {
                stack(&[
                    &format!("M#hlo_module=m{},program_id={}#", i % 3, i % 3),
                    &format!("T#hlo_op=op.{i}#"),
                ])
                .into()
            })
            .collect();
        let mut shapes = Table::default();
        let shape = shapes.push(crate::model::LaunchShape::default());
        let mut annotations = Table::default();
        let mut ids = Vec::new();
        for k in 0..n * 3 {
            ids.push(annotations.push(Annotation {
                stack: lists[k * 7919 % n].clone(),
                scope_range_id: k as i64 + 1,
                external_ids: Vec::new(),
            }));
        }
        // Named by no kernel: its op is not the programs'.
        annotations.push(Annotation {
            stack: stack(&["M#hlo_module=m0,program_id=0#", "T#hlo_op=unused#"]).into(),
            ..Default::default()
        });
        let events = ids
            .iter()
            .enumerate()
            .map(|(k, &a)| DeviceEvent {
                start_ns: k as u64,
                end_ns: k as u64 + 1,
                correlation_id: 0,
                kind: DeviceEventKind::Kernel(KernelInfo {
                    dispatch_id: k as u64,
                    shape,
                }),
                annotation: Some(a),
                graph: None,
            })
            .collect();
        let trace = Trace {
            devices: vec![Device {
                lines: vec![DeviceLine {
                    id: 0,
                    name: String::new(),
                    events,
                }],
                ..Default::default()
            }],
            annotations,
            shapes,
            ..Default::default()
        };
        let found = programs(&trace);
        assert_eq!(found.len(), 3);
        for (id, p) in &found {
            assert_eq!(p.module, format!("m{id}"));
            let want: BTreeSet<String> = (0..n)
                .filter(|i| i % 3 == *id as usize)
                .map(|i| format!("op.{i}"))
                .collect();
            assert_eq!(p.ops, want, "program {id}");
        }
    }

    /// A run whose labels are all plain names no program, and no label of it is parsed; a
    /// TraceMe op on an annotation no kernel names is still not the programs'.
    #[test]
    fn plain_labels_are_not_parsed_for_programs() {
        use crate::model::{Annotation, Device, DeviceEvent, DeviceEventKind, DeviceLine};
        use crate::model::{KernelInfo, Table};
        let mut shapes = Table::default();
        let shape = shapes.push(crate::model::LaunchShape::default());
        let mut annotations = Table::default();
        let plain = annotations.push(Annotation {
            stack: stack(&["step", "layer 3"]).into(),
            ..Default::default()
        });
        let kernel = |k: u64| DeviceEvent {
            start_ns: k,
            end_ns: k + 1,
            correlation_id: 0,
            kind: DeviceEventKind::Kernel(KernelInfo {
                dispatch_id: k,
                shape,
            }),
            annotation: Some(plain),
            graph: None,
        };
        let mut trace = Trace {
            devices: vec![Device {
                lines: vec![DeviceLine {
                    id: 0,
                    name: String::new(),
                    events: (0..4).map(kernel).collect(),
                }],
                ..Default::default()
            }],
            annotations,
            shapes,
            ..Default::default()
        };
        let parses = crate::xplane::level::PARSES.with(|n| n.get());
        assert!(programs(&trace).is_empty());
        assert_eq!(crate::xplane::level::PARSES.with(|n| n.get()), parses);
        trace.annotations.push(Annotation {
            stack: stack(&["M#hlo_module=m,program_id=1#", "T#hlo_op=a#"]).into(),
            ..Default::default()
        });
        assert!(programs(&trace).is_empty());
    }

    #[test]
    fn an_op_needs_its_program_module_and_name() {
        let s = stack(&[
            "train#step_num=1,_r=1#",
            "XlaModule:#hlo_module=jit_f,program_id=7#",
            "Thunk:#hlo_op=fusion.3#",
        ]);
        assert_eq!(labelled_op(&s), Some((7, "jit_f", "fusion.3")));
        let no_op = stack(&["XlaModule:#hlo_module=jit_f,program_id=7#"]);
        assert_eq!(labelled_op(&no_op), None);
        let bad_id = stack(&["XlaModule:#hlo_module=m,program_id=x#", "T#hlo_op=a#"]);
        assert_eq!(labelled_op(&bad_id), None);
        let inner_wins = stack(&[
            "M#hlo_module=a,program_id=1#",
            "M#hlo_module=b,program_id=2#",
            "T#hlo_op=o#",
        ]);
        assert_eq!(labelled_op(&inner_wins), Some((2, "b", "o")));
        assert_eq!(labelled_op(&stack(&["plain", "hlo_op=x"])), None);
    }

    /// Only the levels that can name the op are parsed: none that is not of TraceMe form (a
    /// PyTorch level's long field list), none outside the levels that named all three.
    #[test]
    fn an_op_parses_only_the_levels_that_can_name_it() {
        let parses = || crate::xplane::level::PARSES.with(|n| n.get());
        let s = stack(&[
            "train#step_num=1,_r=1#",
            "XlaModule:#hlo_module=jit_f,program_id=7#",
            "aten::linear, seq = 3, op_id = 2, sizes = [[256, 4096], [4096]]",
            "Thunk:#hlo_op=fusion.3#",
            "inner plain",
        ]);
        let before = parses();
        assert_eq!(labelled_op(&s), Some((7, "jit_f", "fusion.3")));
        assert_eq!(parses() - before, 2, "Thunk: and XlaModule: alone");
    }

    #[test]
    fn a_placeholder_module_reads_back_as_its_ops_and_nothing_else_does() {
        let bytes = placeholder_module("jit_f", 7, ["copy.1", "fusion.3"]);
        assert_eq!(
            placeholder_ops(&bytes),
            Some(("jit_f".into(), vec!["copy.1".into(), "fusion.3".into()]))
        );
        let m = HloProto::decode(bytes.as_slice())
            .unwrap()
            .hlo_module
            .unwrap();
        assert_eq!((m.id, m.entry_computation_id), (7, ENTRY_ID));
        let entry = &m.computations[0];
        assert_eq!(entry.root_id, 3);
        assert_eq!(entry.instructions[2].operand_ids, [1, 2]);
        // Another module (a real op) is not ours to rewrite; nor are bytes of something else.
        let mut other = HloProto::decode(bytes.as_slice()).unwrap();
        other.hlo_module.as_mut().unwrap().computations[0].instructions[0].opcode = "fusion".into();
        assert_eq!(placeholder_ops(&other.encode_to_vec()), None);
        assert_eq!(placeholder_ops(b"\xff\xff"), None);
    }
}
