//! rocprofv3's rocpd SQLite database (its default output since ROCm 7.0; schema in
//! `shared/reference/rocprofiler-sdk-abi.md` §7.4) → one `Collected` per process.
//!
//! A database holds one or more *runs*: each run's tables carry its own suffix
//! (`rocpd_region_<uuid>`, …) and its row ids start afresh, so every run is read through its
//! own tables (the unsuffixed views merge runs but their ids collide). Within a run, `pid`,
//! `tid`, `nid`, `agent_id`, `kernel_id` are row ids of the `rocpd_info_*` tables; names and
//! categories are ids into `rocpd_string`. An API call, kernel or copy links to its
//! `rocpd_event`, whose `stack_id` is the SDK's internal correlation id (the join key) and
//! `correlation_id` the external one.
//!
//! Streams and dependency edges come from the HIP calls' arguments (`rocpd_arg`, read as
//! `super::calls` reads every format's): the `stream` argument of the launching call places a
//! kernel or copy (as the live tool reads it at API entry), and `event`/`stream` of the
//! synchronization calls give the waits and the event records they resolve to. roctx records
//! are regions (or, without duration, samples) with the text in their event's `extdata`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rusqlite::{Connection, OpenFlags, OptionalExtension};
use serde_json::Value;

use super::calls::{CallArgs, Roctx};
use super::{err, Builder, ConvertError};
use rocprof_xplane_core::model::events::{
    AgentInfo, AgentType, ApiDomain, ApiRecord, Collected, CopyRecord, CounterValue, KernelRecord,
    KernelSymbol,
};
use rocprof_xplane_core::model::graph::GraphNode;

/// The rocpd schemas this reader knows: 3.0.0 (written `3` by the first releases) to the
/// newest 3.0.x; 3.0.2 added the graph columns of kernels and copies, read when present.
const SCHEMAS_READ: &str = "3.0.0–3.0.x";

/// Every process of every run in the database.
pub fn read_all(path: &Path) -> Result<Vec<Collected>, ConvertError> {
    // Reading a database in WAL mode makes SQLite create its `-shm` file; one made here is
    // removed when the reading ends, so the input's directory is left as it was.
    let shm = PathBuf::from(format!("{}-shm", path.display()));
    let shm_was_there = shm.exists();
    let out = read_open(path);
    if !shm_was_there {
        let _ = std::fs::remove_file(&shm);
    }
    out
}

fn read_open(path: &Path) -> Result<Vec<Collected>, ConvertError> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| err(path, format!("cannot open the SQLite database: {e}")))?;
    let out = read_conn(path, &conn);
    drop(conn);
    out
}

/// A damaged file's SQLite error as one line a user can act on.
fn sqlite_message(e: &str) -> String {
    if e.contains("malformed") || e.contains("not a database") || e.contains("disk I/O") {
        format!("not a complete SQLite database (a truncated or damaged file?): {e}")
    } else {
        format!("not readable as SQLite: {e}")
    }
}

/// The schema version the runs' `rocpd_metadata` tables state (the first found), refused
/// when it is not one this reader knows.
fn check_schema(conn: &Connection) -> Result<(), String> {
    let tables = conn
        .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' \
             AND name LIKE 'rocpd_metadata%' ORDER BY name",
        )
        .and_then(|mut st| {
            st.query_map([], |r| r.get::<_, String>(0))
                .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
        })
        .map_err(|e| sqlite_message(&e.to_string()))?;
    for t in tables {
        let v: Option<String> = conn
            .query_row(
                &format!("SELECT value FROM \"{t}\" WHERE tag = 'schema_version' LIMIT 1"),
                [],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| sqlite_message(&e.to_string()))?;
        let Some(v) = v else { continue };
        let parts: Vec<&str> = v.trim().split('.').collect();
        let known = match parts[..] {
            ["3"] | ["3", "0"] => true,
            ["3", "0", patch] => patch.parse::<u32>().is_ok(),
            _ => false,
        };
        if !known {
            return Err(format!(
                "rocpd schema {v} not supported (this build reads {SCHEMAS_READ})"
            ));
        }
    }
    Ok(())
}

