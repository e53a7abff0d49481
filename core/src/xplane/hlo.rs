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
    // Each annotation once (a kernel's, in the order met), each label list once: ranges
    // pushed under the same labels share one list.
    let mut met = vec![false; trace.annotations.len()];
    let mut lists = crate::fastmap::HashSet::default();
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
        if !lists.insert(std::sync::Arc::as_ptr(&a.stack).cast::<u8>() as usize) {
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

/// `(program_id, hlo_module, hlo_op)` of a label stack, each from its innermost TraceMe level
/// (as the stats `xplane::annotation` writes): `None` unless all three are there and the
/// program id is an integer.
fn labelled_op(stack: &[std::sync::Arc<str>]) -> Option<(i64, &str, &str)> {
    let (mut program, mut module, mut op) = (None, None, None);
    for label in stack.iter().rev() {
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