fn read_conn(path: &Path, conn: &Connection) -> Result<Vec<Collected>, ConvertError> {
    check_schema(conn).map_err(|e| err(path, e))?;
    let runs = run_suffixes(conn).map_err(|e| err(path, e))?;
    if runs.is_empty() {
        return Err(err(
            path,
            "a rocpd database without rocpd_info_process tables (an empty or foreign schema)",
        ));
    }
    let mut out = Vec::new();
    // A large database: a spinner naming the process being read (stderr terminals only).
    let len = std::fs::metadata(path).map_or(0, |m| m.len());
    let bar = super::progress(path, len).inspect(|b| {
        b.set_style(indicatif::ProgressStyle::default_spinner());
        b.enable_steady_tick(std::time::Duration::from_millis(200));
    });
    for sfx in &runs {
        let run = Run { conn, sfx };
        let processes = run.processes().map_err(|e| err(path, e))?;
        for p in processes {
            if let Some(b) = &bar {
                b.set_message(format!("reading process {} of run {sfx}", p.pid));
            }
            out.push(run.process(&p).map_err(|e| err(path, e))?);
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    if out.is_empty() {
        return Err(err(path, "the rocpd database lists no process"));
    }
    Ok(out)
}

/// The table-name suffixes of the runs (`_<uuid>`, or `""` for unsuffixed tables).
fn run_suffixes(conn: &Connection) -> Result<Vec<String>, String> {
    let mut st = conn
        .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' \
             AND name LIKE 'rocpd_info_process%' ORDER BY name",
        )
        .map_err(|e| sqlite_message(&e.to_string()))?;
    let names = st
        .query_map([], |r| r.get::<_, String>(0))
        .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
        .map_err(|e| sqlite_message(&e.to_string()))?;
    Ok(names
        .into_iter()
        .filter_map(|n| n.strip_prefix("rocpd_info_process").map(str::to_string))
        .filter(|s| s.is_empty() || s.starts_with('_'))
        .collect())
}

struct ProcessRow {
    id: i64,
    nid: i64,
    pid: i64,
    start: i64,
    end: i64,
}

struct Run<'a> {
    conn: &'a Connection,
    sfx: &'a str,
}

fn num(v: Option<i64>) -> u64 {
    v.map_or(0, |x| x.max(0) as u64)
}

fn u32_of(v: Option<i64>) -> u32 {
    v.map_or(0, |x| u32::try_from(x).unwrap_or(0))
}

/// The SDK's memory-copy operation ids by their names (1 host→host … 4 device→device).
pub(crate) fn copy_op(name: &str) -> i32 {
    match name {
        "MEMORY_COPY_HOST_TO_HOST" => 1,
        "MEMORY_COPY_HOST_TO_DEVICE" => 2,
        "MEMORY_COPY_DEVICE_TO_HOST" => 3,
        "MEMORY_COPY_DEVICE_TO_DEVICE" => 4,
        _ => 0,
    }
}

impl Run<'_> {
    fn table(&self, name: &str) -> String {
        format!("\"rocpd_{name}{}\"", self.sfx)
    }

    fn has(&self, name: &str) -> bool {
        let t = format!("rocpd_{name}{}", self.sfx);
        self.conn
            .query_row("SELECT 1 FROM sqlite_master WHERE name = ?1", [&t], |_| {
                Ok(())
            })
            .optional()
            .ok()
            .flatten()
            .is_some()
    }

    /// Whether this run's table `name` has column `column` (added by a later schema).
    fn has_column(&self, name: &str, column: &str) -> bool {
        let t = format!("rocpd_{name}{}", self.sfx);
        self.conn
            .prepare(&format!("SELECT * FROM \"{t}\" LIMIT 0"))
            .map(|st| st.column_names().contains(&column))
            .unwrap_or(false)
    }

    /// Runs `sql` (with `{name}` placeholders for this run's tables) and maps each row.
    fn rows<T>(
        &self,
        sql: &str,
        tables: &[&str],
        p: impl rusqlite::Params,
        f: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>, String> {
        let mut q = sql.to_string();
        for t in tables {
            q = q.replace(&format!("{{{t}}}"), &self.table(t));
        }
        let what = tables.first().copied().unwrap_or("?");
        let mut st = self.conn.prepare(&q).map_err(|e| {
            format!(
                "table rocpd_{what}{}: {}",
                self.sfx,
                sqlite_message(&e.to_string())
            )
        })?;
        let rows = st
            .query_map(p, f)
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(|e| {
                format!(
                    "reading rocpd_{what}{}: {}",
                    self.sfx,
                    sqlite_message(&e.to_string())
                )
            });
        rows
    }

    fn processes(&self) -> Result<Vec<ProcessRow>, String> {
        self.rows(
            "SELECT id, nid, pid, coalesce(start, init, 0), coalesce(\"end\", fini, 0) \
             FROM {info_process} ORDER BY id",
            &["info_process"],
            [],
            |r| {
                Ok(ProcessRow {
                    id: r.get(0)?,
                    nid: r.get(1)?,
                    pid: r.get(2)?,
                    start: r.get(3)?,
                    end: r.get(4)?,
                })
            },
        )
    }

    fn strings(&self) -> Result<HashMap<i64, Arc<str>>, String> {
        Ok(self
            .rows("SELECT id, string FROM {string}", &["string"], [], |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
            })?
            .into_iter()
            .map(|(i, s)| (i, Arc::from(s.as_str())))
            .collect())
    }

    fn process(&self, p: &ProcessRow) -> Result<Collected, String> {
        for t in [
            "string",
            "info_node",
            "info_thread",
            "info_agent",
            "info_kernel_symbol",
            "event",
            "region",
            "kernel_dispatch",
        ] {
            if !self.has(t) {
                return Err(format!(
                    "not a complete rocpd database: table rocpd_{t}{} is missing",
                    self.sfx
                ));
            }
        }
        let hostname = self
            .rows(
                "SELECT coalesce(hostname, '') FROM {info_node} WHERE id = ?1",
                &["info_node"],
                [p.nid],
                |r| r.get::<_, String>(0),
            )?
            .into_iter()
            .next()
            .unwrap_or_default();
        let mut b = Builder::new(hostname, u32::try_from(p.pid).unwrap_or(0));
        b.c.start_boottime_ns = num(Some(p.start));
        b.c.stop_boottime_ns = num(Some(p.end));
        let strings = self.strings()?;
        let s = |id: Option<i64>| -> Arc<str> {
            id.and_then(|i| strings.get(&i).cloned())
                .unwrap_or_else(|| Arc::from(""))
        };

        let threads: HashMap<i64, u64> = self
            .rows(
                "SELECT id, tid, coalesce(name, '') FROM {info_thread} WHERE pid = ?1",
                &["info_thread"],
                [p.id],
                |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, i64>(1)?,
                        r.get::<_, String>(2)?,
                    ))
                },
            )?
            .into_iter()
            .map(|(id, tid, name)| {
                if !name.is_empty() {
                    b.c.thread_names.insert(tid as u64, name);
                }
                (id, tid as u64)
            })
            .collect();
        let tid = |row: Option<i64>| row.and_then(|r| threads.get(&r).copied()).unwrap_or(0);

        b.c.agents = self.agents(p.id)?;
        let ordinal = |handle: u64| -> i32 {
            b.c.agents
                .iter()
                .find(|a| a.handle == handle && a.kind == AgentType::Gpu)
                .map_or(-1, |a| a.type_index)
        };
        let ordinals: HashMap<u64, i32> =
            b.c.agents
                .iter()
                .map(|a| (a.handle, ordinal(a.handle)))
                .collect();

        for (id, name, sym) in self.rows(
            "SELECT id, coalesce(kernel_name, display_name, ''), group_segment_size, \
             private_segment_size, sgpr_count, arch_vgpr_count, accum_vgpr_count \
             FROM {info_kernel_symbol} WHERE pid = ?1",
            &["info_kernel_symbol"],
            [p.id],
            |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    KernelSymbol {
                        name: "".into(),
                        group_segment_size: u32_of(r.get(2)?),
                        private_segment_size: u32_of(r.get(3)?),
                        sgpr_count: u32_of(r.get(4)?),
                        arch_vgpr_count: u32_of(r.get(5)?),
                        accum_vgpr_count: u32_of(r.get(6)?),
                    },
                ))
            },
        )? {
            if !name.is_empty() {
                b.symbol(id as u64, &name, sym);
            }
        }

        // HIP call arguments by event id: the stream and event handles of each call.
        let args = self.call_args()?;

        // CPU-side regions: HIP calls and roctx ranges.
        let regions = self.rows(
            "SELECT r.tid, r.start, r.\"end\", r.name_id, e.category_id, e.stack_id, \
             e.correlation_id, e.extdata, r.event_id \
             FROM {region} r LEFT JOIN {event} e ON e.id = r.event_id WHERE r.pid = ?1 \
             ORDER BY r.start, r.id",
            &["region", "event"],
            [p.id],
            |r| {
                Ok((
                    r.get::<_, Option<i64>>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, Option<i64>>(3)?,
                    r.get::<_, Option<i64>>(4)?,
                    r.get::<_, Option<i64>>(5)?,
                    r.get::<_, Option<i64>>(6)?,
                    r.get::<_, Option<String>>(7)?,
                    r.get::<_, Option<i64>>(8)?,
                ))
            },
        )?;
        let mut skipped = 0u64;
        for (t, start, end, name_id, cat, stack, ext, extdata, event_id) in regions {
            let category = s(cat);
            let name = s(name_id);
            let corr = num(stack);
            if category.starts_with("HIP_RUNTIME_API") || category.starts_with("HIP_COMPILER_API") {
                let a = ApiRecord {
                    domain: ApiDomain::Hip,
                    operation: b.hip_op(&name),
                    correlation_id: corr,
                    external_id: num(ext),
                    start_ns: num(Some(start)),
                    end_ns: num(Some(end)),
                    thread_id: tid(t),
                };
                b.hip_call(a, &name, event_id.and_then(|e| args.get(&e)).copied());
            } else if category.starts_with("MARKER_") {
                // roctx calls without text (pop, stop) are skipped: their range carries it.
                if let Some(label) = message(extdata.as_deref()) {
                    b.roctx(&Roctx {
                        op: Some(&name),
                        label: &label,
                        thread_id: tid(t),
                        correlation_id: corr,
                        start_ns: num(Some(start)),
                        end_ns: num(Some(end)),
                    });
                }
            } else {
                skipped += 1;
            }
        }
        if self.has("sample") && self.has("track") {
            for (t, ts, stack, extdata) in self.rows(
                "SELECT k.tid, s.timestamp, e.stack_id, e.extdata FROM {sample} s \
                 JOIN {track} k ON k.id = s.track_id LEFT JOIN {event} e ON e.id = s.event_id \
                 WHERE k.pid = ?1",
                &["sample", "track", "event"],
                [p.id],
                |r| {
                    Ok((
                        r.get::<_, Option<i64>>(0)?,
                        r.get::<_, i64>(1)?,
                        r.get::<_, Option<i64>>(2)?,
                        r.get::<_, Option<String>>(3)?,
                    ))
                },
            )? {
                // A sample is a record without duration; its operation is not stored.
                if let Some(label) = message(extdata.as_deref()) {
                    b.roctx(&Roctx {
                        op: None,
                        label: &label,
                        thread_id: tid(t),
                        correlation_id: num(stack),
                        start_ns: num(Some(ts)),
                        end_ns: num(Some(ts)),
                    });
                }
            }
        }
        b.op_name(ApiDomain::Marker, 0, "roctxMarkA");

        // Schema 3.0.2+: the graph node each dispatch and copy was (0 = not a graph's).
        let graph = |t: &str| {
            if self.has_column(t, "graph_exec_id") && self.has_column(t, "graph_node_id") {
                "x.graph_exec_id, x.graph_node_id"
            } else {
                "0, 0"
            }
        };
        let kernels = self.rows(
            &format!(
                "SELECT x.tid, x.agent_id, x.kernel_id, x.dispatch_id, x.queue_id, x.stream_id, \
                 x.start, x.\"end\", x.private_segment_size, x.group_segment_size, \
                 x.workgroup_size_x, x.workgroup_size_y, x.workgroup_size_z, \
                 x.grid_size_x, x.grid_size_y, x.grid_size_z, e.stack_id, e.correlation_id, {} \
                 FROM {{kernel_dispatch}} x LEFT JOIN {{event}} e ON e.id = x.event_id \
                 WHERE x.pid = ?1 ORDER BY x.start, x.id",
                graph("kernel_dispatch")
            ),
            &["kernel_dispatch", "event"],
            [p.id],
            ints::<20>,
        )?;
        for k in kernels {
            let corr = num(k[16]);
            let agent = num(k[1]);
            b.c.push_kernel(KernelRecord {
                correlation_id: corr,
                external_id: graph_external(num(k[17]), num(k[18]), num(k[19])),
                start_ns: num(k[6]),
                end_ns: num(k[7]),
                thread_id: tid(k[0]),
                agent,
                queue: num(k[4]),
                kernel_id: num(k[2]),
                dispatch_id: num(k[3]),
                private_segment_size: u32_of(k[8]),
                group_segment_size: u32_of(k[9]),
                workgroup: [u32_of(k[10]), u32_of(k[11]), u32_of(k[12])],
                grid: [u32_of(k[13]), u32_of(k[14]), u32_of(k[15])],
                pipe_id: None,
            });
            if corr != 0 {
                b.on_stream(corr, num(k[5]), ordinals.get(&agent).copied().unwrap_or(-1));
            }
        }

        self.counter_values(p, &mut b.c)?;

        if self.has("memory_copy") {
            let copies = self.rows(
                &format!(
                    "SELECT x.tid, x.start, x.\"end\", x.name_id, x.dst_agent_id, \
                     x.src_agent_id, x.size, x.stream_id, e.stack_id, e.correlation_id, {} \
                     FROM {{memory_copy}} x LEFT JOIN {{event}} e ON e.id = x.event_id \
                     WHERE x.pid = ?1 ORDER BY x.start, x.id",
                    graph("memory_copy")
                ),
                &["memory_copy", "event"],
                [p.id],
                ints::<12>,
            )?;
            for m in copies {
                let corr = num(m[8]);
                let (dst, src) = (num(m[4]), num(m[5]));
                b.c.copies.push(CopyRecord {
                    correlation_id: corr,
                    external_id: graph_external(num(m[9]), num(m[10]), num(m[11])),
                    start_ns: num(m[1]),
                    end_ns: num(m[2]),
                    thread_id: tid(m[0]),
                    operation: copy_op(&s(m[3])),
                    dst_agent: dst,
                    src_agent: src,
                    bytes: num(m[6]),
                });
                if corr != 0 {
                    let gpu = [dst, src]
                        .iter()
                        .filter_map(|a| ordinals.get(a).copied())
                        .find(|&o| o >= 0)
                        .unwrap_or(-1);
                    b.on_stream(corr, num(m[7]), gpu);
                }
            }
        }
        if skipped > 0 {
            b.c.warnings.push(format!(
                "{skipped} regions of other kinds (HSA, RCCL, …) in the database were not converted"
            ));
        }
        Ok(b.finish())
    }

    /// The hardware-counter values of the process's dispatches (`rocpd_pmc_event`, linked to a
    /// dispatch by its event id, named by `rocpd_info_pmc`'s `symbol`, else its `name`): one
    /// value per row, as the tool's per-instance values, summed by the join.
    fn counter_values(&self, p: &ProcessRow, c: &mut Collected) -> Result<(), String> {
        if !(self.has("pmc_event") && self.has("info_pmc")) {
            return Ok(());
        }
        let rows = self.rows(
            "SELECT x.dispatch_id, x.agent_id, \
             coalesce(nullif(i.symbol, ''), i.name, ''), p.value \
             FROM {pmc_event} p JOIN {kernel_dispatch} x ON x.event_id = p.event_id \
             JOIN {info_pmc} i ON i.id = p.pmc_id WHERE x.pid = ?1 ORDER BY p.id",
            &["pmc_event", "kernel_dispatch", "info_pmc"],
            [p.id],
            |r| {
                Ok((
                    r.get::<_, Option<i64>>(0)?,
                    r.get::<_, Option<i64>>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, Option<f64>>(3)?,
                ))
            },
        )?;
        let mut names: HashMap<String, Arc<str>> = HashMap::new();
        for (dispatch, agent, name, value) in rows {
            if name.is_empty() {
                continue;
            }
            let counter = names
                .entry(name)
                .or_insert_with_key(|n| Arc::from(n.as_str()))
                .clone();
            c.counter_values.push(CounterValue {
                dispatch_id: num(dispatch),
                agent: num(agent),
                counter,
                value: value.unwrap_or(0.0),
            });
        }
        Ok(())
    }

    /// `stream` and `event` arguments of every call that has them, by event id.
    fn call_args(&self) -> Result<HashMap<i64, CallArgs>, String> {
        let mut out: HashMap<i64, CallArgs> = HashMap::new();
        if !self.has("arg") {
            return Ok(out);
        }
        for (event, name, value) in self.rows(
            "SELECT event_id, name, coalesce(value, '') FROM {arg} \
             WHERE name IN ('stream', 'event', 'deviceId')",
            &["arg"],
            [],
            |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                ))
            },
        )? {
            out.entry(event).or_default().set(&name, &value);
        }
        Ok(out)
    }

    fn agents(&self, pid_row: i64) -> Result<Vec<AgentInfo>, String> {
        let rows = self.rows(
            "SELECT id, coalesce(type, ''), type_index, logical_index, coalesce(name, ''), \
             coalesce(product_name, ''), coalesce(vendor_name, ''), coalesce(extdata, '{}') \
             FROM {info_agent} WHERE pid = ?1 ORDER BY id",
            &["info_agent"],
            [pid_row],
            |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, Option<i64>>(2)?,
                    r.get::<_, Option<i64>>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, String>(5)?,
                    r.get::<_, String>(6)?,
                    r.get::<_, String>(7)?,
                ))
            },
        )?;
        let mut gpus = 0;
        Ok(rows
            .into_iter()
            .map(
                |(id, ty, type_index, logical, name, product, vendor, extdata)| {
                    let x: Value = serde_json::from_str(&extdata).unwrap_or(Value::Null);
                    let xu = |k: &str| x[k].as_u64().unwrap_or(0);
                    let kind = match ty.as_str() {
                        "GPU" => AgentType::Gpu,
                        "CPU" => AgentType::Cpu,
                        _ => AgentType::Other,
                    };
                    let type_index = match kind {
                        AgentType::Gpu => {
                            let i = type_index.or(logical).map_or(gpus, |v| v as i32);
                            gpus += 1;
                            i
                        }
                        _ => -1,
                    };
                    let simds = xu("simd_per_cu") as u32;
                    AgentInfo {
                        handle: id as u64,
                        kind,
                        type_index,
                        node_id: xu("node_id") as u32,
                        name,
                        product_name: product,
                        vendor_name: vendor,
                        cu_count: xu("cu_count") as u32,
                        simd_per_cu: simds,
                        wave_front_size: xu("wave_front_size") as u32,
                        max_waves_per_cu: match xu("max_waves_per_cu") as u32 {
                            0 => xu("max_waves_per_simd") as u32 * simds,
                            n => n,
                        },
                        max_engine_clk_mhz: xu("max_engine_clk_fcompute") as u32,
                        local_mem_bytes: rocprofiler_sdk_sys::gpu_memory_bytes(
                            xu("local_mem_size"),
                            x["mem_banks"].as_array().into_iter().flatten().map(|m| {
                                (
                                    u32::try_from(m["heap_type"].as_u64().unwrap_or(0))
                                        .unwrap_or(u32::MAX),
                                    m["size_in_bytes"].as_u64().unwrap_or(0),
                                )
                            }),
                        ),
                        gfx_target_version: xu("gfx_target_version") as u32,
                    }
                },
            )
            .collect())
    }
}

/// The external id a dispatch or copy carries into the join: its graph node (the tool's
/// tagged word, `model::graph`) when rocpd says it was one (exec id > 0), else its own.
fn graph_external(external: u64, exec_id: u64, node: u64) -> u64 {
    u32::try_from(node)
        .ok()
        .filter(|_| exec_id > 0)
        .and_then(|n| GraphNode::new(exec_id, n))
        .map_or(external, GraphNode::tagged_word)
}

/// The first `N` columns of a row, as nullable integers.
fn ints<const N: usize>(r: &rusqlite::Row<'_>) -> rusqlite::Result<[Option<i64>; N]> {
    let mut out = [None; N];
    for (i, v) in out.iter_mut().enumerate() {
        *v = r.get(i)?;
    }
    Ok(out)
}

/// A roctx text from an event's `extdata` (`{"message": …}`).
fn message(extdata: Option<&str>) -> Option<String> {
    let v: Value = serde_json::from_str(extdata?).ok()?;
    v["message"].as_str().map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_names_and_roctx_texts_as_rocpd_stores_them() {
        assert_eq!(copy_op("MEMORY_COPY_DEVICE_TO_HOST"), 3);
        assert_eq!(copy_op("MEMORY_COPY_NONE"), 0);
        assert_eq!(
            message(Some(r#"{"message":"step 1"}"#)).as_deref(),
            Some("step 1")
        );
        assert_eq!(message(Some("{}")), None);
        assert_eq!(message(Some("not json")), None);
    }
}
